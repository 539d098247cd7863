// SPDX-License-Identifier: GPL-2.0
/*
 * sched_gate_test.c - lc-be's gate (cmd/sched/gate.c) on a host, RM stubbed:
 * be-rotate's turns and stall bound, the hint's share bound against a writer
 * holding it or toggling it 95/2 ms, the hint file truncated under it (no
 * SIGBUS), garbage, and per-GPU decisions (an LC on GPU 0 holds no BE of
 * GPU 1).  Real time, about 10 s; the bounds get 150 ms of slack for a
 * loaded host (the gate thread starved of CPU overshoots them).  Prints "N passed, N failed".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "gpuctl.h"
#include "sched/lcbe/lcbe.h"
#include "sched/lcbe/gate_state.h"

static int npass, nfail;
#define CHECK(c, ...) do { if (c) { npass++; printf("ok   "); } else { nfail++; printf("FAIL "); } \
	printf(__VA_ARGS__); printf("\n"); fflush(stdout); } while (0)

/* ---- stubs: RM, the process table, the share file ---- */
#define NT 8
static volatile int tsg_off[NT + 1];	/* by hTsg */
static volatile int calls, offs_seen;	/* RM calls; TSG 1 taken off */
static struct gate_stats shared;	/* what the gate last wrote to the share file */
static struct gate_share_row shared_row;	/* and its first BE process's row */

const char *rm_status_name(__u32 status) { (void)status; return "?"; }
int rm_control(int fd, __u32 hClient, __u32 hObject, __u32 cmd, void *params, __u32 size,
	       __u32 *status)
{
	const struct a06c_schedule *p = params;

	(void)fd; (void)hClient; (void)size;
	if (cmd == NVA06C_CTRL_CMD_GPFIFO_SCHEDULE && hObject <= NT)
		tsg_off[hObject] = !p->bEnable;
	calls++;
	*status = 0;
	return 0;
}
int rm_tsg_channels(int fd, __u32 hClient, __u32 hTsg, __u32 *subdev, __u32 *ch, int max)
{
	(void)fd; (void)hClient; (void)max;
	*subdev = 1;
	ch[0] = hTsg;
	return 1;
}
int rm_channels_set(int fd, __u32 hClient, __u32 subdev, const __u32 *ch, int n, bool off,
		    __u32 *status)
{
	(void)fd; (void)hClient; (void)subdev;
	for (int i = 0; i < n; i++)
		if (ch[i] <= NT) {
			offs_seen += ch[i] == 1 && off && !tsg_off[1];
			tsg_off[ch[i]] = off;
		}
	calls++;
	*status = 0;
	return 0;
}
/* RM's row of the mechanisms (cmd/sched/mech_rm.c) is linked: its per-TSG ops on sched's files, unused here */
int tsg_get(struct sched *s, const struct tsg *t, __u64 *ts, __u32 *level, char *err, size_t len)
{ (void)s; (void)t; (void)ts; (void)level; snprintf(err, len, "stub"); return -1; }
int tsg_set_ts(struct sched *s, const struct tsg *t, __u64 us, char *err, size_t len)
{ (void)s; (void)t; (void)us; snprintf(err, len, "stub"); return -1; }
int tsg_set_level(struct sched *s, const struct tsg *t, __u32 level, char *err, size_t len)
{ (void)s; (void)t; (void)level; snprintf(err, len, "stub"); return -1; }
int tsg_channels(struct sched *s, const struct tsg *t, bool on, char *err, size_t len)
{ (void)s; (void)t; (void)on; snprintf(err, len, "stub"); return -1; }
int tsg_schedule(struct sched *s, const struct tsg *t, bool enable, char *err, size_t len)
{ (void)s; (void)t; (void)enable; snprintf(err, len, "stub"); return -1; }
int borrow_fd(pid_t pid, int fd) { (void)pid; (void)fd; return open("/dev/null", O_RDONLY); }
bool tsg_proc_gone(__u32 pid) { (void)pid; return false; }
void share_write(const struct gate_opts *o, const struct gate_stats *st, const struct gate_lat *lat,
		 const struct gate_target *tgt, const struct gate_share_row *r, int n)
{
	(void)o; (void)lat; (void)tgt;
	shared = *st;
	if (n > 0)
		shared_row = r[0];
}
void share_remove(void) {}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void sleep_ms(double ms) { usleep((useconds_t)(ms * 1000)); }

static struct tsg mk(__u32 h, __u32 pid, __u32 cls)
{
	struct tsg t;

	memset(&t, 0, sizeof(t));
	t.key.pid = t.info.pid = pid;
	t.key.hClient = t.info.hClient = 0xc1d00000 | pid;
	t.key.hTsg = t.info.hTsg = h;
	t.info.id = h;
	t.info.want_class = cls;
	snprintf(t.info.comm, sizeof(t.info.comm), "p%u", pid);
	return t;
}

/* Samples TSGs [a, b] for ms: per TSG, the share of samples on and the longest stretch off. */
struct sample {
	double on_pct[NT + 1], longest[NT + 1];
	int max_on_together;
};
static void sample(int a, int b, double ms, struct sample *s, void (*tick)(double t))
{
	double end = now_ms() + ms, since[NT + 1];
	long n = 0, on[NT + 1] = { 0 };

	memset(s, 0, sizeof(*s));
	for (int i = a; i <= b; i++)
		since[i] = -1;
	while (now_ms() < end) {
		double t = now_ms();
		int together = 0;

		if (tick)
			tick(t);
		n++;
		for (int i = a; i <= b; i++) {
			if (!tsg_off[i]) {
				on[i]++;
				together++;
				if (since[i] >= 0 && t - since[i] > s->longest[i])
					s->longest[i] = t - since[i];
				since[i] = -1;
			} else if (since[i] < 0) {
				since[i] = t;
			}
		}
		if (together > s->max_on_together)
			s->max_on_together = together;
		sleep_ms(0.5);
	}
	for (int i = a; i <= b; i++) {
		if (since[i] >= 0 && now_ms() - since[i] > s->longest[i])
			s->longest[i] = now_ms() - since[i];
		s->on_pct[i] = 100.0 * on[i] / n;
	}
}

static struct gpuctl_hint_page *page;
static double tog_t0;
static void toggle(double t)	/* a writer: busy 95 ms, idle 2 ms */
{
	double ph = fmod(t - tog_t0, 97.0);

	__atomic_store_n(&page->busy, ph < 95.0, __ATOMIC_SEQ_CST);
}

static struct gate_opts opts(const char *hint, __u32 rotate, __u32 stall, __u32 hold);

/* As libgpuctl-hint does: the count, and a wake on 0 <-> 1. */
static void set_busy(__u32 v)
{
	__atomic_store_n(&page->busy, v, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, &page->busy, FUTEX_WAKE, 1, NULL, NULL, 0);
}

static volatile int flap_stop;
static void *flapper(void *arg)	/* a writer flipping busy every 1 ms */
{
	(void)arg;
	for (__u32 b = 1; !flap_stop; b ^= 1) {
		__atomic_add_fetch(&page->begins, 1000000, __ATOMIC_RELAXED);	/* forged */
		set_busy(b);
		sleep_ms(1);
	}
	set_busy(0);
	return NULL;
}

/* ms until TSGs 1 and 2 are off (-1: not within 1 s). */
static double until_off(void)
{
	double t0 = now_ms();

	while (now_ms() - t0 < 1000)
		if (tsg_off[1] && tsg_off[2])
			return now_ms() - t0;
	return -1;
}

/* Flapping for ms: TSG 1's off switches per second (RM's view). */
static double flap_rate(double ms)
{
	pthread_t t;
	int o0 = offs_seen;
	double t0 = now_ms();

	flap_stop = 0;
	pthread_create(&t, NULL, flapper, NULL);
	sleep_ms(ms);
	flap_stop = 1;
	pthread_join(t, NULL);
	return (offs_seen - o0) * 1000.0 / (now_ms() - t0);
}

static struct gate *hint_gate(const char *hint, __u32 stall, __u32 min_off, int *fd)
{
	struct gate_opts o = opts(hint, 0, stall, 0);
	struct gate *g;
	struct tsg lc = mk(8, 300, POLICY_CLASS_LC);

	o.min_off_ms = min_off;
	if (gate_start(&g, &o) || gate_run(g))
		return NULL;
	*fd = open(hint, O_RDWR);
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	for (int i = 1; i <= 2; i++) {
		struct tsg t = mk(i, 100 + i, POLICY_CLASS_BE);

		gate_add(g, &t, 0);
	}
	gate_add(g, &lc, 0);
	sleep_ms(50);
	return g;
}

static void hint_gate_stop(struct gate *g, int fd, struct gate_stats *st)
{
	gate_stop(g, st);
	munmap(page, 4096);
	close(fd);
}

/*
 * hint-min-off: a writer flapping the hint every 1 ms switches BE at most
 * 1000 / MIN_OFF times a second; the LC's busy still takes BE off at once
 * (never held back for the minimum); the switches, the ones saved and the
 * busy turns the gate saw are counted, the writers' request count is not
 * believed.
 */
static void flapping(const char *hint)
{
	struct gate_stats st;
	struct gate *g;
	double ms, rate;
	int fd;

	g = hint_gate(hint, 10000, 300, &fd);
	CHECK(g != NULL, "gate starts (hint, hint-min-off 300)");
	if (!g)
		return;
	set_busy(1);
	ms = until_off();
	CHECK(ms >= 0 && ms < 50, "LC busy: BE off at once (%.1f ms)", ms);
	set_busy(0);
	sleep_ms(100);
	CHECK(tsg_off[1] && tsg_off[2], "LC done after 100 ms: BE still off (hint-min-off 300)");
	sleep_ms(300);
	CHECK(!tsg_off[1] && !tsg_off[2], "past hint-min-off: BE back on");
	set_busy(1);
	ms = until_off();
	CHECK(ms >= 0 && ms < 50, "LC busy again at once: BE off at once (%.1f ms), not after a minimum",
	      ms);
	set_busy(0);
	hint_gate_stop(g, fd, &st);
	CHECK(st.switches == 3 && st.offs == 2 && st.suppressed >= 1,
	      "counted: %llu switches, %llu offs, %llu saved", (unsigned long long)st.switches,
	      (unsigned long long)st.offs, (unsigned long long)st.suppressed);

	/* the credit plentiful (be-stall 10 s): only hint-min-off bounds the rate */
	g = hint_gate(hint, 10000, 10, &fd);
	rate = flap_rate(2000);
	sleep_ms(1100);		/* the share file is written every second */
	hint_gate_stop(g, fd, &st);
	CHECK(rate <= 100 * 1.1, "writer flapping every 1 ms, hint-min-off 10: %.0f switches off a second "
	      "(at most 100)", rate);
	CHECK(st.suppressed > 50 && shared.suppressed > 50 && shared.switches > 0,
	      "saved switches counted: %llu (share file: %llu, %llu switches)",
	      (unsigned long long)st.suppressed, (unsigned long long)shared.suppressed,
	      (unsigned long long)shared.switches);
	CHECK(st.busy_turns <= 2100 && st.reported >= 1000000000ULL,
	      "the LC's busy turns as the gate saw them: %llu; the writer's forged count kept apart: %llu",
	      (unsigned long long)st.busy_turns, (unsigned long long)st.reported);

	/* the credit scarce (be-stall 20): its end does not switch BE at the writer's rate */
	g = hint_gate(hint, 20, 10, &fd);
	rate = flap_rate(2000);
	hint_gate_stop(g, fd, &st);
	CHECK(rate <= 100 * 1.1, "credit scarce (be-stall 20), hint-min-off 10: %.0f switches off a second "
	      "(at most 100)", rate);

	/* (the last switch on is gate_stop's, not a decision) */
	/* hint-min-off 0: the writer's rate (what the minimum bounds), for the record */
	g = hint_gate(hint, 10000, 0, &fd);
	rate = flap_rate(1000);
	hint_gate_stop(g, fd, &st);
	printf("# hint-min-off 0: %.0f switches off a second under the same writer\n", rate);
}

/*
 * n GPUs (0..n-1), each with a BE process (TSGs RM ignores here); BE 1 on
 * GPU n-2, BE 2 and the LC on GPU n-1: the LC's request takes BE 2 off and
 * leaves BE 1 on (each GPU decides alone, however many there are).
 */
static void many_gpus(const char *hint, __u32 n)
{
	struct tsg lc = mk(8, 300, POLICY_CLASS_LC), b1 = mk(1, 101, POLICY_CLASS_BE);
	struct tsg b2 = mk(2, 102, POLICY_CLASS_BE);
	struct gate_opts o = opts(hint, 0, 10000, 0);
	struct gate_stats st;
	struct sample sm;
	struct gate *g;
	int fd;

	CHECK(!gate_start(&g, &o) && !gate_run(g), "gate starts (hint, %u GPUs)", n);
	fd = open(hint, O_RDWR);
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	for (__u32 i = 0; i < n; i++) {
		struct tsg t = mk(100 + i, 500 + i, POLICY_CLASS_BE);

		gate_add(g, &t, i);
	}
	gate_add(g, &b1, n - 2);
	gate_add(g, &b2, n - 1);
	gate_add(g, &lc, n - 1);
	sleep_ms(50);
	set_busy(1);
	sleep_ms(100);
	sample(1, 2, 300, &sm, NULL);
	CHECK(sm.on_pct[2] < 5 && sm.on_pct[1] == 100,
	      "%u GPUs: GPU %u's BE off while its LC is busy (on %.0f%%), GPU %u's never (on %.0f%%)",
	      n, n - 1, sm.on_pct[2], n - 2, sm.on_pct[1]);
	set_busy(0);
	gate_stop(g, &st);
	munmap(page, 4096);
	close(fd);
}

static struct gate_opts opts(const char *hint, __u32 rotate, __u32 stall, __u32 hold)
{
	struct gate_opts o = { 0 };

	o.hint = hint;
	o.hold_ms = hold;
	o.mode = 0666;
	o.rotate_ms = rotate;
	o.be_off = GATE_OFF_CHANNELS;
	o.floor_pct = 10;
	o.stall_ms = stall;
	o.lc_ts = 1800;
	o.be_ts = 200;
	o.mech = &sched_mech_rm;	/* the gate takes BE off through the run's mechanism */
	return o;
}

/*
 * A BE process never taken off reads 100 % on, though its share is written
 * a while after the gate last accounted for it (a gate thread preempted
 * between the two on a loaded host): its time on runs to that account.
 */
static void share_after_account(void)
{
	static struct gate g;
	struct gate_proc p = {
		.gpu = 0, .pid = 4242, .comm = "be1", .on = true,
		.joined_ns = 1000000000ULL, .last_ns = 2000000000ULL, .on_ns = 1000000000ULL,
	};

	memset(&shared_row, 0, sizeof(shared_row));
	g.procs = &p;
	g.nprocs = 1;
	g.o.floor_pct = 10;
	g.o.stall_ms = 100;
	g.o.lc_ts = 1800;
	g.o.be_ts = 200;
	gate_share(&g, p.last_ns + 50000000ULL);	/* written 50 ms after the account */
	CHECK(shared_row.pid == 4242 && shared_row.on_pct == 100.0 && shared_row.longest_off_ms == 0 &&
	      shared_row.kept && shared_row.stall_kept,
	      "share written 50 ms after the account: BE on 100%% (got %.2f%%), off 0 ms, kept",
	      shared_row.on_pct);
}

int main(void)
{
	char dir[] = "/tmp/gpuctl-gate.XXXXXX", hint[64];
	struct gate_stats st;
	struct gate *g;
	struct gate_opts o;
	struct sample s;
	struct tsg lc = mk(8, 300, POLICY_CLASS_LC);
	int fd;

	if (!mkdtemp(dir))
		return 1;
	snprintf(hint, sizeof(hint), "%s/lc.hint", dir);

	/* be-rotate: 3 BE processes, turns of 5000 ms cut to keep be-stall 200 */
	o = opts(NULL, 5000, 200, 0);
	CHECK(!gate_start(&g, &o) && !gate_run(g), "gate starts (be-rotate, no hint)");
	for (int i = 1; i <= 3; i++) {
		struct tsg t = mk(i, 100 + i, POLICY_CLASS_BE);

		gate_add(g, &t, 0);
	}
	gate_add(g, &lc, 0);
	sleep_ms(100);
	sample(1, 3, 1500, &s, NULL);
	gate_stop(g, &st);
	CHECK(st.rotations >= 10, "be-rotate: turns pass (%llu in 1.6 s: each cut to ~95 ms)",
	      (unsigned long long)st.rotations);
	/* more at once only when a stall reached its bound (a starved gate thread) */
	CHECK(s.max_on_together <= 3, "be-rotate: BE on together at most: %d (1 unless a bound forced more)",
	      s.max_on_together);
	for (int i = 1; i <= 3; i++)
		CHECK(s.longest[i] <= 200 + 150 && s.on_pct[i] >= 20,
		      "be-rotate: BE %d off at most %.0f ms at once (be-stall 200), on %.0f%%", i,
		      s.longest[i], s.on_pct[i]);
	CHECK(!tsg_off[1] && !tsg_off[2] && !tsg_off[3], "stop: every BE back on");

	/* be-rotate with the default hint-hold: 2 BE processes */
	o = opts(NULL, 5000, 300, 100);
	CHECK(!gate_start(&g, &o) && !gate_run(g), "gate starts (be-rotate 5000, be-stall 300, hint-hold 100)");
	for (int i = 1; i <= 2; i++) {
		struct tsg t = mk(i, 100 + i, POLICY_CLASS_BE);

		gate_add(g, &t, 0);
	}
	gate_add(g, &lc, 0);
	sleep_ms(100);
	sample(1, 2, 1500, &s, NULL);
	gate_stop(g, &st);
	CHECK(st.rotations >= 8, "be-rotate, 2 BE: turns pass (%llu)", (unsigned long long)st.rotations);
	CHECK(s.max_on_together <= 2 && s.longest[1] <= 450 && s.longest[2] <= 450,
	      "be-rotate, 2 BE: one on at a time (%d), off at most %.0f / %.0f ms", s.max_on_together,
	      s.longest[1], s.longest[2]);

	/* a BE process that joins after the first turn began: the 5 s turn is cut */
	o = opts(NULL, 5000, 300, 0);
	CHECK(!gate_start(&g, &o) && !gate_run(g), "gate starts (be-rotate 5000, one BE at first)");
	{
		struct tsg t1 = mk(1, 101, POLICY_CLASS_BE), t2 = mk(2, 102, POLICY_CLASS_BE);

		gate_add(g, &t1, 0);
		sleep_ms(50);
		gate_add(g, &t2, 0);
	}
	sample(1, 2, 1200, &s, NULL);
	gate_stop(g, &st);
	CHECK(st.rotations >= 3 && s.longest[1] <= 450 && s.longest[2] <= 450,
	      "late joiner: turns pass (%llu), off at most %.0f / %.0f ms (be-stall 300)",
	      (unsigned long long)st.rotations, s.longest[1], s.longest[2]);

	/* the hint held busy for ever: off at most hint-hold at once, about half the time */
	o = opts(hint, 0, 300, 0);
	CHECK(!gate_start(&g, &o) && !gate_run(g), "gate starts (hint)");
	fd = open(hint, O_RDWR);
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	for (int i = 1; i <= 2; i++) {
		struct tsg t = mk(i, 100 + i, POLICY_CLASS_BE);

		gate_add(g, &t, 0);
	}
	gate_add(g, &lc, 0);
	sleep_ms(50);
	__atomic_store_n(&page->busy, 1, __ATOMIC_SEQ_CST);
	sample(1, 2, 2000, &s, NULL);
	CHECK(s.longest[1] <= 300 + 150 && s.on_pct[1] >= 40 && s.on_pct[1] <= 75,
	      "hint held busy: BE off at most %.0f ms at once (be-stall 300), on %.0f%% (>= 40)",
	      s.longest[1], s.on_pct[1]);
	tog_t0 = now_ms();
	sample(1, 2, 2000, &s, toggle);
	CHECK(s.longest[1] <= 300 + 150 && s.on_pct[1] >= 40,
	      "writer toggling 95/2 ms: BE off at most %.0f ms at once, on %.0f%% (>= 40)",
	      s.longest[1], s.on_pct[1]);
	/* truncated under it: no SIGBUS, the file made whole */
	__atomic_store_n(&page->busy, 1, __ATOMIC_SEQ_CST);
	munmap(page, 4096);
	for (int i = 0; i < 2000; i++)
		if (ftruncate(fd, 0) || ftruncate(fd, i & 1 ? 0 : 4096))
			break;
	sleep_ms(300);
	{
		struct stat sb;

		fstat(fd, &sb);
		CHECK(sb.st_size == 4096, "truncated 2000 times: alive, the file made whole (%lld bytes)",
		      (long long)sb.st_size);
	}
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	__atomic_store_n(&page->busy, 0xffffffffu, __ATOMIC_SEQ_CST);
	memset(page, 0xff, 8);
	sleep_ms(300);
	CHECK(!tsg_off[1] && !tsg_off[2], "garbage (busy -1): no request, BE on");
	CHECK(page->magic == GPUCTL_HINT_MAGIC, "garbage: the header written again");
	__atomic_store_n(&page->busy, 0, __ATOMIC_SEQ_CST);
	gate_stop(g, &st);
	CHECK(st.hint_repairs >= 1 && st.hint_garbage >= 1, "stats: %llu repairs, %llu garbage reads",
	      (unsigned long long)st.hint_repairs, (unsigned long long)st.hint_garbage);
	CHECK(st.longest_off_ms <= 450, "stats: longest off %llu ms", (unsigned long long)st.longest_off_ms);
	munmap(page, 4096);
	close(fd);

	/* per GPU: an LC on GPU 0 holding the hint holds no BE of GPU 1 */
	o = opts(hint, 0, 10000, 0);
	CHECK(!gate_start(&g, &o) && !gate_run(g), "gate starts (hint, 2 GPUs)");
	fd = open(hint, O_RDWR);
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	{
		struct tsg b0 = mk(1, 101, POLICY_CLASS_BE), b1 = mk(2, 102, POLICY_CLASS_BE);

		gate_add(g, &b0, 0);
		gate_add(g, &b1, 1);
		gate_add(g, &lc, 0);
	}
	sleep_ms(50);
	__atomic_store_n(&page->busy, 1, __ATOMIC_SEQ_CST);
	sleep_ms(150);	/* no futex wake here: the gate looks again within 100 ms */
	sample(1, 2, 500, &s, NULL);
	CHECK(s.on_pct[1] < 5, "GPU 0's BE off while its LC is busy (on %.0f%%)", s.on_pct[1]);
	CHECK(s.on_pct[2] == 100, "GPU 1's BE never off (on %.0f%%)", s.on_pct[2]);
	__atomic_store_n(&page->busy, 0, __ATOMIC_SEQ_CST);
	gate_stop(g, &st);
	munmap(page, 4096);
	close(fd);

	/* the derived LC timeslice is divided among a GPU's LC processes */
	o = opts(NULL, 0, 100, 0);
	o.lc_derived = true;
	CHECK(!gate_start(&g, &o) && !gate_run(g), "gate starts (floor only)");
	{
		struct tsg a1 = mk(20, 400, POLICY_CLASS_LC), a2 = mk(21, 400, POLICY_CLASS_LC);
		struct tsg b = mk(22, 401, POLICY_CLASS_LC), c = mk(23, 402, POLICY_CLASS_LC);

		CHECK(gate_lc_procs(g, 0, 400) == 1, "LC procs: a first one counted before it is added");
		gate_add(g, &a1, 0);
		gate_add(g, &a2, 0);
		CHECK(gate_lc_procs(g, 0, 0) == 1, "LC procs: two TSGs of one process are one");
		CHECK(gate_lc_procs(g, 0, 400) == 1, "LC procs: a process already there is not counted twice");
		gate_add(g, &b, 0);
		gate_add(g, &c, 1);
		CHECK(gate_lc_procs(g, 0, 0) == 2 && gate_lc_procs(g, 1, 0) == 1,
		      "LC procs per GPU: 2 on GPU 0, 1 on GPU 1");
		CHECK(gate_lc_ts(&o, 1) == 1800 && gate_lc_ts(&o, 2) == 900 && gate_lc_ts(&o, 4) == 450,
		      "derived LC timeslice: 1800 / N (N LC processes keep BE's floor together)");
		o.lc_ts = 300;	/* be-timeslice 200 be-floor 40 */
		CHECK(gate_lc_ts(&o, 2) == 200 && gate_lc_ts(&o, 4) == 200,
		      "derived 300 us among 2 or 4 LC processes: 200 each, not 150 or 75 (got %llu, %llu)",
		      (unsigned long long)gate_lc_ts(&o, 2), (unsigned long long)gate_lc_ts(&o, 4));
		o.lc_ts = 1800;
		o.lc_derived = false;
		CHECK(gate_lc_ts(&o, 4) == 1800, "a given lc-timeslice stays as given");
		o.lc_ts = 100;
		CHECK(gate_lc_ts(&o, 1) == 100 && gate_lc_ts(&o, 2) == 100,
		      "a given lc-timeslice under 200 us stays as given");
		o.lc_ts = 1800;
	}
	gate_stop(g, &st);
	share_after_account();
	flapping(hint);
	many_gpus(hint, 17);
	many_gpus(hint, 33);
	many_gpus(hint, GPUCTL_MAX_GPUS);
	rmdir(dir);
	printf("%d passed, %d failed\n", npass, nfail);
	return nfail != 0;
}
