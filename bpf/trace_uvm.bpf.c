// SPDX-License-Identifier: GPL-2.0
/*
 * trace_uvm: the bpf backend of `gpuctl trace` and `gpuctl stat`.
 * fentry/fexit on the stock nvidia-uvm functions (or the model's, which
 * have the same names and argument lists), CO-RE against module BTF:
 *   uvm_perf_event_notify    FAULT (6) and MIGRATION (7) events
 *   service_fault_batch      a whole batch: size, duplicates, latency
 *   push_replay_on_gpu       replays
 *   evict_root_chunk         evictions of GPU memory
 *   uvm_va_space_create/destroy   va_space -> pid (process context)
 * gpuctl sets each program's attach target to the module that has the
 * function, and leaves out programs whose function is missing.
 * Events go to a ring buffer (only the types asked for); counters per
 * (pid, GPU) always.  Both are laid out in trace_uvm.h, gpuctl's side of
 * the same definitions.
 */
#include <linux/bpf.h>
#include <linux/types.h>
#include <stdbool.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "trace_uvm.h"

char LICENSE[] SEC("license") = "GPL";

/* ---- the driver's types, the members read (names as in nvidia-uvm) ---- */

typedef struct {
	__u32 val;
} uvm_processor_id_t;

typedef enum {
	UVM_FAULT_ACCESS_TYPE_PREFETCH = 0,
	UVM_FAULT_ACCESS_TYPE_READ,
	UVM_FAULT_ACCESS_TYPE_WRITE,
	UVM_FAULT_ACCESS_TYPE_ATOMIC_WEAK,
	UVM_FAULT_ACCESS_TYPE_ATOMIC_STRONG,
} uvm_fault_access_type_t;

typedef enum {
	UVM_MAKE_RESIDENT_CAUSE_REPLAYABLE_FAULT,
	UVM_MAKE_RESIDENT_CAUSE_NON_REPLAYABLE_FAULT,
	UVM_MAKE_RESIDENT_CAUSE_ACCESS_COUNTER,
	UVM_MAKE_RESIDENT_CAUSE_PREFETCH,
	UVM_MAKE_RESIDENT_CAUSE_EVICTION,
} uvm_make_resident_cause_t;

struct uvm_fault_buffer_entry_struct {
	__u64 fault_address;
	uvm_fault_access_type_t fault_access_type : 4;
} __attribute__((preserve_access_index));

struct uvm_perf_va_space_events_struct {
	int unused;
} __attribute__((preserve_access_index));

struct uvm_va_space_struct {
	struct uvm_perf_va_space_events_struct perf_events;
} __attribute__((preserve_access_index));

typedef union {
	struct {
		struct uvm_va_space_struct *space;
		uvm_processor_id_t proc_id;
		union {
			struct {
				struct uvm_fault_buffer_entry_struct *buffer_entry;
				__u32 batch_id;
				bool is_duplicate;
			} gpu;
			struct {
				__u64 fault_va;
				bool is_write;
			} cpu;
		};
	} fault;
	struct {
		uvm_processor_id_t dst;
		uvm_processor_id_t src;
		__u64 address;
		__u64 bytes;
		uvm_make_resident_cause_t cause;
	} migration;
} __attribute__((preserve_access_index)) uvm_perf_event_data_t;

struct uvm_fault_service_batch_context_struct {
	__u32 num_cached_faults;
	__u32 num_coalesced_faults;
	__u32 num_duplicate_faults;
	__u32 batch_id;
} __attribute__((preserve_access_index));

#define UVM_PERF_EVENT_FAULT 6
#define UVM_PERF_EVENT_MIGRATION 7
#define ROOT_CHUNK_SIZE (2ull << 20)

const volatile __u32 targ_tgid;		/* 0: all */
const volatile __u32 event_mask;	/* 1 << GT_EV_* sent to the ring buffer */

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct gt_ctr_key);
	__type(value, struct gt_ctr_val);
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);	/* va_space */
	__type(value, __u32);	/* tgid */
} va_space_pid SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);	/* pid_tgid of the servicing thread */
	__type(value, __u64);	/* start ns */
} batch_start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

static __always_inline void count(__u32 pid, __u32 gpu, enum gt_ctr idx, __u64 n)
{
	struct gt_ctr_key k = { .pid = pid, .gpu = gpu };
	struct gt_ctr_val *v = bpf_map_lookup_elem(&counters, &k);

	if (!v) {
		struct gt_ctr_val zero = {};

		bpf_map_update_elem(&counters, &k, &zero, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&counters, &k);
		if (!v)
			return;
	}
	if (idx < GT_C_NR)
		v->c[idx] += n;
}

static __always_inline bool wanted(__u32 type, __u32 pid)
{
	if (!(event_mask & (1u << type)))
		return false;
	return !targ_tgid || pid == targ_tgid || !pid;
}

static __always_inline struct gt_event *reserve(void)
{
	struct gt_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		__u32 zero = 0;
		__u64 *l = bpf_map_lookup_elem(&lost, &zero);

		if (l)
			*l += 1;
		return NULL;
	}
	__builtin_memset(e, 0, sizeof(*e));
	return e;
}

static __always_inline __u32 va_space_owner(void *va_space)
{
	__u64 key = (__u64)va_space;
	__u32 *pid = bpf_map_lookup_elem(&va_space_pid, &key);

	return pid ? *pid : 0;
}

static __always_inline __u16 gpu_index(__u32 proc_id)
{
	return proc_id ? proc_id - 1 : GT_GPU_NONE;	/* 0 is the CPU */
}

SEC("fentry/uvm_perf_event_notify")
int BPF_PROG(trace_event_notify, void *va_space_events, int event_id,
	     uvm_perf_event_data_t *data)
{
	struct gt_event *e;

	if (event_id == UVM_PERF_EVENT_FAULT) {
		void *space = BPF_CORE_READ(data, fault.space);
		__u32 proc = BPF_CORE_READ(data, fault.proc_id.val);
		__u32 pid = va_space_owner(space);

		if (!proc) {	/* CPU fault: process context */
			if (!pid)
				pid = bpf_get_current_pid_tgid() >> 32;
			count(pid, GT_GPU_NONE, GT_C_CPU_FAULTS, 1);
			if (!wanted(GT_EV_CPU_FAULT, pid) || !(e = reserve()))
				return 0;
			e->type = GT_EV_CPU_FAULT;
			e->addr = BPF_CORE_READ(data, fault.cpu.fault_va);
			e->access = BPF_CORE_READ(data, fault.cpu.is_write) ? GT_ACC_WRITE : GT_ACC_READ;
			e->gpu = GT_GPU_NONE;
		} else {
			struct uvm_fault_buffer_entry_struct *ent =
				BPF_CORE_READ(data, fault.gpu.buffer_entry);
			bool dup = BPF_CORE_READ(data, fault.gpu.is_duplicate);
			__u32 acc;

			count(pid, gpu_index(proc), GT_C_FAULT_ENTRIES, 1);
			if (dup)
				count(pid, gpu_index(proc), GT_C_DUPLICATES, 1);
			if (!wanted(GT_EV_GPU_FAULT, pid) || !(e = reserve()))
				return 0;
			e->type = GT_EV_GPU_FAULT;
			e->gpu = gpu_index(proc);
			e->batch = BPF_CORE_READ(data, fault.gpu.batch_id);
			e->flags = dup ? GT_F_DUPLICATE : 0;
			if (ent) {
				e->addr = BPF_CORE_READ(ent, fault_address);
				acc = BPF_CORE_READ_BITFIELD_PROBED(ent, fault_access_type);
				e->access = acc == UVM_FAULT_ACCESS_TYPE_PREFETCH ? GT_ACC_PREFETCH :
					    acc == UVM_FAULT_ACCESS_TYPE_READ ? GT_ACC_READ :
					    acc == UVM_FAULT_ACCESS_TYPE_WRITE ? GT_ACC_WRITE : GT_ACC_ATOMIC;
			}
		}
		e->pid = pid;
		e->ts_ns = bpf_ktime_get_ns();
		e->src = e->dst = GT_PROC_CPU;
		bpf_ringbuf_submit(e, 0);
		return 0;
	}
	if (event_id == UVM_PERF_EVENT_MIGRATION) {
		/* va_space_events is &va_space->perf_events. */
		void *space = (void *)va_space_events -
			bpf_core_field_offset(struct uvm_va_space_struct, perf_events);
		__u32 pid = va_space_owner(space);
		__u32 dst = BPF_CORE_READ(data, migration.dst.val);
		__u32 src = BPF_CORE_READ(data, migration.src.val);
		__u64 bytes = BPF_CORE_READ(data, migration.bytes);
		__u32 cause = BPF_CORE_READ(data, migration.cause);
		__u8 gcause;
		__u16 gpu = dst ? gpu_index(dst) : gpu_index(src);

		gcause = cause == UVM_MAKE_RESIDENT_CAUSE_PREFETCH ? GT_CAUSE_PREFETCH :
			 cause == UVM_MAKE_RESIDENT_CAUSE_EVICTION ? GT_CAUSE_EVICTION :
			 cause == UVM_MAKE_RESIDENT_CAUSE_ACCESS_COUNTER ? GT_CAUSE_ACCESS_COUNTER :
			 cause <= UVM_MAKE_RESIDENT_CAUSE_NON_REPLAYABLE_FAULT ? GT_CAUSE_FAULT :
			 GT_CAUSE_USER;
		count(pid, gpu, GT_C_MIGRATIONS, 1);
		count(pid, gpu, dst ? GT_C_BYTES_HTOD : GT_C_BYTES_DTOH, bytes);
		if (gcause == GT_CAUSE_PREFETCH)
			count(pid, gpu, GT_C_PREFETCH_BYTES, bytes);
		if (gcause == GT_CAUSE_EVICTION)
			count(pid, gpu, GT_C_EVICT_BYTES, bytes);
		if (!wanted(GT_EV_MIGRATION, pid) || !(e = reserve()))
			return 0;
		e->type = GT_EV_MIGRATION;
		e->pid = pid;
		e->ts_ns = bpf_ktime_get_ns();
		e->addr = BPF_CORE_READ(data, migration.address);
		e->bytes = bytes;
		e->cause = gcause;
		e->gpu = gpu;
		e->src = src ? gpu_index(src) : GT_PROC_CPU;
		e->dst = dst ? gpu_index(dst) : GT_PROC_CPU;
		e->flags = dst ? GT_F_TO_GPU : GT_F_TO_CPU;
		bpf_ringbuf_submit(e, 0);
	}
	return 0;
}

SEC("fentry/service_fault_batch")
int BPF_PROG(trace_batch_enter, void *gpu, int mode, void *batch_context)
{
	__u64 id = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns();

	bpf_map_update_elem(&batch_start, &id, &now, BPF_ANY);
	return 0;
}

SEC("fexit/service_fault_batch")
int BPF_PROG(trace_batch_exit, void *gpu, int mode,
	     struct uvm_fault_service_batch_context_struct *bctx, int ret)
{
	__u64 id = bpf_get_current_pid_tgid(), lat = 0, *start;
	struct gt_event *e;

	start = bpf_map_lookup_elem(&batch_start, &id);
	if (start) {
		lat = bpf_ktime_get_ns() - *start;
		bpf_map_delete_elem(&batch_start, &id);
	}
	count(0, GT_GPU_NONE, GT_C_BATCHES, 1);
	count(0, GT_GPU_NONE, GT_C_BATCH_NS, lat);
	if (!wanted(GT_EV_BATCH, 0) || !(e = reserve()))
		return 0;
	e->type = GT_EV_BATCH;
	e->ts_ns = bpf_ktime_get_ns();
	e->latency_ns = lat;
	e->count = BPF_CORE_READ(bctx, num_cached_faults);
	e->batch = BPF_CORE_READ(bctx, batch_id);
	e->gpu = GT_GPU_NONE;
	e->src = e->dst = GT_PROC_CPU;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("fentry/push_replay_on_gpu")
int BPF_PROG(trace_replay, void *gpu, int type,
	     struct uvm_fault_service_batch_context_struct *bctx)
{
	struct gt_event *e;

	count(0, GT_GPU_NONE, GT_C_REPLAYS, 1);
	if (!wanted(GT_EV_REPLAY, 0) || !(e = reserve()))
		return 0;
	e->type = GT_EV_REPLAY;
	e->ts_ns = bpf_ktime_get_ns();
	e->batch = bctx ? BPF_CORE_READ(bctx, batch_id) : 0;
	e->gpu = GT_GPU_NONE;
	e->src = e->dst = GT_PROC_CPU;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("fentry/evict_root_chunk")
int BPF_PROG(trace_evict, void *pmm, void *root_chunk, int pmm_context)
{
	struct gt_event *e;

	count(0, GT_GPU_NONE, GT_C_EVICTIONS, 1);
	if (!wanted(GT_EV_EVICTION, 0) || !(e = reserve()))
		return 0;
	e->type = GT_EV_EVICTION;
	e->ts_ns = bpf_ktime_get_ns();
	e->bytes = ROOT_CHUNK_SIZE;
	e->gpu = GT_GPU_NONE;
	e->src = e->dst = GT_PROC_CPU;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/*
 * uvm_va_space_create(mapping, uvm_va_space_t **va_space_ptr, flags): the
 * verifier refuses direct context access to a pointer-to-pointer argument,
 * so read it with bpf_get_func_arg().
 */
SEC("fexit/uvm_va_space_create")
int trace_va_space_create(__u64 *ctx)
{
	__u64 ptr = 0, ret = 0, va_space = 0;
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (bpf_get_func_arg(ctx, 1, &ptr) || bpf_get_func_ret(ctx, &ret) || (int)ret || !ptr)
		return 0;
	bpf_probe_read_kernel(&va_space, sizeof(va_space), (void *)ptr);
	if (va_space)
		bpf_map_update_elem(&va_space_pid, &va_space, &tgid, BPF_ANY);
	return 0;
}

SEC("fentry/uvm_va_space_destroy")
int BPF_PROG(trace_va_space_destroy, void *va_space)
{
	__u64 key = (__u64)va_space;

	bpf_map_delete_elem(&va_space_pid, &key);
	return 0;
}
