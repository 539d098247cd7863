/* SPDX-License-Identifier: GPL-2.0 */
/*
 * health.h - what the exporter's probes answer (health.c), for a
 * Kubernetes pod or a systemd watchdog alike:
 *
 *   /healthz  liveness: fails (503) only while a scrape is stuck -- a
 *             /metrics request has waited for or rendered the exposition
 *             longer than stuck_after with none finishing meanwhile.  A
 *             node without a driver stays alive: restarting cannot help.
 *   /readyz   readiness: fails (503) while every source of metrics (the
 *             driver's uvm-tools, the TSG watcher, the policies) has been
 *             down longer than ready_grace; ready again as soon as one is up.
 *
 * The HTTP thread answers both without the exporter's lock: the states
 * are copied here (own mutex) where the rescan loop and the scrapes see them.
 */
#ifndef GPUCTL_EXP_HEALTH_H
#define GPUCTL_EXP_HEALTH_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "exporter/exporter.h"

#define EXP_STUCK_AFTER_S	60	/* default: a scrape longer than this is stuck */
#define EXP_READY_GRACE_S	60	/* default: every source down this long: not ready */

struct exp_health {
	pthread_mutex_t mu;
	double stuck_after, ready_grace;	/* s */
	double started;		/* monotonic s */
	unsigned int inflight;	/* /metrics requests begun, not ended */
	double progress;	/* when one began with none in flight, or one ended */
	double up_at;		/* the last time a source was seen up (0: never) */
	bool seen[SRC_NR];	/* its state is known */
	enum exp_src_state state[SRC_NR];
};

/* now: exp_health_now() (monotonic seconds); tests pass their own times. */
double exp_health_now(void);
void exp_health_init(struct exp_health *h, double stuck_after, double ready_grace, double now);
void exp_health_destroy(struct exp_health *h);
/* A /metrics request begins (before the exporter's lock) and ends. */
void exp_health_begin(struct exp_health *h, double now);
void exp_health_end(struct exp_health *h, double now);
/* The sources' states as the exporter knows them now: src[0..SRC_NR), those of mask (bits). */
void exp_health_sources(struct exp_health *h, const enum exp_src_state *src, unsigned int mask,
			double now);
/*
 * The answer to url: true when url is /healthz or /readyz, with the HTTP
 * status and a one-line text body in buf; false for any other url.
 */
bool exp_health_answer(struct exp_health *h, const char *url, double now, unsigned int *status,
		       char *buf, size_t len);

#endif
