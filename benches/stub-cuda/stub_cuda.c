/* A CUDA stand-in for measuring host cost without a GPU.
 *
 * scripts/host-cost.sh builds it as libcuda.so.1, with libcudart.so.13
 * and libnvrtc.so.13 as empty libraries that depend on it. It answers the
 * driver, runtime and nvrtc calls of an allocate/launch/free loop through
 * cudarc's API (real cudarc or cuda-compat) or hip's own (per_op), with
 * one device, host memory as "device" memory and no work done, except
 * that the kernel named `scale_plus_one` (benches/cudarc/per_op.rs,
 * benches/src/bin/per_op.rs) runs on the host so that the benchmarks' own
 * checks pass. Every call is counted; with STUB_CUDA_COUNTS=FILE set, the
 * counts are appended there at exit, one "name count" line each. Nothing
 * here is NVIDIA's code: the signatures are the documented C API, with
 * handles as opaque pointers.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

/* ---- call counting ---------------------------------------------------- */
#define MAX_NAMES 256
static const char *names[MAX_NAMES];
static unsigned long long counts[MAX_NAMES];
static int used;

static void count(const char *name) {
    for (int i = 0; i < used; i++) {
        if (names[i] == name) {
            counts[i]++;
            return;
        }
    }
    if (used < MAX_NAMES) {
        names[used] = name;
        counts[used++] = 1;
    }
}

__attribute__((destructor)) static void write_counts(void) {
    const char *path = getenv("STUB_CUDA_COUNTS");
    if (!path || !*path) return;
    FILE *f = fopen(path, "a");
    if (!f) return;
    for (int i = 0; i < used; i++) fprintf(f, "%s %llu\n", names[i], counts[i]);
    fclose(f);
}

#define CALL count(__func__)

/* ---- one device, one context ------------------------------------------ */
static int ctx_object;
static void *const CTX = &ctx_object;
static __thread void *current_ctx;
static __thread int current_device;

static int attribute(int attr) {
    switch (attr) {
    case 1: return 1024;          /* max threads per block */
    case 2: case 3: return 1024;  /* max block x, y */
    case 4: return 64;            /* max block z */
    case 5: return 2147483647;    /* max grid x */
    case 6: case 7: return 65535; /* max grid y, z */
    case 8: return 49152;         /* shared memory per block */
    case 9: return 65536;         /* constant memory */
    case 10: return 32;           /* warp size */
    case 12: return 65536;        /* registers per block */
    case 13: return 1980000;      /* clock kHz */
    case 16: return 132;          /* multiprocessors */
    case 36: return 2619000;      /* memory clock kHz */
    case 37: return 5120;         /* memory bus width */
    case 38: return 52428800;     /* L2 bytes */
    case 39: return 2048;         /* threads per multiprocessor */
    case 75: return 9;            /* compute capability major */
    case 76: return 0;            /* minor */
    case 81: return 233472;       /* shared memory per multiprocessor */
    case 97: return 232448;       /* shared memory per block, opt-in */
    default: return 1;
    }
}

CUresult cuInit(unsigned flags) { (void)flags; CALL; return 0; }
CUresult cuDriverGetVersion(int *v) { CALL; *v = 13000; return 0; }
CUresult cuDeviceGetCount(int *n) { CALL; *n = 1; return 0; }
CUresult cuDeviceGet(int *d, int ordinal) { CALL; if (ordinal != 0) return 101; *d = 0; return 0; }
CUresult cuDeviceGetAttribute(int *v, int attr, int dev) { (void)dev; CALL; *v = attribute(attr); return 0; }
CUresult cuDeviceGetName(char *name, int len, int dev) {
    (void)dev; CALL; snprintf(name, (size_t)len, "stub-cuda"); return 0;
}
CUresult cuDeviceGetUuid(char *uuid, int dev) { (void)dev; CALL; memset(uuid, 7, 16); return 0; }
CUresult cuDeviceGetUuid_v2(char *uuid, int dev) { (void)dev; CALL; memset(uuid, 7, 16); return 0; }
CUresult cuDeviceTotalMem_v2(size_t *b, int dev) { (void)dev; CALL; *b = (size_t)80 << 30; return 0; }
CUresult cuDevicePrimaryCtxRetain(void **c, int dev) { (void)dev; CALL; *c = CTX; return 0; }
CUresult cuDevicePrimaryCtxRelease_v2(int dev) { (void)dev; CALL; return 0; }
CUresult cuDevicePrimaryCtxRelease(int dev) { (void)dev; CALL; return 0; }
CUresult cuDevicePrimaryCtxGetState(int dev, unsigned *flags, int *active) {
    (void)dev; CALL; *flags = 0; *active = 1; return 0;
}
CUresult cuDevicePrimaryCtxSetFlags_v2(int dev, unsigned flags) { (void)dev; (void)flags; CALL; return 0; }
CUresult cuCtxSetCurrent(void *c) { CALL; current_ctx = c; return 0; }
CUresult cuCtxGetCurrent(void **c) { CALL; *c = current_ctx; return 0; }
CUresult cuCtxGetDevice(int *d) { CALL; *d = 0; return 0; }
CUresult cuCtxSynchronize(void) { CALL; return 0; }
CUresult cuCtxPushCurrent_v2(void *c) { CALL; current_ctx = c; return 0; }
CUresult cuCtxPopCurrent_v2(void **c) { CALL; if (c) *c = current_ctx; return 0; }
CUresult cuCtxGetApiVersion(void *c, unsigned *v) { (void)c; CALL; *v = 13000; return 0; }
CUresult cuCtxGetFlags(unsigned *f) { CALL; *f = 0; return 0; }

static int stream_objects[1024];
static int next_stream;
CUresult cuStreamCreate(void **s, unsigned flags) {
    (void)flags; CALL; *s = &stream_objects[next_stream++ % 1024]; return 0;
}
CUresult cuStreamCreateWithPriority(void **s, unsigned flags, int p) {
    (void)flags; (void)p; CALL; *s = &stream_objects[next_stream++ % 1024]; return 0;
}
CUresult cuStreamDestroy_v2(void *s) { (void)s; CALL; return 0; }
CUresult cuStreamSynchronize(void *s) { (void)s; CALL; return 0; }
CUresult cuStreamQuery(void *s) { (void)s; CALL; return 0; }
CUresult cuStreamWaitEvent(void *s, void *e, unsigned f) { (void)s; (void)e; (void)f; CALL; return 0; }
CUresult cuStreamIsCapturing(void *s, int *status) { (void)s; CALL; *status = 0; return 0; }
CUresult cuStreamGetCtx(void *s, void **c) { (void)s; CALL; *c = CTX; return 0; }

static int event_objects[1024];
static int next_event;
CUresult cuEventCreate(void **e, unsigned flags) {
    (void)flags; CALL; *e = &event_objects[next_event++ % 1024]; return 0;
}
CUresult cuEventRecord(void *e, void *s) { (void)e; (void)s; CALL; return 0; }
CUresult cuEventRecordWithFlags(void *e, void *s, unsigned f) { (void)e; (void)s; (void)f; CALL; return 0; }
CUresult cuEventSynchronize(void *e) { (void)e; CALL; return 0; }
CUresult cuEventQuery(void *e) { (void)e; CALL; return 0; }
CUresult cuEventDestroy_v2(void *e) { (void)e; CALL; return 0; }
CUresult cuEventElapsedTime(float *ms, void *a, void *b) { (void)a; (void)b; CALL; *ms = 0; return 0; }

static CUdeviceptr host_alloc(size_t bytes) { return (CUdeviceptr)(uintptr_t)malloc(bytes ? bytes : 1); }
CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t b) { CALL; *p = host_alloc(b); return 0; }
CUresult cuMemFree_v2(CUdeviceptr p) { CALL; free((void *)(uintptr_t)p); return 0; }
CUresult cuMemAllocAsync(CUdeviceptr *p, size_t b, void *s) { (void)s; CALL; *p = host_alloc(b); return 0; }
CUresult cuMemFreeAsync(CUdeviceptr p, void *s) { (void)s; CALL; free((void *)(uintptr_t)p); return 0; }
CUresult cuMemAllocHost_v2(void **p, size_t b) { CALL; *p = malloc(b ? b : 1); return 0; }
CUresult cuMemHostAlloc(void **p, size_t b, unsigned f) { (void)f; CALL; *p = malloc(b ? b : 1); return 0; }
CUresult cuMemFreeHost(void *p) { CALL; free(p); return 0; }
CUresult cuMemGetInfo_v2(size_t *f, size_t *t) { CALL; *f = (size_t)79 << 30; *t = (size_t)80 << 30; return 0; }
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *h, size_t b, void *s) {
    (void)s; CALL; memcpy((void *)(uintptr_t)d, h, b); return 0;
}
CUresult cuMemcpyDtoHAsync_v2(void *h, CUdeviceptr d, size_t b, void *s) {
    (void)s; CALL; memcpy(h, (void *)(uintptr_t)d, b); return 0;
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr src, size_t b, void *s) {
    (void)s; CALL; memmove((void *)(uintptr_t)d, (void *)(uintptr_t)src, b); return 0;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *h, size_t b) { CALL; memcpy((void *)(uintptr_t)d, h, b); return 0; }
CUresult cuMemcpyDtoH_v2(void *h, CUdeviceptr d, size_t b) { CALL; memcpy(h, (void *)(uintptr_t)d, b); return 0; }
CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, void *s) {
    (void)s; CALL; memset((void *)(uintptr_t)d, v, n); return 0;
}
CUresult cuPointerGetAttribute(void *data, int attr, CUdeviceptr p) { (void)data; (void)attr; (void)p; CALL; return 1; }

/* Modules and functions: a function remembers its name. */
struct function { char name[128]; };
static int module_object;
CUresult cuModuleLoadData(void **m, const void *image) { (void)image; CALL; *m = &module_object; return 0; }
CUresult cuModuleLoadDataEx(void **m, const void *image, unsigned n, void *o, void *v) {
    (void)image; (void)n; (void)o; (void)v; CALL; *m = &module_object; return 0;
}
CUresult cuModuleUnload(void *m) { (void)m; CALL; return 0; }
CUresult cuModuleGetFunction(void **f, void *m, const char *name) {
    (void)m; CALL;
    struct function *fn = calloc(1, sizeof *fn);
    snprintf(fn->name, sizeof fn->name, "%s", name);
    *f = fn;
    return 0;
}
CUresult cuFuncGetAttribute(int *v, int attr, void *f) { (void)attr; (void)f; CALL; *v = 0; return 0; }
CUresult cuFuncSetAttribute(void *f, int attr, int v) { (void)f; (void)attr; (void)v; CALL; return 0; }
CUresult cuFuncGetName(const char **name, void *f) { CALL; *name = ((struct function *)f)->name; return 0; }

CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned shared, void *s, void **params, void **extra) {
    (void)gy; (void)gz; (void)by; (void)bz; (void)shared; (void)s; (void)extra; CALL;
    struct function *fn = f;
    if (strcmp(fn->name, "scale_plus_one") == 0 && params) {
        float *y = (float *)(uintptr_t) * (CUdeviceptr *)params[0];
        const float *x = (const float *)(uintptr_t) * (CUdeviceptr *)params[1];
        float a = *(float *)params[2];
        unsigned n = *(unsigned *)params[3];
        unsigned total = gx * bx;
        for (unsigned i = 0; i < n && i < total; i++) y[i] = a * x[i] + 1.0f;
    }
    return 0;
}

CUresult cuGetErrorString(CUresult e, const char **s) { (void)e; CALL; *s = "stub-cuda error"; return 0; }
CUresult cuGetErrorName(CUresult e, const char **s) { (void)e; CALL; *s = "STUB_CUDA_ERROR"; return 0; }

/* ---- the runtime -------------------------------------------------------- */
int cudaRuntimeGetVersion(int *v) { CALL; *v = 13000; return 0; }
int cudaDriverGetVersion(int *v) { CALL; *v = 13000; return 0; }
int cudaGetDeviceCount(int *n) { CALL; *n = 1; return 0; }
int cudaGetDevice(int *d) { CALL; *d = current_device; return 0; }
int cudaSetDevice(int d) { CALL; if (d != 0) return 101; current_device = d; current_ctx = CTX; return 0; }
int cudaFree(void *p) {
    CALL; if (!current_ctx) current_ctx = CTX; free(p); return 0;
}
int cudaMalloc(void **p, size_t b) { CALL; *p = malloc(b ? b : 1); return 0; }
int cudaMallocAsync(void **p, size_t b, void *s) { (void)s; CALL; *p = malloc(b ? b : 1); return 0; }
int cudaFreeAsync(void *p, void *s) { (void)s; CALL; free(p); return 0; }
int cudaHostAlloc(void **p, size_t b, unsigned f) { (void)f; CALL; *p = malloc(b ? b : 1); return 0; }
int cudaMallocHost(void **p, size_t b) { CALL; *p = malloc(b ? b : 1); return 0; }
int cudaFreeHost(void *p) { CALL; free(p); return 0; }
int cudaMemcpyAsync(void *d, const void *s, size_t b, int kind, void *st) {
    (void)kind; (void)st; CALL; memmove(d, s, b); return 0;
}
int cudaMemcpy(void *d, const void *s, size_t b, int kind) { (void)kind; CALL; memmove(d, s, b); return 0; }
int cudaMemsetAsync(void *d, int v, size_t b, void *s) { (void)s; CALL; memset(d, v, b); return 0; }
int cudaStreamSynchronize(void *s) { (void)s; CALL; return 0; }
int cudaStreamCreateWithFlags(void **s, unsigned f) {
    (void)f; CALL; *s = &stream_objects[next_stream++ % 1024]; return 0;
}
int cudaStreamCreateWithPriority(void **s, unsigned f, int p) {
    (void)f; (void)p; CALL; *s = &stream_objects[next_stream++ % 1024]; return 0;
}
int cudaDeviceGetStreamPriorityRange(int *least, int *greatest) { CALL; *least = 0; *greatest = -5; return 0; }
int cudaStreamCreate(void **s) { CALL; *s = &stream_objects[next_stream++ % 1024]; return 0; }
int cudaStreamDestroy(void *s) { (void)s; CALL; return 0; }
int cudaStreamQuery(void *s) { (void)s; CALL; return 0; }
int cudaStreamWaitEvent(void *s, void *e, unsigned f) { (void)s; (void)e; (void)f; CALL; return 0; }
int cudaStreamIsCapturing(void *s, int *st) { (void)s; CALL; *st = 0; return 0; }
int cudaEventCreateWithFlags(void **e, unsigned f) {
    (void)f; CALL; *e = &event_objects[next_event++ % 1024]; return 0;
}
int cudaEventCreate(void **e) { CALL; *e = &event_objects[next_event++ % 1024]; return 0; }
int cudaEventRecord(void *e, void *s) { (void)e; (void)s; CALL; return 0; }
int cudaEventSynchronize(void *e) { (void)e; CALL; return 0; }
int cudaEventDestroy(void *e) { (void)e; CALL; return 0; }
int cudaDeviceSynchronize(void) { CALL; return 0; }
int cudaDeviceGetAttribute(int *v, int attr, int dev) { (void)dev; CALL; *v = attribute(attr); return 0; }
int cudaGetLastError(void) { CALL; return 0; }
int cudaPeekAtLastError(void) { CALL; return 0; }
int cudaSetDeviceFlags(unsigned f) { (void)f; CALL; return 0; }
int cudaGetDeviceFlags(unsigned *f) { CALL; *f = 0; return 0; }
int cudaMemGetInfo(size_t *f, size_t *t) { CALL; *f = (size_t)79 << 30; *t = (size_t)80 << 30; return 0; }
int cudaDeviceGetDefaultMemPool(void **p, int d) { (void)d; CALL; *p = CTX; return 0; }
int cudaMemPoolSetAttribute(void *p, int a, void *v) { (void)p; (void)a; (void)v; CALL; return 0; }
int cudaMemPoolGetAttribute(void *p, int a, void *v) { (void)p; (void)a; memset(v, 0, 8); CALL; return 0; }
const char *cudaGetErrorString(int e) { (void)e; CALL; return "stub-cuda error"; }
const char *cudaGetErrorName(int e) { (void)e; CALL; return "cudaErrorStub"; }

/* ---- nvrtc -------------------------------------------------------------- */
static const char STUB_PTX[] = "// stub-cuda PTX\n.version 8.0\n.target sm_90\n.address_size 64\n";
int nvrtcVersion(int *major, int *minor) { CALL; *major = 13; *minor = 0; return 0; }
int nvrtcCreateProgram(void **p, const char *src, const char *name, int n, const char *const *h,
                       const char *const *hn) {
    (void)src; (void)name; (void)n; (void)h; (void)hn; CALL; *p = malloc(1); return 0;
}
int nvrtcCompileProgram(void *p, int n, const char *const *o) { (void)p; (void)n; (void)o; CALL; return 0; }
int nvrtcGetPTXSize(void *p, size_t *s) { (void)p; CALL; *s = sizeof STUB_PTX; return 0; }
int nvrtcGetPTX(void *p, char *ptx) { (void)p; CALL; memcpy(ptx, STUB_PTX, sizeof STUB_PTX); return 0; }
int nvrtcGetCUBINSize(void *p, size_t *s) { (void)p; CALL; *s = sizeof STUB_PTX; return 0; }
int nvrtcGetCUBIN(void *p, char *c) { (void)p; CALL; memcpy(c, STUB_PTX, sizeof STUB_PTX); return 0; }
int nvrtcGetProgramLogSize(void *p, size_t *s) { (void)p; CALL; *s = 1; return 0; }
int nvrtcGetProgramLog(void *p, char *log) { (void)p; CALL; log[0] = 0; return 0; }
int nvrtcDestroyProgram(void **p) { CALL; free(*p); *p = NULL; return 0; }
const char *nvrtcGetErrorString(int e) { (void)e; CALL; return "stub-cuda nvrtc error"; }

