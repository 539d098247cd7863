// SPDX-License-Identifier: GPL-2.0
/*
 * uvm_model_events.c - the model's stock-driver trace points.  Faults and
 * migrations go through uvm_perf_event_notify() as in nvidia-uvm; a batch
 * is serviced inside service_fault_batch(); replays go through
 * push_replay_on_gpu(), evictions through evict_root_chunk(); every open
 * of /dev/nvidia-uvm (or /dev/uvm_model) gets a va_space from
 * uvm_va_space_create() in process context.  The tools device hears of
 * each event here, as the driver's tools callbacks do.  Addresses are the
 * range's offsets placed at UVM_MODEL_VA_BASE, where uvmsim maps it.
 */
#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/slab.h>

#include "uvm_pmm_gpu.h"
#include "uvm_model_events.h"

#define MODEL_PAGE_SIZE 4096ULL
#define MODEL_GPU_ID 1		/* processor ids: 0 is the CPU, GPUs from 1 */

static uvm_parent_gpu_t model_parent_gpu = { .id = { MODEL_GPU_ID } };
static uvm_gpu_t model_gpu = { .id = { MODEL_GPU_ID }, .parent = &model_parent_gpu };
static uvm_pmm_gpu_t model_pmm;
static uvm_va_space_t *cur_va_space;	/* under the model's lock */
static atomic_t va_space_ids = ATOMIC_INIT(0);
static void (*batch_service)(void);

noinline int uvm_va_space_create(struct address_space *mapping, uvm_va_space_t **va_space_ptr,
				 NvU64 flags)
{
	uvm_va_space_t *vs = kzalloc(sizeof(*vs), GFP_KERNEL);

	if (!vs)
		return -ENOMEM;
	vs->id = atomic_inc_return(&va_space_ids);
	uvm_model_tools_va_space_init(vs);
	*va_space_ptr = vs;
	return 0;
}

noinline void uvm_va_space_destroy(uvm_va_space_t *va_space)
{
	kfree(va_space);
}

noinline void uvm_perf_event_notify(uvm_perf_va_space_events_t *va_space_events,
				    uvm_perf_event_t event_id, uvm_perf_event_data_t *event_data)
{
	/* The driver calls its registered callbacks here. */
	barrier_data(event_data);
	if (va_space_events)
		va_space_events->callbacks++;
}

noinline int service_fault_batch(uvm_parent_gpu_t *parent_gpu, fault_service_mode_t service_mode,
				 uvm_fault_service_batch_context_t *batch_context)
{
	if (batch_service)
		batch_service();
	return 0;
}

noinline int push_replay_on_gpu(uvm_gpu_t *gpu, uvm_fault_replay_type_t type,
				uvm_fault_service_batch_context_t *batch_context)
{
	batch_context->num_replays++;
	return 0;
}

noinline int evict_root_chunk(uvm_pmm_gpu_t *pmm, uvm_gpu_root_chunk_t *root_chunk,
			      uvm_pmm_context_t pmm_context)
{
	barrier_data(root_chunk);
	return 0;
}

int uvm_model_ev_open(struct file *file)
{
	uvm_va_space_t *vs = NULL;
	int ret = uvm_va_space_create(file->f_mapping, &vs, 0);

	if (!ret)
		file->private_data = vs;
	return ret;
}

void uvm_model_ev_release(struct file *file)
{
	if (cur_va_space == file->private_data)
		cur_va_space = NULL;
	uvm_va_space_destroy(file->private_data);
}

void uvm_model_ev_current(struct file *file)
{
	cur_va_space = file->private_data;
}

static uvm_perf_va_space_events_t *cur_events(void)
{
	return cur_va_space ? &cur_va_space->perf_events : NULL;
}

/* The model's offset as an address (uvm_model_uapi.h). */
static NvU64 cur_va(NvU64 offset)
{
	return UVM_MODEL_VA_BASE + offset;
}

void uvm_model_ev_fault(NvU64 addr, bool write, bool duplicate, NvU32 batch_id)
{
	uvm_fault_buffer_entry_t entry = {
		.fault_address = cur_va(addr) & ~(MODEL_PAGE_SIZE - 1),
		.timestamp = ktime_get_ns(),
		.fault_access_type = write ? UVM_FAULT_ACCESS_TYPE_WRITE : UVM_FAULT_ACCESS_TYPE_READ,
		.va_space = cur_va_space,
	};
	uvm_perf_event_data_t data = {
		.fault = {
			.space = cur_va_space,
			.proc_id = { MODEL_GPU_ID },
			.gpu = {
				.buffer_entry = &entry,
				.batch_id = batch_id,
				.is_duplicate = duplicate,
			},
		},
	};

	uvm_perf_event_notify(cur_events(), UVM_PERF_EVENT_FAULT, &data);
	if (cur_va_space)
		uvm_model_tools_fault(cur_va_space, entry.fault_address, write, duplicate, batch_id);
}

static void notify_migration(NvU64 addr, NvU64 bytes, uvm_processor_id_t dst,
			     uvm_processor_id_t src, uvm_make_resident_cause_t cause)
{
	uvm_perf_event_data_t data = {
		.migration = {
			.cpu_start_timestamp = ktime_get_ns(),
			.dst = dst,
			.src = src,
			.address = cur_va(addr),
			.bytes = bytes,
			.cause = cause,
		},
	};

	uvm_perf_event_notify(cur_events(), UVM_PERF_EVENT_MIGRATION, &data);
	if (cur_va_space)
		uvm_model_tools_migration(cur_va_space, data.migration.address, bytes,
					  dst.val != 0, cause, data.migration.cpu_start_timestamp);
}

void uvm_model_ev_migrate(NvU64 addr, NvU64 bytes, bool prefetch)
{
	notify_migration(addr, bytes, (uvm_processor_id_t){ MODEL_GPU_ID },
			 (uvm_processor_id_t){ 0 },
			 prefetch ? UVM_MAKE_RESIDENT_CAUSE_PREFETCH :
			 UVM_MAKE_RESIDENT_CAUSE_REPLAYABLE_FAULT);
}

void uvm_model_ev_migrate_user(NvU64 addr, NvU64 bytes, bool to_gpu)
{
	uvm_processor_id_t gpu = { MODEL_GPU_ID }, cpu = { 0 };

	notify_migration(addr, bytes, to_gpu ? gpu : cpu, to_gpu ? cpu : gpu,
			 UVM_MAKE_RESIDENT_CAUSE_API_MIGRATE);
}

/* The CPU's fault: the tools event only (the driver's perf event is not modelled for the CPU). */
void uvm_model_ev_cpu_fault(NvU64 addr, bool write)
{
	if (cur_va_space)
		uvm_model_tools_cpu_fault(cur_va_space, cur_va(addr) & ~(MODEL_PAGE_SIZE - 1), write);
}

void uvm_model_ev_evict(uvm_gpu_chunk_t *chunk, NvU64 addr, NvU64 bytes)
{
	uvm_gpu_root_chunk_t root = { .chunk = *chunk };

	evict_root_chunk(&model_pmm, &root, 0);
	if (cur_va_space && bytes)
		uvm_model_tools_eviction(cur_va_space, cur_va(addr), bytes);
	if (bytes)
		notify_migration(addr, bytes, (uvm_processor_id_t){ 0 },
				 (uvm_processor_id_t){ MODEL_GPU_ID },
				 UVM_MAKE_RESIDENT_CAUSE_EVICTION);
}

/* The driver's thrashing detection reports to tools only (no perf event). */
void uvm_model_ev_thrashing(NvU64 addr, NvU64 bytes)
{
	if (cur_va_space)
		uvm_model_tools_thrashing(cur_va_space, cur_va(addr), bytes);
}

static uvm_fault_service_batch_context_t batch_ctx;

void uvm_model_ev_replay(NvU32 batch_id)
{
	batch_ctx.batch_id = batch_id;
	push_replay_on_gpu(&model_gpu, 0, &batch_ctx);
	if (cur_va_space)
		uvm_model_tools_replay(cur_va_space, batch_id);
}

void uvm_model_ev_service_batch(NvU32 batch_id, NvU32 entries, NvU32 duplicates,
				void (*service)(void))
{
	batch_ctx = (uvm_fault_service_batch_context_t){
		.num_cached_faults = entries,
		.num_coalesced_faults = entries - duplicates,
		.num_duplicate_faults = duplicates,
		.batch_id = batch_id,
	};
	batch_service = service;
	service_fault_batch(&model_parent_gpu, 0, &batch_ctx);
	batch_service = NULL;
}
