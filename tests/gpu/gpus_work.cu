// SPDX-License-Identifier: GPL-2.0
// gpus_work.cu - a GPU process for naming-the-GPU checks (bench/gpus_h100.sh):
// MIB MiB of managed memory, touched by the CPU then by a GPU kernel ROUNDS
// times (GPU faults and migrations both ways), then it waits for SIGTERM.
// Prints "ready ptr=0x... bytes=N" before the rounds, "rounds done" after.
//   gpus_work MIB ROUNDS
#include <cuda_runtime.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

__global__ void touch(char *p, size_t n)
{
	size_t i = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * 4096;

	if (i < n)
		p[i] += 1;
}

int main(int argc, char **argv)
{
	size_t bytes = (size_t)(argc > 1 ? atol(argv[1]) : 512) << 20;
	int rounds = argc > 2 ? atoi(argv[2]) : 4;
	char *p;

	signal(SIGTERM, on_term);
	if (cudaMallocManaged(&p, bytes, cudaMemAttachGlobal) != cudaSuccess) {
		fprintf(stderr, "gpus_work: cudaMallocManaged failed\n");
		return 1;
	}
	printf("ready ptr=%p bytes=%zu\n", (void *)p, bytes);
	fflush(stdout);
	sleep(2);
	for (int r = 0; r < rounds && !stop; r++) {
		memset(p, r, bytes);
		touch<<<(unsigned)((bytes / 4096 + 255) / 256), 256>>>(p, bytes);
		if (cudaDeviceSynchronize() != cudaSuccess) {
			fprintf(stderr, "gpus_work: kernel failed\n");
			return 1;
		}
		usleep(200 * 1000);
	}
	printf("rounds done\n");
	fflush(stdout);
	while (!stop)
		pause();
	cudaFree(p);
	return 0;
}
