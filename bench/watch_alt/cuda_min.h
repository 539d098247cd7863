/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cuda_min.h - the few CUDA driver API types and prototypes bench/watch_alt
 * needs, written from NVIDIA's documented signatures (the CUDA Driver API,
 * "Memory Management" and "Driver Entry Point Access"), so nothing here
 * needs CUDA's headers.  x86-64 Linux: CUdeviceptr is 64 bits.
 *
 * The CUDA runtime (libcudart, static or shared: what PyTorch and any
 * nvcc-built library use) does not link against libcuda: it dlopen()s
 * "libcuda.so.1", takes cuGetProcAddress_v2 with dlsym(handle, ...) and asks
 * it for every driver function it calls.  So an interposer that only defines
 * cuMemAllocManaged sees none of the runtime's allocations (shim.c says how
 * it covers that path).
 */
#ifndef WATCH_ALT_CUDA_MIN_H
#define WATCH_ALT_CUDA_MIN_H

#include <stddef.h>
#include <stdint.h>

typedef int CUresult;				/* enum cudaError_enum; 0 = CUDA_SUCCESS */
typedef unsigned long long CUdeviceptr;		/* CUdeviceptr_v2 */
typedef uint64_t cuuint64_t;
typedef int CUdriverProcAddressQueryResult;	/* 0 found, 1 not found, 2 version too low */

#define WA_CUDA_SUCCESS 0
#define WA_CUDA_ERROR_INVALID_VALUE 1
#define WA_CU_MEM_ATTACH_GLOBAL 0x1
#define WA_CU_GET_PROC_ADDRESS_SUCCESS 0
#define WA_CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND 1
/* cuGetProcAddress asked for "cuGetProcAddress" at this version or later
 * hands back the _v2 form (the one with symbolStatus). */
#define WA_GPA_V2_VERSION 12000

CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags);
CUresult cuMemFree_v2(CUdeviceptr dptr);	/* cuda.h's cuMemFree; its base name "cuMemFree" */
CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags);
CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
			     CUdriverProcAddressQueryResult *symbolStatus);

typedef CUresult (*wa_alloc_fn)(CUdeviceptr *, size_t, unsigned int);
typedef CUresult (*wa_free_fn)(CUdeviceptr);
typedef CUresult (*wa_gpa1_fn)(const char *, void **, int, cuuint64_t);
typedef CUresult (*wa_gpa2_fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);

#endif
