// CUDA runtime API names over HIP's, for host code (launchers compiled into
// static libraries). Only names with the same signature and meaning in HIP.
#pragma once

typedef hipStream_t cudaStream_t;
typedef hipEvent_t cudaEvent_t;
typedef hipError_t cudaError_t;
typedef hipDeviceProp_t cudaDeviceProp;
typedef hipMemcpyKind cudaMemcpyKind;
typedef hipFuncAttributes cudaFuncAttributes;
#define cudaSuccess hipSuccess
#define cudaErrorInvalidValue hipErrorInvalidValue
#define cudaMemcpyHostToDevice hipMemcpyHostToDevice
#define cudaMemcpyDeviceToHost hipMemcpyDeviceToHost
#define cudaMemcpyDeviceToDevice hipMemcpyDeviceToDevice
#define cudaMemcpyDefault hipMemcpyDefault
#define cudaFuncAttributeMaxDynamicSharedMemorySize hipFuncAttributeMaxDynamicSharedMemorySize
#define cudaDevAttrMultiProcessorCount hipDeviceAttributeMultiprocessorCount
#define cudaDevAttrMaxSharedMemoryPerBlockOptin hipDeviceAttributeSharedMemPerBlockOptin
#define cudaDevAttrComputeCapabilityMajor hipDeviceAttributeComputeCapabilityMajor
#define cudaDevAttrComputeCapabilityMinor hipDeviceAttributeComputeCapabilityMinor
#define cudaGetLastError hipGetLastError
#define cudaPeekAtLastError hipPeekAtLastError
#define cudaGetErrorString hipGetErrorString
#define cudaGetErrorName hipGetErrorName
#define cudaGetDevice hipGetDevice
#define cudaSetDevice hipSetDevice
#define cudaGetDeviceCount hipGetDeviceCount
#define cudaGetDeviceProperties hipGetDeviceProperties
#define cudaDeviceGetAttribute hipDeviceGetAttribute
#define cudaDeviceSynchronize hipDeviceSynchronize
#define cudaStreamSynchronize hipStreamSynchronize
#define cudaMalloc hipMalloc
#define cudaMallocAsync hipMallocAsync
#define cudaFree hipFree
#define cudaFreeAsync hipFreeAsync
#define cudaMemcpy hipMemcpy
#define cudaMemcpyAsync hipMemcpyAsync
#define cudaMemset hipMemset
#define cudaMemsetAsync hipMemsetAsync
#define cudaOccupancyMaxActiveBlocksPerMultiprocessor hipOccupancyMaxActiveBlocksPerMultiprocessor
#define cudaLaunchKernel hipLaunchKernel

// CUDA's runtime API takes kernels as typed function pointers (templates in
// cuda_runtime.h); HIP's takes `const void*`.
template <typename F>
static inline hipError_t cudaFuncSetAttribute(F* kernel, hipFuncAttribute attr, int value) {
  return hipFuncSetAttribute(reinterpret_cast<const void*>(kernel), attr, value);
}
template <typename F>
static inline hipError_t cudaFuncGetAttributes(hipFuncAttributes* out, F* kernel) {
  return hipFuncGetAttributes(out, reinterpret_cast<const void*>(kernel));
}
