/* SPDX-License-Identifier: GPL-2.0 */
/*
 * conns.h - which connections the exporter keeps (conns.c): each owner
 * (peer.h) holds a few at once, and room is kept for a client that sends a
 * request: when the table fills, the connection waiting longest for one
 * makes room.  libmicrohttpd's one thread calls these: no lock.
 */
#ifndef GPUCTL_EXPORTER_CONNS_H
#define GPUCTL_EXPORTER_CONNS_H

#include <stdbool.h>
#include <stdint.h>

#include "exporter/peer.h"

#define EXP_CONN_PER_OWNER	8	/* connections one owner holds at once */
#define EXP_CONN_BUSY_S		10	/* a request's reply older than this may be cut */

struct exp_conn {
	struct exp_owner o;
	int fd;
	bool used;		/* a connection libmicrohttpd holds */
	bool cut;		/* shut for room: closing */
	uint64_t active_ns;	/* accepted, or its last reply sent (monotonic) */
	uint64_t busy_ns;	/* its request came then; 0: waiting for one */
};

struct exp_conns {
	struct exp_conn *c;
	unsigned int n;		/* records: limit and room for those closing */
	unsigned int limit;	/* connections kept at once */
	unsigned int reserve;	/* of limit: never filled by connections waiting */
	int diag_fd;		/* peer.c's socket diagnostics, or -1 */
	uint64_t cut, refused;	/* connections shut for room, and refused */
};

/* limit connections (records for more); 0 or -ENOMEM.  listen_family: AF_INET or AF_INET6. */
int exp_conns_init(struct exp_conns *t, unsigned int limit, int listen_family);
void exp_conns_free(struct exp_conns *t);
/* Records libmicrohttpd needs room for (its connection limit). */
unsigned int exp_conns_records(const struct exp_conns *t);
/*
 * The connection fd was accepted: its record, or NULL when it is to be
 * shut (its owner holds EXP_CONN_PER_OWNER that all have a request in
 * hand, or the table is full of such).  Over its owner's bound, or into
 * the reserve, it takes the place of the owner's (or anyone's) connection
 * that has waited longest for a request, which is shut.
 */
struct exp_conn *exp_conns_admit(struct exp_conns *t, int fd);
void exp_conns_busy(struct exp_conn *c);	/* a request's headers came */
void exp_conns_idle(struct exp_conn *c);	/* its reply went */
void exp_conns_closed(struct exp_conn *c);

#endif
