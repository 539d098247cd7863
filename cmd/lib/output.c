// SPDX-License-Identifier: GPL-2.0
/*
 * output.c - the shared layer's output and argument helpers: the global
 * options, one error line (text or JSON), command tables with prefix
 * matching, number parsing, and running a command with its JSON bracketed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "gpuctl.h"

/* Always "gpuctl": the name the help, man pages and completion use. */
const char *bin_name = "gpuctl";
bool json_output;
bool pretty_output;
bool debug_output;
json_writer_t *json_wtr;

const char *err_context;
unsigned long p_err_count;

/*
 * jsonw_count() when the running command started: a top-level error after
 * the command already wrote a whole top-level value cannot go to stdout
 * without making it two documents, so it goes to stderr instead.
 */
static unsigned long json_mark;

static bool json_error_fits(void)
{
	if (!json_wtr)
		return false;
	return jsonw_depth(json_wtr) > 0 || jsonw_count(json_wtr) == json_mark;
}

/*
 * A message's text made one line for the terminal (text.c's TXT_LINE): an
 * echoed argument or name cannot end the line, forge another or send ESC
 * sequences.  Malloc'd; NULL when out of memory.
 */
static char *line_text(const char *text)
{
	size_t n = strlen(text), len = 4 * n + 1;	/* \xNN: the most a byte grows */
	char *out = malloc(len);

	if (out)
		str_escape(out, len, text, n, TXT_LINE);
	return out;
}

/*
 * The stable code of an error under -j (gpuctl(8), JSON OUTPUT): the errno
 * name (ENOENT, EACCES, ...) when the message ends with, or has before
 * " (", ";" or "," the system's text of an errno (the "...: %s",
 * strerror(err) every caller writes), USAGE for usage_err's bad command
 * lines, else FAILED.
 */
static const char *code_pending;

json_writer_t *json_stdout_writer(void)
{
	return json_file_writer(stdout);
}

json_writer_t *json_file_writer(FILE *f)
{
	json_writer_t *w = jsonw_new(f);

	if (w) {
		jsonw_pretty(w, pretty_output);
		jsonw_stamp(w, "schema_version", GPUCTL_SCHEMA_VERSION);
	}
	return w;
}

void err_code(const char *code)
{
	code_pending = code;
}

static bool ends_errno_text(const char *text, const char *desc)
{
	size_t n = strlen(desc);

	for (const char *at = strstr(text, desc); at; at = strstr(at + 1, desc)) {
		char next = at[n];

		if (at - text >= 2 && at[-2] == ':' && at[-1] == ' ' &&
		    (!next || next == ' ' || next == ';' || next == ',' || next == ')'))
			return true;
	}
	return false;
}

static const char *error_code(const char *text)
{
	const char *best = NULL;
	size_t best_len = 0;

	if (code_pending)
		return code_pending;
	for (int e = 1; e < 256; e++) {
		const char *name = strerrorname_np(e), *desc = strerrordesc_np(e);

		/* the longest text wins: "Operation not permitted" over a prefix */
		if (name && desc && strlen(desc) > best_len && ends_errno_text(text, desc)) {
			best = name;
			best_len = strlen(desc);
		}
	}
	return best ? best : "FAILED";
}

static void json_error(const char *text)
{
	jsonw_name(json_wtr, "error");
	if (err_context)
		jsonw_stringf(json_wtr, "%s: %s", err_context, text);
	else
		jsonw_string(json_wtr, text);
	jsonw_string_field(json_wtr, "code", error_code(text));
}

void p_err(const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;

	p_err_count++;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);

	const char *text = msg ? msg : "(out of memory formatting the error)";

	if (json_output && json_error_fits()) {
		if (jsonw_in_object(json_wtr) && !jsonw_name_pending(json_wtr)) {
			/* An open object of the command: add "error" and "code" members. */
			json_error(text);
		} else {
			/* Top level, array element, or a name waiting for its value. */
			jsonw_start_object(json_wtr);
			json_error(text);
			jsonw_end_object(json_wtr);
		}
	} else {
		char *line = line_text(text);
		char *ctx = err_context ? line_text(err_context) : NULL;

		fflush(stdout);
		if (err_context)
			fprintf(stderr, "Error: %s: %s\n", ctx ? ctx : "?", line ? line : "?");
		else
			fprintf(stderr, "Error: %s\n", line ? line : "(out of memory)");
		free(ctx);
		free(line);
	}
	free(msg);
	code_pending = NULL;
}

void p_info(const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;

	if (json_output)
		return;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	char *line = msg ? line_text(msg) : NULL;

	/* One write: a child sharing stderr (trace -- CMD) must not land mid-line. */
	fprintf(stderr, "%s\n", line ? line : "(out of memory formatting a message)");
	free(line);
	free(msg);
}

int usage_err(const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	err_code("USAGE");
	p_err("%s", msg ? msg : "bad command line");
	free(msg);
	return EXIT_USAGE;
}

bool is_prefix(const char *arg, const char *full)
{
	size_t n;

	if (!arg || !full)
		return false;
	n = strlen(arg);
	return n > 0 && n <= strlen(full) && !strncmp(arg, full, n);
}

int cmd_select(const struct cmd *cmds, int argc, char **argv,
	       const char *object)
{
	const struct cmd *match = NULL;
	char names[512] = "";
	int nmatch = 0;

	if (argc < 1) {
		if (cmds[0].name && !strcmp(cmds[0].name, "help"))
			return cmds[0].func(argc, argv);
		if (object)
			return usage_err("missing command for '%s'; try '%s %s help'",
					 object, bin_name, object);
		return usage_err("missing object; try '%s help'", bin_name);
	}

	for (const struct cmd *c = cmds; c->name; c++)
		if (!strcmp(argv[0], c->name))
			return c->func(argc - 1, argv + 1);

	for (const struct cmd *c = cmds; c->name; c++) {
		if (!is_prefix(argv[0], c->name))
			continue;
		size_t used = strlen(names);

		snprintf(names + used, sizeof(names) - used, "%s%s",
			 nmatch ? ", " : "", c->name);
		match = c;
		nmatch++;
	}
	if (nmatch == 1)
		return match->func(argc - 1, argv + 1);
	if (nmatch > 1) {
		if (object)
			return usage_err("ambiguous %s command '%s': %s",
					 object, argv[0], names);
		return usage_err("ambiguous object '%s': %s", argv[0], names);
	}
	if (object)
		return usage_err("unknown %s command '%s'; try '%s %s help'",
				 object, argv[0], bin_name, object);
	return usage_err("unknown object '%s'; try '%s help'", argv[0], bin_name);
}

static bool is_digit_in(char c, int base)
{
	if (c >= '0' && c <= '9')
		return true;
	return base == 16 && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'));
}

int parse_u64(const char *what, const char *arg, unsigned long long min,
	      unsigned long long max, unsigned long long *out)
{
	unsigned long long val;
	const char *digits;
	char *end;
	int base = 10;

	if (!arg || !*arg) {
		p_err("invalid %s: empty value", what);
		return -EINVAL;
	}
	digits = arg;
	if (arg[0] == '0' && (arg[1] == 'x' || arg[1] == 'X')) {
		base = 16;
		digits = arg + 2;
	}
	/* strtoull would take spaces, signs and a bare "0x"; we do not. */
	if (!is_digit_in(*digits, base)) {
		p_err("invalid %s '%s': not a %s number", what, arg,
		      base == 16 ? "hexadecimal" : "decimal");
		return -EINVAL;
	}
	errno = 0;
	val = strtoull(digits, &end, base);
	if (*end) {
		p_err("invalid %s '%s': unexpected '%s' after the number",
		      what, arg, end);
		return -EINVAL;
	}
	if (errno == ERANGE) {
		p_err("invalid %s '%s': too large", what, arg);
		return -ERANGE;
	}
	if (val < min || val > max) {
		p_err("invalid %s '%s': must be between %llu and %llu",
		      what, arg, min, max);
		return -ERANGE;
	}
	*out = val;
	return 0;
}

/* Sizes, durations and percentages on a command line (units.h has the grammar). */

static int range_err(const char *what, const char *arg, const char *lo, const char *hi)
{
	if (hi)
		p_err("invalid %s '%s': must be between %s and %s", what, arg, lo, hi);
	else
		p_err("invalid %s '%s': must be at least %s", what, arg, lo);
	return -ERANGE;
}

int parse_size(const char *what, const char *arg, uint64_t min, uint64_t max, uint64_t *out)
{
	char why[160], lo[UNITS_BUF], hi[UNITS_BUF];
	uint64_t v;
	int err = units_size(arg, &v, why, sizeof(why));

	if (err) {
		p_err("invalid %s '%s': %s", what, arg ? arg : "", why);
		return err;
	}
	if (v < min || v > max)
		return range_err(what, arg, units_fmt_size(min, UNITS_EXACT, lo, sizeof(lo)),
				 max == UINT64_MAX ? NULL : units_fmt_size(max, UNITS_EXACT, hi, sizeof(hi)));
	*out = v;
	return 0;
}

int parse_duration(const char *what, const char *arg, uint64_t bare_ns, uint64_t min_ns,
		   uint64_t max_ns, uint64_t *out_ns)
{
	char why[160], lo[UNITS_BUF], hi[UNITS_BUF];
	uint64_t v;
	int err = units_duration(arg, bare_ns, &v, why, sizeof(why));

	if (err) {
		p_err("invalid %s '%s': %s", what, arg ? arg : "", why);
		return err;
	}
	if (v < min_ns || v > max_ns)
		return range_err(what, arg, units_fmt_duration(min_ns, UNITS_EXACT, lo, sizeof(lo)),
				 max_ns == UINT64_MAX ? NULL :
				 units_fmt_duration(max_ns, UNITS_EXACT, hi, sizeof(hi)));
	*out_ns = v;
	return 0;
}

int parse_percent(const char *what, const char *arg, double min, double max, double *out)
{
	char why[160], lo[UNITS_BUF], hi[UNITS_BUF];
	double v;
	int err = units_percent(arg, &v, why, sizeof(why));

	if (err) {
		p_err("invalid %s '%s': %s", what, arg ? arg : "", why);
		return err;
	}
	if (v < min || v > max)
		return range_err(what, arg, units_fmt_percent(min, lo, sizeof(lo)),
				 units_fmt_percent(max, hi, sizeof(hi)));
	*out = v;
	return 0;
}

int cmd_run_json(const struct cmd *cmds, int argc, char **argv)
{
	unsigned long saved_mark = json_mark, before = 0;
	unsigned int depth = 0;
	int ret;

	if (json_wtr) {
		depth = jsonw_depth(json_wtr);
		before = jsonw_count(json_wtr);
		json_mark = before;
	}
	ret = cmd_select(cmds, argc, argv, NULL);
	if (json_wtr) {
		/* Whatever the command left open gets closed; silence is null. */
		jsonw_close_to(json_wtr, depth);
		if (jsonw_count(json_wtr) == before)
			jsonw_null(json_wtr);
		json_mark = saved_mark;
	}
	fflush(stdout);
	return ret;
}
