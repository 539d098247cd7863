// SPDX-License-Identifier: GPL-2.0
/*
 * ut_session.c - a UVM tools session on one process: its /dev/nvidia-uvm
 * file borrowed (pidfd_getfd), a counter tracker and an event queue on it.
 */
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
#include <sys/sysmacros.h>
#include <unistd.h>

#include "gpuctl.h"	/* pidfd_of, borrow_fd_from, borrow_strerror */
#include "ut.h"

#define UVM_DEV "/dev/nvidia-uvm"
#define UVM_TOOLS_DEV "/dev/nvidia-uvm-tools"

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
	case UT_NV_ERR_ILLEGAL_ACTION: return "the file is not an initialized UVM va_space";
	case UT_NV_ERR_INSUFFICIENT_PERMISSIONS: return "insufficient permissions";
	case UT_NV_ERR_INVALID_ARGUMENT: return "invalid argument";
	default: return "driver error";
	}
}

/* Tries one candidate fd of the target: 0, or -errno with err set. */
static int borrow(struct ut_session *s, int pidfd, int target_fd, char *err, size_t len)
{
	int fd = borrow_fd_from(pidfd, target_fd);

	if (fd < 0) {
		borrow_strerror(fd, s->pid, target_fd, err, len);
		return fd;
	}
	s->uvm_fd = fd;
	return 0;
}

int ut_uvm_rdev(uint32_t *rdev)
{
	struct stat st;

	if (stat(UVM_DEV, &st))
		return -errno;
	if (!S_ISCHR(st.st_mode))
		return -ENODEV;
	*rdev = (uint32_t)(major(st.st_rdev) << 20 | minor(st.st_rdev));	/* the kernel's dev_t */
	return 0;
}

void ut_session_init(struct ut_session *s)
{
	memset(s, 0, sizeof(*s));
	s->uvm_fd = s->queue_fd = s->counter_fd = -1;
}

int ut_attach(struct ut_session *s, pid_t pid, char *err, size_t len)
{
	char path[64], link[PATH_MAX];
	int pidfd, ret = -ENOENT, found = 0;
	struct dirent *de;
	DIR *dir;

	ut_session_init(s);
	s->pid = pid;

	pidfd = pidfd_of(pid);
	if (pidfd < 0) {
		if (pidfd == -ESRCH || pidfd == -ENOSYS)
			borrow_strerror(pidfd, pid, -1, err, len);
		else
			snprintf(err, len, "pidfd_open(%d) failed: %s", pid, strerror(-pidfd));
		return pidfd;
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
		if (ret == -EIO && p.rm_status == UT_NV_ERR_ILLEGAL_ACTION)
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

int ut_open_gpu_counters(struct ut_session *s, const uint8_t uuid[16], uint64_t mask,
			 int *fdp, void **memp, char *err, size_t len)
{
	struct ut_init_params p = { 0 };
	struct ut_flags_params en = { .flags = mask };
	void *mem = page_alloc(4096);
	int fd, ret;

	if (!mem) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	fd = tools_open(err, len);
	if (fd < 0) {
		munmap(mem, 4096);
		return fd;
	}
	p.control_buffer = (uintptr_t)mem;
	p.all_processors = 0;
	memcpy(p.processor, uuid, sizeof(p.processor));
	p.uvm_fd = s->uvm_fd;
	p.requested_version = UT_QUEUE_VERSION;
	ret = tools_ioctl(fd, UT_IOC_INIT_EVENT_TRACKER, &p, &p.rm_status);
	if (!ret)
		ret = tools_ioctl(fd, UT_IOC_ENABLE_COUNTERS, &en, &en.rm_status);
	if (ret) {
		snprintf(err, len, "a UVM tools counter tracker for one GPU on pid %d was "
			 "refused (%s)", s->pid, strerror(-ret));
		close(fd);
		munmap(mem, 4096);
		return ret;
	}
	*fdp = fd;
	*memp = mem;
	return 0;
}

int ut_enable_counters(struct ut_session *s, uint64_t mask, char *err, size_t len)
{
	struct ut_flags_params en = { .flags = mask };
	int ret = tools_ioctl(s->counter_fd, UT_IOC_ENABLE_COUNTERS, &en, &en.rm_status);

	if (ret)
		snprintf(err, len, "enabling UVM tools counters failed (status 0x%x, %s)",
			 en.rm_status, strerror(-ret));
	return ret;
}

int ut_open_queue(struct ut_session *s, uint32_t entries, uint64_t events,
		  uint32_t threshold, char *err, size_t len)
{
	struct ut_init_params p = { 0 };
	struct ut_flags_params en = { 0 };
	struct ut_threshold_params th = { 0 };
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
	ret = tools_ioctl(fd, UT_IOC_SET_NOTIFICATION_THRESHOLD, &th, &th.rm_status);
	if (!ret && events) {	/* none: enabled later, or never */
		en.flags = events;
		ret = tools_ioctl(fd, UT_IOC_ENABLE_EVENTS, &en, &en.rm_status);
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

int ut_set_events(struct ut_session *s, uint64_t events, bool on)
{
	struct ut_flags_params en = { .flags = events };

	if (s->queue_fd < 0)
		return -EBADF;
	return tools_ioctl(s->queue_fd, on ? UT_IOC_ENABLE_EVENTS : UT_IOC_DISABLE_EVENTS, &en,
			   &en.rm_status);
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
	ut_session_init(s);
}
