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
#include "engine.h"
#include "ut.h"
#include "nvml.h"
#include "uvm.h"

#define FREE_REFRESH_S 0.02		/* how often free memory is read again */
#define QUEUE_ENTRIES (1u << 16)

struct engine {
	const struct pfe_opts *o;
	struct pfe_run run;
	struct ut_session s;
	struct workload w;
	struct uvm_maps maps;
	struct pfe_env env;
	struct uvm_uuid dst;
	bool have_dst, use_nvml, capped_said, refused_said;
	uint64_t free_bytes, since_free;
	double free_at, started, stats_at;
	uint64_t last_ts, last_page;	/* duplicate faults of a batch */
	uint32_t last_batch;
	char dir[PATH_MAX], pid_path[PATH_MAX], stats_path[PATH_MAX];
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

static int env_extent(void *ctx, uint64_t addr, uint64_t *start, uint64_t *end)
{
	struct engine *g = ctx;

	return uvm_maps_find(&g->maps, addr, 0.001, start, end);
}

static int env_fresh(void *ctx, uint64_t *start, uint64_t *end, int max)
{
	struct engine *g = ctx;

	return uvm_maps_take_fresh(&g->maps, start, end, max);
}

/*
 * The destination GPU: --gpu, checked against the GPUs the process uses,
 * else its first.  0; -1 after p_err (quiet when the process has no GPU yet).
 */
static int pick_gpu(struct engine *g, bool quiet_if_none)
{
	struct uvm_uuid gpus[32], want;
	char a[48], b[48];
	int n = uvm_gpus(g->s.uvm_fd, gpus, 32);

	if (n <= 0 && g->o->gpu) {
		/* no table (yet): the driver itself checks the UUID on each call */
		uuid_parse(g->o->gpu, &g->dst);
		g->have_dst = true;
		return 0;
	}
	if (n < 0) {
		p_err("cannot read the GPUs of process %d (%s): give --gpu UUID", g->w.pid,
		      strerror(-n));
		return -1;
	}
	if (n == 0) {
		if (!quiet_if_none)
			p_err("process %d has registered no GPU with UVM yet", g->w.pid);
		return -1;
	}
	if (!g->o->gpu) {
		g->dst = gpus[0];
		g->have_dst = true;
		return 0;
	}
	uuid_parse(g->o->gpu, &want);	/* checked by the command line */
	for (int i = 0; i < n; i++) {
		if (!memcmp(&gpus[i], &want, sizeof(want))) {
			g->dst = want;
			g->have_dst = true;
			return 0;
		}
	}
	p_err("process %d does not use GPU %s (it uses %s%s)", g->w.pid, uuid_format(&want, a, sizeof(a)),
	      uuid_format(&gpus[0], b, sizeof(b)), n > 1 ? " and others" : "");
	return -1;
}

uint64_t pfe_budget(uint64_t max_bytes, bool have_free, uint64_t free_bytes, uint64_t used)
{
	uint64_t b = max_bytes ? max_bytes : UINT64_MAX, avail;

	if (!have_free)
		return b;
	avail = free_bytes > PFE_RESERVE_BYTES + used ? free_bytes - PFE_RESERVE_BYTES - used : 0;
	return avail < b ? avail : b;
}

/* How much one call may move now: --max-bytes and the GPU's free memory. */
static uint64_t budget(struct engine *g)
{
	char err[160];

	if (!g->use_nvml)
		return pfe_budget(g->o->max_bytes, false, 0, 0);
	if (mono_s() - g->free_at >= FREE_REFRESH_S) {
		if (gpu_free_bytes(&g->dst, &g->free_bytes, err, sizeof(err)))
			g->free_bytes = 0;	/* unreadable now: move nothing */
		g->free_at = mono_s();
		g->since_free = 0;
	}
	return pfe_budget(g->o->max_bytes, true, g->free_bytes, g->since_free);
}

static void act(struct engine *g, const struct pfe_req *q)
{
	uint64_t *c = g->run.ctr, len = q->len, cap;
	uint32_t st = 0;
	int ret;

	if (!g->have_dst && pick_gpu(g, true))
		return;
	cap = budget(g);
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
	if (!len) {
		pfe_run_done(&g->run, q, false, raw_ns());
		return;
	}
	ret = uvm_migrate(g->s.uvm_fd, q->addr, len, &g->dst, g->o->async, &st);
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
		c[PFE_C_BYTES] += len;
		g->since_free += len;
	}
	pfe_run_done(&g->run, q, !ret && !st, raw_ns());
}

static void on_entry(const uint8_t *entry, void *arg)
{
	struct engine *g = arg;
	struct pfe_out out = { .n = 0 };
	struct gt_event e;

	if (!ut_decode(entry, g->s.q.abi, &e))
		return;
	/* the driver repeats a fault for each instance merged into it */
	if (e.type == GT_EV_GPU_FAULT) {
		if (e.ts_ns == g->last_ts && e.batch == g->last_batch && e.addr >> 12 == g->last_page)
			e.flags |= GT_F_DUPLICATE;
		g->last_ts = e.ts_ns;
		g->last_batch = e.batch;
		g->last_page = e.addr >> 12;
	}
	pfe_run_event(&g->run, &g->env, &e, &out);
	for (int i = 0; i < out.n; i++)
		act(g, &out.req[i]);
}

static void update_ctrs(struct engine *g)
{
	g->run.ctr[PFE_C_CPU_US] = cpu_us();
	if (g->s.counters) {
		g->run.ctr[PFE_C_DRV_FAULTS] = g->s.counters[UT_CTR_GPU_FAULTS];
		g->run.ctr[PFE_C_DRV_HTOD] = g->s.counters[UT_CTR_BYTES_HTOD];
	}
}

static void write_stats(struct engine *g)
{
	char tmp[PATH_MAX + 8], name[48];
	const struct pfe_policy *pol = g->run.pol;
	FILE *f;

	update_ctrs(g);
	snprintf(tmp, sizeof(tmp), "%s.tmp", g->stats_path);
	f = fopen(tmp, "we");
	if (!f)
		return;
	fprintf(f, "engine_pid %d\ntarget %d\npolicy %s\ngpu %s\nasync %d\nuptime_s %.1f\n",
		(int)getpid(), (int)g->w.pid, pol->name,
		g->have_dst ? uuid_format(&g->dst, name, sizeof(name)) : "-", g->o->async,
		mono_s() - g->started);
	for (int i = 0; i < pol->nparams; i++)
		fprintf(f, "param.%s %llu\n", pol->params[i].name, (unsigned long long)g->run.params[i]);
	for (int i = 0; i < PFE_C_MAX; i++) {
		const char *n = i < PFE_C_POLICY ? pfe_ctr_names[i] : pol->ctr_names[i];

		if (n)
			fprintf(f, "%s %llu\n", n, (unsigned long long)g->run.ctr[i]);
	}
	if (fclose(f) || rename(tmp, g->stats_path))
		unlink(tmp);
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
		for (int i = 0; i < PFE_C_MAX; i++) {
			const char *n = i < PFE_C_POLICY ? pfe_ctr_names[i] : pol->ctr_names[i];

			if (n)
				jsonw_uint_field(json_wtr, n, g->run.ctr[i]);
		}
		jsonw_end_object(json_wtr);
		return;
	}
	printf("prefetch engine: policy %s on pid %d for %.1f s\n", pol->name, (int)g->w.pid,
	       mono_s() - g->started);
	for (int i = 0; i < PFE_C_MAX; i++) {
		const char *n = i < PFE_C_POLICY ? pfe_ctr_names[i] : pol->ctr_names[i];

		if (n)
			printf("  %-18s %llu\n", n, (unsigned long long)g->run.ctr[i]);
	}
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
		ret = ut_open_queue(&g->s, QUEUE_ENTRIES, 1u << UT_EV_GPU_FAULT, 1, err, sizeof(err));
	if (ret) {
		p_err("%s", err);
		ut_close(&g->s);
		return -1;
	}
	return 0;
}

/* -- CMD: attach once the command has its GPU context. */
static int attach_when_ready(struct engine *g)
{
	struct timespec ms = { 0, 1000000 };
	struct uvm_uuid u;
	int ret;

	while (!stop_requested()) {
		if (workload_gone(&g->w)) {
			p_err("'%s' exited before it used the GPU", g->o->cmd[0]);
			return -1;
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

/* The checks and the attach, before anything runs: 0 or -1 after p_err. */
static int engine_setup(struct engine *g)
{
	char err[200];

	if (!ut_available()) {
		p_err("the prefetch engine needs /dev/nvidia-uvm-tools, which is missing "
		      "(load nvidia-uvm: nvidia-modprobe -u)");
		return -1;
	}
	if (g->o->pid) {
		if (workload_follow(&g->w, g->o->pid))
			return -1;
	} else if (workload_spawn(&g->w, g->o->cmd, json_output)) {
		return -1;
	}
	if (pfe_reg_dir(g->dir, sizeof(g->dir), true))
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
		if (workload_release(&g->w) || attach_when_ready(g))
			return -1;
	} else if (attach(g, false)) {
		return -1;
	}
	if (pick_gpu(g, false))
		return -1;
	/* Free memory caps every call; without it only --max-bytes can. */
	if (gpu_free_bytes(&g->dst, &g->free_bytes, err, sizeof(err)) == 0) {
		g->use_nvml = true;
	} else if (!g->o->max_bytes) {
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
		ut_wait(&g->s, 2);
		while (ut_queue_consume(&g->s.q, 4096, on_entry, g))
			;
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
}

static int engine_init(struct engine *g, const struct pfe_opts *o)
{
	memset(g, 0, sizeof(*g));
	g->o = o;
	g->pid_fd = -1;
	ut_session_init(&g->s);
	workload_init(&g->w);
	uvm_maps_init(&g->maps, o->pid);
	g->env = (struct pfe_env){ env_extent, g, env_fresh };
	return pfe_run_init(&g->run, o->pol, o->nargs, o->args) ? -1 : 0;
}

/* Foreground: set up, run, report. */
static int engine_fg(const struct pfe_opts *o)
{
	struct engine g;
	int ret = EXIT_FAIL;

	if (engine_init(&g, o))
		return EXIT_USAGE;
	stop_signals_install();
	if (!engine_setup(&g)) {
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
