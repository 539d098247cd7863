// SPDX-License-Identifier: GPL-2.0
/*
 * mech_rm.c - the RM row of the scheduling mechanisms (mech.h): a wish
 * reaches a TSG through RM's TSG controls (cmd/drv/rm_ctl.h), issued on the
 * owner's borrowed RM file (tsg.c), so RM's ownership rule holds.  Per TSG
 * only: RM has nothing per client at its start or per server.
 */
#include <stdio.h>

#include "gpuctl.h"
#include "sched.h"
#include "mech.h"

static int rm_apply(struct sched *s, const struct tsg *t, char *err, size_t len)
{
	const struct tsg_info *i = &t->info;

	if (i->want_timeslice && tsg_set_ts(s, t, i->want_timeslice, err, len))
		return -1;
	if (i->want_interleave && tsg_set_level(s, t, i->want_interleave - 1, err, len))
		return -1;
	return 0;
}

/* What ORIG_* says was changed, back: on the runlist, channels on, the values. */
static int rm_restore(struct sched *s, const struct tsg *t, char *err, size_t len)
{
	const struct tsg_info *i = &t->info;

	if ((i->orig_flags & ORIG_SCHEDULE) && tsg_schedule(s, t, true, err, len))
		return -1;
	if ((i->orig_flags & ORIG_CHANNELS) && tsg_channels(s, t, true, err, len))
		return -1;
	if ((i->orig_flags & ORIG_TIMESLICE) && tsg_set_ts(s, t, i->orig_timeslice, err, len))
		return -1;
	if ((i->orig_flags & ORIG_INTERLEAVE) && tsg_set_level(s, t, i->orig_interleave, err, len))
		return -1;
	return 0;
}

/* ORIG_SCHEDULE: GPFIFO_SCHEDULE on the TSG; ORIG_CHANNELS: FIFO_DISABLE_CHANNELS on rl's channels. */
static int rm_runlist(int fd, const struct tsg *t, bool on, const struct mech_runlist *rl,
		      __u32 *status)
{
	struct a06c_schedule p = { .bEnable = on };

	if (rl->how == ORIG_CHANNELS)
		return rm_channels_set(fd, t->info.hClient, rl->subdev, rl->ch, rl->nch, !on,
				       status);
	return rm_control(fd, t->info.hClient, t->info.hTsg, NVA06C_CTRL_CMD_GPFIFO_SCHEDULE, &p,
			  sizeof(p), status);
}

static int rm_channels(int fd, const struct tsg *t, __u32 *subdev, __u32 *ch, int max)
{
	return rm_tsg_channels(fd, t->info.hClient, t->info.hTsg, subdev, ch, max);
}

const struct sched_mech sched_mech_rm = {
	.name = "rm",
	.acts = MECH_PER_TSG,
	.tsg_read = tsg_get,
	.tsg_apply = rm_apply,
	.tsg_restore = rm_restore,
	.tsg_runlist = rm_runlist,
	.tsg_channels = rm_channels,
};
