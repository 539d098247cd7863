// SPDX-License-Identifier: GPL-2.0
/*
 * caps.c - capabilities: the table of those gpuctl uses and why, which ones
 * this process lacks, and the one check every command makes before it
 * changes anything (one error line naming what is missing).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>

#include "gpuctl.h"

/* --------------------------------------------------------- capabilities */

const struct cap_info cap_table[CAP_TABLE_LEN] = {
	{ CAP_BPF, "CAP_BPF", "loading BPF programs and maps (struct_ops policies, tracers)" },
	{ CAP_PERFMON, "CAP_PERFMON", "attaching tracing programs (fentry/fexit, raw tracepoints)" },
	{ CAP_SYS_ADMIN, "CAP_SYS_ADMIN", "reading BPF objects by id and module BTF; stands in for CAP_BPF/CAP_PERFMON on kernels before 5.8" },
	{ CAP_SYS_PTRACE, "CAP_SYS_PTRACE", "borrowing a process's NVIDIA file descriptor (pidfd_getfd) for uvm-tools tracing and sched" },
	{ CAP_SYS_RESOURCE, "CAP_SYS_RESOURCE", "raising RLIMIT_MEMLOCK for BPF maps on kernels before 5.11" },
};

static const char *cap_name(int cap)
{
	for (size_t i = 0; i < sizeof(cap_table) / sizeof(cap_table[0]); i++)
		if (cap_table[i].cap == cap)
			return cap_table[i].name;
	return NULL;
}

/* 1 held, 0 not held, -errno when it cannot be told. */
static int cap_held_in(cap_t caps, int cap)
{
	cap_flag_value_t v = CAP_CLEAR;

	/* Kernels before 5.8 know no CAP_BPF/CAP_PERFMON: CAP_SYS_ADMIN does it. */
	if ((cap == CAP_BPF || cap == CAP_PERFMON) && cap > (int)cap_max_bits() - 1)
		cap = CAP_SYS_ADMIN;
	if (cap_get_flag(caps, cap, CAP_EFFECTIVE, &v))
		return -errno;
	return v == CAP_SET;
}

int caps_missing(const int *caps, int n, char *buf, size_t len)
{
	cap_t cur = cap_get_proc();
	int missing = 0;

	if (buf && len)
		buf[0] = '\0';
	if (!cur)
		return -errno;
	for (int i = 0; i < n; i++) {
		int held = cap_held_in(cur, caps[i]);
		const char *name = cap_name(caps[i]);
		char *lib_name = NULL;

		if (held > 0)
			continue;
		missing++;
		if (!buf || !len)
			continue;
		if (!name)
			name = lib_name = cap_to_name(caps[i]);
		size_t used = strlen(buf);

		snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
			 name ? name : "?");
		if (lib_name)
			cap_free(lib_name);
	}
	cap_free(cur);
	return missing;
}

int cap_held(int cap)
{
	cap_t cur = cap_get_proc();
	int held;

	if (!cur)
		return -errno;
	held = cap_held_in(cur, cap);
	cap_free(cur);
	return held;
}

int need_caps(const char *what, unsigned int need)
{
	static const int bpf[2] = { CAP_BPF, CAP_PERFMON };
	char missing[128] = "", names[96];
	const char *sep = "";
	int n;

	if (need & NEED_PTRACE) {
		n = caps_missing((const int[]){ CAP_SYS_PTRACE }, 1, names, sizeof(names));
		if (n < 0)
			goto unreadable;
		if (n > 0) {
			snprintf(missing, sizeof(missing), "%s", names);
			sep = ", ";
		}
	}
	if (need & NEED_BPF) {
		/* CAP_BPF + CAP_PERFMON, or CAP_SYS_ADMIN alone. */
		n = caps_missing(bpf, 2, names, sizeof(names));
		if (n < 0)
			goto unreadable;
		if (n > 0 && cap_held(CAP_SYS_ADMIN) <= 0) {
			size_t used = strlen(missing);

			snprintf(missing + used, sizeof(missing) - used, "%s%s", sep, names);
		}
	}
	if (!missing[0])
		return 0;
	err_code("PERMISSION");
	p_err("'%s' needs %s%s%s; missing: %s", what,
	      need & NEED_PTRACE ? "CAP_SYS_PTRACE (to borrow another process's NVIDIA file)" : "",
	      (need & NEED_PTRACE) && (need & NEED_BPF) ? " and " : "",
	      need & NEED_BPF ? "CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN" : "", missing);
	return -1;
unreadable:
	p_err("cannot read the process capabilities: %s", strerror(-n));
	return -1;
}
