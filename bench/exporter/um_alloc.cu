// SPDX-License-Identifier: GPL-2.0
// um_alloc.cu - a PyTorch pluggable allocator over cudaMallocManaged: every
// tensor is fresh managed memory, so each step's first touches fault on the
// GPU (bench/exporter/torch_loop.py).  No caching, on purpose.
#include <cuda_runtime.h>
#include <sys/types.h>

extern "C" void *um_malloc(ssize_t size, int device, cudaStream_t stream)
{
	void *p = nullptr;

	(void)device;
	(void)stream;
	if (cudaMallocManaged(&p, size ? size : 1, cudaMemAttachGlobal) != cudaSuccess)
		return nullptr;
	return p;
}

extern "C" void um_free(void *p, ssize_t size, int device, cudaStream_t stream)
{
	(void)size;
	(void)device;
	(void)stream;
	cudaFree(p);
}
