// SPDX-License-Identifier: GPL-2.0
/*
 * hintpoke - what a local user can do to lc-be's hint file, and a sampler
 * to see what it did to BE (the VM tests, tests/vm/t_sched_floor.sh).
 *
 *   hintpoke truncate FILE              cut it to 0 bytes
 *   hintpoke truncloop FILE SECONDS     cut and regrow it, busy 1 written, in a loop
 *   hintpoke garbage FILE               0xff over its first 32 bytes
 *   hintpoke busy FILE N                the busy word (offset 8) := N
 *   hintpoke toggle FILE BUSY_MS IDLE_MS SECONDS
 *                                       busy 1 for BUSY_MS, 0 for IDLE_MS, with
 *                                       futex wakes (as the library does), looped
 *   hintpoke lat FILE US N [US N]...    N requests of US microseconds into the
 *                                       latency histogram, as libgpuctl-hint.so adds them
 *   hintpoke sample PARAM SECONDS       reads a counter file every 2 ms: prints
 *                                       "on_pct P longest_off_ms L samples N"
 *                                       (on: the counter is 0)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define GPUCTL_HINT_NO_API
#include "../../hint/gpuctl_hint.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void sleep_ms(double ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)((ms - (time_t)(ms / 1000) * 1000) * 1e6) };

	nanosleep(&ts, NULL);
}

static int open_rw(const char *path)
{
	int fd = open(path, O_RDWR);

	if (fd < 0) {
		perror(path);
		exit(1);
	}
	return fd;
}

static void put_busy(int fd, uint32_t v)
{
	if (pwrite(fd, &v, 4, 8) != 4)
		perror("pwrite");
}

/* pairs of (microseconds, count) requests, added as the library adds them, at once. */
static int lat_add(const char *path, char **pairs, int npairs)
{
	int fd = open_rw(path);
	char *p = mmap(NULL, GPUCTL_HINT_FILE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	struct gpuctl_hint_lat *lat;

	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	lat = (struct gpuctl_hint_lat *)(p + GPUCTL_HINT_LAT_OFFSET);
	if (lat->magic != GPUCTL_HINT_LAT_MAGIC) {
		fprintf(stderr, "hintpoke: no latency histogram in %s\n", path);
		return 1;
	}
	for (int i = 0; i + 1 < npairs * 2; i += 2) {
		uint64_t us = strtoull(pairs[i], NULL, 10), n = strtoull(pairs[i + 1], NULL, 10);

		__atomic_add_fetch(&((struct gpuctl_hint_page *)p)->begins, n, __ATOMIC_RELAXED);
		__atomic_add_fetch(&lat->bucket[gpuctl_hint_lat_bucket(us)], n, __ATOMIC_RELAXED);
		__atomic_add_fetch(&lat->sum_us, us * n, __ATOMIC_RELAXED);
		__atomic_add_fetch(&lat->count, n, __ATOMIC_RELEASE);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 5 && !strcmp(argv[1], "lat"))
		return lat_add(argv[2], argv + 3, (argc - 3) / 2);
	if (argc >= 3 && !strcmp(argv[1], "truncate"))
		return ftruncate(open_rw(argv[2]), 0) ? perror("ftruncate"), 1 : 0;
	if (argc >= 4 && !strcmp(argv[1], "truncloop")) {
		int fd = open_rw(argv[2]);
		double end = now_ms() + atof(argv[3]) * 1000;
		long n = 0;

		while (now_ms() < end) {
			if (ftruncate(fd, 0) || ftruncate(fd, 4096))
				perror("ftruncate");
			put_busy(fd, 1);
			n++;
		}
		printf("truncated %ld times\n", n);
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "garbage")) {
		unsigned char b[32];

		memset(b, 0xff, sizeof(b));
		return pwrite(open_rw(argv[2]), b, sizeof(b), 0) != sizeof(b);
	}
	if (argc >= 4 && !strcmp(argv[1], "busy")) {
		put_busy(open_rw(argv[2]), (uint32_t)strtoul(argv[3], NULL, 0));
		return 0;
	}
	if (argc >= 6 && !strcmp(argv[1], "toggle")) {
		int fd = open_rw(argv[2]);
		uint32_t *p;
		double end = now_ms() + atof(argv[5]) * 1000;

		signal(SIGBUS, SIG_IGN);
		p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		while (now_ms() < end) {
			__atomic_store_n(&p[2], 1, __ATOMIC_SEQ_CST);
			syscall(SYS_futex, &p[2], FUTEX_WAKE, 1, NULL, NULL, 0);
			sleep_ms(atof(argv[3]));
			__atomic_store_n(&p[2], 0, __ATOMIC_SEQ_CST);
			syscall(SYS_futex, &p[2], FUTEX_WAKE, 1, NULL, NULL, 0);
			sleep_ms(atof(argv[4]));
		}
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "sample")) {
		double end = now_ms() + atof(argv[3]) * 1000, off_since = -1, longest = 0, t;
		long n = 0, on = 0;
		char buf[32];

		while ((t = now_ms()) < end) {
			int fd = open(argv[2], O_RDONLY);
			ssize_t k = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

			if (fd >= 0)
				close(fd);
			buf[k > 0 ? k : 0] = '\0';
			n++;
			if (atol(buf) == 0) {
				on++;
				if (off_since >= 0 && t - off_since > longest)
					longest = t - off_since;
				off_since = -1;
			} else if (off_since < 0) {
				off_since = t;
			}
			sleep_ms(2);
		}
		if (off_since >= 0 && now_ms() - off_since > longest)
			longest = now_ms() - off_since;
		printf("on_pct %.0f longest_off_ms %.0f samples %ld\n", n ? 100.0 * on / n : 0,
		       longest, n);
		return 0;
	}
	fprintf(stderr, "usage: hintpoke {truncate|truncloop|garbage|busy|toggle|sample} ...\n");
	return 2;
}
