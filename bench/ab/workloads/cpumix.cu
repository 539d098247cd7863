// SPDX-License-Identifier: GPL-2.0
/*
 * cpumix - bench/ab's workload built to make a move at creation lose: each
 * iteration makes two fresh managed allocations of different sizes,
 *   scratch  (--cpu-mib, default 192): written and then read by the CPU,
 *            one word every --stride-kib (default 64), never touched by
 *            the GPU: a move to the GPU at creation is pulled back by the
 *            CPU's first write, chunk by chunk, where left alone the CPU
 *            would populate only the pages it touches;
 *   data     (--gpu-mib, default 256): written by one GPU kernel, read by a
 *            second one: a move at creation saves every first-touch fault;
 * and frees both.  A per-allocation default has to move `data` and leave
 * `scratch`, from the second iteration on.
 *
 *   cpumix [--device] [--iters N] [--cpu-mib N] [--gpu-mib N] [--stride-kib N]
 * --device (the twin): scratch is malloc'd host memory, data cudaMalloc.
 * Prints one line "BENCH {json}": metric total_ms (the loop, wall clock),
 * cpu_ms (the CPU's part: the scratch's allocation, writes, reads, free),
 * gpu_ms (the GPU's part, allocation to free), iters; also appended to
 * $BENCH_METRIC_FILE when set.
 * Build: nvcc -O2 -o cpumix cpumix.cu
 */
#include <cuda_runtime.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "cpumix: %s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void fill(unsigned *buf, size_t words, unsigned v)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words;
	     i += (size_t)gridDim.x * blockDim.x)
		buf[i] = v + (unsigned)i;
}

__global__ void sum(const unsigned *buf, size_t words, unsigned long long *out)
{
	unsigned acc = 0;

	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words;
	     i += (size_t)gridDim.x * blockDim.x)
		acc += buf[i];
	atomicAdd(out, acc);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void emit(const char *fmt, ...)
{
	const char *path = getenv("BENCH_METRIC_FILE");
	char line[1024];
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	printf("BENCH %s\n", line);
	fflush(stdout);
	if (path && *path && (f = fopen(path, "a"))) {
		fprintf(f, "BENCH %s\n", line);
		fclose(f);
	}
}

/* The CPU's part: a fresh scratch buffer written, then read, one word a stride. */
static unsigned long long cpu_part(size_t bytes, size_t stride, int device)
{
	unsigned long long acc = 0;
	unsigned *p;

	if (device) {
		p = (unsigned *)malloc(bytes);
		if (!p) {
			fprintf(stderr, "cpumix: out of memory\n");
			exit(1);
		}
	} else {
		CHECK(cudaMallocManaged(&p, bytes, cudaMemAttachGlobal));
	}
	for (size_t o = 0; o < bytes; o += stride)
		p[o / 4] = (unsigned)o;
	for (size_t o = 0; o < bytes; o += stride)
		acc += p[o / 4];
	if (device)
		free(p);
	else
		CHECK(cudaFree(p));
	return acc;
}

/* The GPU's part: a fresh buffer written by one kernel, read by the next. */
static void gpu_part(size_t bytes, int sms, int device, unsigned long long *out)
{
	unsigned *p;

	if (device)
		CHECK(cudaMalloc(&p, bytes));
	else
		CHECK(cudaMallocManaged(&p, bytes, cudaMemAttachGlobal));
	fill<<<sms * 8, 256>>>(p, bytes / 4, 7);
	CHECK(cudaGetLastError());
	sum<<<sms * 8, 256>>>(p, bytes / 4, out);
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaFree(p));
}

int main(int argc, char **argv)
{
	size_t cpu_mib = 192, gpu_mib = 256, stride_kib = 64, free_b, total_b;
	int device = 0, iters = 16, sms;
	unsigned long long *out, check = 0;
	double t0, t, cpu_ms = 0, gpu_ms = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--device"))
			device = 1;
		else if (!strcmp(argv[i], "--iters") && i + 1 < argc)
			iters = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--cpu-mib") && i + 1 < argc)
			cpu_mib = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--gpu-mib") && i + 1 < argc)
			gpu_mib = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--stride-kib") && i + 1 < argc)
			stride_kib = strtoul(argv[++i], NULL, 0);
		else {
			fprintf(stderr, "usage: cpumix [--device] [--iters N] [--cpu-mib N] [--gpu-mib N] "
				"[--stride-kib N]\n");
			return 2;
		}
	}
	if (iters < 1 || !cpu_mib || !gpu_mib || !stride_kib || cpu_mib == gpu_mib) {
		fprintf(stderr, "cpumix: iters, sizes and stride must be positive, the sizes different\n");
		return 2;
	}
	CHECK(cudaFree(0));
	CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	CHECK(cudaMemGetInfo(&free_b, &total_b));
	CHECK(cudaMalloc(&out, sizeof(*out)));
	CHECK(cudaMemset(out, 0, sizeof(*out)));
	{	/* the kernels loaded untimed */
		unsigned *w;

		CHECK(cudaMalloc(&w, 2u << 20));
		fill<<<1, 32>>>(w, 1024, 0);
		sum<<<1, 32>>>(w, 1024, out);
		CHECK(cudaDeviceSynchronize());
		CHECK(cudaFree(w));
	}
	usleep(100000);	/* as sweep: the engine is up */
	t0 = now_ms();
	for (int i = 0; i < iters; i++) {
		t = now_ms();
		check += cpu_part(cpu_mib << 20, stride_kib << 10, device);
		cpu_ms += now_ms() - t;
		t = now_ms();
		gpu_part(gpu_mib << 20, sms, device, out);
		gpu_ms += now_ms() - t;
	}
	t = now_ms() - t0;
	CHECK(cudaFree(out));
	emit("{\"metric\":\"total_ms\",\"value\":%.3f,\"mode\":\"%s\",\"cpu_ms\":%.1f,\"gpu_ms\":%.1f,"
	     "\"iters\":%d,\"cpu_mib\":%zu,\"gpu_mib\":%zu,\"stride_kib\":%zu,\"check\":%llu,"
	     "\"free_bytes\":%zu}", t, device ? "device" : "managed", cpu_ms, gpu_ms, iters, cpu_mib,
	     gpu_mib, stride_kib, check, free_b);
	return 0;
}
