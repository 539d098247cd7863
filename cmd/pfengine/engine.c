// SPDX-License-Identifier: GPL-2.0
/*
 * engine.c - one policy on one process, on the stock driver: the process's
 * GPU faults from a uvm-tools event queue on its borrowed /dev/nvidia-uvm
 * file (cmd/drv/ut.h, the trace back-end's session), the policy's
 * requests carried out with UVM_MIGRATE on that same file, each cut to the
 * GPU memory that is free.  Runs until the process exits, --duration
 * passes or a stop signal (unload) comes; detached, it runs as a daemon.
 *
 * Nothing is left in the process: the queue and the borrowed file are the
 * engine's own references, so the engine may die at any moment (kill -9)
 * and the process goes on as if it had never been watched.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "gpuctl.h"
#include "safefile.h"
#include "engine.h"
#include "ut.h"
#include "nvml.h"
#include "uvm.h"

#define FREE_REFRESH_S 0.02		/* how often free memory is read again */
#define QUEUE_ENTRIES (1u << 16)
/*
 * The engine looks at its queue every WAIT_MS, and the driver wakes it
 * early only when half the queue waits: each wake is paid by the faulting
 * process (on an H100, a PyTorch step with ~1 M faults: +17 % with a wake
 * per 256 events, +7 % at half the queue, as much as a full trace record;
 * bench/prefetch_engine/watch_cost.sh).  A lone fault waits WAIT_MS at most.
 */
#define QUEUE_WAKE (QUEUE_ENTRIES / 2)
#define WAIT_MS 2
/*
 * A fault outside every allocation known reads /proc/PID/maps again, at most
 * this often: each read takes the process's mmap lock, which its own GPU
 * fault service takes too.  An allocation made since is seen within this
 * time (maps_reads counts the reads: ~170 in a 20 s PyTorch run).
 */
#define MAPS_REREAD_S 0.05

struct engine {
	const struct pfe_opts *o;
	struct pfe_run run;
	struct ut_session s;
	struct workload w;
	struct uvm_maps maps;
	/* the process's GPUs by UVM's index (a zero UUID: none there) */
	struct uvm_uuid gpu[PFE_MAX_GPUS];
	int ngpus, only;		/* only: --gpu's index, or -1 */
	bool use_nvml, capped_said, refused_said, bad_said;
	uint64_t free_bytes[PFE_MAX_GPUS], since_free[PFE_MAX_GPUS], gpu_bytes[PFE_MAX_GPUS];
	double free_at[PFE_MAX_GPUS], started, stats_at;
	uint64_t last_ts, last_page;	/* duplicate faults of a batch */
	uint64_t ext_s, ext_e, ext_reads;	/* the allocation the last fault was in */
	uint32_t last_batch;
	char dir[PATH_MAX], pid_path[PATH_MAX], stats_path[PATH_MAX], pins[PATH_MAX];
	int pid_fd;
};

static uint64_t raw_ns(void)
{
	struct timespec ts;

	/* the clock of the tools events' timestamps */
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static uint64_t cpu_us(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000ull +
	       ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
}

static const struct uvm_uuid zero_uuid;

/*
 * The process's GPUs (UVM's table, by index), --gpu checked against them:
 * 0; -1 after p_err (quiet when the process has no GPU yet).
 */
static int read_gpus(struct engine *g, bool quiet_if_none)
{
	struct uvm_uuid want;
	char a[48];
	int n = uvm_gpus_by_index(g->s.uvm_fd, g->gpu, PFE_MAX_GPUS), used = 0;

	g->only = -1;
	if (n <= 0 && g->o->gpu) {
		/* no table (yet): the driver itself checks the UUID on each call */
		uuid_parse(g->o->gpu, &g->gpu[0]);
		g->ngpus = 1;
		g->only = 0;
		return 0;
	}
	if (n < 0) {
		p_err("cannot read the GPUs of process %d (%s): give --gpu UUID", g->w.pid,
		      strerror(-n));
		return -1;
	}
	for (int i = 0; i < n; i++)
		used += !!memcmp(&g->gpu[i], &zero_uuid, sizeof(zero_uuid));
	if (!used) {
		if (!quiet_if_none)
			p_err("process %d has registered no GPU with UVM yet", g->w.pid);
		return -1;
	}
	g->ngpus = n;
	if (!g->o->gpu)
		return 0;
	uuid_parse(g->o->gpu, &want);	/* checked by the command line */
	for (int i = 0; i < n; i++) {
		if (!memcmp(&g->gpu[i], &want, sizeof(want))) {
			g->only = i;
			return 0;
		}
	}
	p_err("process %d does not use GPU %s", g->w.pid, uuid_format(&want, a, sizeof(a)));
	return -1;
}

static int first_gpu(struct engine *g)
{
	for (int i = 0; i < g->ngpus; i++)
		if (memcmp(&g->gpu[i], &zero_uuid, sizeof(zero_uuid)))
			return i;
	return 0;
}

uint64_t pfe_budget(uint64_t max_bytes, bool have_free, uint64_t free_bytes, uint64_t used)
{
	uint64_t b = max_bytes ? max_bytes : UINT64_MAX, avail;

	if (!have_free)
		return b;
	avail = free_bytes > PFE_RESERVE_BYTES + used ? free_bytes - PFE_RESERVE_BYTES - used : 0;
	return avail < b ? avail : b;
}

/* How much one call to GPU i (-1: the CPU) may move now: --max-bytes and its free memory. */
static uint64_t budget(struct engine *g, int i)
{
	char err[160];

	if (!g->use_nvml || i < 0)
		return pfe_budget(g->o->max_bytes, false, 0, 0);
	if (mono_s() - g->free_at[i] >= FREE_REFRESH_S) {
		if (gpu_free_bytes(&g->gpu[i], &g->free_bytes[i], err, sizeof(err)))
			g->free_bytes[i] = 0;	/* unreadable now: move nothing */
		g->free_at[i] = mono_s();
		g->since_free[i] = 0;
	}
	return pfe_budget(g->o->max_bytes, true, g->free_bytes[i], g->since_free[i]);
}

/* The destination of request q: GPU index (-1: the CPU), or -2 when it names none to use. */
static int dest_of(struct engine *g, const struct pfe_request *q)
{
	int i = q->dst;

	if (q->dst == PFE_DST_CPU)
		return -1;
	if (i >= g->ngpus || !memcmp(&g->gpu[i], &zero_uuid, sizeof(zero_uuid)))
		read_gpus(g, true);	/* a GPU the process registered since */
	if (i >= g->ngpus || !memcmp(&g->gpu[i], &zero_uuid, sizeof(zero_uuid)))
		return -2;
	if (g->only >= 0 && i != g->only)
		return -2;
	return i;
}

/* Carries out q; its DONE event goes into the next batch. */
static void act(struct engine *g, const struct pfe_request *q)
{
	uint64_t *c = g->run.ctr, len = q->len, cap;
	struct pfe_event *done;
	uint32_t st = 0;
	int ret, i = dest_of(g, q);
	bool ok = false;

	if (i == -2) {
		c[PFE_C_BAD_REQS]++;
		if (!g->bad_said) {
			p_info("engine: a request for GPU index %u dropped (%s)", q->dst,
			       g->only >= 0 ? "--gpu names another" : "the process has no such GPU");
			g->bad_said = true;
		}
		len = 0;
		goto out;
	}
	cap = budget(g, i);
	if (len > cap) {
		len = cap >= PFE_BLOCK ? cap & ~(PFE_BLOCK - 1) : cap & ~4095ull;
		c[PFE_C_CAPPED]++;
		if (!g->capped_said) {
			p_info("engine: a request of %llu MiB cut to %llu MiB: %s",
			       (unsigned long long)(q->len >> 20), (unsigned long long)(len >> 20),
			       g->use_nvml ? "the GPU's free memory less 256 MiB" : "--max-bytes");
			g->capped_said = true;
		}
	}
	if (!len)
		goto out;
	ret = uvm_migrate(g->s.uvm_fd, q->addr, len, i >= 0 ? &g->gpu[i] : &uvm_cpu_uuid,
			  g->o->async, &st);
	c[PFE_C_IOCTLS]++;
	if (ret || st) {
		c[PFE_C_ERRORS]++;
		if (!g->refused_said) {
			p_info("engine: UVM_MIGRATE of 0x%llx+%llu refused: %s",
			       (unsigned long long)q->addr, (unsigned long long)len,
			       ret ? strerror(-ret) : uvm_status_text(st));
			g->refused_said = true;
		}
	} else {
		ok = true;
		c[PFE_C_BYTES] += len;
		if (i >= 0) {
			g->since_free[i] += len;
			g->gpu_bytes[i] += len;
		}
	}
out:
	done = pfe_run_slot(&g->run);
	if (done) {
		done->kind = PFE_EV_DONE;
		done->addr = q->addr;
		done->len = len;
		done->cookie = q->cookie;
		done->gpu = q->dst;
		done->ts_ns = raw_ns();
		done->flags = ok ? PFE_F_OK : 0;
	}
}

/* Runs the program over the batch and carries out what it asks. */
static void flush(struct engine *g)
{
	uint64_t st[8], en[8];
	struct pfe_io *io = g->run.io;
	struct pfe_request req[PFE_MAX_REQS];
	uint32_t n;
	int k;

	/* the allocations the process made since the maps were read */
	if (io->nev && io->nev + 8 <= PFE_BATCH) {
		k = uvm_maps_take_fresh(&g->maps, st, en, 8);
		for (int i = 0; i < k; i++) {
			struct pfe_event *e = pfe_run_slot(&g->run);

			e->kind = PFE_EV_ALLOC;
			e->addr = e->ext_start = st[i];
			e->ext_end = en[i];
			e->flags = PFE_F_MANAGED;
			e->gpu = g->only >= 0 ? g->only : 0;
			e->ts_ns = raw_ns();
		}
	}
	if (!io->nev)
		return;
	if (pfe_run_batch(&g->run))
		return;
	/* the requests out first: their DONE events fill the next batch */
	n = io->nreq;
	memcpy(req, io->req, n * sizeof(req[0]));
	for (uint32_t i = 0; i < n; i++)
		act(g, &req[i]);
}

static void on_entry(const uint8_t *entry, void *arg)
{
	struct engine *g = arg;
	struct pfe_event *e;
	struct gt_event t;
	uint64_t s, x;

	if (!ut_decode(entry, g->s.q.abi, &t) || t.type != GT_EV_GPU_FAULT)
		return;
	if (g->only >= 0 && t.gpu != g->only)
		return;		/* --gpu: the others' faults are not ours */
	e = pfe_run_slot(&g->run);
	if (!e) {
		flush(g);
		e = pfe_run_slot(&g->run);
		if (!e)
			return;
	}
	e->kind = PFE_EV_FAULT;
	e->addr = t.addr;
	e->ts_ns = t.ts_ns;
	e->gpu = t.gpu;
	e->access = t.access;
	/* the driver repeats a fault for each instance merged into it */
	if (t.ts_ns == g->last_ts && t.batch == g->last_batch && t.addr >> 12 == g->last_page)
		e->flags |= PFE_F_DUPLICATE;
	g->last_ts = t.ts_ns;
	g->last_batch = t.batch;
	g->last_page = t.addr >> 12;
	if (e->flags & PFE_F_DUPLICATE)
		return;
	/* faults come in runs on one allocation: the last one found first */
	if (t.addr >= g->ext_s && t.addr < g->ext_e && g->ext_reads == g->maps.reads) {
		s = g->ext_s;
		x = g->ext_e;
	} else if (uvm_maps_find(&g->maps, t.addr, MAPS_REREAD_S, &s, &x)) {
		return;
	} else {
		g->ext_s = s;
		g->ext_e = x;
		g->ext_reads = g->maps.reads;	/* good until the maps are read again */
	}
	e->flags |= PFE_F_MANAGED;
	e->ext_start = s;
	e->ext_end = x;
}

static void update_ctrs(struct engine *g)
{
	g->run.ctr[PFE_C_CPU_US] = cpu_us();
	g->run.ctr[PFE_C_MAPS_READS] = g->maps.reads;
	if (g->s.counters) {
		g->run.ctr[PFE_C_DRV_FAULTS] = g->s.counters[UT_CTR_GPU_FAULTS];
		g->run.ctr[PFE_C_DRV_HTOD] = g->s.counters[UT_CTR_BYTES_HTOD];
	}
}

/* Each counter: the engine's, the program's (by BTF name), bytes by GPU. */
static void each_ctr(struct engine *g, void (*fn)(const char *name, uint64_t v, void *arg), void *arg)
{
	char name[64];

	for (int i = 0; i < PFE_C_MAX; i++)
		fn(pfe_ctr_names[i], g->run.ctr[i], arg);
	fn("prog_us", g->run.ctr[PFE_C_RUN_NS] / 1000, arg);
	for (int i = 0; i < g->run.nctrs; i++)
		fn(g->run.ctr_name[i], *g->run.cv[i], arg);
	for (int i = 0; i < g->ngpus; i++) {
		if (!memcmp(&g->gpu[i], &zero_uuid, sizeof(zero_uuid)))
			continue;
		snprintf(name, sizeof(name), "migrated_bytes.gpu%d", i);
		fn(name, g->gpu_bytes[i], arg);
	}
}

static void ctr_file(const char *name, uint64_t v, void *arg)
{
	fprintf(arg, "%s %llu\n", name, (unsigned long long)v);
}

static void ctr_json(const char *name, uint64_t v, void *arg)
{
	(void)arg;
	jsonw_uint_field(json_wtr, name, v);
}

static void ctr_text(const char *name, uint64_t v, void *arg)
{
	(void)arg;
	printf("  %-22s %llu\n", name, (unsigned long long)v);
}

static void write_stats(struct engine *g)
{
	char name[48];
	const struct pfe_policy *pol = g->run.pol;
	struct safefile sf;
	FILE *f;

	update_ctrs(g);
	if (safefile_open(&sf, g->stats_path, 0644))
		return;
	f = sf.f;
	fprintf(f, "engine_pid %d\ntarget %d\npolicy %s\ngpu %s\nasync %d\nuptime_s %.1f\n",
		(int)getpid(), (int)g->w.pid, pol->name,
		g->only >= 0 ? uuid_format(&g->gpu[g->only], name, sizeof(name)) : "fault",
		g->o->async, mono_s() - g->started);
	if (g->pins[0])
		fprintf(f, "pinned %s\n", g->pins);
	for (int i = 0; i < pol->nparams; i++)
		fprintf(f, "param.%s %llu\n", pol->params[i].name,
			(unsigned long long)(g->run.pv[i] ? *g->run.pv[i] : g->run.params[i]));
	each_ctr(g, ctr_file, f);
	safefile_commit(&sf);
	g->stats_at = mono_s();
}

static void report(struct engine *g)
{
	const struct pfe_policy *pol = g->run.pol;

	update_ctrs(g);
	if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_int_field(json_wtr, "pid", g->w.pid);
		jsonw_string_field(json_wtr, "policy", pol->name);
		jsonw_float_field(json_wtr, "seconds", mono_s() - g->started);
		each_ctr(g, ctr_json, NULL);
		jsonw_end_object(json_wtr);
		return;
	}
	printf("prefetch engine: policy %s on pid %d for %.1f s\n", pol->name, (int)g->w.pid,
	       mono_s() - g->started);
	each_ctr(g, ctr_text, NULL);
}

/* Attaches to the process and opens the queue: 0, 1 not yet (quiet), -1 after p_err. */
static int attach(struct engine *g, bool quiet_if_absent)
{
	char err[256];
	int ret = ut_attach(&g->s, g->w.pid, err, sizeof(err));

	if ((ret == -ENOENT || ret == -EAGAIN) && quiet_if_absent) {
		ut_close(&g->s);
		return 1;
	}
	/* the driver's own counts, to report by (stat's counters) */
	if (!ret && ut_enable_counters(&g->s, UT_CTR_STAT_MASK, err, sizeof(err)))
		err[0] = '\0';
	if (!ret)
		ret = ut_open_queue(&g->s, QUEUE_ENTRIES, 1u << UT_EV_GPU_FAULT, QUEUE_WAKE, err,
				    sizeof(err));
	if (ret) {
		p_err("%s", err);
		ut_close(&g->s);
		return -1;
	}
	return 0;
}

/* -- CMD: attach once the command has its GPU context (1: it exited first). */
static int attach_when_ready(struct engine *g)
{
	struct timespec ms = { 0, 1000000 };
	struct uvm_uuid u;
	int ret;

	while (!stop_requested()) {
		if (workload_gone(&g->w)) {
			p_err("'%s' exited before it used the GPU", g->o->cmd[0]);
			return 1;
		}
		if (g->s.uvm_fd < 0) {
			ret = attach(g, true);
			if (ret < 0)
				return ret;
		}
		/* its UVM file comes with cuInit, its GPU with the first context */
		if (g->s.uvm_fd >= 0 && (g->o->gpu || uvm_gpus(g->s.uvm_fd, &u, 1) != 0))
			return 0;
		nanosleep(&ms, NULL);
	}
	return -1;
}

/* The checks and the attach, before anything runs: 0, -1 after p_err (1: CMD exited first). */
static int engine_setup(struct engine *g)
{
	char err[200];
	int ret;

	/* the program first: a refusal leaves nothing behind (no command started) */
	if (pfe_run_load(&g->run))
		return -1;
	if (!ut_available()) {
		p_err("the prefetch engine needs /dev/nvidia-uvm-tools, which is missing "
		      "(load nvidia-uvm: nvidia-modprobe -u)");
		return -1;
	}
	pfe_reg_sweep();
	if (g->o->pid) {
		if (workload_follow(&g->w, g->o->pid))
			return -1;
	} else if (workload_spawn(&g->w, g->o->cmd, json_output)) {
		return -1;
	}
	if (pfe_reg_dir(g->dir, sizeof(g->dir), true) || pfe_claim(g->w.pid))
		return -1;
	pfe_reg_path(g->pid_path, sizeof(g->pid_path), g->dir, g->w.pid, "pid");
	pfe_reg_path(g->stats_path, sizeof(g->stats_path), g->dir, g->w.pid, "stats");
	snprintf(err, sizeof(err), "a prefetch engine on process %d", (int)g->w.pid);
	g->pid_fd = pidfile_claim(g->pid_path, err);
	if (g->pid_fd < 0)
		return -1;
	if (pidfile_write(g->pid_fd, getpid())) {
		p_err("cannot write pid file %s: %s", g->pid_path, strerror(errno));
		return -1;
	}
	if (g->o->cmd) {
		if (workload_release(&g->w))
			return -1;
		ret = attach_when_ready(g);
		if (ret)
			return ret;
	} else if (attach(g, false)) {
		return -1;
	}
	if (read_gpus(g, false))
		return -1;
	g->run.io->ngpus = g->ngpus;
	/* its maps under gpuctl's bpffs tree (a host without bpffs: not inspectable, still runs) */
	if (bpffs_mounted() &&
	    (pfe_reg_pins(g->pins, sizeof(g->pins), g->w.pid, true) || pfe_run_pin(&g->run, g->pins))) {
		p_info("engine: runs without its maps pinned (see the error before)");
		g->pins[0] = '\0';
	}
	/* Free memory caps every call; without it only --max-bytes can. */
	if (gpu_free_bytes(&g->gpu[g->only >= 0 ? g->only : first_gpu(g)], &g->free_bytes[0], err,
			   sizeof(err)) == 0) {
		g->use_nvml = true;
	} else if (!g->o->max_bytes && !g->o->pol->never_migrates) {
		p_err("cannot read the GPU's free memory (%s): give --max-bytes BYTES", err);
		return -1;
	}
	uvm_maps_load(&g->maps);
	return 0;
}

static void engine_loop(struct engine *g)
{
	uint64_t drops;

	while (!stop_requested()) {
		if (g->o->duration > 0 && mono_s() - g->started >= g->o->duration)
			break;
		if (workload_gone(&g->w)) {
			p_info("engine: process %d exited", (int)g->w.pid);
			break;
		}
		ut_wait(&g->s, WAIT_MS);
		while (ut_queue_consume(&g->s.q, 4096, on_entry, g))
			;
		flush(g);
		drops = ut_queue_new_drops(&g->s.q);
		g->run.ctr[PFE_C_LOST] += drops;
		if (mono_s() - g->stats_at >= 1.0)
			write_stats(g);
	}
}

static void engine_end(struct engine *g)
{
	ut_close(&g->s);
	uvm_maps_free(&g->maps);
	if (g->pid_fd >= 0) {
		if (pidfile_live(g->pid_path) == getpid())
			unlink(g->pid_path);
		unlink(g->stats_path);
		close(g->pid_fd);
		g->pid_fd = -1;
	}
	pfe_run_free(&g->run);
	pfe_claim_release();
}

static int engine_init(struct engine *g, const struct pfe_opts *o)
{
	memset(g, 0, sizeof(*g));
	g->o = o;
	g->pid_fd = -1;
	ut_session_init(&g->s);
	workload_init(&g->w);
	uvm_maps_init(&g->maps, o->pid);
	return pfe_run_init(&g->run, o->pol, o->nargs, o->args) ? -1 : 0;
}

/* Foreground: set up, run, report. */
static int engine_fg(const struct pfe_opts *o)
{
	struct engine g;
	int ret = EXIT_FAIL, setup;

	if (engine_init(&g, o))
		return EXIT_USAGE;
	stop_signals_install();
	setup = engine_setup(&g);
	if (!setup) {
		g.maps.pid = g.w.pid;
		g.started = mono_s();
		p_info("engine: policy %s on process %d; Ctrl-C or 'gpuctl prefetch unload -p %d' "
		       "ends it", o->pol->name, (int)g.w.pid, (int)g.w.pid);
		write_stats(&g);
		engine_loop(&g);
		report(&g);
		ret = EXIT_OK;
	}
	engine_end(&g);
	workload_end(&g.w, stop_requested());
	/*
	 * -- CMD: its failure is the caller's (as stat -- CMD and perf stat):
	 * gpuctl exits with CMD's status (128+N: signal N) unless it stopped it.
	 */
	if ((ret == EXIT_OK || setup == 1) && o->cmd && !stop_requested() &&
	    workload_status(&g.w) > 0) {
		ret = workload_status(&g.w);
		p_info("the command exited with status %d", ret);
	}
	return ret;
}

/*
 * Detached: the daemon sets up with its stderr on a pipe to the parent,
 * which passes the error lines on, or learns from "READY" that it runs.
 */
static int engine_detached(const struct pfe_opts *o)
{
	char buf[1024], *line, *save;
	size_t got = 0;
	ssize_t n;
	int pfd[2], nul;
	pid_t pid;
	struct engine g;

	if (pipe2(pfd, O_CLOEXEC)) {
		p_err("cannot create a pipe: %s", strerror(errno));
		return EXIT_FAIL;
	}
	stop_signals_install();
	pid = daemon_fork();
	if (pid < 0)
		return EXIT_FAIL;
	if (pid == 0) {
		close(pfd[0]);
		dup2(pfd[1], 2);
		if (engine_init(&g, o) || engine_setup(&g)) {
			engine_end(&g);
			_exit(EXIT_FAIL);
		}
		g.maps.pid = g.w.pid;
		g.started = mono_s();
		write_stats(&g);
		if (write(2, "READY\n", 6) != 6)
			_exit(EXIT_FAIL);
		nul = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (nul >= 0)
			dup2(nul, 2);
		close(pfd[1]);
		engine_loop(&g);
		engine_end(&g);
		_exit(EXIT_OK);
	}
	close(pfd[1]);
	while (got < sizeof(buf) - 1 && (n = read(pfd[0], buf + got, sizeof(buf) - 1 - got)) > 0)
		got += n;
	close(pfd[0]);
	buf[got] = '\0';
	if (strstr(buf, "READY\n")) {
		if (json_output) {
			jsonw_start_object(json_wtr);
			jsonw_int_field(json_wtr, "engine_pid", pid);
			jsonw_int_field(json_wtr, "pid", o->pid);
			jsonw_string_field(json_wtr, "policy", o->pol->name);
			jsonw_end_object(json_wtr);
		} else {
			p_info("engine: policy %s on process %d detached (engine pid %d)", o->pol->name,
			       (int)o->pid, (int)pid);
		}
		return EXIT_OK;
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		p_err("%s", strncmp(line, "Error: ", 7) ? line : line + 7);
	if (!got)
		p_err("the detached engine ended before it was ready");
	return EXIT_FAIL;
}

bool pfe_engine_usable(char *why, size_t len)
{
	struct uvm_uuid none = { { 0 } };
	char nv[160] = "";
	uint64_t b;

	if (!ut_available()) {
		snprintf(why, len, "/dev/nvidia-uvm-tools is missing (nvidia-uvm not loaded)");
		return false;
	}
	if (cap_held(CAP_SYS_PTRACE) != 1) {
		snprintf(why, len, "needs CAP_SYS_PTRACE to borrow a process's UVM file (run as root)");
		return false;
	}
	/* a zero UUID names no GPU: NVML answers whether it is there at all */
	if (gpu_free_bytes(&none, &b, nv, sizeof(nv)) && strstr(nv, "NVML (") == nv)
		snprintf(why, len, "uvm-tools and UVM_MIGRATE on a process's own UVM file; "
			 "per process; free GPU memory unknown (%s): give --max-bytes", nv);
	else
		snprintf(why, len, "uvm-tools and UVM_MIGRATE on a process's own UVM file; per process");
	return true;
}

int pfe_engine_main(const struct pfe_opts *o)
{
	if (need_caps("prefetch engine", NEED_PTRACE))
		return EXIT_FAIL;
	return o->detach ? engine_detached(o) : engine_fg(o);
}
