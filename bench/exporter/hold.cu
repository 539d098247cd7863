// SPDX-License-Identifier: GPL-2.0
// hold.cu - a small GPU process for the exporter's 64-process scrape: a CUDA
// context, a 1 MiB managed buffer touched once by a kernel (so the process
// has faulted and holds /dev/nvidia-uvm), then it waits for SIGTERM.
// Prints "ready" once set up.
#include <cuda_runtime.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

__global__ void touch(int *p, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		p[i] += 1;
}

int main(void)
{
	const int n = (1 << 20) / sizeof(int);
	int *p;

	signal(SIGTERM, on_term);
	if (cudaMallocManaged(&p, n * sizeof(int), cudaMemAttachGlobal) != cudaSuccess) {
		fprintf(stderr, "hold: cudaMallocManaged failed\n");
		return 1;
	}
	touch<<<(n + 255) / 256, 256>>>(p, n);
	if (cudaDeviceSynchronize() != cudaSuccess) {
		fprintf(stderr, "hold: kernel failed\n");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	while (!stop)
		pause();
	cudaFree(p);
	return 0;
}
