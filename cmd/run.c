// SPDX-License-Identifier: GPL-2.0
/*
 * run.c - gpuctl run: one experiment in one command.  CMD runs under a
 * prefetch engine policy (--prefetch POLICY [KEY VALUE]...), counted
 * (--stat) and recorded (--record FILE); under -j one document holds it all:
 * the engine's closing report, stat's document, the record's path, CMD's
 * exit status and the wall time.
 *
 * The tools are gpuctl's own commands, run as children of this process
 * (/proc/self/exe), each printing its document on a pipe.  One tool alone
 * runs CMD itself (prefetch load ... -- CMD: nothing CMD does is missed);
 * several follow CMD by pid (-p PID) from the moment it has /dev/nvidia-uvm
 * open, so what it did before they attached is not seen (the man page says
 * so).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpuctl.h"
#include "optsets.h"
#include "sched/exec/exec.h"

#define TOOL_ARGS 96

struct ropts {
	const char *prefetch, *record, *gpu;
	bool stat, sched;
	int sched_word;		/* --sched CLASS: index in sched_join_classes */
	uint64_t attach_ns, max_bytes;
	char **cmd;
	char max_buf[24];
};

static const struct opt run_rows[] = {
	{ .name = "prefetch", .kind = OPT_STRING, .off = offsetof(struct ropts, prefetch),
	  .arg = "POLICY", .help = "run CMD under this engine policy (its KEY VALUE words follow)" },
	{ .name = "max-bytes", .kind = OPT_SIZE, .off = offsetof(struct ropts, max_bytes),
	  .arg = "BYTES", .help = "the engine's cap per request (prefetch load --max-bytes)",
	  .min = 4096, .max = UINT64_MAX },
	{ .name = "gpu", .kind = OPT_GPU, .off = offsetof(struct ropts, gpu), .arg = "GPU",
	  .help = "the engine's GPU: index, UUID or PCI bus id (prefetch load --gpu)" },
	{ .name = "sched", .kind = OPT_ENUM, .off = offsetof(struct ropts, sched_word),
	  .arg = "CLASS", .help = "start CMD in this class of the running policy (sched exec)",
	  .words = sched_join_classes },
	{ .name = "stat", .kind = OPT_FLAG, .off = offsetof(struct ropts, stat),
	  .help = "count CMD's UVM activity (gpuctl stat)" },
	{ .name = "record", .key = 'o', .kind = OPT_PATH, .off = offsetof(struct ropts, record),
	  .arg = "FILE", .help = "record CMD's events into FILE (gpuctl trace record)" },
	{ .name = "attach-timeout", .kind = OPT_DURATION, .off = offsetof(struct ropts, attach_ns),
	  .arg = "S", .help = "with several tools: how long CMD may take to open /dev/nvidia-uvm (30)",
	  .unit = NSEC_PER_SEC, .min = NSEC_PER_MSEC, .max = 3600 * NSEC_PER_SEC },
	{ .name = NULL },
};

static const char *const run_usage[] = {
	"run [--prefetch POLICY [KEY VALUE]... [--max-bytes BYTES] [--gpu GPU]] [--sched CLASS]\n"
	"              [--stat] [--record FILE] -- CMD [ARGS]...",
	"run help",
	NULL,
};

const struct optset run_opts = {
	.object = "run",
	.usage = run_usage,
	.about = "Runs CMD as one experiment: under an engine prefetch policy, counted, recorded.\n"
		 "Under -j one document: \"prefetch\" (the engine's closing report), \"stat\",\n"
		 "\"record\", \"sched\", \"command_status\" and \"wall_s\".  One tool runs CMD itself;\n"
		 "several, or any with --sched (CMD started as sched exec starts it), follow it\n"
		 "from the moment it opens /dev/nvidia-uvm.",
	.rows = run_rows,
	.flags = OPTS_WORDS | OPTS_CMD,
	.cmd_off = offsetof(struct ropts, cmd),
};

struct tool {
	const char *name;	/* its member in the document */
	char *argv[TOOL_ARGS];
	int argc;
	pid_t pid;
	int out;		/* its stdout (-j), or -1 */
	char *doc;		/* what it printed */
	size_t len;
	int status;
};

static void add(struct tool *t, const char *w)
{
	if (t->argc < TOOL_ARGS - 1)
		t->argv[t->argc++] = (char *)w;
	t->argv[t->argc] = NULL;
}

static int wait_status(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Starts gpuctl with t's words; under -j its stdout comes back on t->out. */
static int tool_start(struct tool *t)
{
	int fds[2] = { -1, -1 };

	if (json_output && pipe2(fds, O_CLOEXEC)) {
		p_err("pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	t->pid = fork();
	if (t->pid < 0) {
		p_err("fork: %s", strerror(errno));
		return -1;
	}
	if (!t->pid) {
		if (fds[1] >= 0)
			dup2(fds[1], STDOUT_FILENO);
		execv("/proc/self/exe", t->argv);
		_exit(127);
	}
	if (fds[1] >= 0)
		close(fds[1]);
	t->out = fds[0];
	return 0;
}

/* Reads what it printed, then its exit status. */
static void tool_finish(struct tool *t)
{
	size_t cap = 0;
	ssize_t n;

	while (t->out >= 0) {
		if (t->len + 4096 > cap) {
			char *b = realloc(t->doc, cap = cap ? cap * 2 : 8192);

			if (!b)
				break;
			t->doc = b;
		}
		n = read(t->out, t->doc + t->len, cap - t->len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		t->len += n;
	}
	if (t->out >= 0)
		close(t->out);
	t->out = -1;
	t->status = t->pid > 0 ? wait_status(t->pid) : -1;
}

static bool tool_failed(const struct tool *t)
{
	if (!strcmp(t->name, "record"))	/* its output is the file: its status tells */
		return t->status != 0;
	return !t->doc || !t->len || strstr(t->doc, "\"error\":") || t->status == 127;
}

/* Whether process pid has /dev/nvidia-uvm open. */
static bool uses_uvm(pid_t pid)
{
	char path[64], fdp[PATH_MAX], link[64];
	struct dirent *d;
	bool yes = false;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	dir = opendir(path);
	if (!dir)
		return false;
	while (!yes && (d = readdir(dir))) {
		ssize_t n;

		snprintf(fdp, sizeof(fdp), "%s/%s", path, d->d_name);
		n = readlink(fdp, link, sizeof(link) - 1);
		if (n > 0) {
			link[n] = '\0';
			yes = !strcmp(link, "/dev/nvidia-uvm");
		}
	}
	closedir(dir);
	return yes;
}

/* --sched: CMD's class, through sched exec's steps (sched/exec/exec.h). */
static struct sched_join join;

/*
 * --sched: CMD forked held, put in its class, released (its stdout on
 * stderr under -j): its pid; -1 after p_err; -127 when it cannot run.
 */
static pid_t spawn_joined(char **cmd)
{
	struct workload w;

	if (workload_spawn_env(&w, cmd, join.ptrs, json_output))
		return -1;
	if (sched_join_pid(&join, w.pid)) {
		workload_end(&w, false);	/* held: never runs */
		return -1;
	}
	if (workload_release(&w))
		return -127;
	if (w.pidfd >= 0)
		close(w.pidfd);	/* waited for with waitpid */
	return w.pid;
}

/* CMD started here (its stdout on stderr under -j): its pid, or p_err and -1 (-127). */
static pid_t spawn_cmd(const struct ropts *o)
{
	char **cmd = o->cmd;
	pid_t pid;

	if (o->sched)
		return spawn_joined(cmd);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		p_err("fork: %s", strerror(errno));
		return -1;
	}
	if (!pid) {
		if (json_output)
			dup2(STDERR_FILENO, STDOUT_FILENO);	/* stdout is the document's */
		execvp(cmd[0], cmd);
		fprintf(stderr, "Error: cannot run '%s': %s\n", cmd[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

/* 0 once *pid uses UVM; else p_err and -1 (*pid 0 when it ended, its status in *status). */
static int wait_uvm(char **cmd, uint64_t timeout_ns, pid_t *pid, int *status)
{
	double end = mono_s() + timeout_ns / 1e9;
	struct timespec nap = { 0, 5 * 1000 * 1000 };
	int st;

	while (mono_s() < end) {
		if (uses_uvm(*pid))
			return 0;
		if (waitpid(*pid, &st, WNOHANG) == *pid) {
			*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
			*pid = 0;
			p_err("'%s' exited (status %d) before it opened /dev/nvidia-uvm: nothing to follow",
			      cmd[0], *status);
			return -1;
		}
		nanosleep(&nap, NULL);
	}
	p_err("'%s' did not open /dev/nvidia-uvm within %.0f s (--attach-timeout)", cmd[0],
	      timeout_ns / 1e9);
	return -1;
}

/* The tools' words: what each runs, with its target left for the caller. */
static int tools_of(struct ropts *o, struct opts_result *r, struct tool *t)
{
	int n = 0;

	if (o->prefetch) {
		t[n] = (struct tool){ .name = "prefetch", .out = -1 };
		add(&t[n], "gpuctl");
		if (json_output)
			add(&t[n], "-j");
		add(&t[n], "prefetch");
		add(&t[n], "load");
		add(&t[n], o->prefetch);
		for (int i = 0; i < r->argc; i++)
			add(&t[n], r->argv[i]);
		if (o->max_bytes) {
			snprintf(o->max_buf, sizeof(o->max_buf), "%llu", (unsigned long long)o->max_bytes);
			add(&t[n], "--max-bytes");
			add(&t[n], o->max_buf);
		}
		if (o->gpu) {
			add(&t[n], "--gpu");
			add(&t[n], o->gpu);
		}
		n++;
	} else if (r->argc) {
		return usage_err("unexpected argument '%s' (KEY VALUE words follow --prefetch POLICY)",
				 r->argv[0]);
	} else if (o->max_bytes || o->gpu) {
		return usage_err("--max-bytes and --gpu are the engine's: give --prefetch POLICY");
	}
	if (o->stat) {
		t[n] = (struct tool){ .name = "stat", .out = -1 };
		add(&t[n], "gpuctl");
		if (json_output)
			add(&t[n], "-j");
		add(&t[n], "stat");
		n++;
	}
	if (o->record) {
		t[n] = (struct tool){ .name = "record", .out = -1 };
		add(&t[n], "gpuctl");
		add(&t[n], "trace");
		add(&t[n], "record");
		add(&t[n], "-o");
		add(&t[n], o->record);
		n++;
	}
	return -n;	/* how many, as a negative number: 0 and EXIT_USAGE stay apart */
}

static void report(const struct ropts *o, struct tool *t, int n, int status, double wall)
{
	if (!json_output) {
		p_info("run: '%s' exited with status %d after %s", o->cmd[0], status,
		       units_fmt_duration(wall > 0 ? (uint64_t)(wall * 1e9) : 0, UNITS_HUMAN,
					  (char[UNITS_BUF]){ 0 }, UNITS_BUF));
		return;
	}
	jsonw_start_object(json_wtr);
	jsonw_name(json_wtr, "command");
	jsonw_start_array(json_wtr);
	for (int i = 0; o->cmd[i]; i++)
		jsonw_string(json_wtr, o->cmd[i]);
	jsonw_end_array(json_wtr);
	if (status >= 0)
		jsonw_int_field(json_wtr, "command_status", status);
	else
		jsonw_null_field(json_wtr, "command_status");
	jsonw_float_field(json_wtr, "wall_s", wall);
	for (int k = 0; k < 2; k++) {
		const char *member = k ? "stat" : "prefetch";
		const struct tool *hit = NULL;

		for (int i = 0; i < n; i++)
			if (!strcmp(t[i].name, member))
				hit = &t[i];
		jsonw_name(json_wtr, member);
		if (hit && hit->doc && hit->len)
			jsonw_raw(json_wtr, hit->doc, hit->len);
		else
			jsonw_null(json_wtr);
	}
	jsonw_string_field(json_wtr, "record", o->record);
	jsonw_name(json_wtr, "sched");
	if (o->sched) {
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "class", sched_join_classes[o->sched_word]);
		jsonw_string_field(json_wtr, "mechanism", join.tsg ? "tsg" : "mps");
		jsonw_end_object(json_wtr);
	} else {
		jsonw_null(json_wtr);
	}
	jsonw_end_object(json_wtr);
}

/*
 * Several tools (or any with --sched): CMD here, the tools on its pid once it
 * uses UVM.  CMD's status; -2 when it was not followed, -3 when it cannot run.
 */
static int run_followed(const struct ropts *o, struct tool *t, int n)
{
	char pidstr[16];
	int status = -1;
	pid_t pid = spawn_cmd(o);

	if (pid < 0)
		return pid == -127 ? -3 : -2;
	if (wait_uvm(o->cmd, o->attach_ns, &pid, &status)) {
		if (pid > 0) {
			kill(pid, SIGTERM);
			wait_status(pid);
		}
		return -2;
	}
	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	for (int i = 0; i < n; i++) {
		add(&t[i], "-p");
		add(&t[i], pidstr);
		if (tool_start(&t[i]))
			t[i].pid = 0;
	}
	status = wait_status(pid);
	for (int i = 0; i < n; i++)
		tool_finish(&t[i]);
	return status;
}

static int do_run(int argc, char **argv)
{
	struct ropts o = { .attach_ns = 30 * NSEC_PER_SEC };
	struct tool t[3];
	struct opts_result r;
	int n, rc = EXIT_OK, status = -1;
	double t0;

	if (argc > 0 && !strcmp(argv[0], "help"))
		return opts_help(&run_opts);
	if (opts_parse(&run_opts, argc, argv, &o, &r))
		return EXIT_USAGE;
	if (r.help)
		return EXIT_OK;
	if (!o.cmd)
		return usage_err("run needs the command: -- CMD [ARGS]...");
	n = tools_of(&o, &r, t);
	if (n > 0)
		return n;
	n = -n;
	o.sched = opts_seen(&run_opts, &r, "sched");
	if (o.sched && (rc = sched_join_begin(&join, o.sched_word, NULL)))
		return rc;	/* no policy runs: one line, nothing started */
	stop_signals_install();	/* Ctrl-C reaches CMD and the tools; run reports them */
	t0 = mono_s();
	if (n == 0) {
		pid_t pid = spawn_cmd(&o);

		if (pid < 0) {
			sched_join_end(&join);
			return pid == -127 ? 127 : EXIT_FAIL;
		}
		status = wait_status(pid);
	} else if (n == 1 && !o.sched) {
		add(&t[0], "--");
		for (int i = 0; o.cmd[i]; i++)
			add(&t[0], o.cmd[i]);
		if (tool_start(&t[0]))
			return EXIT_FAIL;
		tool_finish(&t[0]);
		status = json_output && tool_failed(&t[0]) ? -1 : t[0].status;
	} else {
		status = run_followed(&o, t, n);
		if (status == -2 || status == -3) {	/* nothing ran; -3: CMD cannot */
			sched_join_end(&join);
			return status == -2 ? EXIT_FAIL : 127;
		}
	}
	sched_join_end(&join);	/* CMD ended: its class's rule out */
	report(&o, t, n, status, mono_s() - t0);
	for (int i = 0; i < n; i++) {
		if (json_output ? tool_failed(&t[i]) : (n > 1 && t[i].status > 0))
			rc = t[i].status == EXIT_USAGE && rc != EXIT_FAIL ? EXIT_USAGE : EXIT_FAIL;
		free(t[i].doc);
	}
	if (rc == EXIT_OK && status > 0)
		rc = status;	/* CMD's failure is the caller's, as with stat */
	return rc;
}

static const struct cmd run_cmds[] = {
	{ "help", do_run },
	{ NULL, NULL },
};

const struct object run_object = { "run", do_run, run_cmds, NULL };
