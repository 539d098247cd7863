/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace_uvm.h - the ABI of the trace BPF object (trace_uvm.bpf.c) and of the
 * events gpuctl trace records: struct gt_event is what the object's ring
 * buffer carries, what every back-end delivers (the rm and uvm-tools ones
 * fill it themselves) and what a record file stores, byte for byte.  So its
 * layout is part of the record format: never reorder, only append (the file
 * header's event_size tells a reader how much there is).  Also the counter
 * slots of the object's per-(pid, GPU) counters map.
 *
 * Included by the .bpf.c and by the C side; plain kernel types on both.
 */
#ifndef GPUCTL_TRACE_UVM_H
#define GPUCTL_TRACE_UVM_H

#include <linux/types.h>

enum gt_type {
	GT_EV_NONE = 0,
	GT_EV_GPU_FAULT = 1,	/* one replayable GPU fault (duplicates flagged) */
	GT_EV_CPU_FAULT = 2,
	GT_EV_MIGRATION = 3,	/* bytes moved; cause says why */
	GT_EV_EVICTION = 4,	/* GPU memory taken back (bytes) */
	GT_EV_REPLAY = 5,	/* fault replay issued */
	GT_EV_BATCH = 6,	/* a fault batch serviced: count, latency */
	GT_EV_THRASHING = 7,
	GT_EV_TSG = 8,		/* TSG created (rm backend; fields below) */
	GT_EV_LOST = 9,		/* count events dropped by the backend */
	/* Added after version 1's first release: a reader without them refuses
	 * a record that has them (as a corrupt event type), nothing else. */
	GT_EV_TSG_FREE = 10,	/* TSG freed, itself or with its client */
	GT_EV_TSG_SET = 11,	/* its process set a scheduling control itself */
	/* Record format version 2 (user space writes them; no back-end's ring
	 * carries them): a version-1 record that has them is corrupt. */
	GT_EV_ALLOC = 12,	/* a managed allocation [addr, addr + bytes) of pid seen */
	GT_EV_FREE = 13,	/* ... gone */
	GT_EV_META = 14,	/* a table entry, count payload bytes follow (record.h) */
	GT_EV_MAX
};

/*
 * TSG events (rm backend: the RM escapes a process issues on NVIDIA's device):
 *   pid     the process (tgid) that allocated the TSG
 *   ts_ns   CLOCK_BOOTTIME: TSG: when RM allocated it; TSG_FREE, TSG_SET:
 *           when gpuctl read the event (microseconds after the ioctl)
 *   addr    hTsg, the TSG's RM handle
 *   batch   hClient, the RM client it belongs to
 *   count   the TSG's number in this trace (1, 2, ...; not sched's ID)
 *   cause   TSG_SET: the control (enum gt_tsg_ctl)
 *   bytes   TSG_SET: the value (timeslice in us, interleave level 0..2)
 *   flags   TSG_FREE: GT_F_WITH_CLIENT when its whole client was freed,
 *           GT_F_AT_EXIT when its process exited holding it
 *   gpu     GT_GPU_NONE
 */
enum gt_tsg_ctl {
	GT_TSG_CTL_NONE = 0,
	GT_TSG_CTL_TIMESLICE = 1,	/* NVA06C_CTRL_CMD_SET_TIMESLICE */
	GT_TSG_CTL_INTERLEAVE = 2,	/* NVA06C_CTRL_CMD_SET_INTERLEAVE_LEVEL */
	GT_TSG_CTL_PREEMPT = 3,		/* NVA06C_CTRL_CMD_PREEMPT (value 0) */
	GT_TSG_CTL_MAX
};

#define GT_TSG_TYPES ((1u << GT_EV_TSG) | (1u << GT_EV_TSG_FREE) | (1u << GT_EV_TSG_SET))

/* Migration causes: the tools API's UvmEventMigrationCause values. */
enum gt_cause {
	GT_CAUSE_NONE = 0,
	GT_CAUSE_USER = 1,
	GT_CAUSE_FAULT = 2,	/* "coherence": demand paging */
	GT_CAUSE_PREFETCH = 3,
	GT_CAUSE_EVICTION = 4,
	GT_CAUSE_ACCESS_COUNTER = 5,
	GT_CAUSE_MAX
};

enum gt_access {
	GT_ACC_NONE = 0,
	GT_ACC_READ = 1,
	GT_ACC_WRITE = 2,
	GT_ACC_ATOMIC = 3,
	GT_ACC_PREFETCH = 4,
	GT_ACC_MAX
};

enum gt_flag {
	GT_F_DUPLICATE = 0x01,	/* fault already in the batch */
	GT_F_TO_GPU = 0x02,	/* migration host -> device */
	GT_F_TO_CPU = 0x04,	/* migration device -> host */
	GT_F_WITH_CLIENT = 0x08,	/* TSG_FREE: freed with its whole client */
	GT_F_AT_EXIT = 0x10,	/* TSG_FREE: its process exited without freeing it */
	GT_F_FROM_MAPS = 0x20,	/* ALLOC/FREE: found in /proc/PID/maps at ts (made earlier) */
};

#define GT_GPU_NONE 0xffff
#define GT_PROC_CPU 0xffff

struct gt_event {
	__u64 ts_ns;		/* backend clock; report shows it relative */
	__u64 addr;
	__u64 bytes;
	__u64 latency_ns;	/* 0: unknown */
	__u32 pid;		/* 0: unknown */
	__u32 batch;		/* batch id */
	__u32 count;		/* BATCH: faults; LOST: events dropped; TSG: number */
	__u16 gpu;		/* GPU index; GT_GPU_NONE */
	__u8 type;		/* enum gt_type */
	__u8 access;		/* enum gt_access */
	__u8 cause;		/* enum gt_cause */
	__u8 flags;		/* enum gt_flag */
	__u16 src;		/* processor index (GT_PROC_CPU) */
	__u16 dst;
	__u8 pad[2];
};

/* Record format version 1: these never move. */
_Static_assert(sizeof(struct gt_event) == 56, "gt_event is part of the record format");
_Static_assert(__builtin_offsetof(struct gt_event, latency_ns) == 24, "gt_event layout");
_Static_assert(__builtin_offsetof(struct gt_event, pid) == 32, "gt_event layout");
_Static_assert(__builtin_offsetof(struct gt_event, gpu) == 44, "gt_event layout");
_Static_assert(__builtin_offsetof(struct gt_event, type) == 46, "gt_event layout");
_Static_assert(__builtin_offsetof(struct gt_event, flags) == 49, "gt_event layout");
_Static_assert(__builtin_offsetof(struct gt_event, dst) == 52, "gt_event layout");

/* The counters map: per (pid, GPU); pid 0 / GT_GPU_NONE for what has no owner. */
struct gt_ctr_key {
	__u32 pid;
	__u32 gpu;
};

enum gt_ctr {
	GT_C_FAULT_ENTRIES,	/* GPU fault buffer entries */
	GT_C_DUPLICATES,	/* of which duplicates */
	GT_C_CPU_FAULTS,
	GT_C_BATCHES,		/* fault batches serviced */
	GT_C_BATCH_NS,		/* time servicing them */
	GT_C_REPLAYS,
	GT_C_BYTES_HTOD,
	GT_C_BYTES_DTOH,
	GT_C_PREFETCH_BYTES,
	GT_C_EVICT_BYTES,	/* migrated out because of an eviction */
	GT_C_EVICTIONS,
	GT_C_MIGRATIONS,
	GT_C_NR
};

struct gt_ctr_val {
	__u64 c[GT_C_NR];
};

#endif
