// SPDX-License-Identifier: GPL-2.0
/*
 * lcbe.cu - the latency-critical / best-effort GPU benchmark for gpuctl sched.
 *
 *   lcbe lc SECONDS KERNEL_US [GAP_US]
 *       launches a 1-block kernel that spins KERNEL_US on the GPU clock,
 *       waits for it, sleeps GAP_US (default 1000), again, for SECONDS;
 *       prints the launch-to-completion latency: n, p50, p99, max (us).
 *   lcbe be SECONDS KERNEL_MS
 *       keeps the whole GPU busy with kernels of KERNEL_MS (2 blocks of 1024
 *       threads per SM), two in flight; prints kernels completed per second.
 * Output: one line "lcbe ROLE key=value ..." on stdout.
 * With $GPUCTL_HINT set, each LC kernel is bracketed by gpuctl_hint_begin()
 * and gpuctl_hint_end() (hint/gpuctl_hint.h; build with hint/gpuctl_hint.c).
 */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <unistd.h>
#include <vector>
#include <cuda_runtime.h>
#include "gpuctl_hint.h"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "lcbe: %s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

__device__ __forceinline__ unsigned long long gtimer(void)
{
	unsigned long long t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

__global__ void spin(unsigned long long ns, int *sink)
{
	unsigned long long t0 = gtimer();
	int x = 0;

	while (gtimer() - t0 < ns)
		x++;
	if (threadIdx.x == 0 && x == -1)
		sink[blockIdx.x] = x;
}

static double now_us(void)
{
	return std::chrono::duration<double, std::micro>(
		std::chrono::steady_clock::now().time_since_epoch()).count();
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: lcbe lc SECONDS KERNEL_US [GAP_US] | lcbe be SECONDS KERNEL_MS\n");
		return 2;
	}
	const char *role = argv[1];
	double secs = atof(argv[2]);
	int *sink;
	cudaStream_t s;
	cudaDeviceProp prop;

	CK(cudaGetDeviceProperties(&prop, 0));
	CK(cudaMalloc(&sink, 4096 * sizeof(int)));
	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	spin<<<1, 32, 0, s>>>(1000, sink);	/* warm up */
	CK(cudaStreamSynchronize(s));
	printf("lcbe %s ready pid=%d\n", role, (int)getpid());
	fflush(stdout);

	if (!strcmp(role, "lc")) {
		unsigned long long ns = (unsigned long long)(atof(argv[3]) * 1000);
		int gap = argc > 4 ? atoi(argv[4]) : 1000;
		std::vector<double> lat;
		double end = now_us() + secs * 1e6;

		while (now_us() < end) {
			double t0 = now_us();

			gpuctl_hint_begin();
			spin<<<1, 32, 0, s>>>(ns, sink);
			CK(cudaStreamSynchronize(s));
			gpuctl_hint_end();
			lat.push_back(now_us() - t0);
			if (gap > 0)
				std::this_thread::sleep_for(std::chrono::microseconds(gap));
		}
		std::sort(lat.begin(), lat.end());
		size_t n = lat.size();
		double sum = 0;

		for (double v : lat)
			sum += v;
		printf("lcbe lc n=%zu p50_us=%.1f p90_us=%.1f p99_us=%.1f max_us=%.1f mean_us=%.1f\n",
		       n, lat[n / 2], lat[(size_t)(n * 0.90)], lat[(size_t)(n * 0.99)], lat[n - 1],
		       sum / n);
	} else {
		unsigned long long ns = (unsigned long long)(atof(argv[3]) * 1e6);
		int grid = prop.multiProcessorCount * 2;
		double t0 = now_us(), end = t0 + secs * 1e6;
		long done = 0;

		while (now_us() < end) {
			spin<<<grid, 1024, 0, s>>>(ns, sink);
			spin<<<grid, 1024, 0, s>>>(ns, sink);
			CK(cudaStreamSynchronize(s));
			done += 2;
		}
		double el = (now_us() - t0) / 1e6;

		printf("lcbe be kernels=%ld seconds=%.2f kernels_per_s=%.2f busy_frac=%.3f\n",
		       done, el, done / el, done * (ns / 1e9) / el);
	}
	fflush(stdout);
	return 0;
}
