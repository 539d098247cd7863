// SPDX-License-Identifier: GPL-2.0
/*
 * uvm.c - UVM calls on a process's borrowed /dev/nvidia-uvm file: UUIDs,
 * UVM_MIGRATE, the range hints, the GPUs of its va_space.  The driver
 * answers each call on the va_space (and mm) of the file, whoever calls.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "uvm.h"

const struct uvm_uuid uvm_cpu_uuid = { UVM_CPU_UUID_BYTES };

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int uuid_parse(const char *s, struct uvm_uuid *u)
{
	int n = 0;

	if (!strncmp(s, "GPU-", 4))
		s += 4;
	for (; *s; s++) {
		int hi, lo;

		if (*s == '-')
			continue;
		hi = hexval(s[0]);
		lo = hi < 0 || !s[1] ? -1 : hexval(s[1]);
		if (lo < 0 || n == 16)
			return -1;
		u->uuid[n++] = (uint8_t)(hi << 4 | lo);
		s++;
	}
	return n == 16 ? 0 : -1;
}

const char *uuid_format(const struct uvm_uuid *u, char *buf, size_t len)
{
	const uint8_t *b = u->uuid;

	snprintf(buf, len, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
		 "%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
		 b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
	return buf;
}

bool uuid_is_cpu(const struct uvm_uuid *u)
{
	return !memcmp(u, &uvm_cpu_uuid, sizeof(*u));
}

const char *uvm_status_text(uint32_t st)
{
	switch (st) {
	case UVM_NV_OK: return "ok";
	case UVM_NV_ERR_ILLEGAL_ACTION: return "the UVM file is not initialized";
	case UVM_NV_ERR_INSUFFICIENT_PERMISSIONS: return "insufficient permissions";
	case UVM_NV_ERR_INVALID_ADDRESS: return "the range is not managed memory of the process";
	case UVM_NV_ERR_INVALID_ARGUMENT: return "invalid argument";
	case UVM_NV_ERR_INVALID_DEVICE: return "the process does not use that GPU";
	case UVM_NV_ERR_INVALID_FLAGS: return "invalid flags";
	case UVM_NV_ERR_NO_MEMORY: return "out of memory";
	case UVM_NV_ERR_NOT_SUPPORTED: return "not supported by the driver";
	case UVM_NV_ERR_OUT_OF_RANGE: return "the GPU cannot address the range";
	case UVM_NV_ERR_IN_USE: return "in use";
	default: return "driver error";
	}
}

static const struct uvm_uuid zero_uuid_slot;

/*
 * The process's processor UUID table (V2, else V1 on drivers before 565):
 * the table, with *per its slots per parent GPU and *slots its length; or
 * NULL with *err -errno.  Slot 0 is the CPU.
 */
static const struct uvm_uuid *uuid_table(int uvm_fd, int *per, int *slots, int *err)
{
	static struct uvm_uuid table[UVM_MAX_PROCESSORS_V2];
	struct uvm_uuid_table_params p = { .table = (uintptr_t)table };

	memset(table, 0, sizeof(table));
	*per = UVM_SUB_PROCESSORS;
	*slots = UVM_MAX_PROCESSORS_V2;
	if (ioctl(uvm_fd, UVM_TOOLS_GET_PROCESSOR_UUID_TABLE_V2, &p) < 0 || p.rm_status) {
		/* drivers before 565: one slot per parent GPU */
		p.rm_status = 0;
		*per = 1;
		*slots = UVM_MAX_PROCESSORS_V1;
		if (ioctl(uvm_fd, UVM_TOOLS_GET_PROCESSOR_UUID_TABLE, &p) < 0) {
			*err = -errno;
			return NULL;
		}
		if (p.rm_status) {
			*err = -EIO;
			return NULL;
		}
	}
	return table;
}

int uvm_gpus(int uvm_fd, struct uvm_uuid *gpus, int max)
{
	int n = 0, per, slots, err;
	const struct uvm_uuid *table = uuid_table(uvm_fd, &per, &slots, &err);

	if (!table)
		return err;
	/* a parent GPU's first sub-processor every `per` */
	for (int i = 1; i < slots && n < max; i += per) {
		if (!memcmp(&table[i], &zero_uuid_slot, sizeof(zero_uuid_slot)))
			continue;
		gpus[n++] = table[i];
	}
	return n;
}

int uvm_gpus_by_index(int uvm_fd, struct uvm_uuid *gpus, int max)
{
	int n = 0, per, slots, err;
	const struct uvm_uuid *table = uuid_table(uvm_fd, &per, &slots, &err);

	if (!table)
		return err;
	/* index i: slot 1 + i * per (the parent GPU index tools events carry) */
	for (int i = 0; 1 + i * per < slots && i < max; i++) {
		gpus[i] = table[1 + i * per];
		if (memcmp(&gpus[i], &zero_uuid_slot, sizeof(zero_uuid_slot)))
			n = i + 1;
	}
	return n;
}

int uvm_migrate(int uvm_fd, uint64_t base, uint64_t len, const struct uvm_uuid *dst,
		bool async, uint32_t *st)
{
	struct uvm_migrate_params p = {
		.base = base,
		.length = len,
		.destination = *dst,
		.flags = async ? UVM_MIGRATE_FLAG_ASYNC : 0,
		.cpu_numa_node = -1,
	};

	if (ioctl(uvm_fd, UVM_MIGRATE, &p) < 0)
		return -errno;
	*st = p.rm_status;
	return 0;
}

const char *const uvm_hint_names[HINT_NR] = {
	[HINT_PREFERRED] = "preferred-location",
	[HINT_UNSET_PREFERRED] = "unset-preferred-location",
	[HINT_ACCESSED_BY] = "accessed-by",
	[HINT_UNSET_ACCESSED_BY] = "unset-accessed-by",
	[HINT_READ_DUP] = "read-duplication",
	[HINT_UNSET_READ_DUP] = "unset-read-duplication",
};

int uvm_hint(int uvm_fd, enum uvm_hint h, uint64_t base, uint64_t len,
	     const struct uvm_uuid *dst, uint32_t *st)
{
	struct uvm_set_preferred_location_params pl = { .base = base, .length = len,
						       .cpu_numa_node = -1 };
	struct uvm_accessed_by_params ab = { .base = base, .length = len };
	struct uvm_range_params r = { .base = base, .length = len };
	unsigned long req;
	void *arg = &r;
	uint32_t *status = &r.rm_status;

	switch (h) {
	case HINT_PREFERRED:
		pl.location = *dst;
		req = UVM_SET_PREFERRED_LOCATION;
		arg = &pl;
		status = &pl.rm_status;
		break;
	case HINT_UNSET_PREFERRED: req = UVM_UNSET_PREFERRED_LOCATION; break;
	case HINT_ACCESSED_BY:
	case HINT_UNSET_ACCESSED_BY:
		ab.processor = *dst;
		req = h == HINT_ACCESSED_BY ? UVM_SET_ACCESSED_BY : UVM_UNSET_ACCESSED_BY;
		arg = &ab;
		status = &ab.rm_status;
		break;
	case HINT_READ_DUP: req = UVM_ENABLE_READ_DUPLICATION; break;
	case HINT_UNSET_READ_DUP: req = UVM_DISABLE_READ_DUPLICATION; break;
	default: return -EINVAL;
	}
	if (ioctl(uvm_fd, req, arg) < 0)
		return -errno;
	*st = *status;
	return 0;
}
