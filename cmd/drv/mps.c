// SPDX-License-Identifier: GPL-2.0
/*
 * mps.c - the talk to NVIDIA's MPS control daemon (mps.h): its control
 * program run once per command with the daemon's directories in its
 * environment, the command on its standard input, its answer read back
 * with a time limit.  Nothing here talks to the daemon's sockets itself.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mps.h"

#define MPS_CMD_TIMEOUT_MS	5000
#define MPS_START_WAIT_MS	3000

static const char *const search_dirs[] = { "/usr/local/nvidia/bin", "/usr/bin", NULL };

/*
 * path and each directory above it: owned by root, written by no one else
 * (a directory above it may be sticky, as /tmp is: others cannot rename
 * or remove root's entries there).
 */
static int root_only(const char *path, char *err, size_t len)
{
	char p[PATH_MAX], *slash;
	struct stat st;
	bool leaf = true;

	if (!realpath(path, p)) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		return -1;
	}
	for (;;) {
		if (stat(p, &st)) {
			snprintf(err, len, "%s: %s", p, strerror(errno));
			return -1;
		}
		if (st.st_uid != 0 ||
		    ((st.st_mode & (S_IWGRP | S_IWOTH)) && (leaf || !(st.st_mode & S_ISVTX)))) {
			snprintf(err, len, "%s can be written by %s: not run as root", p,
				 st.st_uid ? "a user other than root" : "its group or others");
			return -1;
		}
		slash = strrchr(p, '/');
		if (!slash || slash == p)
			break;
		*slash = '\0';
		leaf = false;
	}
	return 0;
}

static bool executable(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISREG(st.st_mode) && !access(p, X_OK);
}

int mps_find(char *bin, size_t len, char *err, size_t elen)
{
	const char *env = getenv(MPS_CONTROL_ENV), *path = getenv("PATH");
	char cand[PATH_MAX];

	if (env && *env) {
		if (!executable(env)) {
			snprintf(err, elen, "$%s=%s is not an executable file", MPS_CONTROL_ENV, env);
			return -1;
		}
		snprintf(bin, len, "%s", env);
		return root_only(bin, err, elen);
	}
	for (const char *p = path; p && *p;) {
		const char *e = strchrnul(p, ':');

		if (e > p && snprintf(cand, sizeof(cand), "%.*s/%s", (int)(e - p), p,
				      MPS_CONTROL_NAME) < (int)sizeof(cand) &&
		    cand[0] == '/' && executable(cand)) {
			snprintf(bin, len, "%s", cand);
			return root_only(bin, err, elen);
		}
		p = *e ? e + 1 : e;
	}
	for (int i = 0; search_dirs[i]; i++) {
		snprintf(cand, sizeof(cand), "%s/%s", search_dirs[i], MPS_CONTROL_NAME);
		if (executable(cand)) {
			snprintf(bin, len, "%s", cand);
			return root_only(bin, err, elen);
		}
	}
	snprintf(err, elen, "%s not found (on $PATH, /usr/local/nvidia/bin, /usr/bin): it comes "
		 "with NVIDIA's driver utilities (e.g. nvidia-compute-utils); $%s names it "
		 "elsewhere", MPS_CONTROL_NAME, MPS_CONTROL_ENV);
	return -1;
}

int mps_dir_check(const char *dir, bool create, char *err, size_t len)
{
	char norm[PATH_MAX], parent[PATH_MAX], *slash;
	struct stat st;

	if (dir[0] != '/') {
		snprintf(err, len, "MPS pipe directory '%s' is not an absolute path", dir);
		return -1;
	}
	if (!realpath(dir, norm) && snprintf(norm, sizeof(norm), "%s", dir) >= (int)sizeof(norm)) {
		snprintf(err, len, "MPS pipe directory path too long");
		return -1;
	}
	while (strlen(norm) > 1 && norm[strlen(norm) - 1] == '/')
		norm[strlen(norm) - 1] = '\0';
	if (!strcmp(norm, MPS_DEFAULT_PIPE_DIR)) {
		snprintf(err, len, "%s is MPS's default pipe directory: a daemon there captures "
			 "every CUDA process of the host; gpuctl uses a directory of its own",
			 MPS_DEFAULT_PIPE_DIR);
		return -1;
	}
	if (lstat(norm, &st)) {
		if (errno != ENOENT || !create) {
			snprintf(err, len, "MPS pipe directory %s: %s", norm, strerror(errno));
			return -1;
		}
		snprintf(parent, sizeof(parent), "%s", norm);
		slash = strrchr(parent, '/');
		if (slash == parent)
			slash[1] = '\0';
		else
			*slash = '\0';
		if (mkdir(parent, 0755) && errno != EEXIST) {
			snprintf(err, len, "%s: %s", parent, strerror(errno));
			return -1;
		}
		if (root_only(parent, err, len))
			return -1;
		if (mkdir(norm, 0755) && errno != EEXIST) {
			snprintf(err, len, "%s: %s", norm, strerror(errno));
			return -1;
		}
		if (lstat(norm, &st)) {
			snprintf(err, len, "%s: %s", norm, strerror(errno));
			return -1;
		}
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, len, "MPS pipe directory %s is not a directory", norm);
		return -1;
	}
	if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		snprintf(err, len, "MPS pipe directory %s can be written by %s: refused (a daemon "
			 "there would take commands from them)", norm,
			 st.st_uid != geteuid() ? "another user" : "its group or others");
		return -1;
	}
	return root_only(norm, err, len);
}

int mps_init(struct mps *m, const char *dir, char *err, size_t len)
{
	char *slash;

	memset(m, 0, sizeof(*m));
	if (mps_find(m->bin, sizeof(m->bin), err, len))
		return -1;
	if (snprintf(m->dir, sizeof(m->dir), "%s", dir) >= (int)sizeof(m->dir)) {
		snprintf(err, len, "MPS pipe directory path too long");
		return -1;
	}
	snprintf(m->logdir, sizeof(m->logdir), "%s", dir);
	slash = strrchr(m->logdir, '/');
	if (slash && slash != m->logdir && (size_t)(slash - m->logdir) + 5 < sizeof(m->logdir))
		strcpy(slash, "/log");
	return 0;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One of the child's streams: what it wrote (up to len - 1), the rest read and dropped. */
struct stream {
	int fd;
	char *buf;
	size_t len, n;
};

/*
 * Reads both streams until each is at EOF, or until the deadline (-1).  A
 * signal does not cut it short: the deadline bounds it, and the caller's
 * stop flag is looked at between commands (a stop must not leave a daemon
 * half started or a command half answered).
 */
static int drain(struct stream *s, int ns, long long deadline)
{
	for (;;) {
		struct pollfd p[2];
		int np = 0, r;
		long long left = deadline - now_ms();

		for (int i = 0; i < ns; i++)
			if (s[i].fd >= 0)
				p[np++] = (struct pollfd){ .fd = s[i].fd, .events = POLLIN };
		if (!np)
			return 0;
		if (left <= 0)
			return -1;
		r = poll(p, np, (int)left);
		if (r < 0 && errno != EINTR)
			return -1;
		for (int k = 0; r > 0 && k < np; k++) {
			struct stream *t = s;
			char sink[256];
			ssize_t got;

			if (!p[k].revents)
				continue;
			while (t->fd != p[k].fd)
				t++;
			if (t->n + 1 < t->len)
				got = read(t->fd, t->buf + t->n, t->len - 1 - t->n);
			else
				got = read(t->fd, sink, sizeof(sink));
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0) {
				t->fd = -1;	/* EOF: every writer has closed it */
				continue;
			}
			if (t->n + 1 < t->len)
				t->n += (size_t)got;
		}
	}
}

/* The child's exit status by the deadline; after it, SIGKILLed and reaped (-1). */
static int reap(pid_t pid, int *st, long long deadline)
{
	struct timespec tick = { 0, 5 * 1000000L };

	for (;;) {
		pid_t r = waitpid(pid, st, WNOHANG);

		if (r == pid)
			return 0;
		if (r < 0 && errno != EINTR)
			return -1;
		if (now_ms() >= deadline)
			break;
		nanosleep(&tick, NULL);
	}
	kill(pid, SIGKILL);	/* our own child, not yet reaped */
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return -1;
}

static void chomp(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
		s[--n] = '\0';
}

/*
 * line and a newline to fd without SIGPIPE: the control program exits
 * without reading its input when no daemon answers, and a write then
 * would kill gpuctl silently (seen in the VM).  Its exit status says why.
 */
static void write_line(int fd, const char *line)
{
	struct timespec zero = { 0, 0 };
	sigset_t pipe, old;
	size_t n = strlen(line);
	bool broken;

	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe, &old);
	broken = write(fd, line, n) != (ssize_t)n || write(fd, "\n", 1) != 1;
	if (broken && errno == EPIPE)
		sigtimedwait(&pipe, NULL, &zero);	/* the pending one, taken */
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void close_pipes(int in[2], int o[2], int e[2])
{
	for (int i = 0; i < 2; i++) {
		close(in[i]);
		close(o[i]);
		close(e[i]);
	}
}

/* The child's stdin, stdout and stderr: 0, or -1 with errno (none left open). */
static int pipes(int in[2], int o[2], int e[2])
{
	int saved;

	in[0] = in[1] = o[0] = o[1] = e[0] = e[1] = -1;
	if (!pipe2(in, O_CLOEXEC) && !pipe2(o, O_CLOEXEC) && !pipe2(e, O_CLOEXEC))
		return 0;
	saved = errno;
	close_pipes(in, o, e);
	errno = saved;
	return -1;
}

/* The program with args, line on its stdin: exit status, or -1 with err. */
static int run_prog(const struct mps *m, const char *arg, const char *line, char *out,
		    size_t len, char *err, size_t elen)
{
	long long deadline = now_ms() + MPS_CMD_TIMEOUT_MS;
	int in[2], o[2], e[2], st = 0;
	struct stream streams[2];
	char ebuf[512];
	bool bad;
	pid_t pid;

	if (pipes(in, o, e)) {
		snprintf(err, elen, "pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(err, elen, "fork: %s", strerror(errno));
		close_pipes(in, o, e);
		return -1;
	}
	if (!pid) {
		sigset_t none;

		dup2(in[0], 0);
		dup2(o[1], 1);
		dup2(e[1], 2);
		/* the daemon (-d) lives on: it must hold no lock or file of gpuctl's, */
		close_range(3, ~0U, 0);
		/* nor its signal mask or the SIGPIPE it ignores */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		setenv("CUDA_MPS_PIPE_DIRECTORY", m->dir, 1);
		setenv("CUDA_MPS_LOG_DIRECTORY", m->logdir, 1);
		execl(m->bin, m->bin, arg, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(o[1]);
	close(e[1]);
	if (line)
		write_line(in[1], line);
	close(in[1]);
	streams[0] = (struct stream){ .fd = o[0], .buf = out, .len = len };
	streams[1] = (struct stream){ .fd = e[0], .buf = ebuf, .len = sizeof(ebuf) };
	bad = drain(streams, 2, deadline);
	if (bad)
		reap(pid, &st, 0);	/* still writing, or it left a process holding its streams */
	else
		bad = reap(pid, &st, deadline);
	close(o[0]);
	close(e[0]);
	out[streams[0].n] = '\0';
	ebuf[streams[1].n] = '\0';
	if (bad) {
		snprintf(err, elen, "%s did not answer '%s' within %d ms", MPS_CONTROL_NAME,
			 line ? line : arg, MPS_CMD_TIMEOUT_MS);
		return -1;
	}
	chomp(out);
	chomp(ebuf);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127 && !streams[1].n) {
		snprintf(err, elen, "cannot run %s", m->bin);
		return -1;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		char *nl = strchr(ebuf, '\n');

		if (nl)
			*nl = '\0';
		if (!*ebuf) {
			snprintf(ebuf, sizeof(ebuf), "%s", out);
			nl = strchr(ebuf, '\n');
			if (nl)
				*nl = '\0';
		}
		snprintf(err, elen, "%s", *ebuf ? ebuf : "the MPS control program failed");
		return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
	}
	return 0;
}

int mps_cmd(const struct mps *m, const char *line, char *out, size_t len, char *err,
	    size_t elen)
{
	int rc = run_prog(m, NULL, line, out, len, err, elen);

	return rc ? -1 : 0;
}

static bool proc_is(pid_t pid, const char *base)
{
	char p[64], buf[PATH_MAX];
	const char *b;
	ssize_t n;
	int fd;

	snprintf(p, sizeof(p), "/proc/%d/cmdline", (int)pid);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	b = strrchr(buf, '/');
	b = b ? b + 1 : buf;
	return !strcmp(b, base);
}

bool mps_is_server(pid_t pid)
{
	return proc_is(pid, "nvidia-cuda-mps-server");
}

pid_t mps_daemon_pid(const struct mps *m, uid_t *uid)
{
	char p[PATH_MAX + 32], buf[32];
	struct stat st;
	long v;
	int fd;
	ssize_t n;

	snprintf(p, sizeof(p), "%s/%s", m->dir, MPS_PID_FILE);
	fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	v = strtol(buf, NULL, 10);
	if (v <= 1 || v > 0x3fffffff)
		return 0;
	if (!proc_is((pid_t)v, MPS_CONTROL_NAME))
		return 0;	/* a stale file: no such daemon now */
	snprintf(p, sizeof(p), "/proc/%ld", v);
	if (uid && !stat(p, &st))
		*uid = st.st_uid;
	return (pid_t)v;
}

int mps_start(const struct mps *m, char *err, size_t len)
{
	char out[256];
	struct timespec ts = { 0, 20 * 1000000L };

	if (mkdir(m->logdir, 0755) && errno != EEXIST) {
		snprintf(err, len, "%s: %s", m->logdir, strerror(errno));
		return -1;
	}
	if (run_prog(m, "-d", NULL, out, sizeof(out), err, len))
		return -1;
	for (int i = 0; i < MPS_START_WAIT_MS / 20; i++) {
		if (mps_daemon_pid(m, NULL))
			return 0;
		nanosleep(&ts, NULL);
	}
	snprintf(err, len, "%s -d exited 0 but no daemon answers on %s", MPS_CONTROL_NAME, m->dir);
	return -1;
}

/* Lines of decimal pids in out: how many, or -1 with the first other line in err. */
static int pid_lines(char *out, pid_t *pids, int max, char *err, size_t len)
{
	int n = 0;

	for (char *save = NULL, *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *end;
		long v = strtol(l, &end, 10);

		/* get_device_client_list's "1004.1" is not asked for here */
		if (end == l || *end || v <= 0) {
			snprintf(err, len, "%s", l);
			return -1;
		}
		if (n < max)
			pids[n++] = (pid_t)v;
	}
	return n;
}

int mps_servers(const struct mps *m, pid_t *pids, int max, char *err, size_t len)
{
	char out[4096];

	if (mps_cmd(m, "get_server_list", out, sizeof(out), err, len))
		return -1;
	return pid_lines(out, pids, max, err, len);
}

int mps_clients(const struct mps *m, pid_t server, pid_t *pids, int max, char *err, size_t len)
{
	char out[4096], line[64];

	snprintf(line, sizeof(line), "get_client_list %d", (int)server);
	if (mps_cmd(m, line, out, sizeof(out), err, len))
		return -1;
	return pid_lines(out, pids, max, err, len);
}

int mps_default_threads(const struct mps *m, int set_pct, double *pct, char *err, size_t len)
{
	char out[256], line[64], *end;

	if (set_pct > 0)
		snprintf(line, sizeof(line), "set_default_active_thread_percentage %d", set_pct);
	else
		snprintf(line, sizeof(line), "get_default_active_thread_percentage");
	if (mps_cmd(m, line, out, sizeof(out), err, len))
		return -1;
	*pct = strtod(out, &end);
	if (end == out) {
		snprintf(err, len, "%s", out);
		return -1;
	}
	if (set_pct > 0 && (int)(*pct + 0.5) != set_pct) {
		snprintf(err, len, "the daemon kept %.1f %% (asked for %d %%)", *pct, set_pct);
		return -1;
	}
	return 0;
}

int mps_quit(const struct mps *m, char *err, size_t len)
{
	char out[256];

	return mps_cmd(m, "quit", out, sizeof(out), err, len);
}

int mps_version(const struct mps *m, char *ver, size_t len, char *err, size_t elen)
{
	char out[512], *v;

	if (run_prog(m, "-v", NULL, out, sizeof(out), err, elen))
		return -1;
	v = strstr(out, "version:");
	if (!v) {
		snprintf(err, elen, "no version in its -v output");
		return -1;
	}
	v += strlen("version:");
	v += strspn(v, " ");
	snprintf(ver, len, "%.*s", (int)strcspn(v, " \n"), v);
	return 0;
}

uid_t mps_proc_uid(pid_t pid)
{
	char p[64], line[128];
	unsigned int u = (unsigned int)-1;
	FILE *f;

	snprintf(p, sizeof(p), "/proc/%d/status", (int)pid);
	f = fopen(p, "re");
	if (!f)
		return (uid_t)-1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %u", &u) == 1)
			break;
	fclose(f);
	return (uid_t)u;
}

int mps_proc_env_read(pid_t pid, struct mps_proc_env *e)
{
	char p[64];
	ssize_t n;
	int fd;

	e->n = 0;
	e->buf[0] = '\0';
	snprintf(p, sizeof(p), "/proc/%d/environ", (int)pid);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, e->buf, sizeof(e->buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	e->buf[n] = '\0';
	e->n = (size_t)n;
	return 0;
}

const char *mps_proc_env_get(const struct mps_proc_env *e, const char *name)
{
	size_t kl = strlen(name);

	for (size_t i = 0; i < e->n; i += strlen(e->buf + i) + 1)
		if (!strncmp(e->buf + i, name, kl) && e->buf[i + kl] == '=')
			return e->buf + i + kl + 1;
	return NULL;
}

const char *mps_role(pid_t pid)
{
	struct mps_proc_env e;
	struct mps m = { 0 };
	const char *dir;

	if (mps_is_server(pid))
		return "server";
	if (mps_proc_env_read(pid, &e) || !(dir = mps_proc_env_get(&e, "CUDA_MPS_PIPE_DIRECTORY")))
		return NULL;
	snprintf(m.dir, sizeof(m.dir), "%s", dir);
	return m.dir[0] == '/' && mps_daemon_pid(&m, NULL) > 0 ? "client" : NULL;
}
