// SPDX-License-Identifier: GPL-2.0
/*
 * conns.c - which connections the exporter keeps (conns.h).  A scrape or a
 * health probe sends its request as soon as it connects; a client that
 * means to starve them holds connections that send nothing, or trickle a
 * request a byte at a time, or stop reading a reply.  So:
 *
 *  - an owner (a local user, a remote IPv4 address, a remote IPv6 /64:
 *    peer.c) holds at most EXP_CONN_PER_OWNER connections; one more takes
 *    the place of that owner's connection that has waited longest for a
 *    request (a kubelet probe coming from the node's address where a node
 *    user holds 8 is served, the user's oldest idle one is shut);
 *  - connections waiting for a request fill at most limit - reserve of the
 *    table: a new one beyond takes the place of the one that has waited
 *    longest, whoever's it is (many owners, a /48 of /64s, cannot fill it);
 *  - a connection whose whole request is already in its socket (read with
 *    MSG_PEEK), or whose request is being answered (for less than
 *    EXP_CONN_BUSY_S), is never the one shut: the scraper's own is safe
 *    once its request has arrived.
 *
 * Shutting is shutdown(2): libmicrohttpd sees the end and closes it (the
 * record lives until then, "cut").  Everything runs in libmicrohttpd's one
 * thread; nothing scans more than the table (limit + its spare records).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <unistd.h>

#include "exporter/conns.h"

#define SPARE		64	/* records beyond limit: connections being shut */
#define MAX_PEEKS	8	/* candidates looked at for one place */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int exp_conns_init(struct exp_conns *t, unsigned int limit, int listen_family)
{
	memset(t, 0, sizeof(*t));
	t->limit = limit;
	t->reserve = limit / 8 < 8 ? 8 : limit / 8;
	t->n = limit + SPARE;
	t->c = calloc(t->n, sizeof(*t->c));
	if (!t->c)
		return -ENOMEM;
	t->diag_fd = exp_peers_open(listen_family);
	return 0;
}

void exp_conns_free(struct exp_conns *t)
{
	if (t->diag_fd >= 0)
		close(t->diag_fd);
	free(t->c);
	t->c = NULL;
}

unsigned int exp_conns_records(const struct exp_conns *t)
{
	return t->n;
}

/* Its whole request is in the socket, unread: a client about to be served. */
static bool request_waiting(int fd)
{
	char buf[4096];
	ssize_t n = recv(fd, buf, sizeof(buf), MSG_PEEK | MSG_DONTWAIT);

	return n > 0 && (memmem(buf, (size_t)n, "\r\n\r\n", 4) || memmem(buf, (size_t)n, "\n\n", 2));
}

static bool live(const struct exp_conn *c)
{
	return c->used && !c->cut;
}

/* May make room: waiting for a request, or its reply stuck past EXP_CONN_BUSY_S. */
static bool idle(const struct exp_conn *c, uint64_t now)
{
	return live(c) && (!c->busy_ns || now - c->busy_ns > EXP_CONN_BUSY_S * 1000000000ull);
}

/*
 * The connection (of owner o, or anyone's when NULL) that has waited
 * longest and has no request in its socket: shut, true; false when none.
 */
static bool cut_oldest(struct exp_conns *t, const struct exp_owner *o, uint64_t now)
{
	uint64_t after = 0;

	for (int k = 0; k < MAX_PEEKS; k++) {
		struct exp_conn *best = NULL;

		for (unsigned int i = 0; i < t->n; i++) {
			struct exp_conn *c = &t->c[i];

			if (!idle(c, now) || (o && !exp_owner_eq(&c->o, o)) || c->active_ns < after)
				continue;
			if (!best || c->active_ns < best->active_ns)
				best = c;
		}
		if (!best)
			return false;
		if (!request_waiting(best->fd)) {
			shutdown(best->fd, SHUT_RDWR);
			best->cut = true;
			t->cut++;
			return true;
		}
		after = best->active_ns + 1;	/* served soon: the next one */
	}
	return false;
}

struct exp_conn *exp_conns_admit(struct exp_conns *t, int fd)
{
	struct exp_conn *slot = NULL;
	unsigned int mine = 0, all = 0;
	uint64_t now = now_ns();
	struct exp_owner o;

	exp_peer_owner(t->diag_fd, fd, &o);
	for (unsigned int i = 0; i < t->n; i++) {
		struct exp_conn *c = &t->c[i];

		if (!c->used) {
			if (!slot)
				slot = c;
			continue;
		}
		if (c->cut)
			continue;
		all++;
		mine += exp_owner_eq(&c->o, &o);
	}
	if (!slot ||
	    (mine >= EXP_CONN_PER_OWNER && !cut_oldest(t, &o, now)) ||
	    (mine < EXP_CONN_PER_OWNER && all >= t->limit - t->reserve && !cut_oldest(t, NULL, now) &&
	     all >= t->limit)) {
		t->refused++;
		return NULL;
	}
	memset(slot, 0, sizeof(*slot));
	slot->o = o;
	slot->fd = fd;
	slot->used = true;
	slot->active_ns = now;
	return slot;
}

void exp_conns_busy(struct exp_conn *c)
{
	if (c)
		c->busy_ns = now_ns();
}

void exp_conns_idle(struct exp_conn *c)
{
	if (c) {
		c->busy_ns = 0;
		c->active_ns = now_ns();
	}
}

void exp_conns_closed(struct exp_conn *c)
{
	if (c)
		c->used = false;
}
