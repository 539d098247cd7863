/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * uvm_ioctl.h - the part of NVIDIA's UVM user ABI (/dev/nvidia-uvm) that
 * gpuctl speaks on a process's UVM file: initialization, UVM_MIGRATE, the
 * range hints (preferred location, accessed-by, read duplication), the
 * processor UUID table and the NV_STATUS codes these answer with.
 *
 * Written from the layouts of the 580 driver's uvm_ioctl.h,
 * uvm_linux_ioctl.h, uvm_types.h and nvstatuscodes.h (open-gpu-kernel-
 * modules 580.142); the sizes are asserted below.  Compiled by gpuctl AND
 * by the model module (tests/model), so plain fixed-width types from
 * linux/types.h only, which both sides have.  The tools device's ABI is
 * its neighbour uvm_tools.h.
 *
 * On Linux a UVM ioctl request is the bare number (UVM_IOCTL_BASE(i) = i):
 * no size or direction is encoded, the driver copies sizeof(params) in and
 * out.  Every call answers 0 from ioctl(2) once the parameters were copied
 * and reports its outcome in rm_status; -1 with errno for an unknown
 * request (EINVAL) or an unreadable parameter block (EFAULT).
 */
#ifndef GPUCTL_UVM_IOCTL_H
#define GPUCTL_UVM_IOCTL_H

#include <linux/types.h>

/* --- NV_STATUS values (nvstatuscodes.h) ------------------------------- */
#define UVM_NV_OK				0x00000000
#define UVM_NV_ERR_ILLEGAL_ACTION		0x00000016	/* fd not UVM_INITIALIZE'd */
#define UVM_NV_ERR_IN_USE			0x00000017
#define UVM_NV_ERR_INSUFFICIENT_PERMISSIONS	0x0000001b
#define UVM_NV_ERR_INVALID_ADDRESS		0x0000001e	/* unaligned, or not managed memory */
#define UVM_NV_ERR_INVALID_ARGUMENT		0x0000001f
#define UVM_NV_ERR_INVALID_DEVICE		0x00000026	/* UUID of no GPU of this va_space */
#define UVM_NV_ERR_INVALID_FLAGS		0x00000029
#define UVM_NV_ERR_INVALID_OPERATION		0x00000038
#define UVM_NV_ERR_INVALID_STATE		0x00000040
#define UVM_NV_ERR_NO_MEMORY			0x00000051
#define UVM_NV_ERR_NOT_SUPPORTED		0x00000056
#define UVM_NV_ERR_OUT_OF_RANGE			0x0000005b	/* GPU cannot address the range */
#define UVM_NV_WARN_NOTHING_TO_DO		0x00010006

/* --- processors -------------------------------------------------------- */

/* NvProcessorUuid: a GPU's UUID (the 16 bytes of nvidia-smi's GPU-...). */
struct uvm_uuid {
	__u8 uuid[16];
};

/*
 * NV_PROCESSOR_UUID_CPU_DEFAULT: the UUID that names the CPU as a
 * destination (UVM_MIGRATE to system memory) and in UUID tables (index 0).
 */
#define UVM_CPU_UUID_BYTES { 0xa6, 0x5e, 0x0f, 0x4e, 0xd7, 0xd4, 0x7b, 0xa2, \
			     0x50, 0x47, 0x41, 0x2c, 0x14, 0x2a, 0x77, 0x73 }

/*
 * UUID tables are indexed by UVM processor id value: 0 the CPU, then
 * UVM_SUB_PROCESSORS per GPU (MIG), NV_MAX_DEVICES 32 GPUs.  V1 tables
 * hold parent GPUs only.
 */
#define UVM_SUB_PROCESSORS	8
#define UVM_MAX_PROCESSORS_V1	(32 + 1)
#define UVM_MAX_PROCESSORS_V2	(32 * UVM_SUB_PROCESSORS + 1)

/* --- ioctl numbers ------------------------------------------------------ */
#define UVM_INITIALIZE				0x30000001
#define UVM_DEINITIALIZE			0x30000002
#define UVM_SET_PREFERRED_LOCATION		42
#define UVM_UNSET_PREFERRED_LOCATION		43
#define UVM_ENABLE_READ_DUPLICATION		44
#define UVM_DISABLE_READ_DUPLICATION		45
#define UVM_SET_ACCESSED_BY			46
#define UVM_UNSET_ACCESSED_BY			47
#define UVM_MIGRATE				51
#define UVM_TOOLS_GET_PROCESSOR_UUID_TABLE	64
#define UVM_TOOLS_FLUSH_EVENTS			67
#define UVM_MM_INITIALIZE			75
#define UVM_TOOLS_GET_PROCESSOR_UUID_TABLE_V2	77

/* --- parameters --------------------------------------------------------- */

/*
 * UVM_INITIALIZE: the first call on a new fd; before it every other call
 * answers UVM_NV_ERR_ILLEGAL_ACTION and mmap fails with EBADFD.
 */
#define UVM_INIT_FLAGS_MULTI_PROCESS_SHARING_MODE 0x2
struct uvm_initialize_params {
	__u64 flags;
	__u32 rm_status;
	__u32 pad;
};

/*
 * UVM_MIGRATE: moves [base, base + length) (page aligned, managed memory)
 * to destination (a GPU of the va_space, or UVM_CPU_UUID_BYTES with
 * cpu_numa_node -1 for "any").  Without UVM_MIGRATE_FLAG_ASYNC it returns
 * when the pages are resident and mapped; semaphore_address must be 0.
 * With it, it may return earlier; a non-zero semaphore_address (4-byte
 * aligned) gets semaphore_payload once the migration is done, and with
 * semaphore_address 0 the payload must be 0.
 * Answers: UVM_NV_ERR_INVALID_ADDRESS (bad range, not managed memory),
 * UVM_NV_ERR_INVALID_DEVICE (no such GPU in this va_space),
 * UVM_NV_ERR_INVALID_ARGUMENT (flags, semaphore, NUMA node).
 */
#define UVM_MIGRATE_FLAG_ASYNC		0x00000001
#define UVM_MIGRATE_FLAG_SKIP_CPU_MAP	0x00000002	/* builtin tests only */
#define UVM_MIGRATE_FLAG_NO_GPU_VA_SPACE 0x00000004	/* builtin tests only */
#define UVM_MIGRATE_FLAGS_ALL		0x00000007

struct uvm_migrate_params {
	__u64 base;
	__u64 length;
	struct uvm_uuid destination;
	__u32 flags;
	__u32 pad0;
	__u64 semaphore_address;
	__u32 semaphore_payload;
	__s32 cpu_numa_node;
	__u64 user_space_start;		/* out: pageable memory only */
	__u64 user_space_length;	/* out */
	__u32 rm_status;
	__u32 pad1;
};

/* UVM_SET_PREFERRED_LOCATION */
struct uvm_set_preferred_location_params {
	__u64 base;
	__u64 length;
	struct uvm_uuid location;	/* a GPU, or the CPU */
	__s32 cpu_numa_node;		/* CPU: -1 any */
	__u32 rm_status;
};

/*
 * UVM_UNSET_PREFERRED_LOCATION, UVM_ENABLE_READ_DUPLICATION and
 * UVM_DISABLE_READ_DUPLICATION: a range and nothing else.
 */
struct uvm_range_params {
	__u64 base;
	__u64 length;
	__u32 rm_status;
	__u32 pad;
};

/* UVM_SET_ACCESSED_BY, UVM_UNSET_ACCESSED_BY */
struct uvm_accessed_by_params {
	__u64 base;
	__u64 length;
	struct uvm_uuid processor;
	__u32 rm_status;
	__u32 pad;
};

/*
 * UVM_TOOLS_GET_PROCESSOR_UUID_TABLE(_V2), on the UVM fd: writes
 * UVM_MAX_PROCESSORS_V1 (V2: _V2) UUIDs to table, indexed by processor id
 * value as the tools events name processors; unused slots are zero.
 */
struct uvm_uuid_table_params {
	__u64 table;
	__u32 rm_status;
	__u32 pad;
};

/* UVM_TOOLS_FLUSH_EVENTS, on the UVM fd */
struct uvm_flush_events_params {
	__u32 rm_status;
};

/* UVM_MM_INITIALIZE: on a second fd, names the va_space fd to tie mm to. */
struct uvm_mm_initialize_params {
	__s32 uvm_fd;
	__u32 rm_status;
};

/* The 580 driver's sizes and the offsets of the out fields. */
_Static_assert(sizeof(struct uvm_uuid) == 16, "NvProcessorUuid");
_Static_assert(sizeof(struct uvm_initialize_params) == 16, "UVM_INITIALIZE_PARAMS");
_Static_assert(sizeof(struct uvm_migrate_params) == 80, "UVM_MIGRATE_PARAMS");
_Static_assert(__builtin_offsetof(struct uvm_migrate_params, semaphore_address) == 40,
	       "UVM_MIGRATE_PARAMS.semaphoreAddress");
_Static_assert(__builtin_offsetof(struct uvm_migrate_params, rm_status) == 72,
	       "UVM_MIGRATE_PARAMS.rmStatus");
_Static_assert(sizeof(struct uvm_set_preferred_location_params) == 40,
	       "UVM_SET_PREFERRED_LOCATION_PARAMS");
_Static_assert(sizeof(struct uvm_range_params) == 24, "UVM_UNSET_PREFERRED_LOCATION_PARAMS");
_Static_assert(sizeof(struct uvm_accessed_by_params) == 40, "UVM_SET_ACCESSED_BY_PARAMS");
_Static_assert(sizeof(struct uvm_uuid_table_params) == 16,
	       "UVM_TOOLS_GET_PROCESSOR_UUID_TABLE_PARAMS");
_Static_assert(sizeof(struct uvm_flush_events_params) == 4, "UVM_TOOLS_FLUSH_EVENTS_PARAMS");
_Static_assert(sizeof(struct uvm_mm_initialize_params) == 8, "UVM_MM_INITIALIZE_PARAMS");

#endif
