/* Reads AMD code objects with ROCm's own reader, libamd_comgr (the library
 * the HIP runtime loads code objects with), as scripts/candle.sh amd does in
 * the ROCm 6.4 sysroot: no GPU is needed.
 *
 * Usage: comgr-check LIBAMD_COMGR FILE.co...   (files named MODULE.TARGET.co)
 * For each file: comgr must accept it as an executable, name the ISA of
 * its TARGET, and list its kernels in the metadata, each with the wavefront
 * size of the target's family: 64 on gfx9 (GCN/CDNA), 32 on gfx10 and later
 * (RDNA, wave32 being what the drop-in compiles for). One line per file;
 * exits 1 on any mismatch. */
#include <amd_comgr.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FN(name) static __typeof__(&name) p_##name;
FN(amd_comgr_create_data)
FN(amd_comgr_set_data)
FN(amd_comgr_get_data_isa_name)
FN(amd_comgr_get_data_metadata)
FN(amd_comgr_metadata_lookup)
FN(amd_comgr_get_metadata_list_size)
FN(amd_comgr_index_list_metadata)
FN(amd_comgr_get_metadata_string)
FN(amd_comgr_destroy_metadata)
FN(amd_comgr_release_data)

static int failures;

static void fail(const char *file, const char *what) {
  printf("comgr-check: FAILED %s: %s\n", file, what);
  failures++;
}

/* The string value of KEY in MAP, into BUF; 0 on success. */
static int lookup_string(amd_comgr_metadata_node_t map, const char *key, char *buf, size_t cap) {
  amd_comgr_metadata_node_t v;
  size_t n = 0;
  if (p_amd_comgr_metadata_lookup(map, key, &v)) return 1;
  int bad = p_amd_comgr_get_metadata_string(v, &n, NULL) || n > cap ||
            p_amd_comgr_get_metadata_string(v, &n, buf);
  p_amd_comgr_destroy_metadata(v);
  return bad;
}

static char *slurp(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc(n > 0 ? (size_t)n : 1);
  *size = fread(buf, 1, (size_t)n, f);
  fclose(f);
  return buf;
}

static void check(const char *path) {
  /* MODULE.TARGET.co: the target is between the last two dots. */
  const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  char target[128] = "";
  const char *end = strrchr(base, '.');
  const char *dot = end;
  while (dot > base && dot[-1] != '.') dot--;
  if (!end || dot == base || (size_t)(end - dot) >= sizeof target) {
    fail(path, "name is not MODULE.TARGET.co");
    return;
  }
  memcpy(target, dot, (size_t)(end - dot));
  target[end - dot] = 0;
  size_t size = 0;
  char *bytes = slurp(path, &size);
  if (!bytes) {
    fail(path, "cannot read");
    return;
  }
  amd_comgr_data_t data;
  if (p_amd_comgr_create_data(AMD_COMGR_DATA_KIND_EXECUTABLE, &data) ||
      p_amd_comgr_set_data(data, size, bytes)) {
    fail(path, "comgr refused the bytes");
    free(bytes);
    return;
  }
  char isa[256] = "";
  size_t n = sizeof isa;
  if (p_amd_comgr_get_data_isa_name(data, &n, isa)) {
    fail(path, "no ISA name");
  } else {
    /* amdgcn-amd-amdhsa--gfx90a[:features] */
    const char *proc = strstr(isa, "--");
    proc = proc ? proc + 2 : isa;
    size_t len = strcspn(target, ":");
    if (strncmp(proc, target, len) != 0 || (proc[len] != 0 && proc[len] != ':'))
      fail(path, "the ISA is not the file's target");
  }
  amd_comgr_metadata_node_t meta, kernels;
  size_t count = 0;
  int expected_wave = strncmp(target, "gfx9", 4) == 0 ? 64 : 32;
  int wrong_wave = 0, named = 0;
  if (p_amd_comgr_get_data_metadata(data, &meta)) {
    fail(path, "no metadata");
  } else {
    if (p_amd_comgr_metadata_lookup(meta, "amdhsa.kernels", &kernels) ||
        p_amd_comgr_get_metadata_list_size(kernels, &count)) {
      count = 0;
    } else {
      for (size_t i = 0; i < count; i++) {
        amd_comgr_metadata_node_t k;
        char name[1024], wave[16];
        if (p_amd_comgr_index_list_metadata(kernels, i, &k)) continue;
        if (!lookup_string(k, ".name", name, sizeof name)) named++;
        if (lookup_string(k, ".wavefront_size", wave, sizeof wave) || atoi(wave) != expected_wave) {
          if (!wrong_wave) printf("comgr-check: %s: kernel %s has wavefront size %s, expected %d\n",
                                  path, name, wave, expected_wave);
          wrong_wave++;
        }
        p_amd_comgr_destroy_metadata(k);
      }
      p_amd_comgr_destroy_metadata(kernels);
    }
    p_amd_comgr_destroy_metadata(meta);
  }
  if (named != (int)count) fail(path, "a kernel without a name in the metadata");
  if (wrong_wave) fail(path, "kernels with the wrong wavefront size");
  printf("comgr-check: %s: isa %s, %zu kernels, wavefront %d%s\n", base, isa, count, expected_wave,
         wrong_wave ? " (MISMATCH)" : "");
  p_amd_comgr_release_data(data);
  free(bytes);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: comgr-check LIBAMD_COMGR FILE.co...\n");
    return 2;
  }
  void *lib = dlopen(argv[1], RTLD_NOW);
  if (!lib) {
    printf("comgr-check: FAILED: %s\n", dlerror());
    return 1;
  }
#define LOAD(name) \
  if (!(p_##name = (__typeof__(&name))dlsym(lib, #name))) { printf("comgr-check: FAILED: no %s\n", #name); return 1; }
  LOAD(amd_comgr_create_data)
  LOAD(amd_comgr_set_data)
  LOAD(amd_comgr_get_data_isa_name)
  LOAD(amd_comgr_get_data_metadata)
  LOAD(amd_comgr_metadata_lookup)
  LOAD(amd_comgr_get_metadata_list_size)
  LOAD(amd_comgr_index_list_metadata)
  LOAD(amd_comgr_get_metadata_string)
  LOAD(amd_comgr_destroy_metadata)
  LOAD(amd_comgr_release_data)
  for (int i = 2; i < argc; i++) check(argv[i]);
  printf("comgr-check: %d files, %d failures\n", argc - 2, failures);
  return failures ? 1 : 0;
}
