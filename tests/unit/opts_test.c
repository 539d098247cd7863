// SPDX-License-Identifier: GPL-2.0
/*
 * opts_test.c - the one option parser (cmd/lib/opts.c) against getopt_long's
 * rules: -p 1, -p1, --pid 1, --pid=1, clusters, unique prefixes, "--" and
 * CMD, words kept in order, the global options after the object, and one
 * error line (with the accepted form) for every bad word.  Error lines go
 * to stderr as in gpuctl; the test reads them back from a file.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "gpuctl.h"
#include "opts.h"
#include "target.h"

static int pass, fail;
#define CHECK(c) do { if (c) pass++; else { fail++; printf("FAIL %s:%d %s\n", __FILE__, __LINE__, #c); } } while (0)

struct o {
	bool flag;
	unsigned int verbose;
	unsigned long long n;
	uint64_t size, dur;
	double pct;
	int mode;
	const char *sep, *file, *gpu;
	pid_t pid;
	char **cmd;
};

static const char *const modes[] = { "auto", "bpf", "uvm-tools", NULL };

static const struct opt rows[] = {
	{ .name = "pid", .key = 'p', .kind = OPT_PID, .off = offsetof(struct o, pid), .arg = "PID",
	  .help = "a process", .flags = OPT_ONCE },
	{ .name = "flag", .key = 'f', .kind = OPT_FLAG, .off = offsetof(struct o, flag), .help = "f" },
	{ .name = "verbose", .key = 'v', .kind = OPT_COUNT, .off = offsetof(struct o, verbose), .help = "v" },
	{ .name = "interval", .key = 'I', .kind = OPT_DURATION, .off = offsetof(struct o, dur), .arg = "MS",
	  .help = "i", .unit = 1000000, .min = 1000000, .max = 3600000000000ull },
	{ .name = "interval-count", .kind = OPT_UINT, .off = offsetof(struct o, n), .arg = "N", .help = "n",
	  .min = 1, .max = 100 },
	{ .name = "max-bytes", .kind = OPT_SIZE, .off = offsetof(struct o, size), .arg = "BYTES", .help = "b",
	  .min = 4096, .max = UINT64_MAX },
	{ .name = "floor", .kind = OPT_PERCENT, .off = offsetof(struct o, pct), .arg = "PCT", .help = "p",
	  .min = 0, .max = 100 },
	{ .name = "backend", .kind = OPT_ENUM, .off = offsetof(struct o, mode), .arg = "B", .help = "b",
	  .words = modes },
	{ .name = "field-separator", .key = 'x', .kind = OPT_STRING, .off = offsetof(struct o, sep),
	  .arg = "SEP", .help = "x" },
	{ .name = "output", .key = 'o', .kind = OPT_PATH, .off = offsetof(struct o, file), .arg = "FILE",
	  .help = "o" },
	{ .name = "gpu", .kind = OPT_GPU, .off = offsetof(struct o, gpu), .arg = "GPU", .help = "g",
	  .flags = OPT_ONCE },
	{ .name = "old-sep", .kind = OPT_STRING, .off = offsetof(struct o, sep), .arg = "SEP",
	  .help = "hidden", .flags = OPT_HIDDEN },
	{ .name = NULL },
};

static const char *const usage[] = { "thing [OPTIONS] [-- CMD]", NULL };
static const struct optset set_cmd = { .object = "thing", .usage = usage, .rows = rows,
				       .flags = OPTS_CMD, .cmd_off = offsetof(struct o, cmd) };
static const struct optset set_words = { .object = "thing", .usage = usage, .rows = rows,
					 .flags = OPTS_WORDS };
static const struct optset set_none = { .object = "thing", .usage = usage, .rows = rows };

static char errfile[] = "/tmp/gpuctl-opts-test.XXXXXX";
static char errline[1024];

/* Parses the words of line (split at spaces) into *v. */
static int parse(const struct optset *s, const char *line, struct o *v, struct opts_result *r)
{
	static char buf[1024];
	static char *argv[64];
	int argc = 0, rc;
	FILE *f;

	snprintf(buf, sizeof(buf), "%s", line);
	for (char *t = strtok(buf, " "); t && argc < 63; t = strtok(NULL, " "))
		argv[argc++] = t;
	argv[argc] = NULL;
	memset(v, 0, sizeof(*v));
	if (!freopen(errfile, "w", stderr))
		abort();
	json_output = false;
	rc = opts_parse(s, argc, argv, v, r);
	fflush(stderr);
	errline[0] = '\0';
	f = fopen(errfile, "r");
	if (f) {
		if (!fgets(errline, sizeof(errline), f))
			errline[0] = '\0';
		fclose(f);
	}
	return rc;
}

static int err_is(const char *want)
{
	if (!strstr(errline, want)) {
		printf("  error line '%s' lacks '%s'\n", errline, want);
		return 0;
	}
	return 1;
}

int main(void)
{
	struct opts_result r;
	struct o v;
	int fd = mkstemp(errfile);

	if (fd < 0)
		return 1;
	close(fd);
	/* the four spellings of a value */
	CHECK(!parse(&set_none, "-p 7", &v, &r) && v.pid == 7);
	CHECK(!parse(&set_none, "-p7", &v, &r) && v.pid == 7);
	CHECK(!parse(&set_none, "--pid 7", &v, &r) && v.pid == 7);
	CHECK(!parse(&set_none, "--pid=7", &v, &r) && v.pid == 7);
	CHECK(!parse(&set_none, "--pi=7", &v, &r) && v.pid == 7);	/* a unique prefix */
	CHECK(opts_seen(&set_none, &r, "pid") && !opts_seen(&set_none, &r, "gpu"));
	/* perf's habits */
	CHECK(!parse(&set_none, "-x,", &v, &r) && !strcmp(v.sep, ","));
	CHECK(!parse(&set_none, "-x ;", &v, &r) && !strcmp(v.sep, ";"));
	CHECK(!parse(&set_none, "-I100", &v, &r) && v.dur == 100000000ull);
	CHECK(!parse(&set_none, "-I 2s", &v, &r) && v.dur == 2000000000ull);
	CHECK(!parse(&set_none, "--interval=500ms", &v, &r) && v.dur == 500000000ull);
	CHECK(!parse(&set_none, "-o out.json", &v, &r) && !strcmp(v.file, "out.json"));
	/* clusters: flags, then one that takes the rest */
	CHECK(!parse(&set_none, "-fvvx,", &v, &r) && v.flag && v.verbose == 2 && !strcmp(v.sep, ","));
	CHECK(!parse(&set_none, "-vfp3", &v, &r) && v.verbose == 1 && v.flag && v.pid == 3);
	/* kinds */
	CHECK(!parse(&set_none, "--max-bytes 4GiB", &v, &r) && v.size == 4ull << 30);
	CHECK(!parse(&set_none, "--floor=12.5%", &v, &r) && v.pct == 12.5);
	CHECK(!parse(&set_none, "--backend uvm", &v, &r) && v.mode == 2);	/* a unique prefix of a word */
	CHECK(!parse(&set_none, "--backend=bpf", &v, &r) && v.mode == 1);
	CHECK(!parse(&set_none, "--gpu GPU-1234", &v, &r) && !strcmp(v.gpu, "GPU-1234"));
	CHECK(!parse(&set_none, "--old-sep :", &v, &r) && !strcmp(v.sep, ":"));	/* old spelling */
	CHECK(!parse(&set_none, "--interval-count 3 --interval 5", &v, &r) && v.n == 3 &&
	      v.dur == 5000000ull);	/* exact beats prefix */
	CHECK(!parse(&set_none, "-x a -x b", &v, &r) && !strcmp(v.sep, "b"));	/* the last wins */
	/* -- and CMD; words */
	CHECK(!parse(&set_cmd, "-p 1 -- sleep -p 5", &v, &r) && v.cmd && !strcmp(v.cmd[0], "sleep") &&
	      !strcmp(v.cmd[1], "-p") && v.pid == 1 && r.argc == 0);
	CHECK(!parse(&set_words, "load -f stride max_pages 64 -v", &v, &r) && r.argc == 4 &&
	      !strcmp(r.argv[0], "load") && !strcmp(r.argv[1], "stride") && !strcmp(r.argv[3], "64") &&
	      v.flag && v.verbose == 1);
	CHECK(!parse(&set_words, "a -- -f b", &v, &r) && r.argc == 3 && !strcmp(r.argv[1], "-f") &&
	      !v.flag);
	CHECK(!parse(&set_words, "- x", &v, &r) && r.argc == 2 && !strcmp(r.argv[0], "-"));
	/* global options after the object */
	CHECK(!parse(&set_none, "-d", &v, &r) && debug_output);
	debug_output = false;
	CHECK(!parse(&set_none, "--debug", &v, &r) && debug_output);
	CHECK(!parse(&set_none, "-h", &v, &r) && r.help);
	/* refusals: one line each, naming the accepted form */
	CHECK(parse(&set_none, "--bogus", &v, &r) == EXIT_USAGE &&
	      err_is("Error: unknown option '--bogus'; try 'gpuctl thing help'"));
	CHECK(parse(&set_none, "-q", &v, &r) == EXIT_USAGE && err_is("unknown option '-q'"));
	CHECK(parse(&set_none, "--inter 5", &v, &r) == EXIT_USAGE &&
	      err_is("ambiguous option '--inter': --interval, --interval-count"));
	CHECK(parse(&set_none, "--pid", &v, &r) == EXIT_USAGE &&
	      err_is("option '--pid' needs a value (-p, --pid PID)"));
	CHECK(parse(&set_none, "-I", &v, &r) == EXIT_USAGE &&
	      err_is("option '-I' needs a value (-I, --interval MS)"));
	CHECK(parse(&set_none, "--flag=1", &v, &r) == EXIT_USAGE &&
	      err_is("option '--flag' takes no value"));
	CHECK(parse(&set_none, "-p 0", &v, &r) == EXIT_USAGE && err_is("invalid pid '0'"));
	CHECK(parse(&set_none, "-p 4194305", &v, &r) == EXIT_USAGE && err_is("must be between 1 and 4194304"));
	CHECK(parse(&set_none, "-p x", &v, &r) == EXIT_USAGE && err_is("invalid pid 'x'"));
	CHECK(parse(&set_none, "-p 1 --pid 2", &v, &r) == EXIT_USAGE && err_is("give --pid once"));
	CHECK(parse(&set_none, "-I 100us", &v, &r) == EXIT_USAGE &&
	      err_is("invalid -I '100us': must be between 1ms and 1h"));
	CHECK(parse(&set_none, "--max-bytes 1K", &v, &r) == EXIT_USAGE && err_is("must be at least 4KiB"));
	CHECK(parse(&set_none, "--backend rm", &v, &r) == EXIT_USAGE &&
	      err_is("invalid --backend 'rm': unknown (one of: auto, bpf, uvm-tools)"));
	CHECK(parse(&set_none, "-x ''", &v, &r) == 0);	/* two quote bytes: a value */
	CHECK(parse(&set_none, "--field-separator=", &v, &r) == EXIT_USAGE &&
	      err_is("--field-separator needs a non-empty SEP"));
	CHECK(parse(&set_none, "word", &v, &r) == EXIT_USAGE && err_is("unexpected argument 'word'"));
	CHECK(parse(&set_none, "-- x", &v, &r) == EXIT_USAGE && err_is("unexpected argument 'x'"));
	CHECK(parse(&set_cmd, "-p 1 --", &v, &r) == EXIT_USAGE && err_is("'--' needs a command"));
	CHECK(parse(&set_none, "--hidden-prefix", &v, &r) == EXIT_USAGE);
	CHECK(parse(&set_none, "--old", &v, &r) == EXIT_USAGE);	/* hidden rows take no prefix */
	/* -j anywhere: the error about an earlier word is JSON */
	{
		char a0[] = "--bogus", a1[] = "-j";
		char *argv[] = { a0, a1, NULL };
		int saved, out, rc;

		fflush(stdout);
		saved = dup(1);
		out = open(errfile, O_WRONLY | O_TRUNC);
		if (saved < 0 || out < 0 || dup2(out, 1) < 0)
			abort();
		rc = opts_parse(&set_none, 2, argv, &v, &r);
		CHECK(rc == EXIT_USAGE && json_output && json_wtr);
		jsonw_destroy(&json_wtr);
		json_output = false;
		fflush(stdout);
		dup2(saved, 1);
		close(saved);
		close(out);
		FILE *f = fopen(errfile, "r");

		errline[0] = '\0';
		if (f && !fgets(errline, sizeof(errline), f))
			errline[0] = '\0';
		if (f)
			fclose(f);
		CHECK(err_is("{\"error\":\"unknown option '--bogus'; try 'gpuctl thing help'\",\"code\":\"USAGE\",\"schema_version\":2}"));
	}
	unlink(errfile);
	printf("%d passed, %d failed\n", pass, fail);
	return fail ? 1 : 0;
}
