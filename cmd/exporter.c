// SPDX-License-Identifier: GPL-2.0
/*
 * exporter.c - gpuctl exporter: what gpuctl knows, for Prometheus.  serve
 * runs an HTTP endpoint (/metrics) until stopped; textfile writes one
 * exposition for node_exporter's textfile collector.  The engine is
 * cmd/exporter/ (exporter.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "gpuctl.h"
#include "optsets.h"
#include "safefile.h"
#include "exporter/exporter.h"
#include "exporter/health.h"

#define EXP_DEFAULT_INTERVAL_MS	2000

struct serve_opts {
	uint64_t interval_ns;
	unsigned long long maxp;
	const char *listen;
	bool events, pod_names;
	uint64_t stuck_ns, grace_ns;	/* HEALTH (exporter/health.h) */
};

static const struct opt serve_rows[] = {
	{ .name = "listen", .kind = OPT_STRING, .off = offsetof(struct serve_opts, listen),
	  .arg = "ADDR:PORT", .help = "where to answer (:PORT: every address)" },
	{ .name = "interval", .kind = OPT_DURATION, .off = offsetof(struct serve_opts, interval_ns),
	  .arg = "MS", .help = "look for new processes at most this often (2000, 500ms, 5s)",
	  .unit = NSEC_PER_MSEC, .min = 100 * NSEC_PER_MSEC, .max = 3600 * NSEC_PER_SEC },
	{ .name = "max-processes", .kind = OPT_UINT, .off = offsetof(struct serve_opts, maxp),
	  .arg = "N", .help = "attach to at most N processes", .min = 1, .max = 65536 },
	{ .name = "events", .kind = OPT_FLAG, .off = offsetof(struct serve_opts, events),
	  .help = "count replays, evictions and thrashing from event queues" },
	{ .name = "pod-names", .kind = OPT_FLAG, .off = offsetof(struct serve_opts, pod_names),
	  .help = "label namespace and pod from /var/log/pods" },
	{ .name = "stuck-after", .kind = OPT_DURATION, .off = offsetof(struct serve_opts, stuck_ns),
	  .arg = "S", .help = "/healthz fails once a scrape has run this long (60)",
	  .unit = NSEC_PER_SEC, .min = NSEC_PER_SEC, .max = 86400 * NSEC_PER_SEC },
	{ .name = "ready-grace", .kind = OPT_DURATION, .off = offsetof(struct serve_opts, grace_ns),
	  .arg = "S", .help = "/readyz fails once every source has been down this long (60)",
	  .unit = NSEC_PER_SEC, .min = 0, .max = 86400 * NSEC_PER_SEC },
	{ .name = NULL },
};

const struct optset exporter_serve_opts = {
	.object = "exporter", .command = "serve", .rows = serve_rows,
};

struct textfile_opts {
	const char *out;
	bool pod_names;
};

static const struct opt textfile_rows[] = {
	{ .name = "output", .key = 'o', .kind = OPT_PATH, .off = offsetof(struct textfile_opts, out),
	  .arg = "FILE", .help = "write the exposition to FILE (atomically), not stdout" },
	{ .name = "pod-names", .kind = OPT_FLAG, .off = offsetof(struct textfile_opts, pod_names),
	  .help = "label namespace and pod from /var/log/pods" },
	{ .name = NULL },
};

const struct optset exporter_textfile_opts = {
	.object = "exporter", .command = "textfile", .rows = textfile_rows,
};

static int do_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	if (json_output) {
		jsonw_null(json_wtr);
		return EXIT_OK;
	}
	fprintf(stdout,
		"Usage: %1$s %2$s serve [--listen ADDR:PORT] [--interval MS] [--max-processes N] [--events]\n"
		"                          [--pod-names] [HEALTH]...\n"
		"       %1$s %2$s textfile [-o FILE] [--pod-names]\n"
		"       %1$s %2$s help\n"
		"\n"
		"       COMMAND := { serve | textfile | help }\n"
		"       HEALTH := { --stuck-after S | --ready-grace S }\n"
		"\n"
		"serve answers GET /metrics (Prometheus text format) on ADDR:PORT, by\n"
		"default :%3$d (every IPv6 and IPv4 address; IPv4 alone where IPv6 is\n"
		"off; localhost: 127.0.0.1); '%1$s %2$s --listen ...' is serve too.\n"
		"GET /healthz fails (503) only while a scrape is stuck longer than\n"
		"--stuck-after S (60); GET /readyz fails while every source (driver,\n"
		"TSG watcher, policies) has been down longer than --ready-grace S (60).\n"
		"It attaches to every process with /dev/nvidia-uvm open (UVM tools\n"
		"counters only) at most every --interval ms (default %4$d), drops those\n"
		"that exit, and reads the TSG watcher and the loaded policies per scrape.\n"
		"--events also counts replays, evictions and thrashing per process from\n"
		"an event queue each (costs more than counters).  Per-process series\n"
		"carry hostname ($NODE_NAME, else the host's name) and, from the\n"
		"process's cgroup, pod_uid and container_id or unit; --pod-names adds\n"
		"namespace and pod from the kubelet's /var/log/pods directories.\n"
		"textfile writes one exposition without per-process counters (they count\n"
		"only while attached) to FILE, atomically (node_exporter's textfile\n"
		"collector reads *.prom), or to stdout.  Needs CAP_BPF, CAP_PERFMON and\n"
		"CAP_SYS_PTRACE (or root) and a mounted bpffs.\n",
		bin_name, "exporter", EXP_DEFAULT_PORT, EXP_DEFAULT_INTERVAL_MS);
	opts_help_rows(&exporter_serve_opts);
	opts_help_rows(&exporter_textfile_opts);
	return EXIT_OK;
}

/*
 * "HOST:PORT", ":PORT" (every address: *any set, the IPv4 one in *ss) or
 * "[V6]:PORT", numeric only: no name service (the static binary has none),
 * but "localhost" is 127.0.0.1.
 * 0 or usage_err's code.
 */
static int parse_listen(const char *arg, struct sockaddr_storage *ss, socklen_t *len, bool *any)
{
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
	char host[128], *port;
	unsigned long long p;
	const char *h;

	if (strlen(arg) >= sizeof(host))
		return usage_err("bad listen address '%s': too long", arg);
	strcpy(host, arg);
	port = strrchr(host, ':');
	if (!port)
		return usage_err("bad listen address '%s': expected ADDR:PORT, e.g. :%d or "
				 "127.0.0.1:%d", arg, EXP_DEFAULT_PORT, EXP_DEFAULT_PORT);
	*port++ = '\0';
	h = host;
	if (host[0] == '[') {
		size_t n = strlen(host);

		if (n < 2 || host[n - 1] != ']')
			return usage_err("bad listen address '%s': unbalanced '['", arg);
		host[n - 1] = '\0';
		h = host + 1;
	}
	if (parse_u64("listen port", port, 1, 65535, &p))
		return EXIT_USAGE;
	memset(ss, 0, sizeof(*ss));
	*any = !*h;
	if (!strcmp(h, "localhost"))
		h = "127.0.0.1";	/* no name service: the loopback address the name has */
	if (!*h || inet_pton(AF_INET, h, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		v4->sin_port = htons(p);
		*len = sizeof(*v4);	/* "" left sin_addr 0: INADDR_ANY */
	} else if (inet_pton(AF_INET6, h, &v6->sin6_addr) == 1) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons(p);
		*len = sizeof(*v6);
	} else {
		return usage_err("bad listen address '%s': '%s' is not a numeric IPv4 or IPv6 "
				 "address", arg, h);
	}
	return 0;
}

/*
 * Every address: IPv6's, taking IPv4 too (IPv4-mapped), else -- IPv6
 * disabled or absent on this host -- IPv4's alone.  The fd or -errno.
 */
static int listen_any(const struct sockaddr_storage *v4, socklen_t v4len)
{
	struct sockaddr_in6 v6 = {
		.sin6_family = AF_INET6,
		.sin6_port = ((const struct sockaddr_in *)v4)->sin_port,
		.sin6_addr = IN6ADDR_ANY_INIT,
	};
	int fd = exp_listen((struct sockaddr *)&v6, sizeof(v6), false);

	if (fd >= 0 || fd == -EADDRINUSE || fd == -EACCES)
		return fd;
	return exp_listen((const struct sockaddr *)v4, v4len, true);
}

static int check_access(const char *what)
{
	/*
	 * No bpffs is no reason to refuse: what needs none is served, and
	 * gpuctl_exporter_source_up{reason="bpffs_absent"} says what is missing.
	 */
	if (need_caps(what, NEED_BPF | NEED_PTRACE))
		return EXIT_FAIL;
	return 0;
}

/*
 * Sleeps ms, waking every 100 ms to see whether a stop signal came, and
 * dropping the attached processes that exit meanwhile.
 */
static void nap(struct exporter *e, unsigned int ms)
{
	for (unsigned int t = 0; t < ms && !stop_requested(); t += 100)
		exp_wait(e, ms - t < 100 ? ms - t : 100);
}

/* Two fds per attached process: the soft limit (often 1024) up to the hard one. */
static void raise_nofile(void)
{
	struct rlimit r;

	if (!getrlimit(RLIMIT_NOFILE, &r) && r.rlim_cur < r.rlim_max) {
		r.rlim_cur = r.rlim_max;
		setrlimit(RLIMIT_NOFILE, &r);
	}
}

static int do_serve(int argc, char **argv)
{
	struct serve_opts o = { .interval_ns = EXP_DEFAULT_INTERVAL_MS * NSEC_PER_MSEC,
				.maxp = EXP_DEFAULT_MAX_PROCS,
				.stuck_ns = EXP_STUCK_AFTER_S * NSEC_PER_SEC,
				.grace_ns = EXP_READY_GRACE_S * NSEC_PER_SEC };
	struct exp_health health;
	unsigned int interval;
	const char *listen_arg;
	bool any = false;
	struct sockaddr_storage ss;
	socklen_t sslen = 0;
	struct exporter *e;
	struct exp_http *h;
	struct opts_result r;
	char err[128];
	int fd;

	if (opts_parse(&exporter_serve_opts, argc, argv, &o, &r))
		return EXIT_USAGE;
	if (r.help)
		return EXIT_OK;
	listen_arg = o.listen;
	interval = (unsigned int)(o.interval_ns / NSEC_PER_MSEC);
	if (!listen_arg) {
		snprintf(err, sizeof(err), ":%d", EXP_DEFAULT_PORT);
		listen_arg = err;
	}
	if (parse_listen(listen_arg, &ss, &sslen, &any))
		return EXIT_USAGE;
	if (check_access("exporter serve"))
		return EXIT_FAIL;
	fd = any ? listen_any(&ss, sslen) : exp_listen((struct sockaddr *)&ss, sslen, true);
	if (fd < 0) {
		p_err("cannot listen on %s: %s%s", listen_arg, strerror(-fd),
		      fd == -EADDRINUSE ? " (another exporter, or another program, has that port)" :
		      fd == -EACCES ? " (ports below 1024 need CAP_NET_BIND_SERVICE)" : "");
		return EXIT_FAIL;
	}
	e = malloc(sizeof(*e));
	if (!e) {
		close(fd);
		p_err("out of memory");
		return EXIT_FAIL;
	}
	stop_signals_install();
	signal(SIGPIPE, SIG_IGN);
	raise_nofile();
	exp_init(e, o.maxp, true);
	exp_attr_init(e, o.pod_names);
	e->events = o.events;
	exp_health_init(&health, o.stuck_ns / NSEC_PER_SEC, o.grace_ns / NSEC_PER_SEC,
			exp_health_now());
	e->health = &health;
	exp_rescan(e);		/* no thread runs yet: no lock needed */
	exp_health_sources(&health, e->src, 1u << SRC_UVM_TOOLS, exp_health_now());
	h = exp_http_start(e, fd, err, sizeof(err));
	if (!h) {
		exp_free(e);
		free(e);
		exp_health_destroy(&health);
		p_err("cannot serve on %s: %s", listen_arg, err);
		return EXIT_FAIL;
	}
	p_info("exporter: serving http://%s/metrics", listen_arg);
	while (!stop_requested()) {
		nap(e, interval);
		pthread_mutex_lock(&e->lock);
		exp_rescan(e);
		exp_health_sources(&health, e->src, 1u << SRC_UVM_TOOLS, exp_health_now());
		pthread_mutex_unlock(&e->lock);
		exp_log_flush();
	}
	exp_http_stop(h);
	exp_log_flush();
	exp_free(e);
	free(e);
	exp_health_destroy(&health);
	if (json_output)
		jsonw_null(json_wtr);
	return EXIT_OK;
}

/* A temporary file beside it, then rename (safefile): the collector never reads half a file. */
static int write_file(const char *path, const char *buf, size_t len)
{
	struct safefile sf;

	if (safefile_open(&sf, path, 0644))
		return EXIT_FAIL;
	fwrite(buf, 1, len, sf.f);
	return safefile_commit(&sf) ? EXIT_FAIL : EXIT_OK;
}

static int do_textfile(int argc, char **argv)
{
	struct textfile_opts o = { 0 };
	struct opts_result r;
	struct exporter *e;
	size_t len = 0;
	const char *out;
	char *buf;
	int rc;

	if (opts_parse(&exporter_textfile_opts, argc, argv, &o, &r))
		return EXIT_USAGE;
	if (r.help)
		return EXIT_OK;
	out = o.out;
	if (check_access("exporter textfile"))
		return EXIT_FAIL;
	e = malloc(sizeof(*e));
	if (!e) {
		p_err("out of memory");
		return EXIT_FAIL;
	}
	exp_init(e, EXP_DEFAULT_MAX_PROCS, false);
	exp_attr_init(e, o.pod_names);
	exp_rescan(e);
	buf = exp_render(e, &len);
	exp_free(e);
	free(e);
	if (!buf) {
		p_err("out of memory");
		return EXIT_FAIL;
	}
	if (out)
		rc = write_file(out, buf, len);
	else if (!json_output)
		rc = fwrite(buf, 1, len, stdout) == len ? EXIT_OK : EXIT_FAIL;
	else
		rc = EXIT_OK;	/* under -j the exposition goes inside the JSON */
	if (json_output && rc == EXIT_OK) {
		jsonw_start_object(json_wtr);
		if (out)
			jsonw_string_field(json_wtr, "output", out);
		else
			jsonw_string_field(json_wtr, "exposition", buf);
		jsonw_uint_field(json_wtr, "bytes", len);
		jsonw_end_object(json_wtr);
	}
	fflush(stdout);
	free(buf);
	return rc;
}

static const struct cmd exporter_cmds[] = {
	{ "help", do_help },
	{ "serve", do_serve },
	{ "textfile", do_textfile },
	{ NULL, NULL },
};

static int do_exporter(int argc, char **argv)
{
	/* "gpuctl exporter --listen ADDR:PORT": serve's options alone mean serve */
	if (argc > 0 && argv[0][0] == '-' && argv[0][1] == '-')
		return do_serve(argc, argv);
	return cmd_select(exporter_cmds, argc, argv, "exporter");
}

const struct object exporter_object = { "exporter", do_exporter, exporter_cmds, NULL };
