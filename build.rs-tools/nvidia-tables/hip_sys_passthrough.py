#!/usr/bin/env python3
"""Generates passthrough.rs: HIP functions whose CUDA counterpart takes the
same arguments with the same layout and values, so that only the status
needs translating. The signatures come from hip-sys's generated table; the
pairs below are checked by hand against CUDA 12.9's headers (argument order,
struct layouts, enum values). Lib: R = CUDA runtime, D = driver (needs the
primary context current), N = driver without context.

hipDeviceReset and hipDevicePrimaryCtxReset are written by hand (device.rs):
they also invalidate the per-thread context check. hipDrvPointerGetAttributes
is too (memory.rs): CUDA's memory-type values are not HIP's; and
hipGraphNodeGetType (graph.rs): CUDA's node types 12 and 13 mean others.

Run from the repository root:  python3 build.rs-tools/nvidia-tables/hip_sys_passthrough.py
"""
import re, pathlib
SPEC = """
hipGetDeviceCount R cudaGetDeviceCount
hipGraphAddMemcpyNode R cudaGraphAddMemcpyNode
hipGraphMemcpyNodeGetParams R cudaGraphMemcpyNodeGetParams
hipGraphMemcpyNodeSetParams R cudaGraphMemcpyNodeSetParams
hipGraphExecMemcpyNodeSetParams R cudaGraphExecMemcpyNodeSetParams
hipGraphAddMemAllocNode R cudaGraphAddMemAllocNode
hipGraphMemAllocNodeGetParams R cudaGraphMemAllocNodeGetParams
hipGraphAddMemcpyNodeToSymbol R cudaGraphAddMemcpyNodeToSymbol
hipGraphAddMemcpyNodeFromSymbol R cudaGraphAddMemcpyNodeFromSymbol
hipGraphMemcpyNodeSetParamsToSymbol R cudaGraphMemcpyNodeSetParamsToSymbol
hipGraphMemcpyNodeSetParamsFromSymbol R cudaGraphMemcpyNodeSetParamsFromSymbol
hipGraphExecMemcpyNodeSetParamsToSymbol R cudaGraphExecMemcpyNodeSetParamsToSymbol
hipGraphExecMemcpyNodeSetParamsFromSymbol R cudaGraphExecMemcpyNodeSetParamsFromSymbol
hipDeviceSynchronize R cudaDeviceSynchronize
hipSetDevice R cudaSetDevice
hipGetDevice R cudaGetDevice
hipGetDeviceFlags R cudaGetDeviceFlags
hipSetDeviceFlags R cudaSetDeviceFlags
hipDeviceGetLimit R cudaDeviceGetLimit
hipDeviceSetLimit R cudaDeviceSetLimit
hipDeviceGetCacheConfig R cudaDeviceGetCacheConfig
hipDeviceSetCacheConfig R cudaDeviceSetCacheConfig
hipDeviceGetSharedMemConfig R cudaDeviceGetSharedMemConfig
hipDeviceSetSharedMemConfig R cudaDeviceSetSharedMemConfig
hipDeviceGetStreamPriorityRange R cudaDeviceGetStreamPriorityRange
hipDeviceCanAccessPeer R cudaDeviceCanAccessPeer
hipDeviceEnablePeerAccess R cudaDeviceEnablePeerAccess
hipDeviceDisablePeerAccess R cudaDeviceDisablePeerAccess
hipDeviceGetPCIBusId R cudaDeviceGetPCIBusId
hipDeviceGetByPCIBusId R cudaDeviceGetByPCIBusId
hipDeviceGetDefaultMemPool R cudaDeviceGetDefaultMemPool
hipDeviceGetMemPool R cudaDeviceGetMemPool
hipDeviceSetMemPool R cudaDeviceSetMemPool
hipDeviceGraphMemTrim R cudaDeviceGraphMemTrim
hipDeviceGetGraphMemAttribute R cudaDeviceGetGraphMemAttribute
hipDeviceSetGraphMemAttribute R cudaDeviceSetGraphMemAttribute
hipDriverGetVersion R cudaDriverGetVersion
hipRuntimeGetVersion R cudaRuntimeGetVersion
hipSetValidDevices R cudaSetValidDevices
hipProfilerStart R cudaProfilerStart
hipProfilerStop R cudaProfilerStop
hipInit N cuInit
hipDeviceGet N cuDeviceGet
hipDeviceGetName N cuDeviceGetName
hipDeviceTotalMem N cuDeviceTotalMem_v2
hipDeviceGetUuid N cuDeviceGetUuid
hipDevicePrimaryCtxGetState N cuDevicePrimaryCtxGetState
hipDevicePrimaryCtxRelease N cuDevicePrimaryCtxRelease_v2
hipDevicePrimaryCtxRetain N cuDevicePrimaryCtxRetain
hipDevicePrimaryCtxSetFlags N cuDevicePrimaryCtxSetFlags_v2
hipCtxCreate N cuCtxCreate_v2
hipCtxDestroy N cuCtxDestroy_v2
hipCtxGetCurrent N cuCtxGetCurrent
hipCtxSetCurrent N cuCtxSetCurrent
hipCtxPushCurrent N cuCtxPushCurrent_v2
hipCtxPopCurrent N cuCtxPopCurrent_v2
hipCtxGetDevice D cuCtxGetDevice
hipCtxGetFlags D cuCtxGetFlags
hipCtxSynchronize D cuCtxSynchronize
hipCtxGetApiVersion N cuCtxGetApiVersion
hipCtxGetCacheConfig D cuCtxGetCacheConfig
hipCtxSetCacheConfig D cuCtxSetCacheConfig
hipCtxGetSharedMemConfig D cuCtxGetSharedMemConfig
hipCtxSetSharedMemConfig D cuCtxSetSharedMemConfig
hipCtxEnablePeerAccess D cuCtxEnablePeerAccess
hipCtxDisablePeerAccess D cuCtxDisablePeerAccess
hipMalloc R cudaMalloc
hipFree R cudaFree
hipMallocHost R cudaMallocHost
hipFreeHost R cudaFreeHost
hipHostFree R cudaFreeHost
hipHostRegister R cudaHostRegister
hipHostUnregister R cudaHostUnregister
hipHostGetDevicePointer R cudaHostGetDevicePointer
hipHostGetFlags R cudaHostGetFlags
hipMallocManaged R cudaMallocManaged
hipMallocPitch R cudaMallocPitch
hipMemGetInfo R cudaMemGetInfo
hipMemset R cudaMemset
hipMemsetAsync R cudaMemsetAsync
hipMemset2D R cudaMemset2D
hipMemset2DAsync R cudaMemset2DAsync
hipMemset3D R cudaMemset3D
hipMemset3DAsync R cudaMemset3DAsync
hipMemcpy R cudaMemcpy
hipMemcpyAsync R cudaMemcpyAsync
hipMemcpy2D R cudaMemcpy2D
hipMemcpy2DAsync R cudaMemcpy2DAsync
hipMemcpy3D R cudaMemcpy3D
hipMemcpy3DAsync R cudaMemcpy3DAsync
hipMalloc3D R cudaMalloc3D
hipMemcpyPeer R cudaMemcpyPeer
hipMemcpyPeerAsync R cudaMemcpyPeerAsync
hipMemcpyToSymbol R cudaMemcpyToSymbol
hipMemcpyToSymbolAsync R cudaMemcpyToSymbolAsync
hipMemcpyFromSymbol R cudaMemcpyFromSymbol
hipMemcpyFromSymbolAsync R cudaMemcpyFromSymbolAsync
hipGetSymbolAddress R cudaGetSymbolAddress
hipGetSymbolSize R cudaGetSymbolSize
hipMallocAsync R cudaMallocAsync
hipFreeAsync R cudaFreeAsync
hipMallocFromPoolAsync R cudaMallocFromPoolAsync
hipMemPoolCreate R cudaMemPoolCreate
hipMemPoolDestroy R cudaMemPoolDestroy
hipMemPoolTrimTo R cudaMemPoolTrimTo
hipMemPoolSetAttribute R cudaMemPoolSetAttribute
hipMemPoolGetAttribute R cudaMemPoolGetAttribute
hipMemPoolSetAccess R cudaMemPoolSetAccess
hipMemPoolGetAccess R cudaMemPoolGetAccess
hipMemPoolExportPointer R cudaMemPoolExportPointer
hipMemPoolImportPointer R cudaMemPoolImportPointer
hipMemPoolExportToShareableHandle R cudaMemPoolExportToShareableHandle
hipMemPoolImportFromShareableHandle R cudaMemPoolImportFromShareableHandle
hipMemAdvise D cuMemAdvise
hipMemPrefetchAsync D cuMemPrefetchAsync
hipMemRangeGetAttribute D cuMemRangeGetAttribute
hipMemRangeGetAttributes D cuMemRangeGetAttributes
hipMemsetD8 D cuMemsetD8_v2
hipMemsetD16 D cuMemsetD16_v2
hipMemsetD32 D cuMemsetD32_v2
hipMemsetD8Async D cuMemsetD8Async
hipMemsetD16Async D cuMemsetD16Async
hipMemsetD32Async D cuMemsetD32Async
hipMemcpyHtoD D cuMemcpyHtoD_v2
hipMemcpyDtoH D cuMemcpyDtoH_v2
hipMemcpyDtoD D cuMemcpyDtoD_v2
hipMemcpyHtoDAsync D cuMemcpyHtoDAsync_v2
hipMemcpyDtoHAsync D cuMemcpyDtoHAsync_v2
hipMemcpyDtoDAsync D cuMemcpyDtoDAsync_v2
hipMemAllocHost D cuMemAllocHost_v2
hipMemAllocPitch D cuMemAllocPitch_v2
hipMemGetAddressRange D cuMemGetAddressRange_v2
hipMemCreate D cuMemCreate
hipMemAddressReserve D cuMemAddressReserve
hipMemAddressFree D cuMemAddressFree
hipMemMap D cuMemMap
hipMemUnmap D cuMemUnmap
hipMemRelease D cuMemRelease
hipMemSetAccess D cuMemSetAccess
hipMemGetAccess D cuMemGetAccess
hipMemGetAllocationGranularity D cuMemGetAllocationGranularity
hipMemRetainAllocationHandle D cuMemRetainAllocationHandle
hipMemGetAllocationPropertiesFromHandle D cuMemGetAllocationPropertiesFromHandle
hipMemExportToShareableHandle D cuMemExportToShareableHandle
hipMemImportFromShareableHandle D cuMemImportFromShareableHandle
hipStreamCreate R cudaStreamCreate
hipStreamCreateWithFlags R cudaStreamCreateWithFlags
hipStreamCreateWithPriority R cudaStreamCreateWithPriority
hipStreamDestroy R cudaStreamDestroy
hipStreamQuery R cudaStreamQuery
hipStreamSynchronize R cudaStreamSynchronize
hipStreamWaitEvent R cudaStreamWaitEvent
hipStreamGetFlags R cudaStreamGetFlags
hipStreamGetPriority R cudaStreamGetPriority
hipStreamAddCallback R cudaStreamAddCallback
hipLaunchHostFunc R cudaLaunchHostFunc
hipStreamAttachMemAsync R cudaStreamAttachMemAsync
hipStreamBeginCapture R cudaStreamBeginCapture
hipStreamEndCapture R cudaStreamEndCapture
hipStreamIsCapturing R cudaStreamIsCapturing
hipThreadExchangeStreamCaptureMode R cudaThreadExchangeStreamCaptureMode
hipStreamGetCaptureInfo_v2 D cuStreamGetCaptureInfo_v2
hipStreamUpdateCaptureDependencies D cuStreamUpdateCaptureDependencies
hipStreamWriteValue32 D cuStreamWriteValue32_v2
hipStreamWriteValue64 D cuStreamWriteValue64_v2
hipEventCreate R cudaEventCreate
hipEventCreateWithFlags R cudaEventCreateWithFlags
hipEventDestroy R cudaEventDestroy
hipEventRecord R cudaEventRecord
hipEventRecordWithFlags R cudaEventRecordWithFlags
hipEventQuery R cudaEventQuery
hipEventSynchronize R cudaEventSynchronize
hipEventElapsedTime R cudaEventElapsedTime
hipModuleLoad D cuModuleLoad
hipModuleLoadData D cuModuleLoadData
hipModuleUnload D cuModuleUnload
hipModuleGetFunction D cuModuleGetFunction
hipModuleGetGlobal D cuModuleGetGlobal_v2
hipModuleLaunchCooperativeKernel D cuLaunchCooperativeKernel
hipFuncGetAttribute D cuFuncGetAttribute
hipFuncSetCacheConfig D cuFuncSetCacheConfig
hipFuncSetSharedMemConfig D cuFuncSetSharedMemConfig
hipModuleOccupancyMaxActiveBlocksPerMultiprocessor D cuOccupancyMaxActiveBlocksPerMultiprocessor
hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags D cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags
hipOccupancyMaxActiveBlocksPerMultiprocessor D cuOccupancyMaxActiveBlocksPerMultiprocessor
hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags D cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags
hipGetFuncBySymbol R cudaGetFuncBySymbol
hipLinkComplete D cuLinkComplete
hipLinkDestroy D cuLinkDestroy
hipGraphCreate R cudaGraphCreate
hipGraphDestroy R cudaGraphDestroy
hipGraphInstantiateWithFlags D cuGraphInstantiateWithFlags
hipGraphExecDestroy R cudaGraphExecDestroy
hipGraphLaunch R cudaGraphLaunch
hipGraphUpload R cudaGraphUpload
hipGraphClone R cudaGraphClone
hipGraphDestroyNode R cudaGraphDestroyNode
hipGraphAddEmptyNode D cuGraphAddEmptyNode
hipGraphAddDependencies D cuGraphAddDependencies
hipGraphRemoveDependencies D cuGraphRemoveDependencies
hipGraphGetNodes R cudaGraphGetNodes
hipGraphGetRootNodes R cudaGraphGetRootNodes
hipGraphGetEdges D cuGraphGetEdges
hipGraphNodeGetDependencies D cuGraphNodeGetDependencies
hipGraphNodeGetDependentNodes D cuGraphNodeGetDependentNodes
hipGraphNodeFindInClone R cudaGraphNodeFindInClone
hipGraphChildGraphNodeGetGraph R cudaGraphChildGraphNodeGetGraph
hipGraphAddChildGraphNode D cuGraphAddChildGraphNode
hipGraphExecChildGraphNodeSetParams R cudaGraphExecChildGraphNodeSetParams
hipGraphAddEventRecordNode D cuGraphAddEventRecordNode
hipGraphAddEventWaitNode D cuGraphAddEventWaitNode
hipGraphEventRecordNodeGetEvent R cudaGraphEventRecordNodeGetEvent
hipGraphEventRecordNodeSetEvent R cudaGraphEventRecordNodeSetEvent
hipGraphEventWaitNodeGetEvent R cudaGraphEventWaitNodeGetEvent
hipGraphEventWaitNodeSetEvent R cudaGraphEventWaitNodeSetEvent
hipGraphExecEventRecordNodeSetEvent R cudaGraphExecEventRecordNodeSetEvent
hipGraphExecEventWaitNodeSetEvent R cudaGraphExecEventWaitNodeSetEvent
hipGraphAddHostNode D cuGraphAddHostNode
hipGraphHostNodeGetParams R cudaGraphHostNodeGetParams
hipGraphHostNodeSetParams R cudaGraphHostNodeSetParams
hipGraphExecHostNodeSetParams R cudaGraphExecHostNodeSetParams
hipGraphAddMemcpyNode1D R cudaGraphAddMemcpyNode1D
hipGraphMemcpyNodeSetParams1D R cudaGraphMemcpyNodeSetParams1D
hipGraphExecMemcpyNodeSetParams1D R cudaGraphExecMemcpyNodeSetParams1D
hipGraphAddMemFreeNode D cuGraphAddMemFreeNode
hipGraphMemFreeNodeGetParams R cudaGraphMemFreeNodeGetParams
hipGraphNodeGetEnabled R cudaGraphNodeGetEnabled
hipGraphNodeSetEnabled R cudaGraphNodeSetEnabled
hipGraphExecGetFlags R cudaGraphExecGetFlags
hipGraphDebugDotPrint R cudaGraphDebugDotPrint
hipUserObjectCreate R cudaUserObjectCreate
hipUserObjectRelease R cudaUserObjectRelease
hipUserObjectRetain R cudaUserObjectRetain
hipGraphRetainUserObject R cudaGraphRetainUserObject
hipGraphReleaseUserObject R cudaGraphReleaseUserObject
hipIpcGetMemHandle R cudaIpcGetMemHandle
hipIpcOpenMemHandle R cudaIpcOpenMemHandle
hipIpcCloseMemHandle R cudaIpcCloseMemHandle
hipIpcGetEventHandle R cudaIpcGetEventHandle
hipIpcOpenEventHandle R cudaIpcOpenEventHandle
hipPointerSetAttribute D cuPointerSetAttribute
hipMallocArray R cudaMallocArray
hipFreeArray R cudaFreeArray
hipMalloc3DArray R cudaMalloc3DArray
hipArrayGetInfo R cudaArrayGetInfo
hipMemcpy2DToArray R cudaMemcpy2DToArray
hipMemcpy2DToArrayAsync R cudaMemcpy2DToArrayAsync
hipMemcpy2DFromArray R cudaMemcpy2DFromArray
hipMemcpy2DFromArrayAsync R cudaMemcpy2DFromArrayAsync
hipMemcpy2DArrayToArray R cudaMemcpy2DArrayToArray
hipMemcpyToArray R cudaMemcpyToArray
hipMemcpyFromArray R cudaMemcpyFromArray
hipGetChannelDesc R cudaGetChannelDesc
hipArrayCreate D cuArrayCreate_v2
hipArray3DCreate D cuArray3DCreate_v2
hipArrayDestroy D cuArrayDestroy
hipArrayGetDescriptor D cuArrayGetDescriptor_v2
hipArray3DGetDescriptor D cuArray3DGetDescriptor_v2
hipMemcpyAtoH D cuMemcpyAtoH_v2
hipMemcpyHtoA D cuMemcpyHtoA_v2
hipMemcpyAtoD D cuMemcpyAtoD_v2
hipMemcpyDtoA D cuMemcpyDtoA_v2
hipMemcpyAtoA D cuMemcpyAtoA_v2
hipMemcpyAtoHAsync D cuMemcpyAtoHAsync_v2
hipMemcpyHtoAAsync D cuMemcpyHtoAAsync_v2
hipMallocMipmappedArray R cudaMallocMipmappedArray
hipFreeMipmappedArray R cudaFreeMipmappedArray
hipGetMipmappedArrayLevel R cudaGetMipmappedArrayLevel
hipMipmappedArrayCreate D cuMipmappedArrayCreate
hipMipmappedArrayDestroy D cuMipmappedArrayDestroy
hipMipmappedArrayGetLevel D cuMipmappedArrayGetLevel
hipCreateSurfaceObject R cudaCreateSurfaceObject
hipDestroySurfaceObject R cudaDestroySurfaceObject
hipDestroyTextureObject R cudaDestroyTextureObject
hipGetTextureObjectResourceDesc R cudaGetTextureObjectResourceDesc
hipGetTextureObjectResourceViewDesc R cudaGetTextureObjectResourceViewDesc
hipTexObjectDestroy D cuTexObjectDestroy
hipDestroyExternalMemory R cudaDestroyExternalMemory
hipDestroyExternalSemaphore R cudaDestroyExternalSemaphore
hipGraphicsMapResources R cudaGraphicsMapResources
hipGraphicsUnmapResources R cudaGraphicsUnmapResources
hipGraphicsUnregisterResource R cudaGraphicsUnregisterResource
hipGraphicsResourceGetMappedPointer R cudaGraphicsResourceGetMappedPointer
hipGraphicsSubResourceGetMappedArray R cudaGraphicsSubResourceGetMappedArray
"""
root = pathlib.Path(__file__).resolve().parents[2]
src = (root / 'hip-sys/src/generated/functions.rs').read_text()
# One declaration per line in the `loaded_functions!` call.
sigs = {}
for m in re.finditer(r'^\s*pub unsafe fn (\w+)\((.*)\)( -> .+);$', src, re.M):
    sigs[m.group(1)] = (m.group(2).replace('::std::os::raw::', ''), m.group(3).strip())
lib = {'R': 'Runtime', 'D': 'Driver', 'N': 'DriverNoContext'}
out = ['// @generated by build.rs-tools/nvidia-tables/hip_sys_passthrough.py. Do not edit.', '',
       '//! HIP functions that are CUDA functions under another name: same',
       '//! arguments, same layouts, same enum values; only the status is translated.', '',
       '#![allow(non_snake_case)]', '',
       'use super::Lib;', 'use crate::*;', 'use core::ffi::*;', '',
       'super::passthrough_adapters! {']
for line in SPEC.strip().splitlines():
    hip, l, cu = line.split()
    args, ret = sigs[hip]
    assert ret == '-> hipError_t', hip
    args = ', '.join(a.strip() for a in args.split(',') if a.strip())
    out.append(f'    {hip}({args}) => {lib[l]} "{cu}" as SYM_{hip};')
out.append('}')
(root / 'hip-sys/src/nvidia/passthrough.rs').write_text('\n'.join(out) + '\n')
print(len(SPEC.strip().splitlines()), 'pass-through functions')

import subprocess
subprocess.run(['rustfmt', '--edition', '2021', str(root / 'hip-sys/src/nvidia/passthrough.rs')], check=True)
