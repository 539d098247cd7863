// SPDX-License-Identifier: GPL-2.0
/*
 * render.c - the exposition (Prometheus text format 0.0.4, which
 * node_exporter's textfile collector reads too): each family once, its
 * HELP and TYPE first, then its samples; base units in the names (_bytes,
 * _seconds), counters ending in _total.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "gpuctl.h"
#include "exporter/exporter.h"
#include "exporter/om.h"

/* One per-process counter family from the tools API's counter slot ctr. */
static void write_proc_counter(FILE *f, const struct exporter *e, const char *name,
			       const char *help, int ctr, const char *dir)
{
	if (!dir || strcmp(dir, "dtoh"))	/* the bytes family: HELP once */
		om_family(f, name, "counter", help);
	if (ctr != UT_CTR_CPU_FAULTS) {		/* a GPU's counter: by GPU */
		exp_write_proc_gpu_counter(f, e, name, ctr, dir);
		return;
	}
	for (int i = 0; i < e->nprocs; i++) {
		const struct exp_proc *p = &e->procs[i];

		if (!p->attached)
			continue;
		fprintf(f, "%s{", name);
		exp_proc_labels(f, e, p);
		if (dir)
			om_label(f, "direction", dir, false);
		fputs("} ", f);
		om_u64(f, p->s.counters[ctr]);
	}
}

/* --events: the counts of each process's queue, by field offset. */
static const struct {
	const char *name, *help;
	size_t off;
} event_families[] = {
	{ "gpuctl_uvm_replays_total", "Fault replays for the process (event queue; --events).",
	  offsetof(struct exp_proc, replays) },
	{ "gpuctl_uvm_evictions_total", "Evictions of the process's memory from the GPU (--events).",
	  offsetof(struct exp_proc, evictions) },
	{ "gpuctl_uvm_evicted_bytes_total", "Bytes of the process evicted from the GPU (--events).",
	  offsetof(struct exp_proc, evicted_bytes) },
	{ "gpuctl_uvm_thrashing_total", "Thrashing the driver detected in the process (--events).",
	  offsetof(struct exp_proc, thrashing) },
	{ "gpuctl_uvm_events_dropped_total", "Events lost: the process's queue was full (--events).",
	  offsetof(struct exp_proc, dropped) },
};

static void write_proc_events(FILE *f, const struct exporter *e)
{
	for (size_t k = 0; k < sizeof(event_families) / sizeof(event_families[0]); k++) {
		om_family(f, event_families[k].name, "counter", event_families[k].help);
		for (int i = 0; i < e->nprocs; i++) {
			const struct exp_proc *p = &e->procs[i];

			if (!p->attached || p->s.queue_fd < 0)
				continue;
			fprintf(f, "%s{", event_families[k].name);
			exp_proc_labels(f, e, p);
			fputs("} ", f);
			om_u64(f, *(const uint64_t *)((const char *)p + event_families[k].off));
		}
	}
}

static void write_procs(FILE *f, const struct exporter *e)
{
	om_family(f, "gpuctl_gpu_process_info", "gauge",
		  "A process with a GPU context (/dev/nvidia-uvm open); attached: its counters are exported.");
	for (int i = 0; i < e->nprocs; i++) {
		fputs("gpuctl_gpu_process_info{", f);
		exp_proc_labels(f, e, &e->procs[i]);
		om_label(f, "attached", e->procs[i].attached ? "1" : "0", false);
		fputs("} 1\n", f);
	}
	if (!e->attach)
		return;	/* textfile: the tools API counts only while attached */
	write_proc_counter(f, e, "gpuctl_uvm_gpu_faults_total",
			   "GPU page faults of the process by GPU (gpu, UUID), since the exporter attached.",
			   UT_CTR_GPU_FAULTS, NULL);
	write_proc_counter(f, e, "gpuctl_uvm_cpu_faults_total",
			   "CPU page faults on the process's managed memory, since the exporter attached.",
			   UT_CTR_CPU_FAULTS, NULL);
	write_proc_counter(f, e, "gpuctl_uvm_migrated_bytes_total",
			   "Bytes UVM migrated for the process, by GPU and direction, since the exporter attached.",
			   UT_CTR_BYTES_HTOD, "htod");
	write_proc_counter(f, e, "gpuctl_uvm_migrated_bytes_total", NULL, UT_CTR_BYTES_DTOH, "dtoh");
	if (e->events)
		write_proc_events(f, e);
	om_family(f, "gpuctl_exporter_attach_failed", "gauge",
		  "A GPU process the exporter could not attach to, and why.");
	for (int i = 0; i < e->nprocs; i++) {
		if (e->procs[i].attached)
			continue;
		fputs("gpuctl_exporter_attach_failed{", f);
		exp_proc_labels(f, e, &e->procs[i]);
		om_label(f, "reason", exp_fail_names[e->procs[i].fail], false);
		fputs("} 1\n", f);
	}
}

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n - 1;	/* the directory's own */
}

static void write_health(FILE *f, struct exporter *e)
{
	struct rusage ru;
	int attached = 0;

	for (int i = 0; i < e->nprocs; i++)
		attached += e->procs[i].attached;
	om_family(f, "gpuctl_exporter_build_info", "gauge", "The gpuctl version serving.");
	fprintf(f, "gpuctl_exporter_build_info{version=\"%s\"} 1\n", GPUCTL_VERSION);
	om_family(f, "gpuctl_exporter_source_up", "gauge",
		  "Whether a source of metrics could be read, and if not, why (reason).");
	for (int s = 0; s < SRC_NR; s++) {
		fputs("gpuctl_exporter_source_up{", f);
		om_label(f, "source", exp_src_names[s], true);
		om_label(f, "reason", exp_src_state_names[e->src[s]], false);
		fprintf(f, "} %d\n", e->src[s] == SS_OK);
	}
	/*
	 * textfile: one run, attached to nothing; node_exporter exports its own
	 * process_* and scrape metrics and drops a textfile's that clash
	 */
	if (!e->attach)
		return;
	om_family(f, "gpuctl_exporter_processes_attached", "gauge",
		  "GPU processes whose counters are exported.");
	fprintf(f, "gpuctl_exporter_processes_attached %d\n", attached);
	om_family(f, "gpuctl_exporter_attach_failures_total", "counter",
		  "Attach attempts that failed, by reason (a retry that fails alike counts once).");
	for (int r = 1; r < EF_NR; r++)
		fprintf(f, "gpuctl_exporter_attach_failures_total{reason=\"%s\"} %llu\n",
			exp_fail_names[r], (unsigned long long)e->st.fail_total[r]);
	om_family(f, "gpuctl_exporter_processes_attached_total", "counter",
		  "GPU processes attached since the exporter started.");
	fprintf(f, "gpuctl_exporter_processes_attached_total %llu\n",
		(unsigned long long)e->st.attached_total);
	om_family(f, "gpuctl_exporter_processes_dropped_total", "counter",
		  "GPU processes dropped (exited, or pid reused) since the exporter started.");
	fprintf(f, "gpuctl_exporter_processes_dropped_total %llu\n",
		(unsigned long long)e->st.dropped_total);
	om_family(f, "gpuctl_exporter_scrapes_total", "counter", "Scrapes served.");
	fprintf(f, "gpuctl_exporter_scrapes_total %llu\n", (unsigned long long)e->st.scrapes);
	om_family(f, "gpuctl_exporter_last_scrape_duration_seconds", "gauge",
		  "Wall time the previous scrape took to render.");
	fprintf(f, "gpuctl_exporter_last_scrape_duration_seconds %.6f\n", e->st.scrape_s);
	om_family(f, "gpuctl_exporter_last_scrape_cpu_seconds", "gauge",
		  "CPU time the previous scrape took to render.");
	fprintf(f, "gpuctl_exporter_last_scrape_cpu_seconds %.6f\n", e->st.scrape_cpu_s);
	om_family(f, "gpuctl_exporter_rescans_total", "counter",
		  "Walks of /proc looking for GPU processes.");
	fprintf(f, "gpuctl_exporter_rescans_total %llu\n", (unsigned long long)e->st.rescans);
	om_family(f, "gpuctl_exporter_last_rescan_cpu_seconds", "gauge",
		  "CPU time of the last walk of /proc.");
	fprintf(f, "gpuctl_exporter_last_rescan_cpu_seconds %.6f\n", e->st.rescan_cpu_s);
	om_family(f, "gpuctl_exporter_rescan_cpu_seconds_total", "counter",
		  "CPU time of all walks of /proc.");
	fprintf(f, "gpuctl_exporter_rescan_cpu_seconds_total %.6f\n", e->st.rescan_cpu_total_s);
	om_family(f, "process_open_fds", "gauge", "Open file descriptors of the exporter.");
	fprintf(f, "process_open_fds %d\n", open_fds());
	if (!getrusage(RUSAGE_SELF, &ru)) {
		om_family(f, "process_cpu_seconds_total", "counter",
			  "User and system CPU time of the exporter.");
		fprintf(f, "process_cpu_seconds_total %.6f\n",
			ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
			(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
		om_family(f, "process_max_resident_memory_bytes", "gauge",
			  "Peak resident memory of the exporter.");
		fprintf(f, "process_max_resident_memory_bytes %ld\n", ru.ru_maxrss * 1024L);
	}
	om_family(f, "process_start_time_seconds", "gauge", "When the exporter started (unix time).");
	fprintf(f, "process_start_time_seconds %.0f\n", e->st.started);
}

char *exp_render(struct exporter *e, size_t *len)
{
	struct timespec c0, c1;
	double t0 = mono_s();
	char *buf = NULL;
	FILE *f;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
	f = open_memstream(&buf, len);
	if (!f)
		return NULL;
	if (e->events)
		exp_drain(e);
	exp_gpus_refresh(e, false);
	exp_write_gpus(e, f);
	write_procs(f, e);
	exp_write_tsgs(e, f);
	exp_write_mps(e, f);
	exp_write_policies(e, f);
	write_health(f, e);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
	e->st.scrapes++;
	e->st.scrape_s = mono_s() - t0;
	e->st.scrape_cpu_s = (c1.tv_sec - c0.tv_sec) + (c1.tv_nsec - c0.tv_nsec) / 1e9;
	return buf;
}
