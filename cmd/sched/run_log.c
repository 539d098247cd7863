// SPDX-License-Identifier: GPL-2.0
/*
 * run_log.c - what a detached policy process (sched run --detach) says on
 * its standard error after its parent left: kept in RUN_LOG (root's
 * /run/gpuctl, made anew by each detached run: its pid first, then every
 * line it writes there: warnings, its closing report, an Error line when
 * it ends failed, a refused lc-p99 for one), so that `sched status` can
 * say why a run that ended on its own ended.  What it writes on standard
 * output (a line per process it applied values to) is not kept: a run of
 * weeks would fill /run with it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gpuctl.h"
#include "sched.h"
#include "text.h"

pid_t run_detach_fork(void)
{
	pid_t child;
	int fd;

	unlink(RUN_LOG);	/* the last detached run's; /run/gpuctl is root's alone */
	fd = open(RUN_LOG, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_APPEND, 0644);
	if (fd < 0) {
		p_err("cannot create %s: %s", RUN_LOG, strerror(errno));
		return -1;
	}
	child = daemon_fork(fd);
	if (!child) {
		fprintf(stderr, "pid %d\n", (int)getpid());
		fflush(stderr);
	} else {
		close(fd);
	}
	return child;
}

/* The log's pid and its last Error line (as written) into line: 0, or -1 when none. */
static int last_error(pid_t *pid, char *line, size_t len)
{
	char buf[1024], last[1024] = "";
	FILE *f = fopen(RUN_LOG, "re");
	long v = 0;

	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f) || sscanf(buf, "pid %ld", &v) != 1 || v <= 0) {
		fclose(f);
		return -1;
	}
	while (fgets(buf, sizeof(buf), f))
		if (!strncmp(buf, "Error: ", 7))
			snprintf(last, sizeof(last), "%s", buf + 7);
	fclose(f);
	last[strcspn(last, "\n")] = '\0';
	if (!*last)
		return -1;
	*pid = (pid_t)v;
	snprintf(line, len, "%s", last);
	return 0;
}

void run_log_status(pid_t runner)
{
	char line[1024], esc[4200];
	pid_t pid = 0;
	bool have = !runner && !last_error(&pid, line, sizeof(line));

	if (json_output) {
		jsonw_name(json_wtr, "last_run_error");
		if (!have) {
			jsonw_null(json_wtr);
			return;
		}
		jsonw_start_object(json_wtr);
		jsonw_int_field(json_wtr, "pid", pid);
		jsonw_string_field(json_wtr, "error", line);	/* the writer escapes */
		jsonw_end_object(json_wtr);
	} else if (have) {
		printf("last detached run (pid %d) ended failed: %s\n", (int)pid,
		       str_escape(esc, sizeof(esc), line, strlen(line), TXT_LINE));
	}
}
