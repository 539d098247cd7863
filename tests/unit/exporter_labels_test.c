// SPDX-License-Identifier: GPL-2.0
/*
 * exporter_labels_test.c - the exporter's GPU labels (cmd/exporter/gpus.c,
 * render.c) on a fake host of 8 GPUs and 64 attached processes: the gpu and
 * UUID labels (dcgm-exporter's names) on every per-GPU series,
 * gpuctl_gpu_info, per-GPU counters only where a GPU counted, the fallback
 * without per-GPU trackers, label escaping; and the render time (the bound:
 * 5 ms a scrape).  Writes the exposition to argv[1] for promtool.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpuctl.h"
#include "exporter/exporter.h"

static int pass, fail;
#define CHECK(c) do { if (c) pass++; else { fail++; printf("FAIL %s:%d %s\n", __FILE__, __LINE__, #c); } } while (0)

/* --- stubs for what the render reaches beyond gpus.c and render.c --- */
static struct gpu_info fake[EXP_MAX_GPUS];
static int nfake = 8;
int gpus_list(const struct gpu_info **out, bool refresh, const char **why)
{
	(void)refresh;
	*out = fake;
	if (why)
		*why = "";
	return nfake;
}
int ut_open_gpu_counters(struct ut_session *s, const uint8_t uuid[16], uint64_t mask, int *fd,
			 void **mem, char *err, size_t len)
{
	(void)s; (void)uuid; (void)mask; (void)fd; (void)mem; (void)err; (void)len;
	return -1;
}
void p_info(const char *fmt, ...) { (void)fmt; }
bool debug_output;
const char *const exp_src_names[SRC_NR] = { "uvm_tools", "sched_watcher", "policies" };
const char *const exp_src_state_names[SS_NR] = { "ok", "no_driver", "bpffs_absent",
						 "not_running", "other_version", "error" };
const char *const exp_fail_names[EF_NR] = { "none", "no_tools", "perm", "not_ready", "gone",
					    "limit", "refused" };
void exp_drain(struct exporter *e) { (void)e; }
void exp_write_tsgs(struct exporter *e, FILE *f) { (void)e; (void)f; }
void exp_write_policies(struct exporter *e, FILE *f) { (void)e; (void)f; }
void exp_write_mps(struct exporter *e, FILE *f) { (void)e; (void)f; }
double mono_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int count(const char *buf, const char *needle)
{
	int n = 0;

	for (const char *p = buf; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

int main(int argc, char **argv)
{
	static uint64_t ctr[64][EXP_MAX_GPUS][512];	/* a tracker page per GPU per process */
	static uint64_t all[64][512];
	struct exporter e;
	char *buf = NULL;
	size_t len = 0;
	double best = 1e9;

	for (int i = 0; i < nfake; i++) {
		__u8 u[16] = { 0x6d, 0x6f, 0x64, 0x65, 0x6c, 0x67, 0x50, 0x55, 0x80, 0, 0, 0, 0, 0, 0,
			       (__u8)(1 + i) };

		memcpy(fake[i].uuid, u, 16);
		gpu_uuid_format(u, fake[i].uuid_str);
		fake[i].bus = i + 1;
		gpu_pci_format(0, i + 1, 0, fake[i].pci);
		snprintf(fake[i].name, sizeof(fake[i].name), "NVIDIA \"H100\" 80GB");
		fake[i].total_bytes = 80ULL << 30;
		fake[i].free_bytes = (79ULL << 30) - i;
		fake[i].have_mem = i != 7;	/* one GPU whose memory RM did not tell */
	}
	gpus_order(fake, nfake);
	memset(&e, 0, sizeof(e));
	e.max_procs = 256;
	e.attach = true;
	exp_gpus_refresh(&e, true);
	CHECK(e.ngpus == 8);
	e.nprocs = e.cap = 64;
	e.procs = calloc(64, sizeof(*e.procs));
	for (int p = 0; p < 64; p++) {
		struct exp_proc *x = &e.procs[p];

		x->pid = 1000 + p;
		snprintf(x->comm, sizeof(x->comm), p == 3 ? "we\"ird\\" : "python%d", p);
		if (p == 4)	/* not UTF-8: a scraper refuses the whole exposition */
			snprintf(x->comm, sizeof(x->comm), "\377\376bin");
		if (p == 5)	/* the kernel's 15-byte cut inside a character; then UTF-8 */
			memcpy(x->comm, "aaaaaaaaaaaaaa\xe2", 16);
		if (p == 6)
			snprintf(x->comm, sizeof(x->comm), "tr\xc3\xa4in");
		x->attached = true;
		x->s.counters = all[p];
		x->s.queue_fd = -1;
		all[p][UT_CTR_GPU_FAULTS] = 100 + p;
		x->ngpu = p == 63 ? 0 : 8;	/* the last one: no per-GPU trackers */
		for (int g = 0; g < x->ngpu; g++) {
			x->gfd[g] = 0;
			x->gmem[g] = ctr[p][g];
			/* each process used GPU p % 8, process 0 used all */
			if (g == p % 8 || p == 0) {
				ctr[p][g][UT_CTR_GPU_FAULTS] = 10 + g;
				ctr[p][g][UT_CTR_BYTES_HTOD] = 4096 * (g + 1);
			}
		}
	}
	for (int r = 0; r < 50; r++) {
		double t0 = mono_s();

		free(buf);
		buf = exp_render(&e, &len);
		if (mono_s() - t0 < best)
			best = mono_s() - t0;
	}
	CHECK(buf && len > 0);
	CHECK(count(buf, "gpuctl_gpu_info{") == 8);
	CHECK(strstr(buf, "gpuctl_gpu_info{gpu=\"0\",UUID=\"GPU-6d6f6465-6c67-5055-8000-000000000001\","
			  "model_name=\"NVIDIA \\\"H100\\\" 80GB\",pci_bus_id=\"00000000:01:00.0\"} 1\n"));
	CHECK(count(buf, "gpuctl_gpu_memory_total_bytes{") == 7);
	CHECK(strstr(buf, "gpuctl_gpu_memory_total_bytes{gpu=\"2\",UUID=\"GPU-6d6f6465-6c67-5055-8000-000000000003\"} 85899345920\n"));
	/* per GPU: 62 processes one GPU each + process 0 on 8 + process 63 unlabelled */
	CHECK(count(buf, "gpuctl_uvm_gpu_faults_total{") == 62 + 8 + 1);
	CHECK(strstr(buf, "gpuctl_gpu_process_info{pid=\"1004\",comm=\"\xef\xbf\xbd\xef\xbf\xbd" "bin\""));
	CHECK(strstr(buf, "comm=\"aaaaaaaaaaaaaa\xef\xbf\xbd\""));
	CHECK(strstr(buf, "comm=\"tr\xc3\xa4in\""));
	CHECK(!strstr(buf, "\377") && !strstr(buf, "\xe2\""));
	CHECK(strstr(buf, "gpuctl_uvm_gpu_faults_total{pid=\"1007\",comm=\"python7\",gpu=\"7\",UUID=\"GPU-6d6f6465-6c67-5055-8000-000000000008\"} 17\n"));
	CHECK(strstr(buf, "gpuctl_uvm_gpu_faults_total{pid=\"1063\",comm=\"python63\"} 163\n"));
	CHECK(strstr(buf, "gpuctl_uvm_migrated_bytes_total{pid=\"1001\",comm=\"python1\",gpu=\"1\",UUID=\"GPU-6d6f6465-6c67-5055-8000-000000000002\",direction=\"htod\"} 8192\n"));
	CHECK(strstr(buf, "comm=\"we\\\"ird\\\\\""));
	CHECK(!strstr(buf, "gpuctl_uvm_cpu_faults_total{pid=\"1001\",comm=\"python1\",gpu="));
	CHECK(count(buf, "# HELP gpuctl_uvm_migrated_bytes_total") == 1);
	/* a GPU that counted once keeps its series at 0 */
	ctr[9][1][UT_CTR_GPU_FAULTS] = 0;
	free(buf);
	buf = exp_render(&e, &len);
	CHECK(strstr(buf, "gpuctl_uvm_gpu_faults_total{pid=\"1009\",comm=\"python9\",gpu=\"1\",UUID=\"GPU-6d6f6465-6c67-5055-8000-000000000002\"} 0\n"));
	printf("# render of 8 GPUs x 64 processes: %.3f ms (best of 50), %zu bytes\n", best * 1e3, len);
	CHECK(best < 0.005);
	/*
	 * issue 35: whom each process runs for: hostname on every per-process
	 * series, pod_uid and container_id (two pods both "python3"), a unit,
	 * nothing for a process in neither; names escaped (text.c's TXT_LABEL)
	 */
	snprintf(e.hostname, sizeof(e.hostname), "gpu-node-1");
	for (int p = 0; p < 64; p++) {
		struct exp_proc *x = &e.procs[p];

		snprintf(x->comm, sizeof(x->comm), "python3");
		if (p < 62) {
			snprintf(x->cg.pod_uid, sizeof(x->cg.pod_uid),
				 "2f7c4a1e-9b3d-4e8f-a1b2-%012x", p);
			snprintf(x->cg.container_id, sizeof(x->cg.container_id), "%064x", p);
		}
	}
	snprintf(e.procs[62].cg.unit, sizeof(e.procs[62].cg.unit), "tr\"ain\n.service");
	best = 1;
	for (int r = 0; r < 50; r++) {
		double t0 = mono_s();

		free(buf);
		buf = exp_render(&e, &len);
		if (mono_s() - t0 < best)
			best = mono_s() - t0;
	}
	{
		char want[512];

		snprintf(want, sizeof(want), "gpuctl_uvm_gpu_faults_total{pid=\"1007\",comm=\"python3\","
			 "hostname=\"gpu-node-1\",pod_uid=\"2f7c4a1e-9b3d-4e8f-a1b2-000000000007\","
			 "container_id=\"%064x\",gpu=\"7\",", 7);
		CHECK(strstr(buf, want));
	}
	CHECK(strstr(buf, "gpuctl_gpu_process_info{pid=\"1062\",comm=\"python3\",hostname=\"gpu-node-1\","
			  "unit=\"tr\\\"ain\\n.service\",attached=\"1\"} 1\n"));
	CHECK(strstr(buf, "gpuctl_gpu_process_info{pid=\"1063\",comm=\"python3\",hostname=\"gpu-node-1\","
			  "attached=\"1\"} 1\n"));
	CHECK(count(buf, "pod_uid=\"2f7c4a1e-9b3d-4e8f-a1b2-000000000001\"") ==
	      count(buf, "pid=\"1001\""));
	printf("# render of 8 GPUs x 64 processes in 62 pods: %.3f ms (best of 50), %zu bytes\n",
	       best * 1e3, len);
	CHECK(best < 0.005);
	if (argc > 1) {
		FILE *f = fopen(argv[1], "w");

		if (f) {
			fwrite(buf, 1, len, f);
			fclose(f);
		}
	}
	free(buf);
	free(e.procs);
	printf("%d passed, %d failed\n", pass, fail);
	return fail != 0;
}
