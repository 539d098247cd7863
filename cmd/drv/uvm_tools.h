/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uvm_tools.h - the driver ABI of NVIDIA's UVM tools API
 * (/dev/nvidia-uvm-tools, used on a process's own /dev/nvidia-uvm file):
 * ioctl numbers, parameter structs, the event queue's control page and
 * entries, the event and counter numbers.  Written out from the driver's
 * uvm_ioctl.h and uvm_types.h for the fields gpuctl reads; the sizes are
 * checked at compile time.  It lives in cmd/drv/ with the other driver ABIs;
 * the code that uses it: cmd/drv/ut.h.
 */
#ifndef GPUCTL_UVM_TOOLS_H
#define GPUCTL_UVM_TOOLS_H

/* Compiled by gpuctl and by the model module (tests/model). */
#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdint.h>
#endif

#include "uvm_ioctl.h"	/* NV_STATUS codes, the UVM fd's own requests */

/*
 * ioctl request numbers on Linux are the bare UVM_IOCTL_BASE(i) values.
 * Two generations of the event-queue interface exist:
 *   550..555: INIT_EVENT_TRACKER (56) takes requestedVersion and answers
 *             grantedVersion; the V2 control page has a version word.
 *   565 and later: INIT_EVENT_TRACKER makes a V1 queue (64-byte entries);
 *             INIT_EVENT_TRACKER_V2 (76) makes a V2 queue.  No version words.
 * The V2 entry is 72 bytes in both; the GPU fault entry moved its gpuIndex
 * and accessType fields in 555.  (560 changed the 56 parameters once more
 * and is not supported.)
 */
#define UT_IOC_INIT_EVENT_TRACKER	56
#define UT_IOC_SET_NOTIFICATION_THRESHOLD 57
#define UT_IOC_ENABLE_EVENTS		58
#define UT_IOC_DISABLE_EVENTS		59
#define UT_IOC_ENABLE_COUNTERS		60
#define UT_IOC_DISABLE_COUNTERS		61
#define UT_IOC_FLUSH_EVENTS		UVM_TOOLS_FLUSH_EVENTS	/* on the UVM fd */
#define UT_IOC_INIT_EVENT_TRACKER_V2	76

/* NV_STATUS values gpuctl explains (uvm_ioctl.h). */
#define UT_NV_OK			UVM_NV_OK
#define UT_NV_ERR_ILLEGAL_ACTION	UVM_NV_ERR_ILLEGAL_ACTION
#define UT_NV_ERR_INSUFFICIENT_PERMISSIONS UVM_NV_ERR_INSUFFICIENT_PERMISSIONS
#define UT_NV_ERR_INVALID_ARGUMENT	UVM_NV_ERR_INVALID_ARGUMENT

/* UvmEventType */
enum {
	UT_EV_CPU_FAULT = 1,
	UT_EV_MIGRATION = 2,
	UT_EV_GPU_FAULT = 3,
	UT_EV_GPU_FAULT_REPLAY = 4,
	UT_EV_FAULT_BUFFER_OVERFLOW = 5,
	UT_EV_FATAL_FAULT = 6,
	UT_EV_THRASHING = 10,
	UT_EV_THROTTLING_START = 11,
	UT_EV_EVICTION = 14,
	UT_EV_NUM_TYPES = 15,	/* valid in masks: 1 .. UT_EV_NUM_TYPES - 1 */
	UT_EV_NUM_ALL = 64,
};

/* UvmCounterName: indexes into the counter array. */
enum {
	UT_CTR_BYTES_HTOD = 0,
	UT_CTR_BYTES_DTOH = 1,
	UT_CTR_CPU_FAULTS = 2,
	UT_CTR_PREFETCH_HTOD = 7,
	UT_CTR_PREFETCH_DTOH = 8,
	UT_CTR_GPU_FAULTS = 9,
	UT_CTR_TOTAL = 10,
};

/* Which V2 layout a queue carries. */
enum ut_abi {
	UT_ABI_550 = 1,		/* ioctl 56 + requestedVersion 2 */
	UT_ABI_565 = 2,		/* ioctl 76 */
};

#define UT_QUEUE_VERSION 2

struct ut_init_params {		/* UVM_TOOLS_INIT_EVENT_TRACKER(_V2)_PARAMS */
	uint64_t queue_buffer;
	uint64_t queue_buffer_size;	/* entries, a power of 2; 0: counters */
	uint64_t control_buffer;
	uint8_t processor[16];
	uint32_t all_processors;
	uint32_t uvm_fd;
	uint32_t rm_status;
	uint32_t requested_version;	/* 550..555 only; later drivers ignore both */
	uint32_t granted_version;
	uint32_t pad;
};
_Static_assert(sizeof(struct ut_init_params) == 64, "UVM_TOOLS_INIT_EVENT_TRACKER_PARAMS");
/* 565 and later copy only up to rm_status: 56 bytes. */
#define UT_INIT_PARAMS_565_SIZE 56
_Static_assert(__builtin_offsetof(struct ut_init_params, rm_status) == 48,
	       "UVM_TOOLS_INIT_EVENT_TRACKER_PARAMS.rmStatus");

struct ut_flags_params {	/* UVM_TOOLS_ENABLE/DISABLE_EVENTS, _ENABLE_COUNTERS_PARAMS */
	uint64_t flags;		/* 1 << UT_EV_* or 1 << UT_CTR_* */
	uint32_t rm_status;
	uint32_t pad;
};
_Static_assert(sizeof(struct ut_flags_params) == 16, "UVM_TOOLS_ENABLE_EVENTS_PARAMS");

struct ut_threshold_params {	/* UVM_TOOLS_SET_NOTIFICATION_THRESHOLD_PARAMS */
	uint32_t threshold;
	uint32_t rm_status;
};

struct ut_ctrl {		/* UvmToolsEventControlData: the indexes */
	volatile uint32_t get_ahead;
	volatile uint32_t get_behind;
	volatile uint32_t put_ahead;
	volatile uint32_t put_behind;
	/* 550: uint32_t version, pad; then (both) uint64_t dropped[UT_EV_NUM_ALL] */
};
_Static_assert(sizeof(struct ut_ctrl) == 16, "UvmToolsEventControlData indexes");

/* Where dropped[] starts in the control page. */
#define UT_CTRL_DROPPED_550 24
#define UT_CTRL_DROPPED_565 16
#define UT_CTRL_BYTES (UT_CTRL_DROPPED_550 + 8 * UT_EV_NUM_ALL)

#define UT_ENTRY_SIZE 72	/* sizeof(UvmEventEntry_V2), 550 through 595 */

/*
 * Byte offsets of the fields gpuctl reads in a V2 entry (byte 0 is the
 * event type in all of them), per uvm_types.h's _V2 structs.
 */
enum {
	/* UvmEventGpuFaultInfo_V2: accessType and gpuIndex swapped places in 555 */
	UT_GPU_FAULT_ACCESS_550 = 2,	/* u8 */
	UT_GPU_FAULT_ACCESS_565 = 37,
	UT_GPU_FAULT_GPU_550 = 38,	/* u16 UVM processor id */
	UT_GPU_FAULT_GPU_565 = 2,
	UT_GPU_FAULT_ADDR = 8,		/* u64 */
	UT_GPU_FAULT_TS = 16,		/* u64 */
	UT_GPU_FAULT_BATCH = 32,	/* u32 */
	UT_GPU_FAULT_TYPE = 1,		/* u8 UvmEventFaultType */
	UT_GPU_FAULT_TS_GPU = 24,	/* u64 */
	UT_GPU_FAULT_CLIENT_565 = 36,	/* u8 UvmEventFaultClientType */
	/* UvmEventCpuFaultInfo */
	UT_CPU_FAULT_ACCESS = 1,	/* u8 */
	UT_CPU_FAULT_ADDR = 8,
	UT_CPU_FAULT_TS = 16,
	UT_CPU_FAULT_PID = 24,		/* u32 */
	/* UvmEventMigrationInfo_V2 */
	UT_MIGRATION_CAUSE = 1,		/* u8 UvmEventMigrationCause */
	UT_MIGRATION_SRC = 4,		/* u16 processor ids */
	UT_MIGRATION_DST = 6,
	UT_MIGRATION_SRC_NID = 8,	/* s32 NUMA nodes, -1 for GPUs */
	UT_MIGRATION_DST_NID = 12,
	UT_MIGRATION_ADDR = 16,
	UT_MIGRATION_BYTES = 24,
	UT_MIGRATION_BEGIN = 32,	/* u64 timestamps */
	UT_MIGRATION_END = 40,
	/* UvmEventGpuFaultReplayInfo_V2 */
	UT_REPLAY_GPU = 2,
	UT_REPLAY_BATCH = 4,
	UT_REPLAY_TS = 8,
	/* UvmEventEvictionInfo_V2 */
	UT_EVICTION_SRC = 4,
	UT_EVICTION_DST = 6,
	UT_EVICTION_ADDR = 8,		/* addressOut */
	UT_EVICTION_ADDR_IN = 16,	/* the address whose fault evicted */
	UT_EVICTION_BYTES = 24,
	UT_EVICTION_TS = 32,
	/* UvmEventThrashingDetectedInfo_V2 */
	UT_THRASHING_ADDR = 8,
	UT_THRASHING_BYTES = 16,
	UT_THRASHING_TS = 24,
	UT_THRASHING_PROCESSORS = 32,	/* u64 mask by processor id value */
};

/* Values of the fields the model writes (UvmEvent* enums). */
enum {
	UT_ACCESS_READ = 1,		/* UvmEventMemoryAccessType */
	UT_ACCESS_WRITE = 2,
	UT_CAUSE_USER = 1,		/* UvmEventMigrationCause */
	UT_CAUSE_COHERENCE = 2,
	UT_CAUSE_PREFETCH = 3,
	UT_CAUSE_EVICTION = 4,
	UT_FAULT_TYPE_INVALID_PTE = 2,	/* UvmEventFaultType */
	UT_CLIENT_GPC = 1,		/* UvmEventFaultClientType: replayable */
};

/*
 * V2 entries name processors by UVM id value: 0 the CPU, then 8 per GPU
 * (UVM_PARENT_ID_MAX_SUB_PROCESSORS, MIG sub-processors).
 */
#define UT_SUB_PROCESSORS 8

#endif
