// SPDX-License-Identifier: GPL-2.0
/*
 * http.c - the exporter's HTTP side, on libmicrohttpd: one internal polling
 * thread (epoll) serves every connection without blocking, so a client that
 * reads slowly, stalls mid-request or vanishes holds only its own
 * connection (closed after EXP_CONN_TIMEOUT_S idle) and never another
 * scrape.  /healthz and /readyz (health.c) answer without rendering.
 * No client can take the connections a scraper or a health probe needs
 * (conns.c): each owner -- a local user whatever addresses it connects
 * from, a client elsewhere by its IPv4 address or IPv6 /64 (peer.c) --
 * holds at most EXP_CONN_PER_OWNER at once, and connections waiting for a
 * request never fill the last eighth of the table (EXP_CONN_LIMIT, within
 * the fd limit): a new one takes the place of the one waiting longest.
 * GET /metrics renders under the exporter's lock; / says where
 * the metrics are; anything else is 404, other methods 405 (a request body
 * is read and dropped first: a POST with one is answered too).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/resource.h>

#include <microhttpd.h>

#include "gpuctl.h"
#include "exporter/exporter.h"
#include "exporter/conns.h"
#include "exporter/health.h"
#include "exporter/scrape.h"

#define EXP_CONN_TIMEOUT_S	5
#define EXP_CONN_LIMIT		1024	/* at most: less when the fd limit is low */
#define EXP_BACKLOG		256
#define EXP_CONTENT_TYPE	"text/plain; version=0.0.4; charset=utf-8"

struct exp_http {
	struct MHD_Daemon *d;
	struct exporter *e;
	struct exp_conns conns;
	struct exp_scraper scraper;	/* renders /metrics off this thread (scrape.c) */
};

/* The request state of a request past its headers (else NULL, or a scrape). */
static int first;

int exp_listen(const struct sockaddr *addr, socklen_t len, bool v6only)
{
	int one = 1, fd = socket(addr->sa_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0)
		return -errno;
	/* a restart must not wait for TIME_WAIT; a port in use is still refused */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (addr->sa_family == AF_INET6) {
		int only = v6only;	/* 0: IPv4 too, as IPv4-mapped addresses */

		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &only, sizeof(only));
	}
	if (bind(fd, addr, len) || listen(fd, EXP_BACKLOG)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status, const char *type,
			     char *body, size_t len, bool owned)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, body, owned ? MHD_RESPMEM_MUST_FREE :
					    MHD_RESPMEM_PERSISTENT);
	if (!r) {
		if (owned)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static char index_page[] =
	"<html><head><title>gpuctl exporter</title></head><body>"
	"<h1>gpuctl exporter</h1><p><a href=\"/metrics\">Metrics</a></p></body></html>\n";
static char not_found[] = "not found: the metrics are at /metrics\n";
static char healthy[] = "ok\n";
static char not_allowed[] = "only GET and HEAD\n";
static char failed[] = "rendering the metrics failed (out of memory)\n";

/* A scrape the worker rendered: its answer; the request state back to &first. */
static enum MHD_Result scraped(struct MHD_Connection *c, const char *method, const char *url,
			       void **state)
{
	struct exp_scrape *sc = *state;
	char *body = sc->body;
	size_t len = sc->len;

	*state = &first;
	sc->body = NULL;
	exp_scrape_free(sc);
	if (!body) {
		exp_log_http(MHD_HTTP_INTERNAL_SERVER_ERROR, method, url, "rendering failed: out of memory");
		return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain", failed,
			     sizeof(failed) - 1, false);
	}
	return reply(c, MHD_HTTP_OK, EXP_CONTENT_TYPE, body, len, true);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *upload_len, void **state)
{
	struct exp_http *h = cls;
	struct exp_scrape *sc;
	unsigned int status;
	char *body, probe[512];
	size_t len = 0;

	(void)version;
	(void)upload;
	/* the first call is for the headers alone: answer once the body is read */
	if (!*state) {
		const union MHD_ConnectionInfo *ci =
			MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

		*state = &first;
		exp_conns_busy(ci ? ci->socket_context : NULL);	/* not to be cut for room */
		return MHD_YES;
	}
	if (*upload_len) {
		*upload_len = 0;	/* a body is never used: dropped as it comes */
		return MHD_YES;
	}
	if (*state != &first)	/* resumed: the worker has rendered it */
		return scraped(c, method, url, state);
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", not_allowed,
			     sizeof(not_allowed) - 1, false);
	if (!strcmp(url, "/"))
		return reply(c, MHD_HTTP_OK, "text/html", index_page, sizeof(index_page) - 1,
			     false);
	/* the probes: the HTTP thread answers (no lock, nothing rendered; health.h) */
	if (h->e->health && exp_health_answer(h->e->health, url, exp_health_now(), &status,
					      probe, sizeof(probe))) {
		body = strdup(probe);
		return body ? reply(c, status, "text/plain", body, strlen(body), true) : MHD_NO;
	}
	if (!strcmp(url, "/healthz"))
		return reply(c, MHD_HTTP_OK, "text/plain", healthy, sizeof(healthy) - 1, false);
	if (strcmp(url, "/metrics"))
		return reply(c, MHD_HTTP_NOT_FOUND, "text/plain", not_found,
			     sizeof(not_found) - 1, false);
	sc = exp_scraper_queue(&h->scraper, c);	/* suspends c */
	if (sc) {
		*state = sc;
		return MHD_YES;
	}
	/* no worker: rendered here, the HTTP thread waiting for the lock */
	pthread_mutex_lock(&h->e->lock);
	body = exp_render(h->e, &len);
	pthread_mutex_unlock(&h->e->lock);
	if (!body) {
		exp_log_http(MHD_HTTP_INTERNAL_SERVER_ERROR, method, url, "rendering failed: out of memory");
		return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain", failed,
			     sizeof(failed) - 1, false);
	}
	return reply(c, MHD_HTTP_OK, EXP_CONTENT_TYPE, body, len, true);
}

/*
 * A connection accepted or closed (libmicrohttpd's one thread: no lock).
 * One conns.c does not keep is shut at once: libmicrohttpd reads its end
 * and closes it before it holds anything.
 */
static void notify(void *cls, struct MHD_Connection *c, void **ctx,
		   enum MHD_ConnectionNotificationCode toe)
{
	struct exp_http *h = cls;
	const union MHD_ConnectionInfo *ci;

	if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
		exp_conns_closed(*ctx);
		*ctx = NULL;
		return;
	}
	*ctx = NULL;
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (!ci)
		return;
	*ctx = exp_conns_admit(&h->conns, ci->connect_fd);
	if (!*ctx)
		shutdown(ci->connect_fd, SHUT_RDWR);
}

/* A request answered (or given up): the connection waits for the next one. */
static void completed(void *cls, struct MHD_Connection *c, void **state,
		      enum MHD_RequestTerminationCode toe)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	(void)cls;
	(void)toe;
	if (*state && *state != &first)	/* a scrape its client did not wait for */
		exp_scrape_free(*state);
	*state = NULL;
	exp_conns_idle(ci ? ci->socket_context : NULL);
}

/* libmicrohttpd's own complaints go where ours go: one logfmt line each (httplog.c). */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	exp_log_mhd(fmt, ap);
}

struct exp_http *exp_http_start(struct exporter *e, int fd, char *err, size_t len)
{
	struct exp_http *h = calloc(1, sizeof(*h));
	unsigned int limit = EXP_CONN_LIMIT;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct rlimit rl;

	/* connections beside the exporter's own fds (two per attached process) */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY) {
		long spare = (long)rl.rlim_cur - 2L * (long)e->max_procs - 64 - 64;

		if (spare < (long)limit)
			limit = spare < 64 ? 64 : (unsigned int)spare;
	}
	if (!h || exp_conns_init(&h->conns, limit, getsockname(fd, (struct sockaddr *)&ss, &sl) ?
				 AF_INET : ss.ss_family)) {
		free(h);
		close(fd);
		snprintf(err, len, "out of memory");
		return NULL;
	}
	h->e = e;
	if (h->conns.diag_fd < 0)
		p_info("exporter: no socket diagnostics (AF_NETLINK, NETLINK_SOCK_DIAG): local "
		       "clients are bounded by address, not by user");
	if (exp_scraper_start(&h->scraper, e))
		p_info("exporter: no render thread: a scrape waiting for the lock holds the others");
	h->d = MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG |
				MHD_ALLOW_SUSPEND_RESUME, 0, NULL, NULL,
				handle, h,
				/* first: libmicrohttpd logs with its own logger until it sees it */
				MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
				MHD_OPTION_LISTEN_SOCKET, fd,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)EXP_CONN_TIMEOUT_S,
				MHD_OPTION_CONNECTION_LIMIT, exp_conns_records(&h->conns),
				MHD_OPTION_NOTIFY_CONNECTION, notify, h,
				MHD_OPTION_NOTIFY_COMPLETED, completed, h,
				MHD_OPTION_END);
	if (!h->d) {
		exp_scraper_stop(&h->scraper);
		close(fd);
		exp_conns_free(&h->conns);
		free(h);
		snprintf(err, len, "libmicrohttpd could not start serving");
		return NULL;
	}
	return h;
}

void exp_http_stop(struct exp_http *h)
{
	if (!h)
		return;
	/* the queued scrapes rendered and resumed first: MHD must not stop with one suspended */
	exp_scraper_stop(&h->scraper);
	/* MHD closes the listening socket it was given */
	MHD_stop_daemon(h->d);
	exp_conns_free(&h->conns);
	free(h);
}
