/* SPDX-License-Identifier: GPL-2.0 */
/*
 * peer.h - the owner of an HTTP client's connection (peer.c): the local
 * user whose socket it is, or, for a client elsewhere, its IPv4 address or
 * IPv6 /64.  The exporter bounds connections per owner (conns.c).
 */
#ifndef GPUCTL_EXPORTER_PEER_H
#define GPUCTL_EXPORTER_PEER_H

#include <stdbool.h>
#include <stdint.h>

struct exp_owner {
	bool local;		/* the client's socket is on this host: uid says whose */
	uint32_t uid;
	uint8_t addr[16];	/* not local: IPv4 as ::ffff:a.b.c.d, IPv6 its /64 */
};

/* A socket-diagnostics socket, or -1 (then owners are addresses alone). */
int exp_peers_open(int listen_family);
/* The owner of the accepted connection conn. */
void exp_peer_owner(int diag_fd, int conn, struct exp_owner *o);
bool exp_owner_eq(const struct exp_owner *a, const struct exp_owner *b);

#endif
