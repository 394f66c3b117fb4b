/* bcryptprimitives.dll for Wine 8.0, which lacks it.
 *
 * Why it exists: Rust's standard library for x86_64-pc-windows-gnu (1.78
 * and later) takes its random bytes (HashMap seeds) from ProcessPrng in
 * bcryptprimitives.dll, and Wine 8.0 (Debian 12) has no such DLL, so every
 * Rust test executable fails to start under it (status c0000135, a DLL not
 * found). scripts/wine-tier.sh builds this file into the Wine prefix's
 * system32 folder (never beside the test executables, whose folders must
 * hold only what a test puts there). RtlGenRandom (SystemFunction036 of
 * advapi32) is the older system call with the same contract. */
#include <windows.h>
#include <ntsecapi.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
    while (len > 0) {
        ULONG chunk = len > 0x10000000 ? 0x10000000 : (ULONG)len;
        if (!RtlGenRandom(data, chunk))
            return FALSE;
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}
