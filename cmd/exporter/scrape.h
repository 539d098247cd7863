/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scrape.h - GET /metrics off the HTTP thread (scrape.c): the request's
 * connection is suspended, one worker thread renders under the
 * exporter's lock and resumes it.  The HTTP thread never waits for the
 * lock, so /healthz and /readyz answer while a scrape is stuck (and say
 * so: health.h).
 */
#ifndef GPUCTL_EXP_SCRAPE_H
#define GPUCTL_EXP_SCRAPE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include <microhttpd.h>

#include "exporter/exporter.h"

/* One /metrics request: the connection's request state while it is in flight. */
struct exp_scrape {
	unsigned int magic;	/* EXP_SCRAPE_MAGIC: told apart from other request states */
	struct MHD_Connection *c;
	char *body;		/* the exposition (malloc'd), NULL: rendering failed */
	size_t len;
	struct exp_scrape *next;
};
#define EXP_SCRAPE_MAGIC 0x5c4a9e01u

struct exp_scraper {
	struct exporter *e;
	pthread_t thread;
	bool running, stop;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct exp_scrape *head, **tail;
};

/* The worker: 0, or -1 (it could not start: scrapes are then rendered inline). */
int exp_scraper_start(struct exp_scraper *s, struct exporter *e);
/*
 * c suspended and a render of e for it queued; the caller keeps the result
 * as c's request state (c is resumed when it is rendered).  NULL: no
 * worker, or no memory (c not suspended).
 */
struct exp_scrape *exp_scraper_queue(struct exp_scraper *s, struct MHD_Connection *c);
/* A finished (or abandoned) request's scrape freed, its body too. */
void exp_scrape_free(struct exp_scrape *sc);
/* What is queued is rendered and resumed, then the worker ends. */
void exp_scraper_stop(struct exp_scraper *s);

#endif
