// SPDX-License-Identifier: GPL-2.0
/* sysloop s N: N getppid() calls; sysloop m N: N anonymous mmap+munmap pairs (bench/alloc_watch/cost.sh). */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	long n = atol(argv[2]);
	if (argv[1][0] == 's') {
		for (long i = 0; i < n; i++)
			getppid();
	} else {
		for (long i = 0; i < n; i++) {
			void *p = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			munmap(p, 4096);
		}
	}
	return 0;
}
