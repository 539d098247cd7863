// SPDX-License-Identifier: GPL-2.0
/*
 * health.c - the exporter's liveness and readiness (health.h).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "exporter/health.h"

double exp_health_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void exp_health_init(struct exp_health *h, double stuck_after, double ready_grace, double now)
{
	memset(h, 0, sizeof(*h));
	pthread_mutex_init(&h->mu, NULL);
	h->stuck_after = stuck_after;
	h->ready_grace = ready_grace;
	h->started = now;
	h->progress = now;
}

void exp_health_destroy(struct exp_health *h)
{
	pthread_mutex_destroy(&h->mu);
}

void exp_health_begin(struct exp_health *h, double now)
{
	pthread_mutex_lock(&h->mu);
	if (!h->inflight++)
		h->progress = now;
	pthread_mutex_unlock(&h->mu);
}

void exp_health_end(struct exp_health *h, double now)
{
	pthread_mutex_lock(&h->mu);
	if (h->inflight)
		h->inflight--;
	h->progress = now;
	pthread_mutex_unlock(&h->mu);
}

void exp_health_sources(struct exp_health *h, const enum exp_src_state *src, unsigned int mask,
			double now)
{
	pthread_mutex_lock(&h->mu);
	for (int s = 0; s < SRC_NR; s++) {
		if (!(mask & (1u << s)))
			continue;
		h->seen[s] = true;
		h->state[s] = src[s];
		if (src[s] == SS_OK)
			h->up_at = now;
	}
	pthread_mutex_unlock(&h->mu);
}

/* "uvm_tools=no_driver sched_watcher=unknown ...": each source's state. */
static void states(const struct exp_health *h, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (int s = 0; s < SRC_NR && at < len; s++)
		at += snprintf(buf + at, len - at, "%s%s=%s", s ? " " : "", exp_src_names[s],
			       h->seen[s] ? exp_src_state_names[h->state[s]] : "unknown");
}

static unsigned int live(struct exp_health *h, double now, char *buf, size_t len)
{
	double stuck = now - h->progress;

	if (h->inflight && stuck > h->stuck_after) {
		snprintf(buf, len, "stuck: %u scrape(s) in flight, none finished for %.0f s "
			 "(bound %.0f s)\n", h->inflight, stuck, h->stuck_after);
		return 503;
	}
	snprintf(buf, len, "ok\n");
	return 200;
}

static unsigned int ready(struct exp_health *h, double now, char *buf, size_t len)
{
	char st[160];
	double down;

	states(h, st, sizeof(st));
	for (int s = 0; s < SRC_NR; s++)
		if (h->seen[s] && h->state[s] == SS_OK) {
			snprintf(buf, len, "ready: %s\n", st);
			return 200;
		}
	down = now - (h->up_at > h->started ? h->up_at : h->started);
	if (down <= h->ready_grace) {
		snprintf(buf, len, "ready: every source down for %.0f s (not ready after %.0f s): "
			 "%s\n", down, h->ready_grace, st);
		return 200;
	}
	snprintf(buf, len, "not ready: every source down for %.0f s (bound %.0f s): %s\n", down,
		 h->ready_grace, st);
	return 503;
}

bool exp_health_answer(struct exp_health *h, const char *url, double now, unsigned int *status,
		       char *buf, size_t len)
{
	bool is_live = !strcmp(url, "/healthz");

	if (!is_live && strcmp(url, "/readyz"))
		return false;
	pthread_mutex_lock(&h->mu);
	*status = is_live ? live(h, now, buf, len) : ready(h, now, buf, len);
	pthread_mutex_unlock(&h->mu);
	return true;
}
