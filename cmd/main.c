// SPDX-License-Identifier: GPL-2.0
/* main.c - gpuctl: global options and object dispatch. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "gpuctl.h"
#include "policy/kinds.h"

#ifndef GPUCTL_VERSION
#define GPUCTL_VERSION "0.0.0-dev"
#endif

static int run_command(int argc, char **argv);

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level != LIBBPF_WARN && !debug_output)
		return 0;
	/* libbpf writes a refused program's verifier log as one warning. */
	if (!debug_output && strstr(fmt, "BEGIN PROG LOAD LOG")) {
		fprintf(stderr, "libbpf: the kernel's verifier refused a program; "
			"run '%s -d ...' to see its log\n", bin_name);
		return 0;
	}
	return vfprintf(stderr, fmt, ap);
}

static const struct object *const object_list[] = {
	&prefetch_object, &evict_object, &replay_object, &probe_object, &sched_object,
	&trace_object, &stat_object, &exporter_object, &run_object, NULL,
};

static int do_help(int argc, char **argv)
{
	if (argc > 0) {
		/* "gpuctl help OBJECT" is "gpuctl OBJECT help". */
		char *sub[] = { argv[0], (char *)"help", NULL };

		if (is_prefix(argv[0], "help"))
			argc = 0;
		else
			return run_command(2, sub);
	}
	if (json_output)
		return EXIT_OK;	/* run_command writes null */
	printf("Usage: %1$s [OPTIONS] OBJECT { COMMAND | help }\n"
	       "       %1$s batch file FILE\n"
	       "       %1$s version\n"
	       "\n"
	       "       OBJECT := { ", bin_name);
	for (const struct object *const *o = object_list; *o; o++)	/* the one list */
		printf("%s | ", (*o)->name);
	printf("batch | shell }\n"
	       "       OPTIONS := { {-j|--json} [{-p|--pretty}] | {-d|--debug} | {-V|--version} }\n");
	return EXIT_OK;
}

static int do_version(int argc, char **argv)
{
	(void)argv;
	if (argc > 0)
		return usage_err("unexpected argument '%s'", argv[0]);
	if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "version", GPUCTL_VERSION);
		jsonw_stringf_field(json_wtr, "libbpf_version", "%u.%u",
				    libbpf_major_version(), libbpf_minor_version());
		jsonw_stringf_field(json_wtr, "libbpf_headers", "%d.%d",
				    LIBBPF_MAJOR_VERSION, LIBBPF_MINOR_VERSION);
		jsonw_end_object(json_wtr);
	} else {
		printf("%s v%s\n", bin_name, GPUCTL_VERSION);
		printf("libbpf v%u.%u (built with v%d.%d headers)\n",
		       libbpf_major_version(), libbpf_minor_version(),
		       LIBBPF_MAJOR_VERSION, LIBBPF_MINOR_VERSION);
	}
	return EXIT_OK;
}


static const struct dispatch dispatch = { run_command, object_list, batch_cmds };

static int do_batch(int argc, char **argv)
{
	return batch_main(&dispatch, argc, argv);
}

static int do_shell(int argc, char **argv)
{
	return shell_main(&dispatch, argc, argv);
}

static int do_complete(int argc, char **argv)
{
	return complete_main(&dispatch, argc, argv);
}

/* help, every object of object_list, batch, shell, version, __complete: filled by main(). */
static struct cmd objects[sizeof(object_list) / sizeof(object_list[0]) + 5];

static void objects_fill(void)
{
	size_t n = 0;

	objects[n++] = (struct cmd){ "help", do_help };
	for (const struct object *const *o = object_list; *o; o++)
		objects[n++] = (struct cmd){ (*o)->name, (*o)->func };
	objects[n++] = (struct cmd){ "batch", do_batch };
	objects[n++] = (struct cmd){ "shell", do_shell };
	objects[n++] = (struct cmd){ "version", do_version };
	objects[n++] = (struct cmd){ "__complete", do_complete };	/* for the shell's completer */
	objects[n] = (struct cmd){ NULL, NULL };
}

static int run_command(int argc, char **argv)
{
	return cmd_run_json(objects, argc, argv);
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "json",	no_argument, NULL, 'j' },
		{ "pretty",	no_argument, NULL, 'p' },
		{ "debug",	no_argument, NULL, 'd' },
		{ "version",	no_argument, NULL, 'V' },
		{ "help",	no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool want_version = false, want_help = false;
	char bad_opt[64] = "";
	int opt, ret;

	policy_kinds_check();	/* the catalogue's tables, as constructors once did */
	opterr = 0;	/* we report bad options ourselves, JSON included */
	while ((opt = getopt_long(argc, argv, "+jpdVh", options, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json_output = true;
			break;
		case 'p':
			json_output = true;
			pretty_output = true;
			break;
		case 'd':
			debug_output = true;
			break;
		case 'V':
			want_version = true;
			break;
		case 'h':
			want_help = true;
			break;
		default:
			if (!bad_opt[0]) {
				if (optopt)
					snprintf(bad_opt, sizeof(bad_opt), "-%c", optopt);
				else
					snprintf(bad_opt, sizeof(bad_opt), "%s",
						 argv[optind - 1]);
			}
			break;
		}
	}

	if (json_output) {
		json_wtr = json_stdout_writer();
		if (!json_wtr) {
			fprintf(stderr, "Error: cannot create the JSON writer\n");
			return EXIT_FAIL;
		}
		jsonw_pretty(json_wtr, pretty_output);
	}
	libbpf_set_print(libbpf_print);
	objects_fill();

	argc -= optind;
	argv += optind;
	if (bad_opt[0]) {
		ret = usage_err("unknown option '%s'; try '%s help'", bad_opt, bin_name);
	} else if (want_version) {
		char *sub[] = { (char *)"version", NULL };

		ret = run_command(1, sub);
	} else if (want_help) {
		char *sub[] = { (char *)"help", NULL };

		ret = run_command(1, sub);
	} else if (argc < 1) {
		ret = usage_err("missing OBJECT; try '%s help'", bin_name);
	} else {
		ret = run_command(argc, argv);
	}

	if (json_wtr)
		jsonw_destroy(&json_wtr);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "Error: writing the output failed: %s\n",
			strerror(errno));
		if (!ret)
			ret = EXIT_FAIL;
	}
	return ret;
}
