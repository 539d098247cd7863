// SPDX-License-Identifier: GPL-2.0
/*
 * sweep - bench/ab's first workload: a CPU-written buffer read once by a GPU
 * kernel.  Managed (default): cudaMallocManaged, memset by the CPU, then the
 * kernel faults it over.  --device (the twin): the same kernel on cudaMalloc
 * memory, then the ceiling stand-in: a CPU-written managed buffer of the same
 * size moved with one cudaMemPrefetchAsync (what one UVM_MIGRATE of the
 * buffer costs), timed; ceiling_ms = migrate_ms + the device kernel.
 *
 *   sweep [--device] [--mib N] [--no-ceiling]
 * Prints one line "BENCH {json}" (metric kernel_ms), also appended to
 * $BENCH_METRIC_FILE when set.  Never uses more than half of the GPU's free
 * memory (scales down and says so in the line: "scaled_from_mib").
 * Build: nvcc -O2 -o sweep sweep.cu   (no -arch needed: PTX JIT otherwise)
 */
#include <cuda_runtime.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BLOCK_BYTES (2ul << 20)
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "sweep: %s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void sweep(const unsigned *buf, size_t words, unsigned long long *out)
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

/* The one result line: stdout and $BENCH_METRIC_FILE. */
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

/* The kernel over buf, timed with events (ms). */
static float run_kernel(const unsigned *buf, size_t bytes, int sms)
{
	unsigned long long *out;
	cudaEvent_t a, b;
	float ms;

	CHECK(cudaMalloc(&out, sizeof(*out)));
	CHECK(cudaMemset(out, 0, sizeof(*out)));
	CHECK(cudaEventCreate(&a));
	CHECK(cudaEventCreate(&b));
	CHECK(cudaEventRecord(a));
	sweep<<<sms * 8, 256>>>(buf, bytes / 4, out);
	CHECK(cudaGetLastError());
	CHECK(cudaEventRecord(b));
	CHECK(cudaEventSynchronize(b));
	CHECK(cudaEventElapsedTime(&ms, a, b));
	CHECK(cudaEventDestroy(a));
	CHECK(cudaEventDestroy(b));
	CHECK(cudaFree(out));
	return ms;
}

/* One prefetch of a CPU-written managed buffer to GPU 0, timed (ms). */
static float migrate_ms(size_t bytes)
{
	cudaEvent_t a, b;
	void *buf;
	float ms;

	CHECK(cudaMallocManaged(&buf, bytes, cudaMemAttachGlobal));
	memset(buf, 1, bytes);
	CHECK(cudaEventCreate(&a));
	CHECK(cudaEventCreate(&b));
	CHECK(cudaEventRecord(a));
#if CUDART_VERSION >= 13000
	cudaMemLocation loc = {};
	loc.type = cudaMemLocationTypeDevice;
	loc.id = 0;
	CHECK(cudaMemPrefetchAsync(buf, bytes, loc, 0, 0));
#else
	CHECK(cudaMemPrefetchAsync(buf, bytes, 0, 0));
#endif
	CHECK(cudaEventRecord(b));
	CHECK(cudaEventSynchronize(b));
	CHECK(cudaEventElapsedTime(&ms, a, b));
	CHECK(cudaFree(buf));
	return ms;
}

int main(int argc, char **argv)
{
	size_t mib = 8192, want, free_b, total_b, bytes;
	int device = 0, ceiling = 1, sms;
	double t, write_ms = 0;
	unsigned *buf;
	float ms;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--device"))
			device = 1;
		else if (!strcmp(argv[i], "--no-ceiling"))
			ceiling = 0;
		else if (!strcmp(argv[i], "--mib") && i + 1 < argc)
			mib = strtoul(argv[++i], NULL, 0);
		else {
			fprintf(stderr, "usage: sweep [--device] [--mib N] [--no-ceiling]\n");
			return 2;
		}
	}
	CHECK(cudaFree(0));
	CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	CHECK(cudaMemGetInfo(&free_b, &total_b));
	{	/* the kernel loaded (JIT-compiled when built without -arch) untimed */
		unsigned *w;

		CHECK(cudaMalloc(&w, BLOCK_BYTES));
		CHECK(cudaMemset(w, 0, BLOCK_BYTES));
		run_kernel(w, BLOCK_BYTES, sms);
		CHECK(cudaFree(w));
	}
	want = mib << 20;
	bytes = want;
	if (bytes > free_b / 2)	/* the same cap in both modes: one size to compare */
		bytes = (free_b / 2) & ~(BLOCK_BYTES - 1);
	bytes &= ~(BLOCK_BYTES - 1);
	if (!bytes) {
		fprintf(stderr, "sweep: no GPU memory free\n");
		return 1;
	}
	if (!device) {
		CHECK(cudaMallocManaged(&buf, bytes, cudaMemAttachGlobal));
		t = now_ms();
		memset(buf, 1, bytes);
		write_ms = now_ms() - t;
		usleep(100000);	/* as bench/prefetch_engine/sweep.cu: the engine is up */
	} else {
		CHECK(cudaMalloc(&buf, bytes));
		CHECK(cudaMemset(buf, 1, bytes));
		CHECK(cudaDeviceSynchronize());
	}
	ms = run_kernel(buf, bytes, sms);
	CHECK(cudaFree(buf));
	if (!device) {
		emit("{\"metric\":\"kernel_ms\",\"value\":%.3f,\"mode\":\"managed\",\"bytes\":%zu,"
		     "\"cpu_write_ms\":%.1f,\"free_bytes\":%zu%s%zu}", ms, bytes, write_ms, free_b,
		     bytes != want ? ",\"scaled_from_mib\":" : ",\"mib\":", bytes != want ? mib : bytes >> 20);
	} else if (ceiling) {
		float mg = migrate_ms(bytes);

		emit("{\"metric\":\"kernel_ms\",\"value\":%.3f,\"mode\":\"device\",\"bytes\":%zu,"
		     "\"migrate_ms\":%.3f,\"ceiling_ms\":%.3f,\"free_bytes\":%zu%s%zu}", ms, bytes, mg,
		     mg + ms, free_b, bytes != want ? ",\"scaled_from_mib\":" : ",\"mib\":",
		     bytes != want ? mib : bytes >> 20);
	} else {
		emit("{\"metric\":\"kernel_ms\",\"value\":%.3f,\"mode\":\"device\",\"bytes\":%zu,"
		     "\"free_bytes\":%zu}", ms, bytes, free_b);
	}
	return 0;
}
