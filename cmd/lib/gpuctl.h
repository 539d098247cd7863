/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpuctl.h - the shared layer under the command files, one header for all
 * of it (cmd/lib/): options and output, command tables, kernel BTF look-ups,
 * capabilities, the bpffs pin tree, borrowing another process's fds,
 * process life (stop flag, pid files, daemon), clocks.  Nothing here calls
 * up into a command file.
 */
#ifndef GPUCTL_H
#define GPUCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "json_writer.h"
#include "text.h"
#include "units.h"

/* Exit codes, documented in gpuctl(8). */
#define EXIT_OK 0
#define EXIT_FAIL 1	/* the request could not be carried out */
#define EXIT_USAGE 2	/* bad command line: nothing was attempted */

/*
 * The most GPUs a per-GPU table of gpuctl holds, one limit for the whole
 * tool: the trace summary, stat's and the exporter's counters, lc-be's
 * gate, the prefetch engine, the GPU list --gpu resolves against.  NVIDIA's
 * own lists stop at 32 (RM's attached GPUs, UVM's UUID table: ABI sizes,
 * kept where they are); UVM's GPU indexes go past it (MIG).  A table that
 * meets a GPU past this limit says so (how many, what it left out); no
 * GPU is dropped without a word.
 */
#define GPUCTL_MAX_GPUS 64

/*
 * The version of gpuctl's JSON documents (gpuctl(8), JSON OUTPUT): every
 * document's "schema_version".  It goes up when a member changes meaning or
 * type or goes away; members are added without it.
 */
#define GPUCTL_SCHEMA_VERSION 2
/* A JSON writer for stdout with the stamp and -p's indentation: NULL when out of memory. */
json_writer_t *json_stdout_writer(void);
/* The same on another file (a command's -o FILE under -j). */
json_writer_t *json_file_writer(FILE *f);

#define BPFFS_ROOT "/sys/fs/bpf"
#define GPUCTL_PIN_DIR BPFFS_ROOT "/gpuctl"

extern const char *bin_name;
extern bool json_output;	/* -j */
extern bool pretty_output;	/* -p (implies -j) */
extern bool debug_output;	/* -d: libbpf and verifier logs */
extern json_writer_t *json_wtr;	/* non-NULL under -j */

/* One "Error: ..." line on stderr, or {"error": "..."} on stdout under -j. */
void p_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Informational line on stderr; silent under -j. */
void p_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * The "code" of the next p_err under -j, chosen where the error happens
 * (gpuctl(8), JSON OUTPUT); without it the code is read from the message.
 */
void err_code(const char *code);
/* p_err, then return EXIT_USAGE: for bad command lines (code USAGE). */
int usage_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A command table, as bpftool has them: a NULL name ends it. */
struct cmd {
	const char *name;
	int (*func)(int argc, char **argv);
};

/*
 * Runs the command of cmds that argv[0] names (unique prefix; an ambiguous
 * prefix is an error naming the candidates).  With argc == 0 runs
 * cmds[0] when it is "help", else usage_err.  Returns the command's exit code.
 */
int cmd_select(const struct cmd *cmds, int argc, char **argv,
	       const char *object);

/* True when arg is a non-empty prefix of full. */
bool is_prefix(const char *arg, const char *full);

/* Parses a whole decimal (or 0x hex) number within [min, max]; p_err on failure. */
int parse_u64(const char *what, const char *arg, unsigned long long min,
	      unsigned long long max, unsigned long long *out);

#define NEXT_ARG() ({ argc--; argv++; })
#define NEXT_ARGP() ({ (*argc)--; (*argv)++; })
#define REQ_ARGS(cnt)							\
	({								\
		int _cnt = (cnt);					\
		if (argc < _cnt) {					\
			return usage_err("'%s' needs at least %d more argument(s)", \
					 argc ? argv[0] : "command", _cnt); \
		}							\
	})
#define NO_MORE_ARGS()							\
	({								\
		if (argc > 0)						\
			return usage_err("unexpected argument '%s'", argv[0]); \
	})

/*
 * An object: its name, its entry point, and its command table (the one list
 * of its command words: help, the shell's completion and the docs test all
 * read it).  load_words: what 'load' takes (policy names), NULL if nothing.
 */
struct policy_kind;	/* cmd/policy/kinds.h */
struct object {
	const char *name;
	int (*func)(int argc, char **argv);
	const struct cmd *cmds;
	const struct policy_kind *kind;	/* its policy family: `load`'s words */
};

/* The objects; each lives in cmd/<object>.c. */
extern const struct object prefetch_object, evict_object, replay_object, probe_object,
	sched_object, trace_object, stat_object;
extern const struct object exporter_object, run_object;

/* What batch and shell get from main to run one command line. */
struct dispatch {
	int (*run)(int argc, char **argv);	/* a command line, without "gpuctl" */
	const struct object *const *objects;	/* every object, NULL-terminated */
	const struct cmd *batch_cmds;		/* batch's own commands, for completion */
};
int batch_main(const struct dispatch *d, int argc, char **argv);
/* gpuctl __complete WORDS...: what may come next (cmd/complete.c). */
int complete_main(const struct dispatch *d, int argc, char **argv);
/*
 * The same candidates to fn, for the shell's completer: 0, or 1 where the
 * words reach a command whose options are not rows yet.  "__files__" and
 * "__command__" stand for a file name and a command.
 */
int complete_words(const struct dispatch *d, int argc, char **argv,
		   void (*fn)(const char *word, void *ctx), void *ctx);
int shell_main(const struct dispatch *d, int argc, char **argv);
extern const struct cmd batch_cmds[];

/* Runs cmds' command for argv; under -j whatever it leaves open is closed, silence is null. */
int cmd_run_json(const struct cmd *cmds, int argc, char **argv);

/* Set while a batch line runs: p_err prefixes its message ("batch line 3: ..."). */
extern const char *err_context;
/* How many times p_err has run: tells a caller whether a failure was reported. */
extern unsigned long p_err_count;

/* ---------------------------------------------------------------- btf.c */
struct btf;
/* vmlinux BTF (loaded once), NULL when the kernel has none. */
const struct btf *kbtf_vmlinux(void);
/*
 * Finds name of BTF kind in vmlinux, then the modules (NVIDIA's first);
 * *where and *mod get the BTF and its name.  The type id, or -ENOENT.
 */
int kbtf_find(const char *name, int kind, const struct btf **where, const char **mod);
/*
 * "struct <type>" registered as a struct_ops type by some module (its BTF
 * also has "struct bpf_struct_ops_<type>"): 0; -EOPNOTSUPP when the struct
 * is there but not registered; -ENOENT when no BTF declares it.  module
 * (when not NULL) gets the name of the BTF that has it.
 */
int probe_struct_ops(const char *type, char *module, size_t len);
/* Any named type of kind (BTF_KIND_FUNC for kfuncs, attach points): 0, or -ENOENT. */
int probe_btf_type(const char *name, int kind, char *module, size_t len);
/* Copies src into dst[len], cut short when it does not fit. */
void copy_name(char *dst, size_t len, const char *src);

/* --------------------------------------------------------------- caps.c */
struct cap_info {
	int cap;
	const char *name;
	const char *needed_for;
};
#define CAP_TABLE_LEN 5
extern const struct cap_info cap_table[CAP_TABLE_LEN];	/* every capability gpuctl uses */
/* 1 held (effective), 0 not, -errno when it cannot be told. */
int cap_held(int cap);
/*
 * How many of caps the process lacks; their names, comma-separated, into
 * buf.  -errno when the capabilities cannot be read.
 */
int caps_missing(const int *caps, int n, char *buf, size_t len);
#define NEED_BPF	1u	/* CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN */
#define NEED_PTRACE	2u	/* CAP_SYS_PTRACE: borrowing another process's fds */
/*
 * The one capability check: 0, or one error line "'WHAT' needs ...;
 * missing: ..." and -1.  Commands call it before they change anything.
 */
int need_caps(const char *what, unsigned int need);

/* --------------------------------------------------------------- pins.c */
/* bpffs: $GPUCTL_BPFFS, else /sys/fs/bpf. */
const char *bpffs_root(void);
bool bpffs_mounted(void);
/* 0 when bpffs is mounted, else one error line saying how to mount it and -1. */
int bpffs_check(void);
/*
 * Whether gpuctl may have pinned anything: bpffs is mounted and
 * <bpffs>/gpuctl exists (anybody may look: bpffs is 1777).  show and status
 * say "nothing loaded" (exit 0) without it.
 */
bool pin_tree_exists(void);
/* "" when bpffs is mounted, else " (bpffs not mounted at PATH)", escaped. */
const char *bpffs_note(void);
/*
 * <bpffs>/gpuctl/<object> into buf, each directory checked: a real
 * directory, owned by root (or this user), writable by nobody else.
 * create: make what is missing (state-changing commands only, after their
 * capability check).  0; -ENOENT (quiet) when missing and !create or bpffs
 * is not mounted and !create; otherwise p_err and -errno.
 */
int pin_dir(const char *object, bool create, char *buf, size_t len);
/* The same for an existing directory, never said (housekeeping): 0 or -errno. */
int pin_dir_quiet(const char *object, char *buf, size_t len);
/* An exclusive flock on dir (held until the fd closes); p_err and -1 on failure. */
int pin_lock(const char *dir);

/* ------------------------------------------------------------- borrow.c */
/* pidfd_open(pid): fd or -errno. */
int pidfd_of(pid_t pid);
/* pidfd_getfd(pidfd, fd): a duplicate in this process, or -errno. */
int borrow_fd_from(int pidfd, int fd);
/* Both in one: a duplicate of process pid's fd, or -errno. */
int borrow_fd(pid_t pid, int fd);
/* The one message for a borrow's -errno: into buf, returned. */
const char *borrow_strerror(int err, pid_t pid, int fd, char *buf, size_t len);

/* --------------------------------------------------------------- proc.c */
/* SIGINT, SIGTERM, SIGHUP set the stop flag (cleared now). */
void stop_signals_install(void);
bool stop_requested(void);
/* Sets the stop flag as a stop signal would: a process that ends its own loop (a refused run). */
void stop_request(void);
/* The pid in path when that process is alive, else 0. */
pid_t pidfile_live(const char *path);
/*
 * Creates path exclusively (a stale one, whose process is gone, is
 * replaced): its fd, or p_err ("WHAT already runs as pid N") and -1.
 */
int pidfile_claim(const char *path, const char *what);
int pidfile_write(int fd, pid_t pid);
/*
 * fork(): the parent gets the child's pid; the child (0) is in a new
 * session with stdio on /dev/null (its stderr on errfd instead, when >= 0;
 * the child's copy of errfd closed) and JSON off.  -1 after p_err.
 */
pid_t daemon_fork(int errfd);

/* -------------------------------------------------------------- lines.c */
/* Set while a batch or shell runs: neither may start inside the other. */
extern bool batch_nested;

struct words {
	int argc;
	int cap;
	char **argv;
};

void words_free(struct words *w);

enum split_result {
	SPLIT_DONE,	/* out holds the words */
	SPLIT_MORE,	/* the line ends in a backslash: append the next one */
	SPLIT_ERROR,	/* *err says why */
};

enum split_result split_line(const char *line, struct words *out, const char **err);
/* Strips the line end; 0, or -1 when the line held a NUL byte (len: what getline read). */
int chomp(char *s, size_t len);
/* The longest command line (continued or not) batch and shell take: 1 MiB. */
#define LINE_MAX_BYTES (1u << 20)
#define LINE_MAX_TEXT "1 MiB"
/*
 * getline() bounded by LINE_MAX_BYTES: the length read, or -1 with errno 0
 * at end of input, E2BIG for a longer line, ENOMEM, or the read's error.
 */
ssize_t read_cmdline(FILE *f, char **line, size_t *cap);

/* A command line continued over lines (a backslash at the end of each). */
struct linejoin {
	char *buf;
	size_t len, cap;
	size_t last;		/* where the last piece starts in buf */
	unsigned long pieces;
	bool open;		/* the text before the last piece ended inside a word */
};
/* Appends a piece (dropping the backslash before it): 0, -ENOMEM, or -E2BIG past LINE_MAX_BYTES. */
int linejoin_add(struct linejoin *j, const char *piece);
/* SPLIT_MORE when the last piece asks for another, else split_line() of the whole. */
enum split_result linejoin_split(struct linejoin *j, struct words *out, const char **err);
void linejoin_free(struct linejoin *j);

/*
 * Runs one line's words through d; -j turned on by the line itself (after
 * an object: 'trace -j ...') ends with the line.
 */
int run_line(const struct dispatch *d, int argc, char **argv);

/* ----------------------------------------------------------- workload.c */
/*
 * The process a command watches (-p PID or -- CMD): one it starts, held
 * until released so that nothing it does is missed, or one that runs
 * already, followed through a pidfd.  pid 0: none (system-wide).
 */
struct workload {
	pid_t pid;		/* the process watched, 0: none */
	pid_t child;		/* -- CMD: started here, else 0 */
	int pidfd;		/* readable once it exits; -1 */
	int status;		/* the child's exit status (shell convention), -1 */
	bool held;		/* forked, not released yet */
	bool gone;
	int go_fd, err_fd;	/* held child: its go pipe, its exec error pipe */
	const char *argv0;
};
/* Nothing watched (system-wide); also what _end leaves. */
void workload_init(struct workload *w);
/* -p PID: 0, or p_err ("no process with pid N") and -1. */
int workload_follow(struct workload *w, pid_t pid);
/*
 * -- CMD: forks it held (it runs nothing before workload_release); its
 * stdout goes to stderr when stdout_to_stderr.  0, or p_err and -1.
 */
int workload_spawn(struct workload *w, char **argv, bool stdout_to_stderr);
/* The same, with env ("NAME=VALUE", NULL-terminated; kept by the caller) added to CMD's environment. */
int workload_spawn_env(struct workload *w, char **argv, char *const *env, bool stdout_to_stderr);
/* Lets a held command exec: 0, or p_err ("cannot run 'CMD': ...") and -1. */
int workload_release(struct workload *w);
/* Whether it has exited (a child is reaped, its status kept).  Never blocks. */
bool workload_gone(struct workload *w);
/* Sleeps up to timeout_ms or until it exits; whether it has. */
bool workload_wait(struct workload *w, int timeout_ms);
/* A held child never runs; a running one gets SIGTERM when kill_it; reaped. */
void workload_end(struct workload *w, bool kill_it);
/* The started command's exit status, -1 when none (or not reaped). */
int workload_status(const struct workload *w);

/* --------------------------------------------------------------- text.c */
/* Names others choose, escaped for where they go: text.h. */

/* ------------------------------------------------------------ pinlock.c */
/*
 * pin_dir(object, create, buf, len), then an exclusive flock on it held
 * until the returned fd closes.  Waiting for it survives another command
 * removing the directory meanwhile (the lock is taken on the one there
 * then, made again when create).  The fd; -ENOENT (quiet) when missing and
 * !create; else -errno after p_err.
 */
int pin_dir_lock(const char *object, bool create, char *buf, size_t len);

/* ------------------------------------------------------------ errname.c */
/* "EPERM" for EPERM (the ones BPF loading answers with), NULL for others. */
const char *errno_name(int err);

/* -------------------------------------------------------------- quiet.c */
/*
 * The one way to quiet libbpf: its warnings while a step runs go into a
 * buffer (the step's error line may quote the first one) instead of
 * stderr; -d shows them all.  Pairs may nest.
 */
void libbpf_quiet_begin(void);
const char *libbpf_quiet_end(void);

/* -------------------------------------------------------------- clock.c */
uint64_t boottime_ns(void);	/* CLOCK_BOOTTIME, BPF's bpf_ktime_get_boot_ns() */
double mono_s(void);		/* CLOCK_MONOTONIC in seconds */
uint64_t monoraw_ns(void);	/* CLOCK_MONOTONIC_RAW, the UVM tools events' clock */

#endif
