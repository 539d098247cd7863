// SPDX-License-Identifier: GPL-2.0
/* uvm_tools.c - the uvm-tools trace backend and its event queue consumer. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "uvm_tools.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

#define UVM_DEV "/dev/nvidia-uvm"
#define UVM_TOOLS_DEV "/dev/nvidia-uvm-tools"

/* NV_STATUS values gpuctl explains. */
#define NV_OK 0
#define NV_ERR_ILLEGAL_ACTION 0x16
#define NV_ERR_INSUFFICIENT_PERMISSIONS 0x1b
#define NV_ERR_INVALID_ARGUMENT 0x1f

_Static_assert(sizeof(struct ut_init_params) == 64, "UVM_TOOLS_INIT_EVENT_TRACKER_PARAMS");
_Static_assert(sizeof(struct ut_ctrl) == 16, "UvmToolsEventControlData indexes");

/* ------------------------------------------------------------ the queue */

uint32_t ut_queue_pending(const struct ut_queue *q)
{
	uint32_t mask = q->count - 1;
	uint32_t put = __atomic_load_n(&q->ctrl->put_behind, __ATOMIC_ACQUIRE) & mask;
	uint32_t get = __atomic_load_n(&q->ctrl->get_ahead, __ATOMIC_RELAXED) & mask;

	return (put - get) & mask;
}

void ut_queue_init(struct ut_queue *q, void *ctrl, const void *entries,
		   uint32_t count, enum ut_abi abi)
{
	memset(q, 0, sizeof(*q));
	q->ctrl = ctrl;
	q->dropped = (const volatile uint64_t *)((uint8_t *)ctrl +
		(abi == UT_ABI_550 ? UT_CTRL_DROPPED_550 : UT_CTRL_DROPPED_565));
	q->entries = entries;
	q->count = count;
	q->abi = abi;
}

uint32_t ut_queue_consume(struct ut_queue *q, uint32_t max, ut_entry_fn fn, void *arg)
{
	uint32_t mask = q->count - 1, done = 0;
	/* put_behind moves only after the entry is written (release on the driver side). */
	uint32_t put = __atomic_load_n(&q->ctrl->put_behind, __ATOMIC_ACQUIRE) & mask;
	uint32_t get = __atomic_load_n(&q->ctrl->get_ahead, __ATOMIC_RELAXED) & mask;
	uint8_t entry[UT_ENTRY_SIZE];

	while (get != put && (!max || done < max)) {
		/* Copy first: the page is shared, decode a stable snapshot. */
		memcpy(entry, q->entries + (size_t)get * UT_ENTRY_SIZE, UT_ENTRY_SIZE);
		if (fn)
			fn(entry, arg);
		get = (get + 1) & mask;
		done++;
	}
	if (done) {
		/* Entries before get may be reused by the producer from now on. */
		__atomic_store_n(&q->ctrl->get_ahead, get, __ATOMIC_RELEASE);
		__atomic_store_n(&q->ctrl->get_behind, get, __ATOMIC_RELEASE);
	}
	return done;
}

uint64_t ut_queue_new_drops(struct ut_queue *q)
{
	uint64_t total = 0;

	for (int i = 0; i < UT_EV_NUM_ALL; i++) {
		uint64_t d = __atomic_load_n(&q->dropped[i], __ATOMIC_RELAXED);

		if (d > q->dropped_seen[i]) {
			total += d - q->dropped_seen[i];
			q->dropped_seen[i] = d;
		}
	}
	return total;
}

static uint64_t rd64(const uint8_t *p, size_t off)
{
	uint64_t v;

	memcpy(&v, p + off, 8);
	return v;
}

static uint32_t rd32(const uint8_t *p, size_t off)
{
	uint32_t v;

	memcpy(&v, p + off, 4);
	return v;
}

static uint16_t rd16(const uint8_t *p, size_t off)
{
	uint16_t v;

	memcpy(&v, p + off, 2);
	return v;
}

/*
 * V2 entries name processors by UVM id value: 0 the CPU, then 8 per GPU
 * (UVM_PARENT_ID_MAX_SUB_PROCESSORS, MIG sub-processors); gpuctl reports
 * the GPU, i.e. UVM's parent GPU index.
 */
#define UT_SUB_PROCESSORS 8

static uint16_t proc_gpu(uint16_t v)
{
	return v ? (v - 1) / UT_SUB_PROCESSORS : GT_PROC_CPU;
}

/* Offsets: the _V2 event structs of uvm_types.h (see uvm_tools.h for the abis). */
bool ut_decode(const uint8_t *p, enum ut_abi abi, struct gt_event *e)
{
	uint8_t acc;

	memset(e, 0, sizeof(*e));
	e->gpu = GT_GPU_NONE;
	e->src = e->dst = GT_PROC_CPU;
	switch (p[0]) {
	case UT_EV_GPU_FAULT:	/* UvmEventGpuFaultInfo_V2 */
		e->type = GT_EV_GPU_FAULT;
		acc = abi == UT_ABI_550 ? p[2] : p[37];
		e->access = acc < GT_ACC_MAX ? acc : GT_ACC_NONE;
		e->addr = rd64(p, 8);
		e->ts_ns = rd64(p, 16);
		e->batch = rd32(p, 32);
		e->gpu = proc_gpu(abi == UT_ABI_550 ? rd16(p, 38) : rd16(p, 2));
		return true;
	case UT_EV_CPU_FAULT:	/* UvmEventCpuFaultInfo */
		e->type = GT_EV_CPU_FAULT;
		e->access = p[1] < GT_ACC_MAX ? p[1] : GT_ACC_NONE;
		e->addr = rd64(p, 8);
		e->ts_ns = rd64(p, 16);
		e->pid = rd32(p, 24);
		return true;
	case UT_EV_MIGRATION: {	/* UvmEventMigrationInfo_V2 */
		uint64_t begin = rd64(p, 32), end = rd64(p, 40);

		e->type = GT_EV_MIGRATION;
		e->cause = p[1] < GT_CAUSE_MAX ? p[1] : GT_CAUSE_NONE;
		e->src = proc_gpu(rd16(p, 4));
		e->dst = proc_gpu(rd16(p, 6));
		e->addr = rd64(p, 16);
		e->bytes = rd64(p, 24);
		e->ts_ns = begin;
		e->latency_ns = end > begin ? end - begin : 0;
		e->flags = e->dst != GT_PROC_CPU ? GT_F_TO_GPU : GT_F_TO_CPU;
		e->gpu = e->dst != GT_PROC_CPU ? e->dst : e->src;
		return true;
	}
	case UT_EV_GPU_FAULT_REPLAY:	/* UvmEventGpuFaultReplayInfo_V2 */
		e->type = GT_EV_REPLAY;
		e->gpu = proc_gpu(rd16(p, 2));
		e->batch = rd32(p, 4);
		e->ts_ns = rd64(p, 8);
		return true;
	case UT_EV_EVICTION:	/* UvmEventEvictionInfo_V2 */
		e->type = GT_EV_EVICTION;
		e->src = proc_gpu(rd16(p, 4));
		e->dst = proc_gpu(rd16(p, 6));
		e->addr = rd64(p, 8);
		e->bytes = rd64(p, 24);
		e->ts_ns = rd64(p, 32);
		e->gpu = e->src;
		return true;
	case UT_EV_THRASHING:	/* UvmEventThrashingDetectedInfo_V2 */
		e->type = GT_EV_THRASHING;
		e->addr = rd64(p, 8);
		e->bytes = rd64(p, 16);
		e->ts_ns = rd64(p, 24);
		return true;
	default:
		return false;
	}
}

/* ---------------------------------------------------------- the backend */

bool ut_available(void)
{
	return access(UVM_TOOLS_DEV, F_OK) == 0;
}

static void *page_alloc(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static const char *nv_status_text(uint32_t st)
{
	switch (st) {
	case NV_ERR_ILLEGAL_ACTION: return "the file is not an initialized UVM va_space";
	case NV_ERR_INSUFFICIENT_PERMISSIONS: return "insufficient permissions";
	case NV_ERR_INVALID_ARGUMENT: return "invalid argument";
	default: return "driver error";
	}
}

/* Tries one candidate fd of the target: 0, or -errno with err set. */
static int borrow(struct ut_session *s, int pidfd, int target_fd, char *err, size_t len)
{
	int fd = syscall(SYS_pidfd_getfd, pidfd, target_fd, 0);

	if (fd < 0) {
		int e = errno;

		if (e == EPERM || e == EACCES)
			snprintf(err, len, "cannot borrow fd %d of pid %d: %s "
				 "(needs CAP_SYS_PTRACE over the target; run as root)",
				 target_fd, s->pid, strerror(e));
		else if (e == ENOSYS)
			snprintf(err, len, "pidfd_getfd() is not available (Linux 5.6 or later needed)");
		else
			snprintf(err, len, "cannot borrow fd %d of pid %d: %s", target_fd,
				 s->pid, strerror(e));
		return -e;
	}
	s->uvm_fd = fd;
	return 0;
}

int ut_attach(struct ut_session *s, pid_t pid, char *err, size_t len)
{
	char path[64], link[PATH_MAX];
	int pidfd, ret = -ENOENT, found = 0;
	struct dirent *de;
	DIR *dir;

	memset(s, 0, sizeof(*s));
	s->pid = pid;
	s->uvm_fd = s->queue_fd = s->counter_fd = -1;

	pidfd = syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0) {
		int e = errno;

		if (e == ESRCH)
			snprintf(err, len, "no process with pid %d", pid);
		else
			snprintf(err, len, "pidfd_open(%d) failed: %s", pid, strerror(e));
		return -e;
	}
	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	dir = opendir(path);
	if (!dir) {
		int e = errno;

		close(pidfd);
		if (e == EACCES || e == EPERM)
			snprintf(err, len, "cannot read %s: %s (run as root)", path, strerror(e));
		else
			snprintf(err, len, "no process with pid %d", pid);
		return e == ENOENT ? -ESRCH : -e;
	}
	while ((de = readdir(dir))) {
		char fdpath[300];
		ssize_t n;

		if (de->d_name[0] == '.')
			continue;
		snprintf(fdpath, sizeof(fdpath), "%s/%s", path, de->d_name);
		n = readlink(fdpath, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		if (strcmp(link, UVM_DEV))
			continue;
		found++;
		ret = borrow(s, pidfd, atoi(de->d_name), err, len);
		if (ret)
			break;
		/* Probe it: a counters tracker succeeds only on a va_space file. */
		ret = ut_open_counters(s, err, len);
		if (!ret)
			break;
		close(s->uvm_fd);
		s->uvm_fd = -1;
	}
	closedir(dir);
	close(pidfd);
	if (!found) {
		snprintf(err, len, "process %d has no GPU context (%s is not open); "
			 "is it a CUDA program, and has it initialized CUDA?", pid, UVM_DEV);
		return -ENOENT;
	}
	return ret;
}

static int tools_open(char *err, size_t len)
{
	int fd = open(UVM_TOOLS_DEV, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		int e = errno;

		snprintf(err, len, "cannot open %s: %s%s", UVM_TOOLS_DEV, strerror(e),
			 e == ENOENT ? " (load nvidia-uvm: nvidia-modprobe -u)" : "");
		return -e;
	}
	return fd;
}

static int tools_ioctl(int fd, unsigned long req, void *arg, uint32_t *status)
{
	if (ioctl(fd, req, arg) < 0)
		return -errno;
	return *status ? -EIO : 0;
}

int ut_open_counters(struct ut_session *s, char *err, size_t len)
{
	struct ut_init_params p = { 0 };
	int fd, ret;

	if (s->counter_fd >= 0)
		return 0;
	fd = tools_open(err, len);
	if (fd < 0)
		return fd;
	if (!s->counter_mem)
		s->counter_mem = page_alloc(4096);
	if (!s->counter_mem) {
		close(fd);
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	p.control_buffer = (uintptr_t)s->counter_mem;
	p.all_processors = 1;
	p.uvm_fd = s->uvm_fd;
	p.requested_version = UT_QUEUE_VERSION;
	ret = tools_ioctl(fd, UT_IOC_INIT_EVENT_TRACKER, &p, &p.rm_status);
	if (ret) {
		if (ret == -EIO && p.rm_status == NV_ERR_ILLEGAL_ACTION)
			ret = -EAGAIN;
		snprintf(err, len, "UVM tools counters on pid %d refused: %s (status 0x%x)",
			 s->pid, ret == -EIO || ret == -EAGAIN ? nv_status_text(p.rm_status) :
			 strerror(-ret), p.rm_status);
		close(fd);
		return ret;
	}
	s->counter_fd = fd;
	s->counters = s->counter_mem;
	return 0;
}

int ut_enable_counters(struct ut_session *s, uint64_t mask, char *err, size_t len)
{
	struct { uint64_t flags; uint32_t status; uint32_t pad; } en = { .flags = mask };
	int ret = tools_ioctl(s->counter_fd, UT_IOC_ENABLE_COUNTERS, &en, &en.status);

	if (ret)
		snprintf(err, len, "enabling UVM tools counters failed (status 0x%x, %s)",
			 en.status, strerror(-ret));
	return ret;
}

int ut_open_queue(struct ut_session *s, uint32_t entries, uint64_t events,
		  uint32_t threshold, char *err, size_t len)
{
	struct ut_init_params p = { 0 };
	struct { uint64_t flags; uint32_t status; uint32_t pad; } en = { 0 };
	struct { uint32_t threshold; uint32_t status; } th = { 0 };
	enum ut_abi abi;
	int fd, ret;

	if (!entries || (entries & (entries - 1)) || entries < 2) {
		snprintf(err, len, "queue size %u is not a power of 2", entries);
		return -EINVAL;
	}
	fd = tools_open(err, len);
	if (fd < 0)
		return fd;
	s->queue_bytes = (size_t)entries * UT_ENTRY_SIZE;
	s->queue_mem = page_alloc(s->queue_bytes);
	s->ctrl_mem = page_alloc(4096);
	if (!s->queue_mem || !s->ctrl_mem) {
		close(fd);
		snprintf(err, len, "out of memory for a %u-entry queue", entries);
		return -ENOMEM;
	}
	p.queue_buffer = (uintptr_t)s->queue_mem;
	p.queue_buffer_size = entries;
	p.control_buffer = (uintptr_t)s->ctrl_mem;
	p.all_processors = 1;
	p.uvm_fd = s->uvm_fd;
	abi = UT_ABI_565;
	ret = tools_ioctl(fd, UT_IOC_INIT_EVENT_TRACKER_V2, &p, &p.rm_status);
	if (ret == -EINVAL || ret == -ENOTTY) {
		/* No V2 tracker ioctl: a 550-era driver, which versions ioctl 56. */
		abi = UT_ABI_550;
		p.rm_status = 0;
		p.requested_version = UT_QUEUE_VERSION;
		ret = tools_ioctl(fd, UT_IOC_INIT_EVENT_TRACKER, &p, &p.rm_status);
		if (!ret && p.granted_version != UT_QUEUE_VERSION) {
			snprintf(err, len, "this driver's UVM tools interface is not supported "
				 "(no version 2 event queue; gpuctl reads 550-555 and 565+)");
			close(fd);
			return -EOPNOTSUPP;
		}
	}
	if (ret) {
		snprintf(err, len, "UVM tools event queue on pid %d refused: %s (status 0x%x)",
			 s->pid, ret == -EIO ? nv_status_text(p.rm_status) : strerror(-ret),
			 p.rm_status);
		close(fd);
		return ret;
	}
	th.threshold = threshold ? threshold : entries / 2;
	ret = tools_ioctl(fd, UT_IOC_SET_NOTIFICATION_THRESHOLD, &th, &th.status);
	if (!ret) {
		en.flags = events;
		ret = tools_ioctl(fd, UT_IOC_ENABLE_EVENTS, &en, &en.status);
	}
	if (ret) {
		snprintf(err, len, "configuring the UVM tools event queue failed (%s)",
			 strerror(-ret));
		close(fd);
		return ret;
	}
	s->queue_fd = fd;
	ut_queue_init(&s->q, s->ctrl_mem, s->queue_mem, entries, abi);
	return 0;
}

int ut_wait(struct ut_session *s, int timeout_ms)
{
	struct pollfd pfd = { .fd = s->queue_fd, .events = POLLIN };
	int n = poll(&pfd, 1, timeout_ms);

	return n > 0 && (pfd.revents & POLLIN);
}

void ut_flush(struct ut_session *s)
{
	uint32_t status = 0;

	if (s->uvm_fd >= 0)
		ioctl(s->uvm_fd, UT_IOC_FLUSH_EVENTS, &status);
}

void ut_close(struct ut_session *s)
{
	if (s->queue_fd >= 0)
		close(s->queue_fd);
	if (s->counter_fd >= 0)
		close(s->counter_fd);
	if (s->uvm_fd >= 0)
		close(s->uvm_fd);
	if (s->queue_mem)
		munmap(s->queue_mem, s->queue_bytes);
	if (s->ctrl_mem)
		munmap(s->ctrl_mem, 4096);
	if (s->counter_mem)
		munmap(s->counter_mem, 4096);
	memset(s, 0, sizeof(*s));
	s->uvm_fd = s->queue_fd = s->counter_fd = -1;
}
