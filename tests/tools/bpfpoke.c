// SPDX-License-Identifier: GPL-2.0
/*
 * bpfpoke - make the awkward states gpuctl must cope with, for the VM tests.
 *
 *   bpfpoke pin-map PATH      pin a fresh array map at PATH (a foreign pin)
 *   bpfpoke detach PATH       detach the link pinned at PATH, keep the pin
 *   bpfpoke nocap CMD ARG...  run CMD as root without CAP_BPF, CAP_PERFMON
 *                             and CAP_SYS_ADMIN (dropped from the bounding set)
 *   bpfpoke user UID CMD ARG...  run CMD as user and group UID, no
 *                             supplementary groups, no capabilities
 *   bpfpoke raw-tp-links      print how many raw tracepoint links the host has
 *
 * Raw bpf(2) so that it links statically and needs nothing in the guest.
 */
#include <errno.h>
#include <grp.h>
#include <stdlib.h>
#include <linux/bpf.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static int pin_map(const char *path)
{
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = 4;
	a.value_size = 8;
	a.max_entries = 1;
	fd = (int)sys_bpf(BPF_MAP_CREATE, &a);
	if (fd < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.pathname = (unsigned long)path;
	a.bpf_fd = fd;
	return (int)sys_bpf(BPF_OBJ_PIN, &a);
}

static int detach(const char *path)
{
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.pathname = (unsigned long)path;
	fd = (int)sys_bpf(BPF_OBJ_GET, &a);
	if (fd < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.link_detach.link_fd = fd;
	return (int)sys_bpf(BPF_LINK_DETACH, &a);
}

static int nocap(char **argv)
{
	static const int drop[] = { CAP_BPF, CAP_PERFMON, CAP_SYS_ADMIN };
	unsigned int i;

	for (i = 0; i < sizeof(drop) / sizeof(drop[0]); i++)
		if (prctl(PR_CAPBSET_DROP, drop[i], 0, 0, 0))
			return -1;
	execvp(argv[0], argv);
	return -1;
}

static int as_user(const char *uid_s, char **argv)
{
	char *end;
	long uid = strtol(uid_s, &end, 10);

	if (*end || uid <= 0) {
		errno = EINVAL;
		return -1;
	}
	if (setgroups(0, NULL) || setgid((gid_t)uid) || setuid((uid_t)uid))
		return -1;
	execvp(argv[0], argv);
	return -1;
}

/* Every raw tracepoint link of the host, counted (BPF_LINK_GET_NEXT_ID). */
static int raw_tp_links(void)
{
	struct bpf_link_info info;
	union bpf_attr a;
	unsigned int id = 0, n = 0;
	int fd;

	for (;;) {
		memset(&a, 0, sizeof(a));
		a.start_id = id;
		if (sys_bpf(BPF_LINK_GET_NEXT_ID, &a))
			break;
		id = a.next_id;
		memset(&a, 0, sizeof(a));
		a.link_id = id;
		fd = (int)sys_bpf(BPF_LINK_GET_FD_BY_ID, &a);
		if (fd < 0)
			continue;	/* gone meanwhile */
		memset(&info, 0, sizeof(info));
		memset(&a, 0, sizeof(a));
		a.info.bpf_fd = fd;
		a.info.info_len = sizeof(info);
		a.info.info = (unsigned long)&info;
		if (!sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a) && info.type == BPF_LINK_TYPE_RAW_TRACEPOINT)
			n++;
		close(fd);
	}
	if (errno != ENOENT)
		return -1;
	printf("%u\n", n);
	return 0;
}

int main(int argc, char **argv)
{
	int ret = -1;

	if (argc >= 3 && !strcmp(argv[1], "pin-map"))
		ret = pin_map(argv[2]);
	else if (argc >= 3 && !strcmp(argv[1], "detach"))
		ret = detach(argv[2]);
	else if (argc >= 3 && !strcmp(argv[1], "nocap"))
		ret = nocap(argv + 2);
	else if (argc >= 4 && !strcmp(argv[1], "user"))
		ret = as_user(argv[2], argv + 3);
	else if (argc == 2 && !strcmp(argv[1], "raw-tp-links"))
		ret = raw_tp_links();
	else {
		fprintf(stderr, "usage: bpfpoke {pin-map PATH | detach PATH | nocap CMD... | user UID CMD... | "
			"raw-tp-links}\n");
		return 2;
	}
	if (ret < 0) {
		fprintf(stderr, "bpfpoke %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	return 0;
}
