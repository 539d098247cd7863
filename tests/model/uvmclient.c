// SPDX-License-Identifier: GPL-2.0
/*
 * uvmclient - calls the 580 UVM user ABI (cmd/drv/uvm_ioctl.h) on a UVM
 * file, for the model's tests: another process's, borrowed as gpuctl
 * borrows it (-p PID: pidfd_getfd of its /dev/nvidia-uvm fd), or its own.
 *
 *   uvmclient [-p PID | --own [--noinit] [--map FIRST N]] CMD ARGS...
 *     migrate BASE LEN WHERE [async] [sem ADDR PAYLOAD] [numa N] [flags N]
 *     prefer BASE LEN WHERE [numa N]     unprefer BASE LEN
 *     accessed_by BASE LEN WHERE          unaccessed_by BASE LEN WHERE
 *     readdup BASE LEN                    unreaddup BASE LEN
 *     uuids [v1]                          init [FLAGS]
 *     ioctl N                             (an unknown request: errno)
 *     hold MS                             keep the fd MS ms, then exit
 *   sem local PAYLOAD: the semaphore is a word of uvmclient's, printed after.
 *   WHERE: gpu (the UUID table's GPU 0), cpu, or 32 hex digits.
 *   BASE may be "+OFFSET": UVM_MODEL_VA_BASE + OFFSET.
 *
 * Prints "status 0xNN" (the NV_STATUS) and exits 0 when ioctl(2) took the
 * call; prints the errno and exits 1 when it did not.  --map maps blocks
 * of the range on its own fd first (managed memory of this process).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "uvm_model_uapi.h"
#include "uvm_ioctl.h"

static int fd = -1;

static void die(const char *what)
{
	fprintf(stderr, "uvmclient: %s\n", what);
	exit(2);
}

static unsigned long long num(const char *s)
{
	char *end;
	unsigned long long v;

	if (*s == '+')
		return UVM_MODEL_VA_BASE + num(s + 1);
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		die("bad number");
	return v;
}

/* The target's /dev/nvidia-uvm fd, borrowed. */
static int borrow(int pid)
{
	char path[64], link[256], fdpath[400];
	int pidfd, got = -1;
	struct dirent *de;
	DIR *d;

	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	d = opendir(path);
	if (pidfd < 0 || !d)
		die("no such process");
	while (got < 0 && (de = readdir(d))) {
		ssize_t n;

		snprintf(fdpath, sizeof(fdpath), "%s/%s", path, de->d_name);
		n = readlink(fdpath, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		if (!strcmp(link, "/dev/nvidia-uvm"))
			got = (int)syscall(SYS_pidfd_getfd, pidfd, atoi(de->d_name), 0);
	}
	closedir(d);
	close(pidfd);
	if (got < 0)
		die("the process has no /dev/nvidia-uvm fd");
	return got;
}

static void call(unsigned long req, void *p, unsigned int *status)
{
	if (ioctl(fd, req, p)) {
		printf("errno %d %s\n", errno, strerror(errno));
		exit(1);
	}
	printf("status 0x%x\n", *status);
}

static struct uvm_uuid where(const char *s)
{
	struct uvm_uuid u = { UVM_CPU_UUID_BYTES };

	if (!strcmp(s, "cpu"))
		return u;
	if (!strcmp(s, "gpu")) {
		static struct uvm_uuid table[UVM_MAX_PROCESSORS_V2];
		struct uvm_uuid_table_params t = { .table = (uintptr_t)table };

		if (ioctl(fd, UVM_TOOLS_GET_PROCESSOR_UUID_TABLE_V2, &t) || t.rm_status)
			die("no UUID table");
		return table[1];
	}
	if (strlen(s) != 32)
		die("WHERE: gpu, cpu or 32 hex digits");
	for (int i = 0; i < 16; i++) {
		char b[3] = { s[2 * i], s[2 * i + 1], 0 };

		u.uuid[i] = (unsigned char)strtoul(b, NULL, 16);
	}
	return u;
}

static void print_uuid(const struct uvm_uuid *u)
{
	for (int i = 0; i < 16; i++)
		printf("%02x", u->uuid[i]);
}

static int cmd_migrate(int argc, char **argv)
{
	struct uvm_migrate_params p = { .cpu_numa_node = -1 };
	static volatile unsigned int sem_word;
	int i;

	if (argc < 3)
		die("migrate BASE LEN WHERE ...");
	p.base = num(argv[0]);
	p.length = num(argv[1]);
	p.destination = where(argv[2]);
	for (i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "async")) {
			p.flags |= UVM_MIGRATE_FLAG_ASYNC;
		} else if (!strcmp(argv[i], "sem") && i + 2 < argc) {
			i++;
			p.semaphore_address = !strcmp(argv[i], "local") ? (uintptr_t)&sem_word :
					      num(argv[i]);
			p.semaphore_payload = (unsigned int)num(argv[++i]);
		} else if (!strcmp(argv[i], "numa") && i + 1 < argc) {
			p.cpu_numa_node = (int)strtol(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "flags") && i + 1 < argc) {
			p.flags = (unsigned int)num(argv[++i]);
		} else {
			die("migrate: unknown option");
		}
	}
	call(UVM_MIGRATE, &p, &p.rm_status);
	if (p.semaphore_address == (uintptr_t)&sem_word)
		printf("semaphore %u\n", sem_word);
	return 0;
}

int main(int argc, char **argv)
{
	int own = 0, init = 1, i = 1;
	unsigned long long map_first = 0, map_n = 0;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-p") && i + 1 < argc)
			fd = borrow(atoi(argv[++i]));
		else if (!strcmp(argv[i], "--own"))
			own = 1;
		else if (!strcmp(argv[i], "--noinit"))
			init = 0;
		else if (!strcmp(argv[i], "--map") && i + 2 < argc) {
			map_first = num(argv[++i]);
			map_n = num(argv[++i]);
		} else
			die("usage: uvmclient [-p PID | --own [--noinit] [--map FIRST N]] CMD ...");
	}
	if (i >= argc || (fd < 0 && !own))
		die("usage: uvmclient [-p PID | --own [--noinit] [--map FIRST N]] CMD ...");
	if (own) {
		struct uvm_initialize_params p = { 0 };

		fd = open("/dev/nvidia-uvm", O_RDWR | O_CLOEXEC);
		if (fd < 0)
			die("cannot open /dev/nvidia-uvm");
		if (init && (ioctl(fd, UVM_INITIALIZE, &p) || p.rm_status))
			die("UVM_INITIALIZE failed");
		if (map_n) {
			unsigned long long va = UVM_MODEL_VA_BASE + (map_first << 21);

			if (mmap((void *)va, map_n << 21, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_FIXED_NOREPLACE, fd, (off_t)va) == MAP_FAILED) {
				printf("mmap errno %d %s\n", errno, strerror(errno));
				return 1;
			}
		}
	}
	argc -= i;
	argv += i;

	if (!strcmp(argv[0], "migrate"))
		return cmd_migrate(argc - 1, argv + 1);
	if (!strcmp(argv[0], "prefer") && argc >= 4) {
		struct uvm_set_preferred_location_params p = {
			.base = num(argv[1]), .length = num(argv[2]), .location = where(argv[3]),
			.cpu_numa_node = argc >= 6 ? (int)strtol(argv[5], NULL, 0) : -1,
		};

		call(UVM_SET_PREFERRED_LOCATION, &p, &p.rm_status);
	} else if ((!strcmp(argv[0], "unprefer") || !strcmp(argv[0], "readdup") ||
		    !strcmp(argv[0], "unreaddup")) && argc >= 3) {
		struct uvm_range_params p = { .base = num(argv[1]), .length = num(argv[2]) };

		call(!strcmp(argv[0], "unprefer") ? UVM_UNSET_PREFERRED_LOCATION :
		     !strcmp(argv[0], "readdup") ? UVM_ENABLE_READ_DUPLICATION :
		     UVM_DISABLE_READ_DUPLICATION, &p, &p.rm_status);
	} else if ((!strcmp(argv[0], "accessed_by") || !strcmp(argv[0], "unaccessed_by")) &&
		   argc >= 4) {
		struct uvm_accessed_by_params p = {
			.base = num(argv[1]), .length = num(argv[2]), .processor = where(argv[3]),
		};

		call(argv[0][0] == 'a' ? UVM_SET_ACCESSED_BY : UVM_UNSET_ACCESSED_BY, &p,
		     &p.rm_status);
	} else if (!strcmp(argv[0], "uuids")) {
		static struct uvm_uuid table[UVM_MAX_PROCESSORS_V2];
		struct uvm_uuid_table_params p = { .table = (uintptr_t)table };
		int v1 = argc > 1 && !strcmp(argv[1], "v1");

		call(v1 ? UVM_TOOLS_GET_PROCESSOR_UUID_TABLE : UVM_TOOLS_GET_PROCESSOR_UUID_TABLE_V2,
		     &p, &p.rm_status);
		for (int k = 0; k < (v1 ? UVM_MAX_PROCESSORS_V1 : UVM_MAX_PROCESSORS_V2); k++) {
			static const struct uvm_uuid zero;

			if (memcmp(&table[k], &zero, sizeof(zero))) {
				printf("%d ", k);
				print_uuid(&table[k]);
				printf("\n");
			}
		}
	} else if (!strcmp(argv[0], "init")) {
		struct uvm_initialize_params p = { .flags = argc > 1 ? num(argv[1]) : 0 };

		call(UVM_INITIALIZE, &p, &p.rm_status);
	} else if (!strcmp(argv[0], "hold") && argc >= 2) {
		usleep((useconds_t)num(argv[1]) * 1000);
	} else if (!strcmp(argv[0], "ioctl") && argc >= 2) {
		unsigned char buf[256] = { 0 };

		call((unsigned long)num(argv[1]), buf, (unsigned int *)buf);
	} else {
		die("unknown command");
	}
	return 0;
}
