// SPDX-License-Identifier: GPL-2.0
/*
 * alloc.so - PyTorch's pluggable allocator over cudaMallocManaged: every
 * tensor is managed memory, freshly allocated (no caching), so each step
 * first-touches new allocations on the GPU.
 * Build: nvcc -O2 -shared -Xcompiler -fPIC -o alloc.so alloc.cu
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <sys/types.h>

extern "C" void *managed_malloc(ssize_t size, int device, cudaStream_t stream)
{
	void *p = NULL;

	(void)device;
	(void)stream;
	if (cudaMallocManaged(&p, size ? size : 1, cudaMemAttachGlobal) != cudaSuccess)
		return NULL;
	return p;
}

extern "C" void managed_free(void *p, ssize_t size, int device, cudaStream_t stream)
{
	(void)size;
	(void)device;
	(void)stream;
	cudaFree(p);
}
