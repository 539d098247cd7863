/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uvm_model_events.h - the stock nvidia-uvm trace points, modelled: functions
 * with the driver's names and argument lists (uvm_perf_event_notify,
 * service_fault_batch, push_replay_on_gpu, evict_root_chunk,
 * uvm_va_space_create/destroy) and types carrying the member names the
 * gpuctl trace programs read, so one CO-RE program attaches to both the
 * model and nvidia_uvm.
 */
#ifndef __UVM_MODEL_EVENTS_H__
#define __UVM_MODEL_EVENTS_H__

#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "uvm_bpf_ext.h"
#include "uvm_model_uapi.h"

struct file;
struct address_space;
struct uvm_va_block_struct;

typedef struct {
	NvU32 val;
} uvm_processor_id_t;

typedef uvm_processor_id_t uvm_gpu_id_t;

/* uvm_perf_event_t: the values the driver uses. */
typedef enum {
	UVM_PERF_EVENT_BLOCK_DESTROY = 0,
	UVM_PERF_EVENT_BLOCK_SHRINK,
	UVM_PERF_EVENT_BLOCK_MUNMAP,
	UVM_PERF_EVENT_RANGE_DESTROY,
	UVM_PERF_EVENT_RANGE_SHRINK,
	UVM_PERF_EVENT_MODULE_UNLOAD,
	UVM_PERF_EVENT_FAULT,
	UVM_PERF_EVENT_MIGRATION,
	UVM_PERF_EVENT_REVOCATION,
	UVM_PERF_EVENT_COUNT,
} uvm_perf_event_t;

typedef enum {
	UVM_MAKE_RESIDENT_CAUSE_REPLAYABLE_FAULT,
	UVM_MAKE_RESIDENT_CAUSE_NON_REPLAYABLE_FAULT,
	UVM_MAKE_RESIDENT_CAUSE_ACCESS_COUNTER,
	UVM_MAKE_RESIDENT_CAUSE_PREFETCH,
	UVM_MAKE_RESIDENT_CAUSE_EVICTION,
	UVM_MAKE_RESIDENT_CAUSE_API_TOOLS,
	UVM_MAKE_RESIDENT_CAUSE_API_MIGRATE,
	UVM_MAKE_RESIDENT_CAUSE_API_SET_RANGE_GROUP,
	UVM_MAKE_RESIDENT_CAUSE_API_HINT,
	UVM_MAKE_RESIDENT_CAUSE_MAX
} uvm_make_resident_cause_t;

typedef enum {
	UVM_FAULT_ACCESS_TYPE_PREFETCH = 0,
	UVM_FAULT_ACCESS_TYPE_READ,
	UVM_FAULT_ACCESS_TYPE_WRITE,
	UVM_FAULT_ACCESS_TYPE_ATOMIC_WEAK,
	UVM_FAULT_ACCESS_TYPE_ATOMIC_STRONG,
	UVM_FAULT_ACCESS_TYPE_COUNT
} uvm_fault_access_type_t;

typedef struct uvm_va_space_struct uvm_va_space_t;

typedef struct uvm_fault_buffer_entry_struct {
	NvU64 fault_address;
	NvU64 timestamp;
	uvm_fault_access_type_t fault_access_type : 4;	/* a bitfield, as in the driver */
	uvm_va_space_t *va_space;
} uvm_fault_buffer_entry_t;

typedef struct uvm_perf_va_space_events_struct {
	unsigned long callbacks;
} uvm_perf_va_space_events_t;

struct uvm_va_space_struct {
	NvU32 id;
	uvm_perf_va_space_events_t perf_events;
	/* The model's: */
	bool initialized;	/* UVM_INITIALIZE done (uvm_model_uvmdev.c) */
	NvU64 init_flags;
	struct { NvU64 start, end; } maps[UVM_MODEL_MAX_MAPS];	/* managed memory mapped */
	NvU32 nmaps;
	spinlock_t tools_lock;	/* trackers (uvm_model_tools.c) and maps */
	struct list_head trackers;
};

/* uvm_perf_event_data_t: a typedef of an anonymous union, as in the driver. */
typedef union {
	struct {
		uvm_va_space_t *space;
		struct uvm_va_block_struct *block;
		uvm_processor_id_t proc_id;
		uvm_processor_id_t preferred_location;
		union {
			struct {
				uvm_fault_buffer_entry_t *buffer_entry;
				NvU32 batch_id;
				bool is_duplicate;
			} gpu;
			struct {
				NvU64 fault_va;
				bool is_write;
				NvU64 pc;
			} cpu;
		};
	} fault;
	struct {
		NvU64 cpu_start_timestamp;
		struct uvm_va_block_struct *block;
		uvm_processor_id_t dst;
		uvm_processor_id_t src;
		NvU16 dst_nid;
		NvU16 src_nid;
		NvU64 address;
		NvU64 bytes;
		int transfer_mode;
		uvm_make_resident_cause_t cause;
	} migration;
} uvm_perf_event_data_t;

typedef struct uvm_fault_service_batch_context_struct {
	NvU32 num_cached_faults;
	NvU32 num_coalesced_faults;
	NvU32 num_duplicate_faults;
	NvU32 num_replays;
	NvU32 batch_id;
} uvm_fault_service_batch_context_t;

typedef struct uvm_parent_gpu_struct {
	uvm_gpu_id_t id;
} uvm_parent_gpu_t;

typedef struct uvm_gpu_struct {
	uvm_gpu_id_t id;
	uvm_parent_gpu_t *parent;
} uvm_gpu_t;

typedef struct {
	uvm_gpu_chunk_t chunk;
} uvm_gpu_root_chunk_t;

typedef struct uvm_pmm_gpu_struct {
	NvU32 id;
} uvm_pmm_gpu_t;

typedef int fault_service_mode_t;
typedef int uvm_fault_replay_type_t;
typedef int uvm_pmm_context_t;

/* The trace points (noinline, global: in the module's BTF). */
int uvm_va_space_create(struct address_space *mapping, uvm_va_space_t **va_space_ptr,
			NvU64 flags);
void uvm_va_space_destroy(uvm_va_space_t *va_space);
void uvm_perf_event_notify(uvm_perf_va_space_events_t *va_space_events,
			   uvm_perf_event_t event_id, uvm_perf_event_data_t *event_data);
int service_fault_batch(uvm_parent_gpu_t *parent_gpu, fault_service_mode_t service_mode,
			uvm_fault_service_batch_context_t *batch_context);
int push_replay_on_gpu(uvm_gpu_t *gpu, uvm_fault_replay_type_t type,
		       uvm_fault_service_batch_context_t *batch_context);
int evict_root_chunk(uvm_pmm_gpu_t *pmm, uvm_gpu_root_chunk_t *root_chunk,
		     uvm_pmm_context_t pmm_context);

/* What uvm_model_main.c calls: one line per place. */
int uvm_model_ev_open(struct file *file);	/* va_space of this open file */
void uvm_model_ev_release(struct file *file);
void uvm_model_ev_current(struct file *file);	/* ioctl on this file begins */
void uvm_model_ev_fault(NvU64 addr, bool write, bool duplicate, NvU32 batch_id);
void uvm_model_ev_migrate(NvU64 addr, NvU64 bytes, bool prefetch);
void uvm_model_ev_migrate_user(NvU64 addr, NvU64 bytes, bool to_gpu);	/* UVM_MIGRATE */
void uvm_model_ev_cpu_fault(NvU64 addr, bool write);	/* the CPU faulted on a GPU page */
void uvm_model_ev_evict(uvm_gpu_chunk_t *chunk, NvU64 addr, NvU64 bytes);
void uvm_model_ev_replay(NvU32 batch_id);
void uvm_model_ev_thrashing(NvU64 addr, NvU64 bytes);
void uvm_model_ev_service_batch(NvU32 batch_id, NvU32 entries, NvU32 duplicates,
				void (*service)(void));

/*
 * The tools device (uvm_model_tools.c), called from the trace points as
 * the driver's tools callbacks are: va is the address in the va_space.
 */
void uvm_model_tools_va_space_init(uvm_va_space_t *vs);
void uvm_model_tools_fault(uvm_va_space_t *vs, NvU64 va, bool write, bool duplicate,
			   NvU32 batch_id);
void uvm_model_tools_cpu_fault(uvm_va_space_t *vs, NvU64 va, bool write);
void uvm_model_tools_migration(uvm_va_space_t *vs, NvU64 va, NvU64 bytes, bool to_gpu,
			       uvm_make_resident_cause_t cause, NvU64 begin_ns);
void uvm_model_tools_replay(uvm_va_space_t *vs, NvU32 batch_id);
void uvm_model_tools_eviction(uvm_va_space_t *vs, NvU64 va, NvU64 bytes);
void uvm_model_tools_thrashing(uvm_va_space_t *vs, NvU64 va, NvU64 bytes);

#endif
