/* SPDX-License-Identifier: GPL-2.0 */
/* gpuctl.h - what every command file shares: options, errors, argument walking. */
#ifndef GPUCTL_H
#define GPUCTL_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "json_writer.h"

/* Exit codes, documented in gpuctl(8). */
#define EXIT_OK 0
#define EXIT_FAIL 1	/* the request could not be carried out */
#define EXIT_USAGE 2	/* bad command line: nothing was attempted */

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
/* p_err, then return EXIT_USAGE: for bad command lines. */
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

/* The objects.  Each lives in cmd/<object>.c. */
int do_prefetch(int argc, char **argv);
int do_evict(int argc, char **argv);
int do_replay(int argc, char **argv);
int do_probe(int argc, char **argv);
int do_batch(int argc, char **argv);
int do_shell(int argc, char **argv);
int do_sched(int argc, char **argv);
int do_trace(int argc, char **argv);
int do_stat(int argc, char **argv);

/* For the shell's completion: an object's command words, NULL-terminated. */
extern const char *const prefetch_words[];
extern const char *const prefetch_policy_words[];
extern const char *const sched_words[];
extern const char *const trace_words[];
extern const char *const stat_words[];
extern const char *const evict_words[];
extern const char *const evict_policy_words[];
extern const char *const replay_words[];
extern const char *const replay_policy_words[];

/* Runs one command line (argv without the program name), as main does. */
int run_command(int argc, char **argv);

/*
 * Additions (main.c, probe.c).
 */

/* The object names main knows, NULL-terminated (for the shell's completion). */
extern const char *const object_words[];

/* Set while a batch line runs: p_err prefixes its message ("batch line 3: ..."). */
extern const char *err_context;
/* How many times p_err has run: tells a caller whether a failure was reported. */
extern unsigned long p_err_count;

/*
 * Looks for "struct <type>" in the BTF of the running kernel and its modules
 * (vmlinux first, then /sys/kernel/btf/<module>).  Returns 0 when a module
 * has it registered as a struct_ops type (its BTF also has the value type
 * "struct bpf_struct_ops_<type>"), -EOPNOTSUPP when the struct is there but
 * not registered, -ENOENT when no BTF declares it (or the kernel has no BTF).
 * module (when not NULL) gets the name of the BTF that has it.
 */
int probe_struct_ops(const char *type, char *module, size_t len);
/*
 * Same search for any named type: kind is a BTF_KIND_* (BTF_KIND_FUNC for
 * kfuncs and trace attach points).  0 and module filled, or -ENOENT.
 */
int probe_btf_type(const char *name, int kind, char *module, size_t len);
/*
 * Which of caps (CAP_* values from <sys/capability.h>) the process lacks in
 * its effective set.  Returns how many are missing and writes their names,
 * comma-separated ("CAP_BPF, CAP_PERFMON"), into buf; -errno on failure.
 */
int probe_caps_missing(const int *caps, int n, char *buf, size_t len);

#endif
