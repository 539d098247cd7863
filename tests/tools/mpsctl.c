// SPDX-License-Identifier: GPL-2.0
/*
 * mpsctl.c - a stand-in for NVIDIA's nvidia-cuda-mps-control (and, under
 * the name nvidia-cuda-mps-server, its server) for tests without a GPU.
 * It answers as the real daemon answered on an H100 with driver 580.159.04
 * (bench/results/mps-facts-2026-11-26-h100/transcripts.txt): the same
 * words on the same stream with the same exit status.
 *
 *   nvidia-cuda-mps-control -d   a daemon on $CUDA_MPS_PIPE_DIRECTORY
 *                                (pid file, control, control_lock,
 *                                control_privileged; control.log in
 *                                $CUDA_MPS_LOG_DIRECTORY)
 *   nvidia-cuda-mps-control      commands on stdin, one answer each
 *   nvidia-cuda-mps-control -v   its version
 *
 * For tests of a slow start: with $STANDIN_SLOW_START=FILE, -d creates
 * FILE and waits a second before it starts the daemon.
 *
 * A client is any process whose environment names the pipe directory as
 * CUDA_MPS_PIPE_DIRECTORY (the daemon looks every 50 ms).  The daemon
 * starts a server (this program as nvidia-cuda-mps-server, as the first
 * client's user) when a client appears; a client of another user waits
 * until the server's clients are gone, then the server ends and one of
 * that user starts.  quit ends daemon and server.  State between the
 * daemon and the command side lives in files of the pipe directory.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char dir[4096], logdir[4096];

static void path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static long read_long(const char *name, long dflt)
{
	char p[4200], b[64];
	long v = dflt;
	FILE *f;

	path(p, sizeof(p), name);
	f = fopen(p, "r");
	if (f) {
		if (fgets(b, sizeof(b), f))
			v = strtol(b, NULL, 10);
		fclose(f);
	}
	return v;
}

static void write_str(const char *name, const char *s, mode_t mode)
{
	char p[4200], t[4300];
	FILE *f;

	path(p, sizeof(p), name);
	snprintf(t, sizeof(t), "%s.tmp", p);
	f = fopen(t, "w");
	if (!f)
		return;
	fputs(s, f);
	fclose(f);
	chmod(t, mode);
	rename(t, p);
}

static void logf_(const char *fmt, ...)
{
	char p[4200];
	va_list ap;
	FILE *f;
	struct timespec ts;

	snprintf(p, sizeof(p), "%s/control.log", logdir);
	f = fopen(p, "a");
	if (!f)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	fprintf(f, "[%ld.%03ld Control %d] ", (long)ts.tv_sec, ts.tv_nsec / 1000000, (int)getpid());
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}

/* pid runs and its first argument's base name is base. */
static bool is(pid_t pid, const char *base)
{
	char p[64], b[4096];
	const char *s;
	ssize_t n;
	int fd;

	snprintf(p, sizeof(p), "/proc/%d/cmdline", (int)pid);
	fd = open(p, O_RDONLY);
	if (fd < 0)
		return false;
	n = read(fd, b, sizeof(b) - 1);
	close(fd);
	if (n <= 0)
		return false;
	b[n] = '\0';
	s = strrchr(b, '/');
	return !strcmp(s ? s + 1 : b, base);
}

static pid_t daemon_pid(void)
{
	long v = read_long("nvidia-cuda-mps-control.pid", 0);

	return v > 1 && is((pid_t)v, "nvidia-cuda-mps-control") ? (pid_t)v : 0;
}

/* ------------------------------------------------------------- the daemon */

struct proc { pid_t pid; uid_t uid; };

/* The processes whose environment names dir: clients (oldest first by pid). */
static int scan_clients(struct proc *out, int max)
{
	char want[4200], p[64], env[65536];
	DIR *d = opendir("/proc");
	struct dirent *e;
	size_t wl;
	int n = 0;

	wl = (size_t)snprintf(want, sizeof(want), "CUDA_MPS_PIPE_DIRECTORY=%s", dir);
	if (!d)
		return 0;
	while ((e = readdir(d)) && n < max) {
		pid_t pid = (pid_t)atoi(e->d_name);
		struct stat st;
		ssize_t r;
		int fd;

		if (pid <= 1 || pid == getpid())
			continue;
		snprintf(p, sizeof(p), "/proc/%d/environ", (int)pid);
		fd = open(p, O_RDONLY);
		if (fd < 0)
			continue;
		r = read(fd, env, sizeof(env) - 1);
		close(fd);
		if (r <= 0)
			continue;
		env[r] = '\0';
		for (ssize_t i = 0; i < r; i += (ssize_t)strlen(env + i) + 1)
			if (!strncmp(env + i, want, wl) && env[i + wl] == '\0') {
				/*
				 * Its name after its environment: a control command
				 * gpuctl forks has the pipe directory only once it is
				 * the control program (read before, its name was
				 * gpuctl's, and it counted as a client).
				 */
				if (is(pid, "nvidia-cuda-mps-server") ||
				    is(pid, "nvidia-cuda-mps-control"))
					break;
				snprintf(p, sizeof(p), "/proc/%d", (int)pid);
				if (!stat(p, &st)) {
					out[n].pid = pid;
					out[n++].uid = st.st_uid;
				}
				break;
			}
	}
	closedir(d);
	return n;
}

static pid_t start_server(uid_t uid, const char *self)
{
	pid_t p = fork();

	if (!p) {
		char srv[4200], exe[4096], *sl;
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		(void)self;
		if (n <= 0)
			_exit(127);
		exe[n] = '\0';
		sl = strrchr(exe, '/');
		*sl = '\0';
		snprintf(srv, sizeof(srv), "%s/nvidia-cuda-mps-server", exe);
		if (uid && setuid(uid))
			_exit(1);
		execl(srv, srv, (char *)NULL);
		_exit(127);
	}
	return p;
}

static void serve(const char *self)
{
	pid_t server = 0;
	uid_t suid = 0;
	struct timespec tick = { 0, 50 * 1000000L };

	for (;;) {
		struct proc c[64];
		char srv[128] = "", cl[4096] = "";
		int n = scan_clients(c, 64), mine = 0, other = -1;
		size_t o = 0;

		if (access(dir, F_OK) || read_long("standin.quit", 0)) {
			logf_("Cmd:quit");
			break;
		}
		while (server && waitpid(server, NULL, WNOHANG) == server)
			server = 0;
		if (server && kill(server, 0))
			server = 0;
		for (int i = 0; i < n; i++) {
			if (server && c[i].uid == suid)
				mine++;
			else if (other < 0)
				other = i;
		}
		if (server && !mine && other >= 0) {
			logf_("Server %d exited with status 0", (int)server);
			kill(server, SIGTERM);
			waitpid(server, NULL, 0);
			server = 0;
		}
		if (!server && n) {
			suid = c[other >= 0 ? other : 0].uid;
			server = start_server(suid, self);
			logf_("Starting new server %d for user %u", (int)server, (unsigned)suid);
		}
		if (server) {
			snprintf(srv, sizeof(srv), "%d %u\n", (int)server, (unsigned)suid);
			for (int i = 0; i < n; i++)
				if (c[i].uid == suid && o + 24 < sizeof(cl))
					o += (size_t)snprintf(cl + o, sizeof(cl) - o, "%d\n", (int)c[i].pid);
		}
		write_str("standin.servers", srv, 0644);
		write_str("standin.clients", cl, 0644);
		nanosleep(&tick, NULL);
	}
	if (server) {
		kill(server, SIGTERM);
		waitpid(server, NULL, 0);
	}
	for (const char *const *f = (const char *const[]){ "control", "control_lock",
		"control_privileged", "nvidia-cuda-mps-control.pid", "standin.servers",
		"standin.clients", "standin.quit", "standin.threads", "standin.pinned", NULL };
	     *f; f++) {
		char p[4200];

		path(p, sizeof(p), *f);
		unlink(p);
	}
	logf_("Exit with status 0");
	_exit(0);
}

static int start_daemon(const char *self)
{
	const char *slow = getenv("STANDIN_SLOW_START");
	char pidbuf[32];
	pid_t p;

	if (slow && *slow) {
		FILE *f = fopen(slow, "w");

		if (f)
			fclose(f);
		sleep(1);
	}

	if (daemon_pid()) {
		puts("An instance of this daemon is already running");
		return 1;
	}
	mkdir(dir, 0755);
	write_str("control", "", 0666);
	write_str("control_lock", "", 0666);
	write_str("control_privileged", "", 0755);
	write_str("standin.quit", "0\n", 0644);
	p = fork();
	if (p < 0)
		return 1;
	if (p) {
		struct timespec t = { 0, 10 * 1000000L };

		for (int i = 0; i < 300 && !daemon_pid(); i++)
			nanosleep(&t, NULL);
		return 0;
	}
	setsid();
	if (fork())
		_exit(0);
	snprintf(pidbuf, sizeof(pidbuf), "%d\n", (int)getpid());
	write_str("nvidia-cuda-mps-control.pid", pidbuf, 0666);
	freopen("/dev/null", "r", stdin);
	freopen("/dev/null", "w", stdout);
	freopen("/dev/null", "w", stderr);
	logf_("Starting control daemon using socket %s/control", dir);
	serve(self);
	return 0;
}

/* ------------------------------------------------------------ commands */

/* The server named by arg, or 0 after "Server N not found". */
static pid_t server_arg(const char *arg)
{
	long want = arg ? strtol(arg, NULL, 10) : -1;
	long have = read_long("standin.servers", 0);

	if (want > 0 && want == have)
		return (pid_t)have;
	printf("Server %s not found\n", arg ? arg : "");
	return 0;
}

static void cat(const char *name)
{
	char p[4200], b[256];
	FILE *f;

	path(p, sizeof(p), name);
	f = fopen(p, "r");
	if (!f)
		return;
	while (fgets(b, sizeof(b), f))
		fputs(b, stdout);
	fclose(f);
}

static void pct_cmd(const char *file, const char *arg, bool set)
{
	double v = read_long(file, 1000) / 10.0;

	if (set) {
		double n = arg ? strtod(arg, NULL) : 0;

		if (n > 0 && n <= 100) {
			char b[32];

			snprintf(b, sizeof(b), "%ld\n", (long)(n * 10 + 0.5));
			write_str(file, b, 0644);
			v = n;
		}
	}
	printf("%.1f\n", v);
}

static void command(char *line)
{
	char *save = NULL, *cmd = strtok_r(line, " \t\n", &save);
	char *a1 = strtok_r(NULL, " \t\n", &save), *a2 = strtok_r(NULL, " \t\n", &save);
	char srv[64];

	if (!cmd)
		return;
	logf_("Cmd:%s%s%s", cmd, a1 ? " " : "", a1 ? a1 : "");
	if (!strcmp(cmd, "get_server_list")) {
		long s = read_long("standin.servers", 0);

		if (s > 0)
			printf("%ld\n", s);
	} else if (!strcmp(cmd, "get_client_list")) {
		if (server_arg(a1))
			cat("standin.clients");
	} else if (!strcmp(cmd, "get_server_status")) {
		if (server_arg(a1))
			puts("ACTIVE");
	} else if (!strcmp(cmd, "get_default_active_thread_percentage")) {
		pct_cmd("standin.threads", NULL, false);
	} else if (!strcmp(cmd, "set_default_active_thread_percentage")) {
		pct_cmd("standin.threads", a1, true);
	} else if (!strcmp(cmd, "get_active_thread_percentage") ||
		   !strcmp(cmd, "set_active_thread_percentage")) {
		snprintf(srv, sizeof(srv), "standin.threads.%s", a1 ? a1 : "");
		if (server_arg(a1))
			pct_cmd(srv, a2, cmd[0] == 's');
	} else if (!strcmp(cmd, "get_default_device_pinned_mem_limit")) {
		cat("standin.pinned");
	} else if (!strcmp(cmd, "set_default_device_pinned_mem_limit")) {
		char b[64];

		snprintf(b, sizeof(b), "%s\n", a2 ? a2 : "");
		write_str("standin.pinned", b, 0644);
	} else if (!strcmp(cmd, "get_device_client_list")) {
		long s = read_long("standin.servers", 0);

		if (s > 0 && (!a1 || strtol(a1, NULL, 10) == s)) {
			char p[4200], b[64];
			FILE *f;

			puts("[0] 00:00.0, Stand-in GPU");
			path(p, sizeof(p), "standin.clients");
			f = fopen(p, "r");
			while (f && fgets(b, sizeof(b), f))
				printf("%ld.1\n", strtol(b, NULL, 10));
			if (f)
				fclose(f);
		} else if (a1) {
			printf("Server %s not found\n", a1);
		}
	} else if (!strcmp(cmd, "quit")) {
		pid_t d = daemon_pid();

		write_str("standin.quit", "1\n", 0644);
		for (int i = 0; i < 300 && d && !kill(d, 0) && is(d, "nvidia-cuda-mps-control"); i++)
			usleep(10000);
	} else {
		printf("Unknown command \"%s\"\n", cmd);
	}
}

int main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/');
	const char *d = getenv("CUDA_MPS_PIPE_DIRECTORY"), *l = getenv("CUDA_MPS_LOG_DIRECTORY");
	char line[4096];

	base = base ? base + 1 : argv[0];
	if (!strcmp(base, "nvidia-cuda-mps-server")) {
		for (;;)
			pause();
	}
	snprintf(dir, sizeof(dir), "%s", d && *d ? d : "/tmp/nvidia-mps");
	snprintf(logdir, sizeof(logdir), "%s", l && *l ? l : "/var/log/nvidia-mps");
	if (argc > 1 && !strcmp(argv[1], "-v")) {
		puts("CUDA MPS Control for Linux/Unix/QNX. Binary version: 13000 (gpuctl stand-in)");
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "-d"))
		return start_daemon(argv[0]);
	if (argc > 1) {
		fprintf(stderr, "Unknown option %s\n", argv[1]);
		return 1;
	}
	if (!daemon_pid()) {
		fputs("Cannot find MPS control daemon process\n", stderr);
		return 1;
	}
	while (fgets(line, sizeof(line), stdin))
		command(line);
	fflush(stdout);
	return 0;
}
