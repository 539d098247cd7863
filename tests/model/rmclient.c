// SPDX-License-Identifier: GPL-2.0
/*
 * rmclient - plays a CUDA process against the model's RM device: opens it,
 * allocates a client, a device and N TSGs the way CUDA does (NV_ESC_RM_ALLOC,
 * class KEPLER_CHANNEL_GROUP_A), then waits.
 *
 * Usage: rmclient [-d DEV] [-n N] [-f 21|64|x21|x64] [-r US] [-i LEVEL] [-w] [-e]
 *   -d DEV    device (default /dev/uvm_model_rm)
 *   -n N      TSGs to allocate (default 2)
 *   -f FORM   ALLOC form: NVOS21, NVOS64 (default), or either through
 *             NV_ESC_IOCTL_XFER_CMD (x21, x64)
 *   -r US     every 200 ms, set its own timeslice to US on every TSG (an
 *             application that changes its scheduling back)
 *   -i LEVEL  with -r, also set its own interleave level (0..2)
 *   -w        print "waiting pid=P" and wait for SIGHUP before allocating
 *   -g LIST   a device (deviceId GPU) per GPU of LIST ("0", "1", "0,1"),
 *             each with its subdevice and N TSGs (default: one device, no
 *             allocation parameters: the model's GPU 0)
 *   -e        one round, then exit: set -r / -i once on every TSG, free the
 *             first TSG alone, then the client (and with it the others)
 * Prints "ready pid=P client=0x.. tsgs=0x..,0x.." once allocated.
 * SIGUSR2: prints "tsg 0x.. timeslice N interleave L" per TSG, read through
 * its own file.  SIGUSR1: frees its first TSG ("freed 0x..").
 * SIGTERM/SIGINT: frees its client and exits 0.
 *
 * rmclient [-d DEV] -p CLIENT:TSG: opens DEV afresh and tries GET_TIMESLICE
 * on another process's TSG; prints "status 0x.." (RM's ownership rule: 0x23).
 * With -s, GPFIFO_SCHEDULE (off) instead of GET_TIMESLICE.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "../../cmd/drv/rm.h"
#include "../../cmd/drv/rm_gpu.h"

static int fd = -1;
static const char *form = "64";
static volatile sig_atomic_t got_usr1, got_usr2, got_term, got_hup;

static void on_sig(int sig)
{
	if (sig == SIGHUP)
		got_hup = 1;
	else if (sig == SIGUSR1)
		got_usr1 = 1;
	else if (sig == SIGUSR2)
		got_usr2 = 1;
	else
		got_term = 1;
}

static int escape(unsigned int nr, void *arg, unsigned int size, unsigned long direct)
{
	if (form[0] == 'x') {
		struct nv_ioctl_xfer x = { .cmd = nr, .size = size, .ptr = (unsigned long)arg };

		return ioctl(fd, NV_IOC_XFER, &x);
	}
	return ioctl(fd, direct, arg);
}

static __u32 alloc_p(__u32 hRoot, __u32 hParent, __u32 hClass, void *params, __u32 psize);

static __u32 alloc(__u32 hRoot, __u32 hParent, __u32 hClass)
{
	return alloc_p(hRoot, hParent, hClass, NULL, 0);
}

static __u32 alloc_p(__u32 hRoot, __u32 hParent, __u32 hClass, void *params, __u32 psize)
{
	int form21 = !strcmp(form, "21") || !strcmp(form, "x21");
	__u32 status, h;

	if (form21) {
		struct nvos21_params a = { hRoot, hParent, 0, hClass, (unsigned long)params,
					   psize, 0 };

		if (escape(NV_ESC_RM_ALLOC, &a, sizeof(a), NV_IOC_ALLOC21)) {
			perror("rmclient: RM_ALLOC");
			exit(1);
		}
		status = a.status;
		h = a.hObjectNew;
	} else {
		struct nvos64_params a = { .hRoot = hRoot, .hObjectParent = hParent,
					   .hClass = hClass, .pAllocParms = (unsigned long)params,
					   .paramsSize = psize };

		if (escape(NV_ESC_RM_ALLOC, &a, sizeof(a), NV_IOC_ALLOC64)) {
			perror("rmclient: RM_ALLOC");
			exit(1);
		}
		status = a.status;
		h = a.hObjectNew;
	}
	if (status) {
		fprintf(stderr, "rmclient: RM_ALLOC class 0x%x: status 0x%x\n", hClass, status);
		exit(1);
	}
	return h;
}

static __u32 control(__u32 hClient, __u32 hObject, __u32 cmd, void *p, __u32 size)
{
	struct nvos54_params c = { .hClient = hClient, .hObject = hObject, .cmd = cmd,
				   .params = (unsigned long)p, .paramsSize = size };

	if (escape(NV_ESC_RM_CONTROL, &c, sizeof(c), NV_IOC_CONTROL))
		return 0xffffffff;
	return c.status;
}

static __u32 rm_free_obj(__u32 hRoot, __u32 hObj)
{
	struct nvos00_params f = { .hRoot = hRoot, .hObjectParent = hRoot, .hObjectOld = hObj };

	if (escape(NV_ESC_RM_FREE, &f, sizeof(f), NV_IOC_FREE))
		return 0xffffffff;
	return f.status;
}

int main(int argc, char **argv)
{
	const char *dev = "/dev/uvm_model_rm";
	long reset_us = 0, level = -1;
	__u32 hClient, hDevice, tsg[64];
	int n = 2, opt, live, wait_hup = 0, once = 0, sched_probe = 0;

	const char *probe = NULL, *gpus = NULL;
	int ngpu = 1, gpu[8];

	while ((opt = getopt(argc, argv, "d:n:f:r:i:p:g:sweh")) != -1) {
		switch (opt) {
		case 'w': wait_hup = 1; break;
		case 'e': once = 1; break;
		case 'p': probe = optarg; break;
		case 'g': gpus = optarg; break;
		case 's': sched_probe = 1; break;
		case 'd': dev = optarg; break;
		case 'n': n = atoi(optarg); break;
		case 'f': form = optarg; break;
		case 'r': reset_us = atol(optarg); break;
		case 'i': level = atol(optarg); break;
		default:
			fprintf(stderr, "usage: rmclient [-d DEV] [-n N] [-f 21|64|x21|x64] [-r US] [-i LEVEL] [-w] [-e]\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	if (n < 1 || n > 64)
		n = 2;
	if (gpus) {
		char *end;

		ngpu = 0;
		for (const char *s = gpus; *s && ngpu < 8; s = *end ? end + 1 : end)
			gpu[ngpu++] = (int)strtol(s, &end, 10);
		if (n * ngpu > 64)
			n = 64 / ngpu;
	}
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "rmclient: %s: %s\n", dev, strerror(errno));
		return 1;
	}
	if (probe) {
		unsigned int c = 0, t = 0;
		struct a06c_timeslice ts = { 0 };

		if (sscanf(probe, "%x:%x", &c, &t) != 2) {
			fprintf(stderr, "rmclient: -p wants CLIENT:TSG in hex\n");
			return 2;
		}
		struct a06c_schedule sc = { .bEnable = 0 };

		if (sched_probe)
			printf("status 0x%x\n", control(c, t, NVA06C_CTRL_CMD_GPFIFO_SCHEDULE, &sc,
							 sizeof(sc)));
		else
			printf("status 0x%x\n", control(c, t, NVA06C_CTRL_CMD_GET_TIMESLICE, &ts,
							 sizeof(ts)));
		return 0;
	}
	signal(SIGUSR1, on_sig);
	signal(SIGUSR2, on_sig);
	signal(SIGTERM, on_sig);
	signal(SIGINT, on_sig);
	signal(SIGHUP, on_sig);
	if (wait_hup) {
		printf("waiting pid=%d\n", (int)getpid());
		fflush(stdout);
		while (!got_hup && !got_term) {
			struct timespec ts = { 0, 20 * 1000 * 1000 };

			nanosleep(&ts, NULL);
		}
	}

	hClient = alloc(0, 0, NV01_ROOT_CLIENT);
	for (int g = 0; g < ngpu; g++) {
		struct rm_device_alloc da = { .deviceId = gpus ? (__u32)gpu[g] : 0,
					      .hClientShare = hClient };

		hDevice = gpus ? alloc_p(hClient, hClient, NV01_DEVICE_0, &da, sizeof(da)) :
			  alloc(hClient, hClient, NV01_DEVICE_0);
		alloc(hClient, hDevice, NV20_SUBDEVICE_0);
		for (int i = g * n; i < (g + 1) * n; i++) {
			tsg[i] = alloc(hClient, hDevice, KEPLER_CHANNEL_GROUP_A);
			/* two channels per TSG, as CUDA's (be-off's channels finds them) */
			alloc(hClient, tsg[i], HOPPER_CHANNEL_GPFIFO_A);
			alloc(hClient, tsg[i], HOPPER_CHANNEL_GPFIFO_A);
		}
	}
	n *= ngpu;
	live = n;
	printf("ready pid=%d client=0x%x tsgs=", (int)getpid(), hClient);
	for (int i = 0; i < n; i++)
		printf("%s0x%x", i ? "," : "", tsg[i]);
	printf("\n");
	fflush(stdout);

	if (once) {
		for (int i = 0; i < n; i++) {
			struct a06c_timeslice t = { (__u64)reset_us };
			struct a06c_interleave l = { (__u32)level };

			if (reset_us > 0)
				control(hClient, tsg[i], NVA06C_CTRL_CMD_SET_TIMESLICE, &t, sizeof(t));
			if (level >= 0)
				control(hClient, tsg[i], NVA06C_CTRL_CMD_SET_INTERLEAVE_LEVEL,
					&l, sizeof(l));
		}
		printf("freed 0x%x status 0x%x\n", tsg[0], rm_free_obj(hClient, tsg[0]));
		printf("client freed status 0x%x\n", rm_free_obj(hClient, hClient));
		return 0;
	}

	while (!got_term) {
		struct timespec ts = { 0, 200 * 1000 * 1000 };

		nanosleep(&ts, NULL);
		if (reset_us > 0) {
			for (int i = n - live; i < n; i++) {
				struct a06c_timeslice t = { (__u64)reset_us };
				struct a06c_interleave l = { (__u32)level };

				control(hClient, tsg[i], NVA06C_CTRL_CMD_SET_TIMESLICE, &t, sizeof(t));
				if (level >= 0)
					control(hClient, tsg[i], NVA06C_CTRL_CMD_SET_INTERLEAVE_LEVEL,
						&l, sizeof(l));
			}
		}
		if (got_usr2) {
			got_usr2 = 0;
			for (int i = n - live; i < n; i++) {
				struct a06c_timeslice t = { 0 };
				struct a06c_interleave l = { 0 };
				__u32 s1 = control(hClient, tsg[i], NVA06C_CTRL_CMD_GET_TIMESLICE, &t, sizeof(t));
				__u32 s2 = control(hClient, tsg[i], NVA06C_CTRL_CMD_GET_INTERLEAVE_LEVEL, &l, sizeof(l));

				printf("tsg 0x%x timeslice %llu interleave %u status 0x%x 0x%x\n", tsg[i],
				       (unsigned long long)t.timesliceUs, l.tsgInterleaveLevel, s1, s2);
			}
			fflush(stdout);
		}
		if (got_usr1) {
			got_usr1 = 0;
			if (live > 0) {
				__u32 h = tsg[n - live];

				printf("freed 0x%x status 0x%x\n", h, rm_free_obj(hClient, h));
				fflush(stdout);
				live--;
			}
		}
	}
	rm_free_obj(hClient, hClient);
	return 0;
}
