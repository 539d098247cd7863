/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rm_ctl.h - every RM scheduling control gpuctl knows, one row each: its
 * command number (ctrla06c.h, ctrl2080fifo.h), its name, how the TSG
 * watcher records a process issuing it itself, and whether gpuctl puts back
 * what it changed with it (the ORIG_* flags of bpf/tsg_watch.h say what).
 *
 * The rows are read by the C side (rm_ctl.c: names, lookups) and by the
 * BPF watcher through bpf/tsg_ctl.h, which holds the one decision on a
 * control number, called by BPF and C (as bpf/tsg_match.h does for rules):
 * nowhere else is a control number compared.  Adding an RM control: a
 * number, a row here, and its caller.  Plain C that BPF, the model
 * (tests/model) and gpuctl take.
 */
#ifndef GPUCTL_RM_CTL_H
#define GPUCTL_RM_CTL_H

/* TSG controls (ctrla06c.h), on a TSG (KEPLER_CHANNEL_GROUP_A). */
#define NVA06C_CTRL_CMD_GPFIFO_SCHEDULE		0xa06c0101	/* struct a06c_schedule */
#define NVA06C_CTRL_CMD_SET_TIMESLICE		0xa06c0103	/* struct a06c_timeslice */
#define NVA06C_CTRL_CMD_GET_TIMESLICE		0xa06c0104	/* struct a06c_timeslice */
#define NVA06C_CTRL_CMD_PREEMPT			0xa06c0105	/* struct a06c_preempt */
#define NVA06C_CTRL_CMD_SET_INTERLEAVE_LEVEL	0xa06c0107	/* struct a06c_interleave */
#define NVA06C_CTRL_CMD_GET_INTERLEAVE_LEVEL	0xa06c0108	/* struct a06c_interleave */
/* On a subdevice: a TSG's channels off the GPU and back (struct rm_disable_channels). */
#define NV2080_CTRL_CMD_FIFO_DISABLE_CHANNELS	0x2080110b

/* How the watcher records a process issuing a control itself (tsg_info's app_*). */
enum rm_watch {
	RM_WATCH_NONE = 0,	/* not recorded */
	RM_WATCH_TIMESLICE = 1,	/* app_timeslice: its params' first __u64 */
	RM_WATCH_LEVEL = 2,	/* app_interleave: its params' first __u32, + 1 */
	RM_WATCH_COUNT = 3,	/* counted in app_controls only (value 0) */
};

/*
 * The rows: X(CMD, NAME, WATCH, RESTORED).  RESTORED 1: gpuctl sched run
 * saves what it changes with it and puts it back (run, stop, unload, the
 * watchdog: tsg_watch.h's ORIG_*).
 */
#define RM_TSG_CTLS(X)								\
	X(NVA06C_CTRL_CMD_GPFIFO_SCHEDULE, "schedule", RM_WATCH_NONE, 1)	\
	X(NVA06C_CTRL_CMD_SET_TIMESLICE, "timeslice", RM_WATCH_TIMESLICE, 1)	\
	X(NVA06C_CTRL_CMD_GET_TIMESLICE, "get-timeslice", RM_WATCH_NONE, 0)	\
	X(NVA06C_CTRL_CMD_PREEMPT, "preempt", RM_WATCH_COUNT, 0)		\
	X(NVA06C_CTRL_CMD_SET_INTERLEAVE_LEVEL, "interleave", RM_WATCH_LEVEL, 1) \
	X(NVA06C_CTRL_CMD_GET_INTERLEAVE_LEVEL, "get-interleave", RM_WATCH_NONE, 0) \
	X(NV2080_CTRL_CMD_FIFO_DISABLE_CHANNELS, "channels", RM_WATCH_NONE, 1)

#if !defined(__KERNEL__) && !defined(__bpf__)
/* One row, as rm_ctl.c tables it. */
struct rm_tsg_ctl {
	unsigned int cmd;
	const char *name;
	enum rm_watch watch;
	int restored;
};
extern const struct rm_tsg_ctl rm_tsg_ctls[];
extern const int rm_tsg_nctls;
/* The row of cmd, or NULL. */
const struct rm_tsg_ctl *rm_tsg_ctl_find(unsigned int cmd);
#endif

#endif
