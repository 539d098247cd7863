// SPDX-License-Identifier: GPL-2.0
/*
 * restrictaf - run a command as systemd's RestrictAddressFamilies= runs a
 * unit: socket(2) and socketpair(2) of any other address family fail with
 * EAFNOSUPPORT (a seccomp filter, inherited by the command).
 *
 *   restrictaf AF_INET AF_INET6 AF_UNIX [AF_NETLINK ...] -- CMD ARG...
 *
 * The families are the unit file's words; the tests read them from the
 * shipped unit, so the exporter is tested under what the unit allows.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>

static const struct {
	const char *name;
	int af;
} fams[] = {
	{ "AF_UNIX", AF_UNIX }, { "AF_INET", AF_INET }, { "AF_INET6", AF_INET6 },
	{ "AF_NETLINK", AF_NETLINK }, { "AF_PACKET", AF_PACKET },
};

#define MAXF 16

int main(int argc, char **argv)
{
	struct sock_filter f[8 + MAXF];
	struct sock_fprog prog;
	int af[MAXF], n = 0, i = 1, k = 0;

	for (; i < argc && strcmp(argv[i], "--"); i++) {
		size_t j;

		for (j = 0; j < sizeof(fams) / sizeof(fams[0]); j++)
			if (!strcmp(argv[i], fams[j].name))
				break;
		if (j == sizeof(fams) / sizeof(fams[0]) || n == MAXF) {
			fprintf(stderr, "restrictaf: unknown family '%s'\n", argv[i]);
			return 2;
		}
		af[n++] = fams[j].af;
	}
	if (i + 1 >= argc) {
		fprintf(stderr, "usage: restrictaf FAMILY... -- CMD ARG...\n");
		return 2;
	}
	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 2, 0);
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socketpair, 1, 0);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]));
	for (int j = 0; j < n; j++)	/* a match jumps to the ALLOW after the ERRNO */
		f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned int)af[j],
						      (unsigned char)(n - j), 0);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EAFNOSUPPORT);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	prog.len = (unsigned short)k;
	prog.filter = f;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("restrictaf: seccomp");
		return 1;
	}
	execvp(argv[i + 1], argv + i + 1);
	perror("restrictaf: exec");
	return 1;
}
