// SPDX-License-Identifier: GPL-2.0
/*
 * procs.c - the exporter's GPU processes: every process with a
 * /dev/nvidia-uvm file open (a GPU context), attached through the
 * uvm-tools back-end's session (counters only: no event queue, so the
 * driver does next to nothing more per fault), dropped when it exits or
 * its pid is reused.  Everything a process holds is closed with it.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpuctl.h"
#include "exporter/exporter.h"

const char *const exp_fail_names[EF_NR] = {
	[EF_NONE] = "none",
	[EF_NO_TOOLS] = "no_driver",
	[EF_PERM] = "permission",
	[EF_NOT_READY] = "not_initialized",
	[EF_GONE] = "exited",
	[EF_LIMIT] = "limit",
	[EF_REFUSED] = "refused",
};

/*
 * --events: the rare events only (no fault or migration stream, which
 * would cost per fault), in a queue that holds far more than a walk's
 * worth of them; the driver wakes us at half full.
 */
#define EXP_EVENTS ((1u << UT_EV_GPU_FAULT_REPLAY) | (1u << UT_EV_EVICTION) | \
		    (1u << UT_EV_THRASHING))
#define EXP_QUEUE_ENTRIES 4096

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void exp_init(struct exporter *e, unsigned int max_procs, bool attach)
{
	memset(e, 0, sizeof(*e));
	pthread_mutex_init(&e->lock, NULL);
	e->max_procs = max_procs;
	e->attach = attach;
	e->st.started = time(NULL);
	exp_attr_init(e, false);
}

/*
 * Field 22 (starttime) and the name of /proc/PID/stat: 0, or -1 when the
 * process is gone.  The name is between the first '(' and the last ')'.
 */
static int proc_stat(pid_t pid, unsigned long long *start, char *comm, size_t len)
{
	char path[64], buf[512], *l, *r;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	l = strchr(buf, '(');
	r = strrchr(buf, ')');
	if (!l || !r || r < l)
		return -1;
	if (comm)
		snprintf(comm, len, "%.*s", (int)(r - l - 1), l + 1);
	/* after ") ": state is field 3; starttime is field 22 */
	if (sscanf(r + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d "
		   "%*d %*d %llu", start) != 1)
		return -1;
	return 0;
}

/* Whether pid has /dev/nvidia-uvm open (readlink of each fd; no fd is borrowed). */
static bool has_uvm_file(pid_t pid)
{
	char path[64], fdpath[96], link[32];
	struct dirent *de;
	bool found = false;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	dir = opendir(path);
	if (!dir)
		return false;
	while (!found && (de = readdir(dir))) {
		ssize_t n;

		if (de->d_name[0] == '.')
			continue;
		snprintf(fdpath, sizeof(fdpath), "%s/%s", path, de->d_name);
		/* "/dev/nvidia-uvm" is 15 bytes: a longer link cannot be it */
		n = readlink(fdpath, link, sizeof(link));
		found = n == 15 && !memcmp(link, "/dev/nvidia-uvm", 15);
	}
	closedir(dir);
	return found;
}

static enum exp_fail fail_of(int err)
{
	switch (-err) {
	case EPERM:
	case EACCES:
		return EF_PERM;
	case EAGAIN:
		return EF_NOT_READY;
	case ESRCH:
	case ENOENT:
		return EF_GONE;
	default:
		return EF_REFUSED;
	}
}

static void proc_attach(struct exporter *e, struct exp_proc *p, int nattached)
{
	enum exp_fail was = p->fail;
	int err;

	if (!ut_available()) {
		p->fail = EF_NO_TOOLS;
		snprintf(p->why, sizeof(p->why), "/dev/nvidia-uvm-tools is missing");
	} else if ((unsigned int)nattached >= e->max_procs) {
		p->fail = EF_LIMIT;
		snprintf(p->why, sizeof(p->why), "more than %u GPU processes", e->max_procs);
	} else {
		err = ut_attach(&p->s, p->pid, p->why, sizeof(p->why));
		if (!err)
			err = ut_enable_counters(&p->s, UT_CTR_STAT_MASK, p->why, sizeof(p->why));
		if (!err && e->events && ut_open_queue(&p->s, EXP_QUEUE_ENTRIES, EXP_EVENTS,
						       EXP_QUEUE_ENTRIES / 2, p->why, sizeof(p->why)))
			p_info("exporter: pid %d (%s): counters only: %s", p->pid, p->comm, p->why);
		if (!err) {
			exp_gpus_refresh(e, false);
			exp_proc_gpus_open(e, p);
			p->pidfd = pidfd_of(p->pid);	/* -1: dropped at the next walk only */
			p->attached = true;
			p->fail = EF_NONE;
			e->st.attached_total++;
			return;
		}
		ut_close(&p->s);
		p->fail = fail_of(err);
	}
	if (p->fail != was) {
		e->st.fail_total[p->fail]++;
		/* the log says why once per change, not once per rescan */
		p_info("exporter: pid %d (%s): %s", p->pid, p->comm, p->why);
	}
}

static void proc_drop(struct exporter *e, int i)
{
	exp_proc_gpus_close(&e->procs[i]);
	ut_close(&e->procs[i].s);
	if (e->procs[i].pidfd >= 0)
		close(e->procs[i].pidfd);
	e->procs[i] = e->procs[--e->nprocs];
	e->st.dropped_total++;
}

static struct exp_proc *proc_find(struct exporter *e, pid_t pid)
{
	for (int i = 0; i < e->nprocs; i++)
		if (e->procs[i].pid == pid)
			return &e->procs[i];
	return NULL;
}

static struct exp_proc *proc_add(struct exporter *e, pid_t pid, unsigned long long start,
				 const char *comm)
{
	struct exp_proc *p;

	if (e->nprocs == e->cap) {
		int cap = e->cap ? 2 * e->cap : 64;
		struct exp_proc *n = realloc(e->procs, cap * sizeof(*n));

		if (!n)
			return NULL;
		e->procs = n;
		e->cap = cap;
	}
	p = &e->procs[e->nprocs++];
	memset(p, 0, sizeof(*p));
	ut_session_init(&p->s);
	p->pidfd = -1;
	p->pid = pid;
	p->start = start;
	p->fail = EF_NONE;
	snprintf(p->comm, sizeof(p->comm), "%s", comm);
	return p;
}

/*
 * One walk of /proc.  A known process is checked by its starttime only (a
 * reused pid is a new process); the others have their fd links read.
 * Called with e->lock held.
 */
void exp_rescan(struct exporter *e)
{
	double t0 = mono_s(), c0 = cpu_now();
	pid_t self = getpid();
	struct dirent *de;
	int nattached = 0;
	DIR *proc;

	for (int i = 0; i < e->nprocs; i++) {
		e->procs[i].seen = false;
		nattached += e->procs[i].attached;
	}
	proc = opendir("/proc");
	while (proc && (de = readdir(proc))) {
		unsigned long long start;
		char comm[16];
		struct exp_proc *p;
		pid_t pid;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = atoi(de->d_name);
		if (pid == self || proc_stat(pid, &start, comm, sizeof(comm)))
			continue;
		p = proc_find(e, pid);
		if (p && p->start != start) {
			proc_drop(e, p - e->procs);	/* pid reused */
			p = NULL;
		}
		if (!p) {
			if (!has_uvm_file(pid))
				continue;
			p = proc_add(e, pid, start, comm);
			if (!p)
				break;
			exp_attr_proc(e, p);
			if (e->attach) {
				proc_attach(e, p, nattached);
				nattached += p->attached;
			}
		} else {
			/* the name it has now: an exec after we found it renames it */
			snprintf(p->comm, sizeof(p->comm), "%s", comm);
			if (e->attach && !p->attached) {
				proc_attach(e, p, nattached);	/* a retry: the driver may be there now */
				nattached += p->attached;
			}
		}
		p->seen = true;
	}
	if (proc)
		closedir(proc);
	for (int i = e->nprocs - 1; i >= 0; i--)
		if (!e->procs[i].seen)
			proc_drop(e, i);
	e->src[SRC_UVM_TOOLS] = ut_available() ? SS_OK : SS_NO_DRIVER;
	e->st.rescans++;
	e->st.rescan_s = mono_s() - t0;
	e->st.rescan_cpu_s = cpu_now() - c0;
	e->st.rescan_cpu_total_s += e->st.rescan_cpu_s;
}

static void count_event(const uint8_t *entry, void *arg)
{
	struct exp_proc *p = arg;
	struct gt_event ev;

	if (!ut_decode(entry, p->s.q.abi, &ev))
		return;
	if (ev.type == GT_EV_REPLAY) {
		p->replays++;
	} else if (ev.type == GT_EV_EVICTION) {
		p->evictions++;
		p->evicted_bytes += ev.bytes;
	} else if (ev.type == GT_EV_THRASHING) {
		p->thrashing++;
	}
}

static void proc_drain(struct exp_proc *p)
{
	if (p->s.queue_fd < 0)
		return;
	while (ut_queue_consume(&p->s.q, 0, count_event, p))
		;
	p->dropped += ut_queue_new_drops(&p->s.q);
}

void exp_drain(struct exporter *e)
{
	for (int i = 0; i < e->nprocs; i++) {
		if (e->procs[i].s.queue_fd < 0)
			continue;
		ut_flush(&e->procs[i].s);
		proc_drain(&e->procs[i]);
	}
}

void exp_wait(struct exporter *e, int ms)
{
	struct pollfd *pfd;
	pid_t *pids;
	int n = 0;

	pthread_mutex_lock(&e->lock);
	/* each process: its pidfd, and its queue when it has one */
	pfd = calloc(2 * e->nprocs + 1, sizeof(*pfd));
	pids = calloc(2 * e->nprocs + 1, sizeof(*pids));
	for (int i = 0; pfd && pids && i < e->nprocs; i++) {
		int fds[2] = { e->procs[i].pidfd, e->procs[i].s.queue_fd };

		for (int k = 0; k < 2; k++) {
			if (fds[k] < 0)
				continue;
			pfd[n].fd = fds[k];
			pfd[n].events = POLLIN;
			pids[n++] = e->procs[i].pid;
		}
	}
	pthread_mutex_unlock(&e->lock);
	if (!pfd || !pids || poll(pfd, n, ms) <= 0)
		goto out;
	pthread_mutex_lock(&e->lock);
	for (int k = 0; k < n; k++) {
		struct exp_proc *p;

		if (!(pfd[k].revents & (POLLIN | POLLHUP)))
			continue;
		/* the pid, not the fd: a rescan may have dropped it meanwhile */
		p = proc_find(e, pids[k]);
		if (p && p->pidfd == pfd[k].fd)
			proc_drop(e, p - e->procs);
		else if (p && p->s.queue_fd == pfd[k].fd)
			proc_drain(p);
	}
	pthread_mutex_unlock(&e->lock);
out:
	free(pfd);
	free(pids);
}

void exp_free(struct exporter *e)
{
	while (e->nprocs)
		proc_drop(e, e->nprocs - 1);
	free(e->procs);
	e->procs = NULL;
	e->cap = 0;
	free(e->pods);
	e->pods = NULL;
	e->npods = e->podcap = 0;
	pthread_mutex_destroy(&e->lock);
}
