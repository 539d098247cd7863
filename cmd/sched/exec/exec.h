/* SPDX-License-Identifier: GPL-2.0 */
/*
 * exec.h - gpuctl sched exec (exec.c): a program started in a class of the
 * running policy, through the run's mechanism (MPS client or TSG rule).
 */
#ifndef GPUCTL_SCHED_EXEC_H
#define GPUCTL_SCHED_EXEC_H

/* argv after "exec": CMD's exit status, 126/127 when it cannot run, or EXIT_*. */
int sched_exec_main(int argc, char **argv);

#endif
