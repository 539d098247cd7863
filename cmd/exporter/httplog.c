// SPDX-License-Identifier: GPL-2.0
/*
 * httplog.c - the exporter's HTTP errors on stderr, one logfmt line each
 * (what journald, kubectl logs and Loki parse as key=value):
 *
 *   ts=2026-11-26T18:00:00.000Z level=warn component=http status=431 msg="Request too big"
 *   ts=... level=error component=http status=500 method=GET path=/metrics msg="..."
 *
 * libmicrohttpd reports a request it refuses with the HTML body it sends
 * ("Error processing request (HTTP response code is N ('<html>...')).");
 * the line keeps the status and the page's title (or its text), never the
 * markup.  It often says why just before, in a message of its own: that
 * one is held and becomes the error line's detail=, or, when no status
 * follows, a line of its own at the next message or exp_log_flush (the
 * serve loop's, every --interval).  Values are quoted and escaped as
 * logfmt readers expect; a client's bytes never reach the log raw.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpuctl.h"
#include "exporter/exporter.h"

#define LOG_MAX 1024

/* A message of libmicrohttpd's without a status, held for the error line that may follow. */
static pthread_mutex_t held_mu = PTHREAD_MUTEX_INITIALIZER;
static char held[LOG_MAX / 2];
static struct timespec held_ts;

/* key=value, value quoted and escaped when it needs to be. */
static size_t kv(char *out, size_t at, const char *key, const char *v)
{
	bool quote = !*v || strpbrk(v, " =\"\\") != NULL;

	for (const char *p = v; *p && !quote; p++)
		quote = (unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f;
	at += snprintf(out + at, at < LOG_MAX ? LOG_MAX - at : 0, " %s=%s", key, quote ? "\"" : "");
	for (const unsigned char *p = (const unsigned char *)v; *p && at + 8 < LOG_MAX; p++) {
		if (*p == '"' || *p == '\\')
			at += snprintf(out + at, LOG_MAX - at, "\\%c", *p);
		else if (*p == '\n')
			at += snprintf(out + at, LOG_MAX - at, "\\n");
		else if (*p == '\t')
			at += snprintf(out + at, LOG_MAX - at, "\\t");
		else if (*p < 0x20 || *p >= 0x7f)
			at += snprintf(out + at, LOG_MAX - at, "\\u%04x", *p);
		else
			out[at++] = (char)*p;
	}
	if (quote && at + 1 < LOG_MAX)
		out[at++] = '"';
	out[at < LOG_MAX ? at : LOG_MAX - 1] = '\0';
	return at < LOG_MAX ? at : LOG_MAX - 1;
}

static void emit_at(const struct timespec *when, const char *level, unsigned int status,
		    const char *method, const char *url, const char *msg, const char *detail)
{
	char line[LOG_MAX], ts[40], num[16];
	struct timespec now = *when;
	struct tm tm;
	size_t at;

	gmtime_r(&now.tv_sec, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
	at = (size_t)snprintf(line, sizeof(line), "ts=%s.%03ldZ level=%s component=http", ts,
			      now.tv_nsec / 1000000, level);
	if (status) {
		snprintf(num, sizeof(num), "%u", status);
		at = kv(line, at, "status", num);
	}
	if (method)
		at = kv(line, at, "method", method);
	if (url)
		at = kv(line, at, "path", url);
	at = kv(line, at, "msg", msg);
	if (detail)
		kv(line, at, "detail", detail);
	p_info("%s", line);
}

static void emit(const char *level, unsigned int status, const char *method, const char *url,
		 const char *msg, const char *detail)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	emit_at(&now, level, status, method, url, msg, detail);
}

/* The held message as a line of its own (held_mu held). */
static void held_out(void)
{
	if (held[0])
		emit_at(&held_ts, "warn", 0, NULL, NULL, held, NULL);
	held[0] = '\0';
}

void exp_log_flush(void)
{
	pthread_mutex_lock(&held_mu);
	held_out();
	pthread_mutex_unlock(&held_mu);
}

void exp_log_http(unsigned int status, const char *method, const char *url, const char *msg)
{
	emit(status >= 500 ? "error" : "warn", status, method, url, msg, NULL);
}

/* The text of an HTML page: its <title>, else everything outside tags, blanks squeezed. */
static void html_text(const char *s, char *out, size_t len)
{
	const char *t = strcasestr(s, "<title>"), *e;
	size_t n = 0;
	bool tag = false, blank = true;

	if (t && (e = strcasestr(t, "</title>"))) {
		s = t + 7;
		snprintf(out, len, "%.*s", (int)(e - s), s);
		return;
	}
	for (; *s && n + 1 < len; s++) {
		if (*s == '<')
			tag = true;
		else if (*s == '>')
			tag = false;
		else if (!tag && !(isspace((unsigned char)*s) && blank))
			out[n++] = isspace((unsigned char)*s) ? ' ' : *s;
		blank = n == 0 || out[n - 1] == ' ';
	}
	while (n && out[n - 1] == ' ')
		n--;
	out[n] = '\0';
}

void exp_log_mhd(const char *fmt, va_list ap)
{
	static const char code_is[] = "HTTP response code is ";
	char buf[LOG_MAX], text[LOG_MAX];
	const char *c = NULL, *q;
	unsigned int status = 0;

	vsnprintf(buf, sizeof(buf), fmt, ap);
	c = strstr(buf, code_is);
	text[0] = '\0';
	if (c) {
		status = (unsigned int)strtoul(c + sizeof(code_is) - 1, NULL, 10);
		q = strstr(c, "('");
		if (q) {
			char *end = strstr(q + 2, "')");

			if (end)
				*end = '\0';
			html_text(q + 2, text, sizeof(text));
		}
	}
	if (!text[0])
		html_text(buf, text, sizeof(text));
	pthread_mutex_lock(&held_mu);
	if (status) {
		emit("warn", status, NULL, NULL, text[0] ? text : "(empty message)",
		     held[0] ? held : NULL);
		held[0] = '\0';
	} else {
		held_out();
		snprintf(held, sizeof(held), "%s", text[0] ? text : "(empty message)");
		clock_gettime(CLOCK_REALTIME, &held_ts);
	}
	pthread_mutex_unlock(&held_mu);
}
