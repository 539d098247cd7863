// SPDX-License-Identifier: GPL-2.0
/*
 * tsgcmd.c - what sched's TSG commands do once their command line is
 * parsed (cmd/sched.c): list the TSGs, set a timeslice or an interleave
 * level on some of them (all or none), preempt them; the watcher's status.
 */
#include <errno.h>

#include <bpf/bpf.h>
#include <stdlib.h>
#include <string.h>

#include "gpuctl.h"
#include "mps.h"
#include "sched.h"
#include "sched_gpu.h"
#include "tsgcmd.h"

/* A level for humans: RM's, else the last one set (marked "*"), else "n/a". */
static const char *level_str(__u32 level, const struct tsg_info *i)
{
	static char buf[4][16];
	static int k;
	char *b = buf[k++ & 3];

	if (level != LEVEL_UNKNOWN)
		return rm_level_name(level);
	if (i && i->set_interleave)
		snprintf(b, 16, "%s*", rm_level_name(i->set_interleave - 1));
	else if (i && i->app_interleave)
		snprintf(b, 16, "%s*", rm_level_name(i->app_interleave - 1));
	else
		return "n/a";
	return b;
}

static void list_json(const struct tsg *t, bool ok, __u64 ts, __u32 level, const char *err,
		      double age, const struct gpu_info *g)
{
	jsonw_start_object(json_wtr);
	jsonw_uint_field(json_wtr, "id", t->info.id);
	if (g) {
		jsonw_int_field(json_wtr, "gpu", g->index);
		jsonw_string_field(json_wtr, "uuid", g->uuid_str);
	} else {
		jsonw_null_field(json_wtr, "gpu");
		jsonw_null_field(json_wtr, "uuid");
	}
	jsonw_uint_field(json_wtr, "pid", t->info.pid);
	jsonw_string_field(json_wtr, "comm", t->info.comm);
	jsonw_uint_field(json_wtr, "uid", t->info.uid);
	jsonw_u64_field(json_wtr, "cgroup", t->info.cgroup);
	jsonw_int_field(json_wtr, "fd", t->info.fd);
	jsonw_stringf_field(json_wtr, "client", "0x%x", t->info.hClient);
	jsonw_stringf_field(json_wtr, "tsg", "0x%x", t->info.hTsg);
	jsonw_stringf_field(json_wtr, "parent", "0x%x", t->info.hParent);
	jsonw_uint_field(json_wtr, "alloc_form", t->info.alloc_form);
	jsonw_float_field(json_wtr, "age_s", age);
	if (ok) {
		jsonw_u64_field(json_wtr, "timeslice_us", ts);
		if (level != LEVEL_UNKNOWN)
			jsonw_string_field(json_wtr, "interleave", rm_level_name(level));
		else
			jsonw_null_field(json_wtr, "interleave");
		if (t->info.set_interleave)
			jsonw_string_field(json_wtr, "interleave_set",
					   rm_level_name(t->info.set_interleave - 1));
	} else {
		jsonw_null_field(json_wtr, "timeslice_us");
		jsonw_null_field(json_wtr, "interleave");
		jsonw_string_field(json_wtr, "state", err);
	}
	jsonw_string_field(json_wtr, "class", policy_class_json(t->info.want_class));
	if (mps_role((pid_t)t->info.pid))	/* MPS: a server's TSGs carry its clients' work */
		jsonw_string_field(json_wtr, "mps", mps_role((pid_t)t->info.pid));
	else
		jsonw_null_field(json_wtr, "mps");
	jsonw_uint_field(json_wtr, "app_controls", t->info.app_controls);
	if (t->info.app_timeslice)
		jsonw_u64_field(json_wtr, "app_timeslice_us", t->info.app_timeslice);
	if (t->info.app_interleave)
		jsonw_string_field(json_wtr, "app_interleave",
				   rm_level_name(t->info.app_interleave - 1));
	jsonw_end_object(json_wtr);
}

int sched_list(const struct gpu_info *only_gpu, __u32 only_pid)
{
	struct sched s = SCHED_INIT;
	struct tsg *v = NULL;
	int n = 0;
	__u64 now = boottime_ns();

	if (need_caps("sched list", NEED_PTRACE | NEED_BPF))
		return EXIT_FAIL;
	if (sched_open(&s))
		return EXIT_FAIL;
	if (tsg_read(&s, &v, &n)) {
		sched_close(&s);
		return EXIT_FAIL;
	}
	if (json_output)
		jsonw_start_array(json_wtr);
	else
		printf("%-5s %-8s %-16s %-4s %-10s %-10s %10s %-10s %-5s %-3s %8s %s\n", "ID",
		       "PID", "COMM", "FD", "CLIENT", "TSG", "TIMESLICE", "INTERLEAVE", "CLASS",
		       "GPU", "AGE", "STATE");
	for (int i = 0; i < n; i++) {
		struct tsg *t = &v[i];
		double age = (now - t->info.created_ns) / 1e9;
		char err[256] = "", tsbuf[32], gpubuf[16] = "-", comm[4 * sizeof(t->info.comm) + 1];
		const struct gpu_info *g;
		const char *role;
		__u64 ts = 0;
		__u32 level = 0;
		bool ok;

		if (only_pid && t->info.pid != only_pid)
			continue;
		g = tsg_gpu(&s, t);
		if (only_gpu && g != only_gpu)
			continue;
		ok = tsg_get(&s, t, &ts, &level, err, sizeof(err)) == 0;
		if (json_output) {
			list_json(t, ok, ts, level, err, age, g);
			continue;
		}
		if (g)
			snprintf(gpubuf, sizeof(gpubuf), "%d", g->index);
		snprintf(tsbuf, sizeof(tsbuf), "%lluus", (unsigned long long)ts);
		role = mps_role((pid_t)t->info.pid);
		printf("%-5u %-8u %-16s %-4d 0x%08x 0x%08x %10s %-10s %-5s %-3s %7.1fs %s%s%s\n",
		       t->info.id, t->info.pid,
		       str_printable(comm, sizeof(comm), t->info.comm, sizeof(t->info.comm)),
		       t->info.fd, t->info.hClient,
		       t->info.hTsg, ok ? tsbuf : "-", ok ? level_str(level, &t->info) : "-",
		       policy_class_name(t->info.want_class), gpubuf, age, ok ? "live" : err,
		       role ? ", mps " : "", role ? role : "");
	}
	if (json_output)
		jsonw_end_array(json_wtr);
	else
		printf("# watcher running for %s: TSGs allocated before it started are "
		       "not listed (restart those processes)\n",
		       units_fmt_duration(now - watcher_meta(&s.w, META_STARTED), UNITS_HUMAN,
					  (char[UNITS_BUF]){ 0 }, UNITS_BUF));
	free(v);
	sched_close(&s);
	return EXIT_OK;
}

static int set_one(struct sched *s, enum set_kind kind, const struct tsg *t, __u64 val,
		   char *err, size_t len)
{
	return kind == SET_TS ? tsg_set_ts(s, t, val, err, len) :
				tsg_set_level(s, t, val, err, len);
}

/* After a set: each TSG's old, requested and read-back values. */
static void set_report(struct sched *s, enum set_kind kind, const struct tsg *t, __u64 old_ts,
		       __u32 old_lv, __u64 val)
{
	char err[320];
	__u64 ts = 0;
	__u32 lv = 0;
	bool ok = tsg_get(s, t, &ts, &lv, err, sizeof(err)) == 0;
	const struct tsg_info *i = &t->info;

	if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_uint_field(json_wtr, "id", i->id);
		jsonw_uint_field(json_wtr, "pid", i->pid);
		jsonw_string_field(json_wtr, "comm", i->comm);
		if (kind == SET_TS) {
			jsonw_u64_field(json_wtr, "old_timeslice_us", old_ts);
			jsonw_u64_field(json_wtr, "requested_timeslice_us", val);
			if (ok)
				jsonw_u64_field(json_wtr, "timeslice_us", ts);
			else
				jsonw_null_field(json_wtr, "timeslice_us");
		} else {
			jsonw_string_field(json_wtr, "old_interleave", old_lv == LEVEL_UNKNOWN ?
					   NULL : rm_level_name(old_lv));
			jsonw_string_field(json_wtr, "requested_interleave", rm_level_name(val));
			jsonw_string_field(json_wtr, "interleave", ok && lv != LEVEL_UNKNOWN ?
					   rm_level_name(lv) : NULL);
			jsonw_bool_field(json_wtr, "readable", ok && lv != LEVEL_UNKNOWN);
		}
		jsonw_end_object(json_wtr);
	} else if (kind == SET_TS && ok) {
		printf("TSG %u (pid %u %s): timeslice %llu -> %llu us; RM applied %llu us%s\n",
		       i->id, i->pid, i->comm, (unsigned long long)old_ts,
		       (unsigned long long)val, (unsigned long long)ts,
		       ts == val ? "" : " (RM adjusted the request)");
	} else if (kind == SET_TS) {
		printf("TSG %u (pid %u %s): timeslice %llu -> %llu us; reading back failed: %s\n",
		       i->id, i->pid, i->comm, (unsigned long long)old_ts,
		       (unsigned long long)val, err);
	} else {
		printf("TSG %u (pid %u %s): interleave %s -> %s; RM %s%s\n", i->id, i->pid,
		       i->comm, level_str(old_lv, i), rm_level_name(val),
		       !ok ? "reads back nothing: " : lv == LEVEL_UNKNOWN ?
		       "accepted it (this driver cannot read the level back)" : "reads back ",
		       !ok ? err : lv == LEVEL_UNKNOWN ? "" : rm_level_name(lv));
	}
}

/* Sets val on every TSG of v, or on none: 0, or -1 after p_err. */
static int set_all(struct sched *s, enum set_kind kind, struct tsg *v, int n, __u64 val,
		   __u64 *old_ts, __u32 *old_lv)
{
	char err[320], label[128], rb[128];

	/* Every target must answer before anything changes. */
	for (int i = 0; i < n; i++) {
		if (tsg_get(s, &v[i], &old_ts[i], &old_lv[i], err, sizeof(err))) {
			tsg_label(&v[i], label, sizeof(label));
			p_err("%s: %s; nothing changed", label, err);
			return -1;
		}
	}
	for (int done = 0; done < n; done++) {
		if (!set_one(s, kind, &v[done], val, err, sizeof(err)))
			continue;
		tsg_label(&v[done], label, sizeof(label));
		/* Undo what was applied: nothing half-applied. */
		for (int j = 0; j < done; j++)
			set_one(s, kind, &v[j], kind == SET_TS ? old_ts[j] :
				level_fallback(old_lv[j], &v[j].info), rb, sizeof(rb));
		p_err("%s: %s; %s", label, err,
		      done ? "the TSGs already changed were restored" : "nothing changed");
		return -1;
	}
	if (kind == SET_LEVEL)
		for (int i = 0; i < n; i++)
			tsg_note_level(s, &v[i], val);
	return 0;
}

int sched_set(enum set_kind kind, const struct tsg_target *tg, const struct gpu_info *gpu,
	      __u64 val)
{
	const char *what = kind == SET_TS ? "set-timeslice" : "set-interleave";
	struct sched s = SCHED_INIT;
	struct tsg *v = NULL;
	__u64 *old_ts = NULL;
	__u32 *old_lv = NULL;
	char cmd[64];
	int n = 0, ret = EXIT_FAIL;

	snprintf(cmd, sizeof(cmd), "sched %s", what);
	if (need_caps(cmd, NEED_PTRACE | NEED_BPF))
		return EXIT_FAIL;
	if (sched_open(&s))
		return EXIT_FAIL;
	if (tsg_select_gpu(&s, tg, gpu, &v, &n))
		goto out;
	old_ts = calloc(n, sizeof(*old_ts));
	old_lv = calloc(n, sizeof(*old_lv));
	if (!old_ts || !old_lv) {
		p_err("out of memory");
		goto out;
	}
	if (set_all(&s, kind, v, n, val, old_ts, old_lv))
		goto out;
	if (json_output)
		jsonw_start_array(json_wtr);
	for (int i = 0; i < n; i++)
		set_report(&s, kind, &v[i], old_ts[i], old_lv[i], val);
	if (json_output)
		jsonw_end_array(json_wtr);
	ret = EXIT_OK;
out:
	free(old_ts);
	free(old_lv);
	free(v);
	sched_close(&s);
	return ret;
}

int sched_preempt(const struct tsg_target *tg, const struct gpu_info *gpu, bool wait,
		  __u64 timeout)
{
	struct sched s = SCHED_INIT;
	struct tsg *v = NULL;
	char err[320], label[128];
	int n = 0, ret = EXIT_FAIL;

	if (need_caps("sched preempt", NEED_PTRACE | NEED_BPF))
		return EXIT_FAIL;
	if (sched_open(&s))
		return EXIT_FAIL;
	if (tsg_select_gpu(&s, tg, gpu, &v, &n))
		goto out;
	for (int i = 0; i < n; i++) {
		if (tsg_file(&s, &v[i], err, sizeof(err)) < 0) {
			tsg_label(&v[i], label, sizeof(label));
			p_err("%s: %s; nothing preempted", label, err);
			goto out;
		}
	}
	if (json_output)
		jsonw_start_array(json_wtr);
	for (int i = 0; i < n; i++) {
		__u64 t0 = boottime_ns(), dt;
		int rc = tsg_preempt(&s, &v[i], wait, timeout, err, sizeof(err));

		dt = boottime_ns() - t0;
		if (rc) {
			tsg_label(&v[i], label, sizeof(label));
			p_err("%s: %s", label, err);
			goto out;
		}
		if (json_output) {
			jsonw_start_object(json_wtr);
			jsonw_uint_field(json_wtr, "id", v[i].info.id);
			jsonw_uint_field(json_wtr, "pid", v[i].info.pid);
			jsonw_bool_field(json_wtr, "wait", wait);
			jsonw_float_field(json_wtr, "call_us", dt / 1e3);
			jsonw_end_object(json_wtr);
		} else {
			printf("TSG %u (pid %u %s): preempted%s in %.1f us\n", v[i].info.id,
			       v[i].info.pid, v[i].info.comm, wait ? " (waited)" : "", dt / 1e3);
		}
	}
	if (json_output)
		jsonw_end_array(json_wtr);
	ret = EXIT_OK;
out:
	if (ret && json_output && jsonw_depth(json_wtr))
		jsonw_end_array(json_wtr);
	free(v);
	sched_close(&s);
	return ret;
}

/* Nothing loaded (no bpffs, no watcher): a state, not a failure (exit 0). */
static int status_none(void)
{
	if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_bool_field(json_wtr, "watcher", false);
		jsonw_null_field(json_wtr, "running_s");
		jsonw_bool_field(json_wtr, "policy_active", false);
		jsonw_int_field(json_wtr, "policy_pid", 0);
		jsonw_null_field(json_wtr, "stats");
		jsonw_end_object(json_wtr);
	} else {
		printf("watcher not running%s; no policy ('%s sched watch' starts the watcher)\n",
		       bpffs_note(), bin_name);
	}
	return EXIT_OK;
}

int sched_status(void)
{
	struct sched s = SCHED_INIT;
	struct policy pol = { 0 };
	__u32 zero = 0;
	pid_t runner;
	double age;

	int err;

	if (!pin_tree_exists())
		return status_none();
	if (need_caps("sched status", NEED_BPF))
		return EXIT_FAIL;
	err = sched_open_how(&s, true);
	if (err)
		return err > 0 ? status_none() : EXIT_FAIL;
	bpf_map_lookup_elem(s.w.policy, &zero, &pol);
	runner = run_pid();
	age = (boottime_ns() - watcher_meta(&s.w, META_STARTED)) / 1e9;
	if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_bool_field(json_wtr, "watcher", true);
		jsonw_float_field(json_wtr, "running_s", age);
		jsonw_bool_field(json_wtr, "policy_active", pol.active);
		jsonw_int_field(json_wtr, "policy_pid", runner);
		jsonw_name(json_wtr, "stats");
		jsonw_start_object(json_wtr);
	} else {
		printf("watcher running for %s; policy %s%s\n",
		       units_fmt_duration(age > 0 ? (uint64_t)(age * 1e9) : 0, UNITS_HUMAN,
					  (char[UNITS_BUF]){ 0 }, UNITS_BUF),
		       pol.active ? "active" : "inactive", runner ? "" : " (no policy process)");
	}
	for (__u32 i = 0; i < STAT_NR; i++) {
		__u64 val = 0;

		bpf_map_lookup_elem(s.w.stats, &i, &val);
		if (json_output)
			jsonw_u64_field(json_wtr, tsgw_stat_names[i], val);
		else
			printf("  %-14s %llu\n", tsgw_stat_names[i], (unsigned long long)val);
	}
	if (json_output)
		jsonw_end_object(json_wtr);
	if (runner)
		sched_policy_status(runner);
	run_log_status(runner);
	if (json_output)
		jsonw_end_object(json_wtr);
	sched_close(&s);
	return EXIT_OK;
}
