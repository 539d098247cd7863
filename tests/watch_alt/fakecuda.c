// SPDX-License-Identifier: GPL-2.0
/*
 * fakecuda.c - a stand-in libcuda.so.1 for bench/watch_alt's tests (the shim
 * and the uprobe counter), no GPU: cuMemAllocManaged, cuMemFree_v2,
 * cuGetProcAddress and cuGetProcAddress_v2 with the driver's signatures
 * (bench/watch_alt/cuda_min.h).  As a real driver may, cuGetProcAddress
 * hands back internal functions, not the exported ones: the exported
 * cuMemAllocManaged calls alloc_impl, which cuGetProcAddress returns, so a
 * probe on the exported symbol alone misses the runtime's calls.
 * An allocation of size S returns the next 2 MiB-aligned fake address; size 0
 * fails with CUDA_ERROR_INVALID_VALUE, as the driver does.
 *   cc -Ibench/watch_alt -shared -fPIC -Wl,-soname,libcuda.so.1 -o libcuda.so.1 fakecuda.c
 */
#include <stdatomic.h>
#include <string.h>

#include "cuda_min.h"	/* bench/watch_alt/ (-Ibench/watch_alt) */

#define FAKE_BASE 0x7f0000000000ull

static atomic_ullong next_addr = FAKE_BASE;

__attribute__((noinline, used)) static CUresult alloc_impl(CUdeviceptr *dptr, size_t size, unsigned int flags)
{
	unsigned long long span = (size + (2ull << 20) - 1) & ~((2ull << 20) - 1);

	if (!dptr || size == 0 || flags != WA_CU_MEM_ATTACH_GLOBAL)
		return WA_CUDA_ERROR_INVALID_VALUE;
	*dptr = atomic_fetch_add(&next_addr, span);
	return WA_CUDA_SUCCESS;
}

__attribute__((noinline, used)) static CUresult free_impl(CUdeviceptr d)
{
	return d >= FAKE_BASE ? WA_CUDA_SUCCESS : WA_CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t size, unsigned int flags)
{
	CUresult rc = alloc_impl(dptr, size, flags);

	__asm__ volatile("" ::: "memory");	/* keep it a call, not a jump: its own frame */
	return rc;
}

CUresult cuMemFree_v2(CUdeviceptr d)
{
	return free_impl(d);
}

CUresult cuGetProcAddress_v2(const char *sym, void **pfn, int version, cuuint64_t flags,
			     CUdriverProcAddressQueryResult *status)
{
	void *p = NULL;

	(void)flags;
	if (!sym || !pfn)
		return WA_CUDA_ERROR_INVALID_VALUE;
	if (strcmp(sym, "cuMemAllocManaged") == 0)
		p = (void *)alloc_impl;
	else if (strcmp(sym, "cuMemFree") == 0)
		p = (void *)free_impl;
	else if (strcmp(sym, "cuGetProcAddress") == 0)
		p = version >= WA_GPA_V2_VERSION ? (void *)cuGetProcAddress_v2 : (void *)cuGetProcAddress;
	*pfn = p;
	if (status)
		*status = p ? WA_CU_GET_PROC_ADDRESS_SUCCESS : WA_CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	return WA_CUDA_SUCCESS;
}

CUresult cuGetProcAddress(const char *sym, void **pfn, int version, cuuint64_t flags)
{
	return cuGetProcAddress_v2(sym, pfn, version, flags, NULL);
}
