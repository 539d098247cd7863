/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tsg_ctl.h - the one decision on an RM control number: how the TSG watcher
 * records a process issuing it itself (cmd/drv/rm_ctl.h's rows).  The
 * watcher decides with it in BPF (tsg_watch.bpf.c), gpuctl with it for the
 * events it reads (cmd/sched/run.c) and trace tsg (cmd/trace_rm.c).  Plain C
 * that both compilers take.
 */
#ifndef TSG_CTL_H
#define TSG_CTL_H

#include "rm_ctl.h"

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

/* RM_WATCH_* of control cmd (RM_WATCH_NONE: not one the watcher records). */
static __always_inline unsigned int tsg_ctl_watch(unsigned int cmd)
{
#define TSG_CTL_CASE(c, name, watch, restored) case c: return watch;
	switch (cmd) {
	RM_TSG_CTLS(TSG_CTL_CASE)
	}
#undef TSG_CTL_CASE
	return RM_WATCH_NONE;
}

#endif
