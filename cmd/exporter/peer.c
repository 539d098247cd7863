// SPDX-License-Identifier: GPL-2.0
/*
 * peer.c - who is at the other end of an accepted TCP connection (peer.h):
 * a local user when the client's socket is on this host (loopback, ::1,
 * an IPv4-mapped address, or any of the host's own addresses), else its
 * IPv4 address or its IPv6 /64 (what one host or one customer is given:
 * 150 addresses of one /64 are one owner).  The client's socket is the
 * accepted one's tuple reversed: the kernel's socket diagnostics
 * (NETLINK_SOCK_DIAG, an exact lookup, O(1)) say who created it.  Without
 * them (no AF_NETLINK under a unit's RestrictAddressFamilies, no tcp_diag)
 * nothing is scanned per connection (a /proc/net/tcp read is O(sockets),
 * a connect/close loop made it a core's work): the client counts by
 * address, all of 127.0.0.0/8 as one.  A socket without a file (closed,
 * in TIME_WAIT) has no owner worth the name: it counts by address.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "exporter/peer.h"

/* An address as 16 bytes (IPv4 as ::ffff:a.b.c.d) and its port, host order. */
static void addr16(const struct sockaddr_storage *ss, uint8_t a[16], unsigned int *port)
{
	const struct sockaddr_in6 *v6 = (const void *)ss;
	const struct sockaddr_in *v4 = (const void *)ss;

	memset(a, 0, 16);
	if (ss->ss_family == AF_INET6) {
		memcpy(a, &v6->sin6_addr, 16);
		*port = ntohs(v6->sin6_port);
	} else {
		a[10] = a[11] = 0xff;
		memcpy(a + 12, &v4->sin_addr, 4);
		*port = ntohs(v4->sin_port);
	}
}

static bool is_mapped(const uint8_t a[16])
{
	static const uint8_t pre[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return !memcmp(a, pre, 12);
}

/* One request, one answer: 1 found (*uid, *inode), 0 not found, -errno. */
static int diag_talk(int fd, struct nlmsghdr *req, uint32_t *uid, uint32_t *inode)
{
	static uint32_t seq;
	char buf[8192] __attribute__((aligned(4)));
	size_t len = req->nlmsg_len;
	ssize_t n;

	/* a late answer to an earlier request (timed out) is not this one's */
	req->nlmsg_seq = ++seq;
	if (send(fd, req, len, 0) != (ssize_t)len)
		return -errno;
	for (;;) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0)
			return -errno;
		for (struct nlmsghdr *h = (void *)buf; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				return e->error == -ENOENT || !e->error ? 0 : e->error;
			}
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == SOCK_DIAG_BY_FAMILY && uid) {
				const struct inet_diag_msg *m = NLMSG_DATA(h);

				*uid = m->idiag_uid;
				*inode = m->idiag_inode;
				return 1;
			}
		}
	}
}

struct diag_req {
	struct nlmsghdr nlh;
	struct inet_diag_req_v2 r;
};

static int diag_lookup(int fd, const uint8_t pa[16], unsigned int pport, const uint8_t sa[16],
		       unsigned int sport, uint32_t *uid, uint32_t *inode)
{
	struct diag_req q;
	bool v4 = is_mapped(pa) && is_mapped(sa);

	memset(&q, 0, sizeof(q));
	q.nlh.nlmsg_len = sizeof(q);
	q.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	q.nlh.nlmsg_flags = NLM_F_REQUEST;
	q.r.sdiag_family = v4 ? AF_INET : AF_INET6;
	q.r.sdiag_protocol = IPPROTO_TCP;
	q.r.idiag_states = ~0u;
	/* the client's socket: its source is our peer, its destination us */
	q.r.id.idiag_sport = htons(pport);
	q.r.id.idiag_dport = htons(sport);
	memcpy(q.r.id.idiag_src, v4 ? pa + 12 : pa, v4 ? 4 : 16);
	memcpy(q.r.id.idiag_dst, v4 ? sa + 12 : sa, v4 ? 4 : 16);
	q.r.id.idiag_cookie[0] = q.r.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
	return diag_talk(fd, &q.nlh, uid, inode);
}

/* Whether the kernel answers TCP diagnostics for family (a dump of listeners). */
static bool diag_works(int fd, int family)
{
	struct diag_req q;
	char buf[8192] __attribute__((aligned(4)));
	ssize_t n;

	memset(&q, 0, sizeof(q));
	q.nlh.nlmsg_len = sizeof(q);
	q.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	q.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	q.r.sdiag_family = (uint8_t)family;
	q.r.sdiag_protocol = IPPROTO_TCP;
	q.r.idiag_states = 1u << TCP_LISTEN;
	if (send(fd, &q, sizeof(q), 0) != (ssize_t)sizeof(q))
		return false;
	while ((n = recv(fd, buf, sizeof(buf), 0)) > 0)
		for (struct nlmsghdr *h = (void *)buf; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n))
			if (h->nlmsg_type == NLMSG_ERROR || h->nlmsg_type == NLMSG_DONE)
				return h->nlmsg_type == NLMSG_DONE;
	return false;
}

int exp_peers_open(int listen_family)
{
	struct timeval tv = { .tv_sec = 0, .tv_usec = 200000 };
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (!diag_works(fd, listen_family)) {
		close(fd);
		return -1;	/* /proc/net/tcp{,6} then */
	}
	return fd;
}

void exp_peer_owner(int diag_fd, int conn, struct exp_owner *o)
{
	struct sockaddr_storage peer, self;
	socklen_t pl = sizeof(peer), sl = sizeof(self);
	uint8_t sa[16];
	unsigned int pport, sport;
	uint32_t uid = 0, inode = 0;
	int found = 0;

	memset(o, 0, sizeof(*o));
	if (getpeername(conn, (struct sockaddr *)&peer, &pl) ||
	    getsockname(conn, (struct sockaddr *)&self, &sl) ||
	    (peer.ss_family != AF_INET && peer.ss_family != AF_INET6))
		return;		/* all unknowns share one owner */
	addr16(&peer, o->addr, &pport);
	addr16(&self, sa, &sport);
	if (diag_fd >= 0)
		found = diag_lookup(diag_fd, o->addr, pport, sa, sport, &uid, &inode);
	if (found == 1 && inode) {
		o->local = true;
		o->uid = uid;
		memset(o->addr, 0, sizeof(o->addr));	/* a user, whatever address it uses */
	} else if (!is_mapped(o->addr)) {
		memset(o->addr + 8, 0, 8);		/* IPv6: its /64 */
	} else if (o->addr[12] == 127) {
		memset(o->addr + 13, 0, 3);		/* loopback: 127.0.0.0/8 as one */
	}
}

bool exp_owner_eq(const struct exp_owner *a, const struct exp_owner *b)
{
	if (a->local != b->local)
		return false;
	return a->local ? a->uid == b->uid : !memcmp(a->addr, b->addr, sizeof(a->addr));
}
