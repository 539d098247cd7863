// SPDX-License-Identifier: GPL-2.0
/*
 * xsched.c - exploration prototype for issue 16 (GPU run only; gpuctl's
 * policy is the product).  Borrows BE processes' RM files and measures /
 * drives NVA06C_CTRL_CMD_GPFIFO_SCHEDULE and PREEMPT on their TSGs.
 *
 *   xsched probe SPECS N          per TSG: N x {off, on} and N x PREEMPT timings
 *   xsched off|on SPECS           one shot
 *   xsched hint SPECS FILE ROT_MS HOLD_MS   BE off while the LC hint is busy;
 *                                 ROT_MS > 0: only one BE process on at a time
 *   xsched rotate SPECS ROT_MS    only one BE process on at a time, no hint
 *   xsched scan SPECS             the BE clients' objects (GET_HANDLE_INFO):
 *                                 subdevice and channels of each TSG
 *   xsched var SPECS MODE off|on  one mechanism, one way (MODE below)
 * MODE: sched (GPFIFO_SCHEDULE bEnable 0/1), skip (bEnable 1 + bSkipSubmit
 * to take off), dis (FIFO_DISABLE_CHANNELS, preempting), dsch (the same with
 * bOnlyDisableScheduling); hint takes MODE as a 6th argument (default sched).
 * SPECS: a file of lines "pid fd hClient hTsg" (hex handles).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define GPUCTL_HINT_NO_API
#include "../../hint/gpuctl_hint.h"

struct nvos54 { uint32_t hClient, hObject, cmd, flags; uint64_t params; uint32_t size, status; };
#define NV_IOC_CONTROL _IOWR('F', 0x2A, struct nvos54)
#define SCHED 0xa06c0101u
#define PREEMPT 0xa06c0105u

struct t { int pid, fd, dup; uint32_t cl, tsg; };
static struct t T[64];
static int nt;
/* per client: its subdevice and its channels (scan) */
struct cl { int pid, dup; uint32_t cl, subdev, ch[64]; int nch; };
static struct cl C[16];
static int nc;
static const char *mode = "sched";
#define GET_HANDLE_INFO 0xd02u
#define DISABLE_CHANNELS 0x2080110bu
struct dis { uint8_t bDisable, p0[3]; uint32_t n; uint8_t bOnly, bRewind, p1[6]; uint64_t ev;
	     uint32_t cls[64], chs[64]; };
_Static_assert(sizeof(struct dis) == 536, "DISABLE_CHANNELS params");
static volatile sig_atomic_t stop;

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int ctl(struct t *t, uint32_t cmd, void *p, uint32_t sz)
{
	struct nvos54 a = { t->cl, t->tsg, cmd, 0, (uintptr_t)p, sz, 0 };
	if (ioctl(t->dup, NV_IOC_CONTROL, &a))
		return -errno;
	return a.status;
}

static int ctl2(int fd, uint32_t c, uint32_t o, uint32_t cmd, void *p, uint32_t sz)
{
	struct nvos54 a = { c, o, cmd, 0, (uintptr_t)p, sz, 0 };
	if (ioctl(fd, NV_IOC_CONTROL, &a))
		return -errno;
	return a.status;
}

static int sched(struct t *t, int en)
{
	uint8_t p[4] = { (uint8_t)en, 0, 0, 0 };	/* bEnable, bSkipSubmit, bSkipEnable */
	if (!strcmp(mode, "skip"))
		p[0] = 1, p[1] = !en;
	return ctl(t, SCHED, p, 3);
}

static uint64_t hinfo(int fd, uint32_t c, uint32_t h, uint32_t idx, int *st)
{
	struct { uint32_t h, idx; uint64_t d; } p = { h, idx, 0 };
	*st = ctl2(fd, c, c, GET_HANDLE_INFO, &p, sizeof(p));
	return p.d;
}

static void scan(int verbose)
{
	for (int i = 0; i < nt; i++) {
		int j;
		for (j = 0; j < nc && C[j].cl != T[i].cl; j++);
		if (j == nc && nc < 16) { C[nc].pid = T[i].pid; C[nc].dup = T[i].dup; C[nc].cl = T[i].cl; nc++; }
	}
	for (int j = 0; j < nc; j++) {
		uint32_t lo = 0xffffffff, hi = 0;
		for (int i = 0; i < nt; i++)
			if (T[i].cl == C[j].cl) { if (T[i].tsg < lo) lo = T[i].tsg; if (T[i].tsg > hi) hi = T[i].tsg; }
		for (uint32_t h = lo - 0x40; h < hi + 0x100; h++) {
			int s1, s2;
			uint32_t cls = (uint32_t)hinfo(C[j].dup, C[j].cl, h, 2, &s1);
			uint32_t par = (uint32_t)hinfo(C[j].dup, C[j].cl, h, 1, &s2);
			int under_tsg = 0;
			if (s1 || s2) continue;
			for (int i = 0; i < nt; i++) if (T[i].cl == C[j].cl && T[i].tsg == par) under_tsg = 1;
			if (verbose) printf("  client %x obj %x class %x parent %x%s\n", C[j].cl, h, cls, par, under_tsg ? " (in a TSG)" : "");
			if (cls == 0x2080 && !C[j].subdev) C[j].subdev = h;
			if (under_tsg && (cls & 0xff) == 0x6f && C[j].nch < 64) C[j].ch[C[j].nch++] = h;
		}
		printf("scan: client %x pid %d subdevice %x channels %d\n", C[j].cl, C[j].pid, C[j].subdev, C[j].nch);
	}
	fflush(stdout);
}

/* DISABLE_CHANNELS on every channel of client j (its own subdevice, its own file) */
static int dis(int j, int off)
{
	struct dis p;
	memset(&p, 0, sizeof(p));
	p.bDisable = off; p.bOnly = !strcmp(mode, "dsch"); p.n = C[j].nch;
	for (int k = 0; k < C[j].nch; k++) { p.cls[k] = C[j].cl; p.chs[k] = C[j].ch[k]; }
	return ctl2(C[j].dup, C[j].cl, C[j].subdev, DISABLE_CHANNELS, &p, sizeof(p));
}

static int preempt(struct t *t, int wait)
{
	struct { uint8_t w, m, pad[2]; uint32_t to; } p = { (uint8_t)wait, 0, {0}, 0 };
	return ctl(t, PREEMPT, &p, 8);
}

static void load(const char *f)
{
	FILE *fp = fopen(f, "r");
	if (!fp) { perror(f); exit(1); }
	while (nt < 64 && fscanf(fp, "%d %d %x %x", &T[nt].pid, &T[nt].fd, &T[nt].cl, &T[nt].tsg) == 4) {
		int pfd = syscall(SYS_pidfd_open, T[nt].pid, 0);
		T[nt].dup = pfd < 0 ? -1 : syscall(SYS_pidfd_getfd, pfd, T[nt].fd, 0);
		if (T[nt].dup < 0) { fprintf(stderr, "borrow %d/%d: %s\n", T[nt].pid, T[nt].fd, strerror(errno)); exit(1); }
		close(pfd);
		nt++;
	}
	fclose(fp);
	fprintf(stderr, "xsched: %d TSGs\n", nt);
}

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void stats(const char *what, double *v, int n)
{
	if (!n) { printf("%s n=0\n", what); return; }
	qsort(v, n, sizeof(*v), cmpd);
	printf("%s n=%d p50_us=%.1f p90_us=%.1f p99_us=%.1f max_us=%.1f\n", what, n, v[n / 2],
	       v[(int)(n * 0.9)], v[(int)(n * 0.99)], v[n - 1]);
}

static void all(int en, int proc)	/* proc: only TSGs of this pid (0: all) */
{
	if (!strcmp(mode, "dis") || !strcmp(mode, "dsch")) {
		static int errs;
		for (int j = 0; j < nc; j++)
			if (!proc || C[j].pid == proc) {
				int s = dis(j, !en);
				if (s && errs++ < 8) fprintf(stderr, "dis(%d) client %x: %d\n", !en, C[j].cl, s);
			}
		return;
	}
	for (int i = 0; i < nt; i++)
		if (!proc || T[i].pid == proc) {
			static int errs;
			int s = sched(&T[i], en);
			if (s && errs++ < 8) fprintf(stderr, "sched(%d) pid %d tsg %x: %d\n", en, T[i].pid, T[i].tsg, s);
		}
}

static void onsig(int s) { (void)s; stop = 1; }

static int procs[16], nproc;

static void mkprocs(void)
{
	for (int i = 0; i < nt; i++) {
		int j;
		for (j = 0; j < nproc && procs[j] != T[i].pid; j++);
		if (j == nproc && nproc < 16) procs[nproc++] = T[i].pid;
	}
}

/* probe SPECS [N]: each TSG's schedule off/on and preempt calls, timed N times */
static int do_probe(int argc, char **argv)
{
	int n = argc > 3 ? atoi(argv[3]) : 10;
	double *off = calloc(n, 8), *on = calloc(n, 8), *pw = calloc(n, 8), *pn = calloc(n, 8);
	for (int i = 0; i < nt; i++) {
		int s1 = 0, s2 = 0, s3 = 0, s4 = 0;
		for (int k = 0; k < n; k++) {
			double a = now_us(); s1 |= sched(&T[i], 0);
			double b = now_us(); usleep(2000);
			double c = now_us(); s2 |= sched(&T[i], 1);
			double d = now_us(); usleep(5000);
			off[k] = b - a; on[k] = d - c;
		}
		for (int k = 0; k < n; k++) {
			double a = now_us(); s3 |= preempt(&T[i], 1);
			double b = now_us(); usleep(3000);
			double c = now_us(); s4 |= preempt(&T[i], 0);
			double d = now_us(); usleep(3000);
			pw[k] = b - a; pn[k] = d - c;
		}
		char w[128];
		printf("tsg pid=%d client=%x tsg=%x status off=%d on=%d preempt_wait=%d preempt_nowait=%d\n",
		       T[i].pid, T[i].cl, T[i].tsg, s1, s2, s3, s4);
		snprintf(w, sizeof(w), "  off  tsg=%x", T[i].tsg); stats(w, off, n);
		snprintf(w, sizeof(w), "  on   tsg=%x", T[i].tsg); stats(w, on, n);
		snprintf(w, sizeof(w), "  preempt_wait tsg=%x", T[i].tsg); stats(w, pw, n);
		snprintf(w, sizeof(w), "  preempt_nowait tsg=%x", T[i].tsg); stats(w, pn, n);
		fflush(stdout);
	}
	return 0;
}

/* rotate SPECS ROT_MS: one BE process's TSGs on at a time, each for ROT_MS */
static int do_rotate(char **argv)
{
	int rot = atoi(argv[3]), cur = 0;
	long flips = 0;
	for (int j = 1; j < nproc; j++) all(0, procs[j]);
	all(1, procs[0]);
	while (!stop) {
		usleep(rot * 1000);
		if (nproc < 2) continue;
		all(0, procs[cur]);
		cur = (cur + 1) % nproc;
		all(1, procs[cur]);
		flips++;
	}
	all(1, 0);
	printf("xsched rotate: %ld rotations, all back on\n", flips);
	return 0;
}

/* hint SPECS FILE ROT_MS HOLD_MS [MODE]: BE off while the hint page says busy */
static int do_hint(int argc, char **argv)
{
	int rot = atoi(argv[4]), hold = atoi(argv[5]), cur = 0, on = 1;
	if (argc > 6) { mode = argv[6]; scan(0); }
	int fd = open(argv[3], O_RDWR | O_CREAT | O_TRUNC, 0666);
	struct gpuctl_hint_page *pg;
	double *offt = calloc(1 << 20, 8), *ont = calloc(1 << 20, 8);
	long noff = 0, non = 0, held = 0, rots = 0;
	int forced = 0;
	double t_off = 0, last_rot = now_us();

	if (fd < 0 || ftruncate(fd, 4096)) { perror(argv[3]); return 1; }
	fchmod(fd, 0666);
	pg = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	pg->version = GPUCTL_HINT_VERSION; pg->owner = getpid();
	__atomic_store_n(&pg->magic, GPUCTL_HINT_MAGIC, __ATOMIC_RELEASE);
	if (rot > 0) for (int j = 1; j < nproc; j++) all(0, procs[j]);
	printf("xsched hint: ready %d procs rot=%d hold=%d\n", nproc, rot, hold); fflush(stdout);
	while (!stop) {
		uint32_t b = __atomic_load_n(&pg->busy, __ATOMIC_ACQUIRE);
		double t = now_us(), a = t;
		struct timespec to = { 0, 1000000 };

		if (!b)
			forced = 0;
		if (b && on && !forced) {
			rot > 0 ? all(0, procs[cur]) : all(0, 0);
			if (noff < (1 << 20)) offt[noff++] = now_us() - a;
			on = 0; t_off = now_us();
		} else if (!on && (!b || (hold && t - t_off > hold * 1000.0))) {
			if (b) { held++; forced = 1; }
			if (rot > 0 && t - last_rot > rot * 1000.0 && nproc > 1) {
				cur = (cur + 1) % nproc; last_rot = t; rots++;
			}
			rot > 0 ? all(1, procs[cur]) : all(1, 0);
			if (non < (1 << 20)) ont[non++] = now_us() - a;
			on = 1;
		} else if (on && !b && rot > 0 && t - last_rot > rot * 1000.0 && nproc > 1) {
			all(0, procs[cur]); cur = (cur + 1) % nproc; all(1, procs[cur]);
			last_rot = t; rots++;
		}
		syscall(SYS_futex, &pg->busy, FUTEX_WAIT, b, &to, NULL, 0);
	}
	all(1, 0);
	printf("xsched hint: begins=%llu ends=%llu rotations=%ld held_over=%ld\n",
	       (unsigned long long)pg->begins, (unsigned long long)pg->ends, rots, held);
	stats("xsched hint off-call", offt, noff);
	stats("xsched hint on-call", ont, non);
	pg->magic = 0;
	unlink(argv[3]);
	return 0;
}

/* The arguments each mode needs (the comment atop this file): 0, or 2 after an Error line. */
static int usage(int argc, char **argv)
{
	static const struct { const char *mode; int argc; const char *args; } m[] = {
		{ "probe", 3, "SPECS [N]" }, { "off", 3, "SPECS" }, { "on", 3, "SPECS" },
		{ "scan", 3, "SPECS" }, { "var", 5, "SPECS MODE off|on" },
		{ "rotate", 4, "SPECS ROT_MS" }, { "hint", 6, "SPECS FILE ROT_MS HOLD_MS [MODE]" },
	};

	for (unsigned i = 0; argc > 1 && i < sizeof(m) / sizeof(m[0]); i++) {
		if (strcmp(argv[1], m[i].mode))
			continue;
		if (argc >= m[i].argc)
			return 0;
		fprintf(stderr, "Error: usage: xsched %s %s\n", m[i].mode, m[i].args);
		return 2;
	}
	fprintf(stderr, "Error: usage: xsched probe|off|on|scan|var|rotate|hint SPECS ... "
		"(the comment atop xsched.c)\n");
	return 2;
}

int main(int argc, char **argv)
{
	if (usage(argc, argv))
		return 2;
	load(argv[2]);
	signal(SIGINT, onsig); signal(SIGTERM, onsig); signal(SIGHUP, onsig);
	if (!strcmp(argv[1], "probe"))
		return do_probe(argc, argv);
	if (!strcmp(argv[1], "scan")) {
		scan(1);
		return 0;
	}
	if (!strcmp(argv[1], "var")) {
		double a;
		mode = argv[3];
		scan(0);
		a = now_us();
		all(!strcmp(argv[4], "on"), 0);
		printf("xsched var %s %s: %.1f us\n", mode, argv[4], now_us() - a);
		return 0;
	}
	if (!strcmp(argv[1], "off") || !strcmp(argv[1], "on")) {
		double a = now_us();
		all(!strcmp(argv[1], "on"), 0);
		printf("xsched %s: %d TSGs in %.1f us\n", argv[1], nt, now_us() - a);
		return 0;
	}
	mkprocs();
	if (!strcmp(argv[1], "rotate"))
		return do_rotate(argv);
	return do_hint(argc, argv);
}
