// SPDX-License-Identifier: GPL-2.0
/*
 * managed_phases - a managed-memory workload for gpuctl trace/stat on a real
 * GPU: sequential, strided and random phases over one cudaMallocManaged
 * buffer, with the CPU touching the buffer between phases so that every
 * phase faults its pages back in.  Never allocates more than half of the
 * GPU's free memory.
 *
 *   managed_phases [MIB] [REPEAT]      default 1024 MiB, 1 repeat
 * Prints "phase NAME ms X" per phase and "total ms X".
 * Build: nvcc -O2 -o managed_phases tests/gpu/managed_phases.cu
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#define PAGE 4096ul
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "managed_phases: %s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void touch_seq(char *buf, size_t pages)
{
	for (size_t p = blockIdx.x * (size_t)blockDim.x + threadIdx.x; p < pages;
	     p += (size_t)gridDim.x * blockDim.x)
		buf[p * PAGE] += 1;
}

__global__ void touch_stride(char *buf, size_t pages, size_t stride)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i * stride < pages;
	     i += (size_t)gridDim.x * blockDim.x)
		buf[i * stride * PAGE] += 1;
}

__global__ void touch_random(char *buf, size_t pages, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x) {
		unsigned long long x = i * 0x9E3779B97F4A7C15ull;

		x ^= x >> 29;
		buf[(x % pages) * PAGE] += 1;
	}
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
	int repeat = argc > 2 ? atoi(argv[2]) : 1;
	size_t free_b, total_b, bytes, pages;
	double t, total = 0, ph[3] = { 0 };
	char *buf;

	CHECK(cudaFree(0));	/* context first: a tool attaching to us sees all phases */
	usleep(200000);
	CHECK(cudaMemGetInfo(&free_b, &total_b));
	bytes = mib << 20;
	if (bytes > free_b / 2) {
		bytes = (free_b / 2) & ~((2ul << 20) - 1);
		fprintf(stderr, "managed_phases: capped at %zu MiB (half of the free %zu MiB)\n",
			bytes >> 20, free_b >> 20);
	}
	pages = bytes / PAGE;
	CHECK(cudaMallocManaged(&buf, bytes, cudaMemAttachGlobal));
	for (int r = 0; r < repeat; r++) {
		memset(buf, 0, bytes);	/* on the CPU: the next phase faults */
		t = now_ms();
		touch_seq<<<1024, 256>>>(buf, pages);
		CHECK(cudaDeviceSynchronize());
		ph[0] += now_ms() - t;

		memset(buf, 1, bytes);
		t = now_ms();
		touch_stride<<<1024, 256>>>(buf, pages, 16);
		CHECK(cudaDeviceSynchronize());
		ph[1] += now_ms() - t;

		memset(buf, 2, bytes);
		t = now_ms();
		touch_random<<<1024, 256>>>(buf, pages, pages / 4);
		CHECK(cudaDeviceSynchronize());
		ph[2] += now_ms() - t;
	}
	total = ph[0] + ph[1] + ph[2];
	printf("bytes %zu repeat %d\n", bytes, repeat);
	printf("phase seq ms %.3f\nphase stride ms %.3f\nphase random ms %.3f\ntotal ms %.3f\n",
	       ph[0], ph[1], ph[2], total);
	CHECK(cudaFree(buf));
	return 0;
}
