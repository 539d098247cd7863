// SPDX-License-Identifier: GPL-2.0
/*
 * adaptive.c - prefetch adaptive's user-space half (adaptive.h): a loop
 * that moves the threshold of the loaded policy with the host-to-device
 * throughput (throughput.c), in the foreground or detached as a daemon.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "gpuctl.h"
#include "policy/policy.h"
#include "policy/kinds.h"
#include "prefetch.h"
#include "adaptive.h"
#include "throughput.h"

static int param_get(int fd, __u32 idx, __u64 *v)
{
	return bpf_map_lookup_elem(fd, &idx, v);
}

/*
 * Maps throughput to the threshold of the policy of map_id until stopped
 * (then unloads it) or until another policy replaces it (then just ends).
 */
int adaptive_loop(__u32 map_id)
{
	__u64 hi, lo, t_hi, t_mid, t_lo, interval, cur = 0, want;
	__u32 now_id, thr = PF_ADAPTIVE_THRESHOLD;
	struct throughput tp;
	struct timespec ts;
	double mbps;
	int fd, ret;

	fd = policy_map_of(&prefetch_kind, map_id, POLICY_MAP_PARAMS);
	if (fd < 0) {
		p_err("adaptive: cannot open its parameters: %s", strerror(-fd));
		policy_remove(&prefetch_kind, map_id);
		return EXIT_FAIL;
	}
	if (throughput_open(&tp)) {
		close(fd);
		policy_remove(&prefetch_kind, map_id);
		return EXIT_FAIL;
	}
	p_info("adaptive: throughput from %s; Ctrl-C stops the loop and unloads the policy",
	       tp.source);

	while (!stop_requested()) {
		if (param_get(fd, PF_ADAPTIVE_HI_MBPS, &hi) || param_get(fd, PF_ADAPTIVE_LO_MBPS, &lo) ||
		    param_get(fd, PF_ADAPTIVE_HI_THRESHOLD, &t_hi) ||
		    param_get(fd, PF_ADAPTIVE_MID_THRESHOLD, &t_mid) ||
		    param_get(fd, PF_ADAPTIVE_LO_THRESHOLD, &t_lo) ||
		    param_get(fd, PF_ADAPTIVE_INTERVAL_MS, &interval))
			break;
		ts.tv_sec = interval / 1000;
		ts.tv_nsec = (long)(interval % 1000) * 1000000;
		if (nanosleep(&ts, NULL) && stop_requested())
			break;
		if (policy_attached_map_id(&prefetch_kind, &now_id) || now_id != map_id) {
			p_info("adaptive: replaced or unloaded; the loop ends");
			close(fd);
			throughput_close(&tp);
			return EXIT_OK;
		}
		if (throughput_mbps(&tp, &mbps))
			continue;
		want = mbps > (double)hi ? t_hi : mbps > (double)lo ? t_mid : t_lo;
		if (want != cur && !bpf_map_update_elem(fd, &thr, &want, BPF_EXIST)) {
			p_info("adaptive: %.1f MB/s (%s): threshold %llu %%", mbps, tp.source,
			       (unsigned long long)want);
			cur = want;
		}
	}
	close(fd);
	throughput_close(&tp);
	ret = policy_remove(&prefetch_kind, map_id);
	if (ret == EXIT_OK)
		p_info("adaptive: stopped; policy unloaded");
	return ret;
}

/*
 * The detached daemon, forked before the load commits: it holds nothing of
 * the parent's, waits for the map id of the committed policy (end of file:
 * the load failed), then runs the loop.  Never returns.
 */
static void adaptive_daemon(int go, const char *pid_file)
{
	__u32 map_id;
	int ret = EXIT_FAIL;

	if (go > 3 && dup2(go, 3) == 3)
		go = 3;
	if (close_range(go + 1, ~0U, 0))	/* kernels before 5.9 */
		for (long fd = go + 1, max = sysconf(_SC_OPEN_MAX); fd < max; fd++)
			close((int)fd);
	if (read(go, &map_id, sizeof(map_id)) == (ssize_t)sizeof(map_id)) {
		close(go);
		ret = adaptive_loop(map_id);
	}
	if (pidfile_live(pid_file) == getpid())
		unlink(pid_file);
	_exit(ret);
}

/*
 * The load's last step before anything changes: throughput must be
 * readable; with --detach the pid file is claimed and the daemon forked.
 */
int adaptive_setup(void *ctx, const char *policy, struct bpf_object *obj)
{
	struct adaptive *ad = ctx;
	struct throughput tp;
	int go[2];
	pid_t pid;

	(void)policy;
	(void)obj;
	if (throughput_open(&tp))
		return -1;
	throughput_close(&tp);
	if (!ad->detach)
		return 0;
	ad->pid_fd = pidfile_claim(ad->pid_file, "an adaptive loop");
	if (ad->pid_fd < 0)
		return -1;
	if (pipe2(go, O_CLOEXEC)) {
		p_err("cannot create a pipe: %s", strerror(errno));
		return -1;
	}
	pid = daemon_fork(-1);
	if (pid < 0) {
		close(go[0]);
		close(go[1]);
		return -1;
	}
	if (pid == 0)
		adaptive_daemon(go[0], ad->pid_file);
	close(go[0]);
	ad->go_fd = go[1];
	ad->daemon = pid;
	if (pidfile_write(ad->pid_fd, pid)) {
		p_err("cannot write pid file %s: %s", ad->pid_file, strerror(errno));
		return -1;
	}
	return 0;
}

/* After the load: the daemon goes on (committed) or ends; the pid file with it. */
int adaptive_finish(struct adaptive *ad, int ret, __u32 map_id)
{
	if (ret == EXIT_OK && ad->go_fd >= 0 &&
	    write(ad->go_fd, &map_id, sizeof(map_id)) != (ssize_t)sizeof(map_id)) {
		p_err("cannot start the adaptive daemon: %s", strerror(errno));
		policy_remove(&prefetch_kind, map_id);
		ret = EXIT_FAIL;
	}
	if (ad->go_fd >= 0)
		close(ad->go_fd);
	if (ad->pid_fd >= 0) {
		if (ret != EXIT_OK)
			unlink(ad->pid_file);
		close(ad->pid_fd);
	}
	if (ret == EXIT_OK)
		p_info("adaptive: feedback loop detached (pid %d, pid file %s)", (int)ad->daemon,
		       ad->pid_file);
	return ret;
}
