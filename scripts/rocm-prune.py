#!/usr/bin/env python3
"""Unpacks ROCm packages into a sysroot keeping only the GPU code of the
targets the tests use (scripts/rocm-runtimes.sh calls it).

ROCm's math libraries carry machine code for a dozen GPU targets, and the
tests here use two (hip-emu's gfx942 and gfx1100): rocBLAS 6.4 alone
unpacks to 4.2 GB, of which 2.6 GB are Tensile kernel files of other
targets and most of a 1 GB library is other targets' code objects. CI runs
on machines with a few GB of free disk, so the sysroots keep only what
runs.

  rocm-prune.py extract DEB DEST TARGETS
      Unpacks DEB into DEST, as `dpkg -x` does, leaving out each file under
      usr/lib whose name names a GPU target (`..._gfx90a.co`,
      `TensileLibrary_lazy_gfx908.dat`) not among TARGETS. Then, in each
      ELF library it unpacked, it finds the uncompressed offload bundles of
      the `.hip_fatbin` section and releases the disk blocks of each entry
      for a target not among TARGETS (FALLOC_FL_PUNCH_HOLE: the file keeps
      its size and layout, the entry reads as zeros). The bundle's header
      is kept, so a runtime choosing its target's entry reads what it
      always did; nothing reads another target's entry. A compressed
      bundle (CCOB) is inflated, written again in place with the kept
      entries only (same version and method; zstd's by the `zstd` program,
      without which they stay whole), and the rest of its old extent
      released.

TARGETS is a comma or space list (`gfx942,gfx1100`). It prints one line
per package it pruned, saying what it left out. Exit status 2 on bad usage, 1 when a
package cannot be read or a bundle header is malformed.
"""

import ctypes
import ctypes.util
import mmap
import os
import re
import shutil
import struct
import subprocess
import sys
import tarfile
import zlib

GFX = re.compile(r"gfx[0-9a-f]+")
BUNDLE_MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"
FALLOC_FL_KEEP_SIZE = 1
FALLOC_FL_PUNCH_HOLE = 2


def targets_of(arg):
    t = {x for x in re.split(r"[,\s]+", arg) if x}
    if not t or not all(GFX.fullmatch(x) for x in t):
        sys.exit(f"rocm-prune: TARGETS must name gfx targets, got {arg!r}")
    return t


def other_target(path, keep):
    """The GPU target a library data file under usr/lib is for, when it is
    not one to keep; None for every other file."""
    if not path.lstrip("./").startswith("usr/lib/"):
        return None
    named = GFX.findall(os.path.basename(path))
    if named and not any(n in keep for n in named):
        return named[0]
    return None


def extract(deb, dest, keep):
    """Unpacks, then releases other targets' code in each library unpacked
    (`punch_file`), so that no more than one package's worth of other
    targets' code is ever on the disk."""
    fallocate = libc_fallocate()
    shrink = shutil.which("zstd") is not None
    libraries = []
    os.makedirs(dest, exist_ok=True)
    proc = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", deb], stdout=subprocess.PIPE)
    left, left_bytes = 0, 0
    with tarfile.open(fileobj=proc.stdout, mode="r|") as tar:
        for member in tar:
            if member.isfile() and other_target(member.name, keep):
                left += 1
                left_bytes += member.size
                continue
            # Debian packages hold no absolute or parent-relative paths
            # (dpkg refuses them); the legacy filter keeps links as they are.
            if hasattr(tarfile, "fully_trusted_filter"):
                tar.extract(member, dest, filter="fully_trusted")
            else:
                tar.extract(member, dest)
            if member.isfile() and ".so" in os.path.basename(member.name):
                libraries.append(os.path.join(dest, member.name))
    proc.stdout.close()
    if proc.wait() != 0:
        sys.exit(f"rocm-prune: dpkg-deb could not read {deb}")
    regions, released = 0, 0
    for path in libraries:
        n, r = punch_file(path, keep, fallocate, shrink)
        regions += n
        released += r
    if left or regions:
        print(f"rocm-prune: {os.path.basename(deb)}: left out {left} kernel files "
              f"of other targets ({left_bytes >> 20} MiB), released {regions} "
              f"offload-bundle regions of theirs ({released >> 20} MiB)")


def fatbin_range(m):
    """(offset, size) of the `.hip_fatbin` section of the ELF in `m`, or None."""
    if m[:4] != b"\x7fELF" or m[4] != 2 or m[5] != 1:
        return None
    shoff, = struct.unpack_from("<Q", m, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", m, 0x3A)
    if shoff == 0 or shnum == 0 or shoff + shnum * shentsize > len(m):
        return None
    def section(i):
        return struct.unpack_from("<IIQQQQ", m, shoff + i * shentsize)
    _, _, _, _, str_off, str_size = section(shstrndx)
    for i in range(shnum):
        name, kind, _, _, off, size = section(i)
        end = m.find(b"\0", str_off + name, str_off + str_size)
        if m[str_off + name:end] == b".hip_fatbin" and kind != 8:
            return off, size
    return None


def keep_entry(ident, keep):
    """Whether a bundle entry stays: the host's, and those for a kept target."""
    named = GFX.findall(ident.split("--", 1)[-1])
    return not named or named[0] in keep


def bundle_entries(b, pos, path):
    """[(offset from the bundle, size, id)] of the uncompressed bundle at `pos`."""
    n, = struct.unpack_from("<Q", b, pos + 24)
    if n > 4096:
        sys.exit(f"rocm-prune: {path}: the offload bundle at {pos:#x} claims {n} entries")
    at, out = pos + 32, []
    for _ in range(n):
        off, esize, id_len = struct.unpack_from("<QQQ", b, at)
        out.append((off, esize, bytes(b[at + 24:at + 24 + id_len]).decode("ascii", "replace")))
        at += 24 + id_len
    return out, at


def run_zstd(args, data):
    return subprocess.run(["zstd", "-q", "-c", *args], input=data, stdout=subprocess.PIPE,
                          check=True).stdout


def shrink_ccob(m, pos, version, total, keep, path):
    """A compressed bundle (CCOB) at `pos` holding only the kept entries, as
    the same version and method writes it, when that is smaller; else None.
    Its hash (a cache key of the uncompressed bytes) is kept as it was."""
    method, = struct.unpack_from("<H", m, pos + 6)
    if version == 2:
        header, (size,), (hsh,) = 24, struct.unpack_from("<I", m, pos + 12), struct.unpack_from("<Q", m, pos + 16)
    else:
        header, (size,), (hsh,) = 32, struct.unpack_from("<Q", m, pos + 16), struct.unpack_from("<Q", m, pos + 24)
    data = bytes(m[pos + header:pos + total])
    if method == 0:
        inner = zlib.decompress(data)
    elif method == 1:
        inner = run_zstd(["-d"], data)
    else:
        return None
    if len(inner) != size or not inner.startswith(BUNDLE_MAGIC):
        sys.exit(f"rocm-prune: {path}: the compressed bundle at {pos:#x} does not inflate to a bundle")
    entries, _ = bundle_entries(inner, 0, path)
    kept = [e for e in entries if keep_entry(e[2], keep)]
    if len(kept) == len(entries):
        return None
    # The same layout clang writes: the header, then each entry 4096-aligned.
    head_len = 32 + sum(24 + len(ident) for _, _, ident in kept)
    at, heads, body = head_len, [], bytearray()
    for off, esize, ident in kept:
        pad = (-at) % 4096 if esize else 0
        body += b"\0" * pad
        at += pad
        heads.append(struct.pack("<QQQ", at, esize, len(ident)) + ident.encode())
        body += inner[off:off + esize]
        at += esize
    bundle = BUNDLE_MAGIC + struct.pack("<Q", len(kept)) + b"".join(heads) + bytes(body)
    packed = zlib.compress(bundle, 9) if method == 0 else run_zstd(["-9"], bundle)
    if version == 2:
        new = b"CCOB" + struct.pack("<HHIIQ", 2, method, 24 + len(packed), len(bundle), hsh) + packed
    else:
        new = b"CCOB" + struct.pack("<HHQQQ", 3, method, 32 + len(packed), len(bundle), hsh) + packed
    return new if len(new) < total else None


def walk_fatbin(m, pos, end, keep, path, shrink):
    """What to release in the bundles laid end to end (zero padding between
    them) from `pos` to `end`: (offset, size) of every uncompressed entry for
    another target; (offset, new bytes, old size) of every compressed bundle
    rewritten without them (when `shrink`); and a note when the walk had to
    stop early. The walk follows the layout rather than searching for the
    magic, which compressed data can hold."""
    holes, rewrites = [], []
    while pos < end:
        if m[pos] == 0:
            pos += 1
            continue
        if m[pos:pos + 24] == BUNDLE_MAGIC:
            entries, bundle_end = bundle_entries(m, pos, path)
            for off, esize, ident in entries:
                if pos + off + esize > end:
                    sys.exit(f"rocm-prune: {path}: bundle entry {ident} at {pos:#x} runs past .hip_fatbin")
                bundle_end = max(bundle_end, pos + off + esize)
                if esize and not keep_entry(ident, keep):
                    holes.append((pos + off, esize))
            pos = bundle_end
        elif m[pos:pos + 4] == b"CCOB":
            version, = struct.unpack_from("<H", m, pos + 4)
            if version == 2:
                total, = struct.unpack_from("<I", m, pos + 8)
            elif version == 3:
                total, = struct.unpack_from("<Q", m, pos + 8)
            else:
                return holes, rewrites, f"a version {version} compressed bundle at {pos:#x} (no size): the rest kept"
            if pos + total > end:
                sys.exit(f"rocm-prune: {path}: the compressed bundle at {pos:#x} runs past .hip_fatbin")
            new = shrink_ccob(m, pos, version, total, keep, path) if shrink else None
            if new is not None:
                rewrites.append((pos, new, total))
            pos += max(total, 1)
        else:
            return holes, rewrites, f"unknown bytes at {pos:#x}: the rest kept"
    return holes, rewrites, None


def punch_file(path, keep, fallocate, shrink):
    with open(path, "r+b") as f:
        size = os.fstat(f.fileno()).st_size
        if size < 64:
            return 0, 0
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
            found = fatbin_range(m)
            if not found:
                return 0, 0
            start, length = found
            holes, rewrites, note = walk_fatbin(m, start, start + length, keep, path, shrink)
        if note:
            print(f"rocm-prune: {path}: {note}")
        for off, new, old in rewrites:
            f.seek(off)
            f.write(new)
            holes.append((off + len(new), old - len(new)))
        f.flush()
        released = 0
        for off, esize in holes:
            if fallocate(f.fileno(), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                         ctypes.c_int64(off), ctypes.c_int64(esize)) != 0:
                err = ctypes.get_errno()
                sys.exit(f"rocm-prune: {path}: could not release {esize} bytes at {off:#x}: "
                         f"{os.strerror(err)}")
            released += esize
        return len(holes), released


def libc_fallocate():
    """libc's fallocate(2), through ctypes."""
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    fallocate = libc.fallocate
    fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64]
    return fallocate


def main(argv):
    if len(argv) == 5 and argv[1] == "extract":
        extract(argv[2], argv[3], targets_of(argv[4]))
    else:
        print("usage: rocm-prune.py extract DEB DEST TARGETS", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
