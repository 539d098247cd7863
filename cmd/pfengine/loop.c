// SPDX-License-Identifier: GPL-2.0
/*
 * loop.c - one policy on one process, on the stock driver: the process's
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

#include "engine_priv.h"
#include "nvml.h"

/* Attaches to the process and opens the queue: 0, 1 not yet (quiet), -1 after p_err. */
static int attach(struct engine *g, bool quiet_if_absent)
{
	char err[256];
	int ret = ut_attach(&g->s, g->w.pid, err, sizeof(err));

	if ((ret == -ENOENT || ret == -EAGAIN) && quiet_if_absent) {
		ut_close(&g->s);
		return 1;
	}
	/*
	 * the driver's own counts the engine reports (and samples faults by):
	 * only those two, each enabled counter hooks the driver's fault or
	 * migration path (the CPU fault counter every CPU fault of a fill);
	 * none at all for a policy with no use for them (engine_priv.h)
	 */
	g->ctr_on = !g->o->pol->never_migrates || (g->run.pol->wants & (PFE_W_FAULTS | PFE_W_FIRST_FAULT));
	if (!ret && g->ctr_on && ut_enable_counters(&g->s, ENGINE_CTR_MASK, err, sizeof(err))) {
		err[0] = '\0';
		g->ctr_on = false;
	}
	/* a policy that wants no GPU fault (none) never has the driver record one */
	if (!ret)
		ret = ut_open_queue(&g->s, QUEUE_ENTRIES,
				    g->run.pol->wants & (PFE_W_FAULTS | PFE_W_FIRST_FAULT) ?
				    1u << UT_EV_GPU_FAULT : 0, QUEUE_WAKE, err, sizeof(err));
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
		err_code("NO_DRIVER");
		p_err("the prefetch engine needs /dev/nvidia-uvm-tools, which is missing "
		      "(load nvidia-uvm: nvidia-modprobe -u)");
		return -1;
	}
	/* gpuctl's bpffs tree: one a user planted is refused, never worked around */
	if (allocw_check())
		return -1;
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
	/* before the command runs on: no allocation it makes is missed */
	feed_watch(g);
	if (g->o->cmd) {
		if (workload_release(&g->w))
			return -1;
		ret = attach_when_ready(g);
		if (ret)
			return ret;
	} else if (attach(g, false)) {
		return -1;
	}
	if (act_read_gpus(g, false))
		return -1;
	g->run.io->ngpus = g->ngpus;
	/* its maps under gpuctl's bpffs tree (a host without bpffs: not inspectable, still runs) */
	if (bpffs_mounted() &&
	    (pfe_reg_pins(g->pins, sizeof(g->pins), g->w.pid, true) || pfe_run_pin(&g->run, g->pins))) {
		p_info("engine: runs without its maps pinned (see the error before)");
		g->pins[0] = '\0';
	}
	/* Free memory caps every call; without it only --max-bytes can. */
	if (gpu_free_bytes(&g->gpu[g->only >= 0 ? g->only : act_first_gpu(g)], &g->free_bytes[0], err,
			   sizeof(err)) == 0) {
		g->use_nvml = true;
	} else if (!g->o->max_bytes && !g->o->pol->never_migrates) {
		p_err("cannot read the GPU's free memory (%s): give --max-bytes BYTES", err);
		return -1;
	}
	/* the moves, beside the loop (lane.c); a policy that never moves needs none */
	if (!g->o->pol->never_migrates && lane_start(g, err, sizeof(err)))
		p_info("engine: moves from the loop itself (%s)", err);
	return feed_start(g);
}

static void engine_loop(struct engine *g)
{
	while (!stop_requested()) {
		if (g->o->duration > 0 && mono_s() - g->started >= g->o->duration)
			break;
		if (workload_gone(&g->w)) {
			g->gone_at = mono_s();
			feed_turn(g);	/* what it did last */
			p_info("engine: process %d exited", (int)g->w.pid);
			break;
		}
		feed_turn(g);
		if (mono_s() - g->stats_at >= 1.0)
			stats_write(g);
	}
	lane_stop(g);	/* the moves under way end before the report */
	g->drained_at = mono_s();
}

static void engine_end(struct engine *g)
{
	lane_stop(g);
	feed_stop(g);
	ut_close(&g->s);
	allocs_free(&g->al);
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
	g->aw.targets_fd = g->aw.rings_fd = g->aw.ring_fd = -1;
	return pfe_run_init(&g->run, o->pol, o->nargs, o->args) ? -1 : 0;
}

/* Foreground: set up, run, report (once the command's status is known). */
static int engine_fg(const struct pfe_opts *o)
{
	static struct stats_snap sn;
	struct engine g;
	int ret = EXIT_FAIL, setup, st;
	double ending, closed;
	bool gone;

	if (engine_init(&g, o))
		return EXIT_USAGE;
	g.begun = mono_s();
	stop_signals_install();
	setup = engine_setup(&g);
	if (!setup) {
		g.started = mono_s();
		p_info("engine: policy %s on process %d; Ctrl-C or 'gpuctl prefetch unload -p %d' "
		       "ends it", o->pol->name, (int)g.w.pid, (int)g.w.pid);
		stats_write(&g);
		engine_loop(&g);
		stats_take(&g, &sn);
		ret = EXIT_OK;
	}
	ending = mono_s();
	engine_end(&g);	/* the last file of an exited process's UVM space: its teardown */
	closed = mono_s();
	gone = g.w.gone;
	workload_end(&g.w, stop_requested());
	if (gone)	/* reaped at once; a command still running is not the engine's time */
		closed = mono_s();
	st = o->cmd ? workload_status(&g.w) : -1;
	if (!setup) {
		stats_snap_add(&sn, "close_us", (uint64_t)((closed - ending) * 1e6));
		stats_print(&sn, st);
	}
	/*
	 * -- CMD: its failure is the caller's (as stat -- CMD and perf stat):
	 * gpuctl exits with CMD's status (128+N: signal N) unless it stopped it.
	 */
	if ((ret == EXIT_OK || setup == 1) && o->cmd && !stop_requested() && st > 0) {
		ret = st;
		if (setup == 1)	/* no report says it */
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
	pid = daemon_fork(-1);
	if (pid < 0)
		return EXIT_FAIL;
	if (pid == 0) {
		close(pfd[0]);
		dup2(pfd[1], 2);
		if (engine_init(&g, o) || engine_setup(&g)) {
			engine_end(&g);
			_exit(EXIT_FAIL);
		}
		g.started = mono_s();
		stats_write(&g);
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
