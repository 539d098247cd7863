// SPDX-License-Identifier: GPL-2.0
/*
 * scrape.c - the render worker (scrape.h).  Scrapes are rendered one at a
 * time, as the exporter's lock would have them anyway; each counts as in
 * flight for /healthz from the moment it is queued until it is rendered.
 */
#define _GNU_SOURCE
#include <stdlib.h>

#include "exporter/health.h"
#include "exporter/scrape.h"

static void render(struct exp_scraper *s, struct exp_scrape *sc)
{
	struct exporter *e = s->e;

	pthread_mutex_lock(&e->lock);
	sc->body = exp_render(e, &sc->len);
	if (e->health)
		exp_health_sources(e->health, e->src, ~0u, exp_health_now());
	pthread_mutex_unlock(&e->lock);
	if (e->health)
		exp_health_end(e->health, exp_health_now());
	MHD_resume_connection(sc->c);
}

static void *worker(void *arg)
{
	struct exp_scraper *s = arg;

	pthread_mutex_lock(&s->mu);
	for (;;) {
		struct exp_scrape *sc = s->head;

		if (!sc) {
			if (s->stop)
				break;
			pthread_cond_wait(&s->cv, &s->mu);
			continue;
		}
		s->head = sc->next;
		if (!s->head)
			s->tail = &s->head;
		sc->next = NULL;
		pthread_mutex_unlock(&s->mu);
		render(s, sc);
		pthread_mutex_lock(&s->mu);
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

int exp_scraper_start(struct exp_scraper *s, struct exporter *e)
{
	s->e = e;
	s->stop = false;
	s->head = NULL;
	s->tail = &s->head;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	s->running = !pthread_create(&s->thread, NULL, worker, s);
	return s->running ? 0 : -1;
}

struct exp_scrape *exp_scraper_queue(struct exp_scraper *s, struct MHD_Connection *c)
{
	struct exp_scrape *sc;

	if (!s->running)
		return NULL;
	sc = calloc(1, sizeof(*sc));
	if (!sc)
		return NULL;
	sc->magic = EXP_SCRAPE_MAGIC;
	sc->c = c;
	/*
	 * Suspended before the worker can see it: a resume of a connection
	 * not suspended yet is lost, and the connection would hang.  The HTTP
	 * thread, in the handler now, handles the resume only after it returns.
	 */
	MHD_suspend_connection(c);
	if (s->e->health)
		exp_health_begin(s->e->health, exp_health_now());
	pthread_mutex_lock(&s->mu);
	*s->tail = sc;
	s->tail = &sc->next;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
	return sc;
}

void exp_scrape_free(struct exp_scrape *sc)
{
	if (!sc)
		return;
	free(sc->body);
	free(sc);
}

void exp_scraper_stop(struct exp_scraper *s)
{
	if (!s->running)
		return;
	pthread_mutex_lock(&s->mu);
	s->stop = true;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->thread, NULL);
	s->running = false;
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
}
