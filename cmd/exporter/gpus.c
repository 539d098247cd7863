// SPDX-License-Identifier: GPL-2.0
/*
 * gpus.c - the exporter's GPUs.  The join keys are dcgm-exporter's label
 * names: gpu (the index, as nvidia-smi numbers them) and UUID, on every
 * per-GPU series; gpuctl_gpu_info{gpu,UUID,model_name,pci_bus_id} 1 (the
 * descriptive labels in snake_case: promtool's lint refuses dcgm's camelCase
 * modelName; its pci_bus_id has our spelling and value).  So
 *   sum by (UUID) (rate(gpuctl_uvm_gpu_faults_total[5m]))
 *     * on(UUID) group_left(modelName, Hostname) DCGM_FI_DEV_GPU_UTIL
 * joins (a UUID is unique across hosts; instance differs between exporters).
 * Cardinality: at most EXP_MAX_GPUS GPUs; a process's per-GPU series exist
 * only for GPUs it made count something.
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gpuctl.h"
#include "exporter/exporter.h"
#include "exporter/om.h"

void exp_gpus_refresh(struct exporter *e, bool force)
{
	double now = mono_s();

	if (!force && e->gpus_at && now - e->gpus_at < EXP_GPU_REFRESH_S)
		return;
	e->ngpus = gpus_list(&e->gpus, true, &e->gpus_why);
	if (e->ngpus > EXP_MAX_GPUS) {
		if (!e->gpus_at)	/* said once */
			p_info("exporter: %d GPUs: per-GPU series for the first %d only (gpuctl's "
			       "limit)", e->ngpus, EXP_MAX_GPUS);
		e->ngpus = EXP_MAX_GPUS;
	}
	e->gpus_at = now;
}

void exp_proc_gpus_open(struct exporter *e, struct exp_proc *p)
{
	char err[160];

	p->ngpu = 0;
	for (int i = 0; i < e->ngpus && i < EXP_MAX_GPUS; i++) {
		p->gfd[i] = -1;
		p->gmem[i] = NULL;
		p->gshown[i] = false;
		if (ut_open_gpu_counters(&p->s, e->gpus[i].uuid, UT_CTR_STAT_MASK, &p->gfd[i],
					 &p->gmem[i], err, sizeof(err)) && i == 0)
			p_info("exporter: pid %d (%s): no per-GPU counters: %s", p->pid, p->comm,
			       err);
		p->ngpu = i + 1;
	}
}

void exp_proc_gpus_close(struct exp_proc *p)
{
	for (int i = 0; i < p->ngpu; i++) {
		if (p->gfd[i] >= 0)
			close(p->gfd[i]);
		if (p->gmem[i])
			munmap(p->gmem[i], 4096);
		p->gfd[i] = -1;
		p->gmem[i] = NULL;
	}
	p->ngpu = 0;
}

void exp_gpu_labels(FILE *f, const struct gpu_info *g, bool first)
{
	char idx[16];

	snprintf(idx, sizeof(idx), "%d", g->index);
	om_label(f, "gpu", idx, first);
	om_label(f, "UUID", g->uuid_str, false);
}

void exp_write_gpus(struct exporter *e, FILE *f)
{
	om_family(f, "gpuctl_gpu_info", "gauge",
		  "A GPU as RM lists it; gpu and UUID as dcgm-exporter labels them (join on UUID).");
	for (int i = 0; i < e->ngpus; i++) {
		const struct gpu_info *g = &e->gpus[i];

		fputs("gpuctl_gpu_info{", f);
		exp_gpu_labels(f, g, true);
		om_label(f, "model_name", g->name, false);
		om_label(f, "pci_bus_id", g->pci, false);
		fputs("} 1\n", f);
	}
	om_family(f, "gpuctl_gpu_memory_total_bytes", "gauge", "GPU memory, as RM reports it.");
	for (int i = 0; i < e->ngpus; i++) {
		if (!e->gpus[i].have_mem)
			continue;
		fputs("gpuctl_gpu_memory_total_bytes{", f);
		exp_gpu_labels(f, &e->gpus[i], true);
		fputs("} ", f);
		om_u64(f, e->gpus[i].total_bytes);
	}
	om_family(f, "gpuctl_gpu_memory_free_bytes", "gauge",
		  "Free GPU memory (RM's heap free), read at most every 10 s.");
	for (int i = 0; i < e->ngpus; i++) {
		if (!e->gpus[i].have_mem)
			continue;
		fputs("gpuctl_gpu_memory_free_bytes{", f);
		exp_gpu_labels(f, &e->gpus[i], true);
		fputs("} ", f);
		om_u64(f, e->gpus[i].free_bytes);
	}
}

void exp_write_proc_gpu_counter(FILE *f, const struct exporter *e, const char *name, int ctr,
				const char *dir)
{
	for (int i = 0; i < e->nprocs; i++) {
		struct exp_proc *p = &e->procs[i];
		bool any = false;

		if (!p->attached)
			continue;
		for (int g = 0; g < p->ngpu && g < e->ngpus; g++) {
			uint64_t v;

			if (p->gfd[g] < 0)
				continue;
			any = true;
			v = ((volatile uint64_t *)p->gmem[g])[ctr];
			if (!v && !p->gshown[g])
				continue;
			p->gshown[g] = true;
			fprintf(f, "%s{", name);
			exp_proc_labels(f, e, p);
			exp_gpu_labels(f, &e->gpus[g], false);
			if (dir)
				om_label(f, "direction", dir, false);
			fputs("} ", f);
			om_u64(f, v);
		}
		if (any)
			continue;
		fprintf(f, "%s{", name);	/* no per-GPU tracker: all GPUs together */
		exp_proc_labels(f, e, p);
		if (dir)
			om_label(f, "direction", dir, false);
		fputs("} ", f);
		om_u64(f, p->s.counters[ctr]);
	}
}
