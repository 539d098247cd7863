// SPDX-License-Identifier: GPL-2.0
/*
 * watch-alt-uprobe - issue 40's uprobe alternative to the engine's
 * allocation watcher: counts one process's cuMemAllocManaged calls with a
 * uprobe and a uretprobe (bench/watch_alt/uprobe_abi.h).
 *
 *   watch-alt-uprobe --lib PATH [--symbol NAME | --no-symbol] [--offset OFF]...
 *                    [--out FILE] (-p PID | -- CMD [ARG]...)
 *
 * --lib PATH     the library file (libcuda.so.1's real path: watch-alt-resolve
 *                prints it); uprobes attach to the file, not to a process
 * --symbol NAME  attach at the exported symbol (default cuMemAllocManaged);
 *                --no-symbol: at the offsets only
 * --offset OFF   also attach at file offset OFF (hex or decimal; e.g. what
 *                cuGetProcAddress hands the runtime: watch-alt-resolve's
 *                PROC); up to 3
 * --out FILE     the report (one JSON line) goes to FILE, written whole at the
 *                end (a temporary file renamed); default: standard error
 * -p PID         watch the running process PID until it exits (or SIGINT)
 * -- CMD         run CMD, watched from its first instruction (it waits for the
 *                probes before it execs), until it exits
 * The report: pid, lib, seconds, allocs (the most calls any point saw),
 * lost (returns the full ring dropped), untracked, and per point: at, offset,
 * entries, calls (returns seen), ok, bytes, took_ns_p50, took_ns_max (entry
 * to return), sizes and addrs (the first 32 calls).
 * Exit: -- CMD: the command's status (128 + signal when killed; 127 it did
 * not start); -p: 0.  1: a runtime failure (no such process, no such file,
 * no such symbol, the kernel refused the uprobe: one Error line with the
 * errno); 2: usage.  On 1 and 2 no report is written and no probe is left.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "uprobe.h"
#include "watch_alt_uprobe.skel.h"

static volatile sig_atomic_t stop_sig;

static void on_signal(int sig)
{
	stop_sig = sig;
}

static int silent(enum libbpf_print_level l, const char *f, va_list ap)
{
	(void)l, (void)f, (void)ap;
	return 0;
}

static int usage(const char *why)
{
	fprintf(stderr, "Error: %s (usage: watch-alt-uprobe --lib PATH [--symbol NAME | --no-symbol] "
		"[--offset OFF]... [--out FILE] (-p PID | -- CMD [ARG]...))\n", why);
	return 2;
}

static int parse(int argc, char **argv, struct opts *o)
{
	unsigned long long offs[WU_MAX_POINTS];
	int noff = 0, nosym = 0, i;
	char *end;

	o->sym = "cuMemAllocManaged";
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(a, "--") == 0) {
			o->cmd = argv + i + 1;
			if (!o->cmd[0])
				return usage("-- needs a command");
			break;
		}
		if (strcmp(a, "--no-symbol") == 0) {
			nosym = 1;
			continue;
		}
		if (strcmp(a, "--lib") && strcmp(a, "--symbol") && strcmp(a, "--offset") && strcmp(a, "--out") &&
		    strcmp(a, "-p"))
			return usage("unknown argument");
		if (!v || !*v)
			return usage("an option needs a value");
		i++;
		if (strcmp(a, "--lib") == 0)
			o->lib = v;
		else if (strcmp(a, "--symbol") == 0)
			o->sym = v;
		else if (strcmp(a, "--out") == 0)
			o->out = v;
		else if (strcmp(a, "-p") == 0) {
			long p = strtol(v, &end, 10);

			if (*end || p <= 0 || p > 0x3fffffff)
				return usage("-p takes a process id");
			o->pid = (pid_t)p;
		} else {
			errno = 0;
			offs[noff] = strtoull(v, &end, 0);
			if (*end || errno || *v == '-' || noff == WU_MAX_POINTS - 1)
				return usage("--offset takes a file offset, at most 3 of them");
			noff++;
		}
	}
	if (!o->lib)
		return usage("--lib is required");
	if (!o->pid == !o->cmd)
		return usage("give -p PID or -- CMD, one of them");
	if (nosym && !noff)
		return usage("--no-symbol needs an --offset");
	if (!nosym)
		o->pt[o->npt++].sym = o->sym;
	for (i = 0; i < noff; i++)
		o->pt[o->npt++].off = offs[i];
	return 0;
}

/* -- CMD: the child waits on GO for the probes, then execs; an exec failure
 * goes back on ERR (close-on-exec: nothing comes when the exec succeeded). */
static pid_t spawn(char **cmd, int *go_w, int *err_r)
{
	int go[2], er[2];
	pid_t pid;
	char c;

	if (pipe2(go, O_CLOEXEC) || pipe2(er, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int e;

		close(go[1]);
		close(er[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(cmd[0], cmd);
		e = errno;
		if (write(er[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(er[1]);
	*go_w = go[1];
	*err_r = er[0];
	return pid;
}

static int attach_point(struct watch_alt_uprobe *s, const struct opts *o, int i, pid_t pid)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo, .bpf_cookie = (__u64)i, .func_name = o->pt[i].sym);
	const struct point *p = &o->pt[i];
	struct bpf_link *l;
	int r;

	for (r = 0; r < 2; r++) {
		uo.retprobe = r;
		l = bpf_program__attach_uprobe_opts(r ? s->progs.wu_return : s->progs.wu_entry, pid, o->lib,
						    p->sym ? 0 : p->off, &uo);
		if (!l) {
			int e = errno;

			if (e == ESRCH)
				fprintf(stderr, "Error: no process %d\n", (int)pid);
			else if (e == ENOENT && p->sym)
				fprintf(stderr, "Error: %s has no symbol %s (errno %d)\n", o->lib, p->sym, e);
			else if (p->sym)
				fprintf(stderr, "Error: the kernel refused a %s on %s at %s: %s (errno %d)\n",
					r ? "uretprobe" : "uprobe", o->lib, p->sym, strerror(e), e);
			else
				fprintf(stderr, "Error: the kernel refused a %s on %s at offset %#llx: %s (errno %d)\n",
					r ? "uretprobe" : "uprobe", o->lib, p->off, strerror(e), e);
			return -1;
		}
	}
	return 0;
}

static int on_event(void *ctx, void *data, size_t len)
{
	struct opts *o = ctx;
	const struct wu_event *e = data;
	struct point *p;
	uint64_t took;

	if (len < sizeof(*e) || e->point >= (unsigned)o->npt)
		return 0;
	p = &o->pt[e->point];
	took = e->t_return - e->t_entry;
	if (p->calls < WU_FIRST) {
		p->sizes[p->calls] = e->size;
		p->addrs[p->calls] = e->addr;
	}
	p->calls++;
	if (e->rc == 0) {
		p->ok++;
		p->bytes += e->size;
	}
	if (took > p->took_max)
		p->took_max = took;
	if (p->ntook < WU_KEEP && (p->took || (p->took = calloc(WU_KEEP, sizeof(*p->took)))))
		p->took[p->ntook++] = took;
	return 0;
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Until the process ends (or, for -p, a signal): events as they come. */
static int watch(struct ring_buffer *rb, pid_t pid, int is_child, int pidfd)
{
	int status = 0, sent = 0;

	for (;;) {
		struct pollfd pf = { pidfd, POLLIN, 0 };

		if (ring_buffer__poll(rb, 100) < 0 && errno != EINTR)
			break;
		if (stop_sig && is_child && !sent) {
			kill(pid, stop_sig);	/* the command decides when it ends */
			sent = 1;
		} else if (stop_sig && !is_child)
			break;
		if (is_child && waitpid(pid, &status, WNOHANG) == pid)
			break;
		if (!is_child && poll(&pf, 1, 0) == 1)
			break;
	}
	ring_buffer__consume(rb);
	if (!is_child)
		return 0;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int fail_child(pid_t child)
{
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	return 1;
}

static int run(struct opts *o)
{
	struct watch_alt_uprobe *s = NULL;
	struct ring_buffer *rb = NULL;
	int go = -1, er = -1, pidfd = -1, rc = 1, e = 0, i;
	pid_t pid = o->pid, child = -1;
	double t0;

	if (access(o->lib, R_OK) < 0) {
		fprintf(stderr, "Error: %s: %s (errno %d)\n", o->lib, strerror(errno), errno);
		return 1;
	}
	if (o->pid) {
		pidfd = (int)syscall(SYS_pidfd_open, o->pid, 0);
		if (pidfd < 0) {
			fprintf(stderr, errno == ESRCH ? "Error: no process %d\n" :
				"Error: cannot watch process %d: %s\n", (int)o->pid, strerror(errno));
			return 1;
		}
	} else if ((child = pid = spawn(o->cmd, &go, &er)) < 0) {
		fprintf(stderr, "Error: cannot start %s: %s\n", o->cmd[0], strerror(errno));
		return 1;
	}
	s = watch_alt_uprobe__open();
	if (s)
		s->rodata->target_tgid = (__u32)pid;
	if (!s || watch_alt_uprobe__load(s)) {
		fprintf(stderr, "Error: the kernel refused the uprobe programs: %s (errno %d)\n", strerror(errno), errno);
		goto out;
	}
	for (i = 0; i < o->npt; i++)
		if (attach_point(s, o, i, pid) < 0)
			goto out;
	rb = ring_buffer__new(bpf_map__fd(s->maps.events), on_event, o, NULL);
	if (!rb) {
		fprintf(stderr, "Error: cannot read the event ring: %s (errno %d)\n", strerror(errno), errno);
		goto out;
	}
	t0 = mono();
	if (child > 0) {
		char c = 1;

		if (write(go, &c, 1) != 1 || (close(go), go = -1, read(er, &e, sizeof(e)) == (ssize_t)sizeof(e))) {
			fprintf(stderr, "Error: cannot run %s: %s\n", o->cmd[0], strerror(e ? e : errno));
			waitpid(child, NULL, 0);
			child = -1;
			rc = 127;
			goto out;
		}
	}
	rc = watch(rb, pid, child > 0, pidfd);
	child = -1;
	if (wu_report(o, pid, mono() - t0, s->bss->entries, s->bss->lost, s->bss->untracked) < 0)
		rc = 1;
out:
	if (child > 0)
		rc = fail_child(child);
	ring_buffer__free(rb);
	watch_alt_uprobe__destroy(s);
	for (i = 0; i < o->npt; i++)
		free(o->pt[i].took);
	if (go >= 0)
		close(go);
	if (er >= 0)
		close(er);
	if (pidfd >= 0)
		close(pidfd);
	return rc;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct opts o = { 0 };
	int r = parse(argc, argv, &o);

	if (r)
		return r;
	libbpf_set_print(silent);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	return run(&o);
}
