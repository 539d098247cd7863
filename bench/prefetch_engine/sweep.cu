// SPDX-License-Identifier: GPL-2.0
/*
 * sweep - the managed-memory workload of bench/prefetch_engine: one
 * cudaMallocManaged buffer written by the CPU, then read once by a GPU
 * kernel, in sequential or block-strided order.  Never allocates more than
 * half of the GPU's free memory.
 *
 *   sweep MIB seq|stride [STRIDE_BLOCKS]
 * Prints "kernel_ms X" (the GPU pass, cudaEvent) and "cpu_write_ms X".
 * strided: 2 MiB blocks are visited in the order k * STRIDE mod nblocks
 * (STRIDE odd, default 5), every byte of each block read.
 * Build: nvcc -O2 -arch=sm_90 -o sweep sweep.cu
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#define BLOCK_WORDS ((2ul << 20) / 4)
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "sweep: %s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void sweep(const unsigned *buf, size_t words, size_t nblocks, size_t stride,
		      unsigned long long *out)
{
	unsigned acc = 0;

	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words;
	     i += (size_t)gridDim.x * blockDim.x) {
		size_t blk = i / BLOCK_WORDS, off = i % BLOCK_WORDS;

		acc += buf[((blk * stride) % nblocks) * BLOCK_WORDS + off];
	}
	atomicAdd(out, acc);
}

static double now_ms(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return tv.tv_sec * 1e3 + tv.tv_usec / 1e3;
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 0) : 1024;
	int strided = argc > 2 && !strcmp(argv[2], "stride");
	size_t stride = strided ? (argc > 3 ? strtoul(argv[3], NULL, 0) : 5) : 1;
	size_t free_b, total_b, bytes, nblocks;
	unsigned long long *out;
	cudaEvent_t a, b;
	unsigned *buf;
	float ms;
	double t;

	CHECK(cudaFree(0));
	CHECK(cudaMemGetInfo(&free_b, &total_b));
	bytes = mib << 20;
	if (bytes > free_b / 2) {
		bytes = (free_b / 2) & ~((2ul << 20) - 1);
		fprintf(stderr, "sweep: capped at %zu MiB (half the free memory)\n", bytes >> 20);
	}
	nblocks = bytes >> 21;
	if (strided && nblocks % stride == 0)
		nblocks--;	/* coprime with the stride: every block once */
	bytes = nblocks << 21;
	CHECK(cudaMallocManaged(&buf, bytes, cudaMemAttachGlobal));
	CHECK(cudaMalloc(&out, sizeof(*out)));
	CHECK(cudaEventCreate(&a));
	CHECK(cudaEventCreate(&b));
	t = now_ms();
	memset(buf, 1, bytes);
	printf("cpu_write_ms %.1f\n", now_ms() - t);
	printf("pid %d buf %p bytes %zu\n", (int)getpid(), (void *)buf, bytes);
	fflush(stdout);
	/* SWEEP_PAUSE_MS: time for a one-shot migrate from outside */
	usleep(getenv("SWEEP_PAUSE_MS") ? atoi(getenv("SWEEP_PAUSE_MS")) * 1000 : 100000);
	CHECK(cudaEventRecord(a));
	sweep<<<132 * 8, 256>>>(buf, bytes / 4, nblocks, stride, out);
	CHECK(cudaEventRecord(b));
	CHECK(cudaEventSynchronize(b));
	CHECK(cudaEventElapsedTime(&ms, a, b));
	printf("bytes %zu mode %s stride %zu\nkernel_ms %.2f\n", bytes, strided ? "stride" : "seq",
	       stride, ms);
	CHECK(cudaFree(buf));
	return 0;
}
