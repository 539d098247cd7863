// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe_report.c - watch-alt-uprobe's report: one JSON line (uprobe.c's
 * header comment names the fields).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uprobe.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void write_point(FILE *f, const struct point *p, unsigned long long entries)
{
	unsigned long long n = p->calls < WU_FIRST ? p->calls : WU_FIRST, k;

	if (p->ntook)
		qsort(p->took, p->ntook, sizeof(*p->took), cmp_u64);
	fprintf(f, "{\"at\": \"%s\", \"offset\": ", p->sym ? p->sym : "offset");
	if (p->sym)
		fprintf(f, "null");
	else
		fprintf(f, "\"%#llx\"", p->off);
	fprintf(f, ", \"entries\": %llu, \"calls\": %llu, \"ok\": %llu, \"bytes\": %llu, \"took_ns_p50\": %llu, "
		"\"took_ns_max\": %llu, \"sizes\": [", entries, p->calls, p->ok, p->bytes,
		p->ntook ? (unsigned long long)p->took[p->ntook / 2] : 0ull, p->took_max);
	for (k = 0; k < n; k++)
		fprintf(f, "%s%llu", k ? ", " : "", p->sizes[k]);
	fprintf(f, "], \"addrs\": [");
	for (k = 0; k < n; k++)
		fprintf(f, "%s%llu", k ? ", " : "", p->addrs[k]);
	fprintf(f, "]}");
}

/* The lib's name as a JSON string: the path with '"', '\\' and controls escaped. */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

int wu_report(const struct opts *o, pid_t pid, double secs, const __u64 *entries, __u64 lost,
	      __u64 untracked)
{
	unsigned long long most = 0;
	char tmp[4096];
	FILE *f = stderr;
	int i;

	if (o->out) {
		int fd;

		snprintf(tmp, sizeof(tmp), "%s.%d.tmp", o->out, (int)getpid());
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
		if (fd < 0 || !(f = fdopen(fd, "w"))) {
			fprintf(stderr, "Error: cannot write %s: %s\n", tmp, strerror(errno));
			if (fd >= 0)
				close(fd), unlink(tmp);
			return -1;
		}
	}
	for (i = 0; i < o->npt; i++)
		most = o->pt[i].calls > most ? o->pt[i].calls : most;
	fprintf(f, "{\"tool\": \"watch-alt-uprobe\", \"pid\": %d, \"lib\": ", (int)pid);
	json_str(f, o->lib);
	fprintf(f, ", \"seconds\": %.3f, \"allocs\": %llu, \"lost\": %llu, \"untracked\": %llu, \"points\": [", secs,
		most, (unsigned long long)lost, (unsigned long long)untracked);
	for (i = 0; i < o->npt; i++) {
		fprintf(f, i ? ", " : "");
		write_point(f, &o->pt[i], entries[i]);
	}
	fprintf(f, "]}\n");
	if (!o->out)
		return 0;
	if (fclose(f) || rename(tmp, o->out)) {
		fprintf(stderr, "Error: cannot write %s: %s\n", o->out, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}
