// SPDX-License-Identifier: GPL-2.0
/* record.c - gpuctl trace's record file: writing, and a reader that trusts nothing. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "record.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the record format is little-endian; add byte swapping for this target"
#endif

/* The smallest header and event a reader accepts: version 1's. */
#define GT_MIN_HEADER 168
#define GT_MIN_EVENT 56
#define GT_MAX_HEADER 4096
#define GT_MAX_EVENT 1024

static const char *const type_names[GT_EV_MAX] = {
	[GT_EV_NONE] = "none",
	[GT_EV_GPU_FAULT] = "fault",
	[GT_EV_CPU_FAULT] = "cpu_fault",
	[GT_EV_MIGRATION] = "migration",
	[GT_EV_EVICTION] = "eviction",
	[GT_EV_REPLAY] = "replay",
	[GT_EV_BATCH] = "batch",
	[GT_EV_THRASHING] = "thrashing",
	[GT_EV_TSG] = "tsg_new",
	[GT_EV_LOST] = "lost",
	[GT_EV_TSG_FREE] = "tsg_free",
	[GT_EV_TSG_SET] = "tsg_set",
	[GT_EV_ALLOC] = "alloc",
	[GT_EV_FREE] = "free",
	[GT_EV_META] = "meta",
};

static const char *const cause_names[GT_CAUSE_MAX] = {
	[GT_CAUSE_NONE] = "-",
	[GT_CAUSE_USER] = "user",
	[GT_CAUSE_FAULT] = "fault",
	[GT_CAUSE_PREFETCH] = "prefetch",
	[GT_CAUSE_EVICTION] = "eviction",
	[GT_CAUSE_ACCESS_COUNTER] = "access_counter",
};

static const char *const access_names[GT_ACC_MAX] = {
	[GT_ACC_NONE] = "-",
	[GT_ACC_READ] = "read",
	[GT_ACC_WRITE] = "write",
	[GT_ACC_ATOMIC] = "atomic",
	[GT_ACC_PREFETCH] = "prefetch",
};

static const char *const tsg_ctl_names[GT_TSG_CTL_MAX] = {
	[GT_TSG_CTL_NONE] = "-",
	[GT_TSG_CTL_TIMESLICE] = "timeslice",
	[GT_TSG_CTL_INTERLEAVE] = "interleave",
	[GT_TSG_CTL_PREEMPT] = "preempt",
};

const char *gt_type_name(unsigned int type)
{
	return type < GT_EV_MAX && type_names[type] ? type_names[type] : "unknown";
}

const char *gt_cause_name(unsigned int cause)
{
	return cause < GT_CAUSE_MAX && cause_names[cause] ? cause_names[cause] : "other";
}

const char *gt_access_name(unsigned int access)
{
	return access < GT_ACC_MAX && access_names[access] ? access_names[access] : "other";
}

const char *gt_tsg_ctl_name(unsigned int ctl)
{
	return ctl < GT_TSG_CTL_MAX && tsg_ctl_names[ctl] ? tsg_ctl_names[ctl] : "other";
}

static void copy_str(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memset(dst, 0, len);
	memcpy(dst, src, n);
}

static void driver_version(char *buf, size_t len)
{
	char line[256];
	FILE *f = fopen("/proc/driver/nvidia/version", "r");

	buf[0] = '\0';
	if (f) {
		if (fgets(line, sizeof(line), f)) {
			for (char *save = NULL, *tok = strtok_r(line, " \t\n", &save); tok;
			     tok = strtok_r(NULL, " \t\n", &save)) {
				if (tok[0] >= '0' && tok[0] <= '9' && strchr(tok, '.')) {
					copy_str(buf, len, tok);
					break;
				}
			}
		}
		fclose(f);
	}
	if (!buf[0]) {
		f = fopen("/sys/module/uvm_model/version", "r");
		if (f) {
			if (fgets(line, sizeof(line), f))
				copy_str(buf, len, line);
			fclose(f);
		}
		buf[strcspn(buf, "\n")] = '\0';
	}
}

void gt_header_init(struct gt_file_header *h, const char *backend,
		    const char *what, uint32_t pid, uint64_t start_ts_ns)
{
	struct utsname u;
	struct timespec ts;

	memset(h, 0, sizeof(*h));
	memcpy(h->magic, GT_MAGIC, 8);
	h->version = GT_VERSION;
	h->header_len = sizeof(*h);
	h->event_size = sizeof(struct gt_event);
	clock_gettime(CLOCK_REALTIME, &ts);
	h->start_realtime_ns = (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
	h->start_ts_ns = start_ts_ns;
	copy_str(h->host, sizeof(h->host), uname(&u) ? "unknown" : u.nodename);
	driver_version(h->driver, sizeof(h->driver));
	copy_str(h->backend, sizeof(h->backend), backend);
	copy_str(h->what, sizeof(h->what), what);
	h->target_pid = pid;
}

int gt_write_header(FILE *f, const struct gt_file_header *h)
{
	return fwrite(h, sizeof(*h), 1, f) == 1 ? 0 : -(errno ? errno : EIO);
}

int gt_write_event(FILE *f, const struct gt_event *e)
{
	return fwrite(e, sizeof(*e), 1, f) == 1 ? 0 : -(errno ? errno : EIO);
}

int gt_write_meta(FILE *f, uint64_t ts, unsigned int kind, uint32_t pid, uint16_t gpu,
		  const void *payload, size_t len)
{
	static const uint8_t zero[8];
	struct gt_event e = { .ts_ns = ts, .type = GT_EV_META, .cause = (uint8_t)kind,
			      .pid = pid, .gpu = gpu };
	size_t pad;

	len = len > GT_META_MAX ? GT_META_MAX : len;
	pad = (8 - len % 8) % 8;
	e.count = (uint32_t)len;
	if (fwrite(&e, sizeof(e), 1, f) != 1 || (len && fwrite(payload, len, 1, f) != 1) ||
	    (pad && fwrite(zero, pad, 1, f) != 1))
		return -(errno ? errno : EIO);
	return 0;
}

/* Reads up to len bytes; returns how many (short only at end or error). */
static size_t rd(struct gt_reader *r, void *dst, size_t len)
{
	size_t n;

	if (r->f) {
		n = fread(dst, 1, len, r->f);
	} else {
		n = r->len - r->pos < len ? r->len - r->pos : len;
		memcpy(dst, r->buf + r->pos, n);
		r->pos += n;
	}
	r->offset += n;
	return n;
}

static bool str_ok(const char *s, size_t len)
{
	return memchr(s, '\0', len) != NULL;
}

int gt_reader_open(struct gt_reader *r, FILE *f, const void *buf, size_t len)
{
	uint8_t raw[GT_MAX_HEADER];
	struct gt_file_header *h = &r->hdr;
	size_t n;

	memset(r, 0, sizeof(*r));
	r->f = f;
	r->buf = buf;
	r->len = len;

	n = rd(r, raw, 16);
	if (n < 8 || memcmp(raw, GT_MAGIC, 8)) {
		snprintf(r->err, sizeof(r->err), "not a gpuctl trace record (no '%s' magic)",
			 GT_MAGIC);
		return -1;
	}
	if (n < 16) {
		snprintf(r->err, sizeof(r->err), "truncated record header (%zu bytes)", n);
		return -1;
	}
	memcpy(h, raw, 16);
	if (h->version < 1 || h->version > GT_VERSION) {
		snprintf(r->err, sizeof(r->err),
			 "record format version %u is not supported (this gpuctl reads 1..%d)",
			 h->version, GT_VERSION);
		return -1;
	}
	if (h->header_len < GT_MIN_HEADER || h->header_len > GT_MAX_HEADER) {
		snprintf(r->err, sizeof(r->err), "corrupt record header: length %u",
			 h->header_len);
		return -1;
	}
	if (h->event_size < GT_MIN_EVENT || h->event_size > GT_MAX_EVENT) {
		snprintf(r->err, sizeof(r->err), "corrupt record header: event size %u",
			 h->event_size);
		return -1;
	}
	n = rd(r, raw + 16, h->header_len - 16);
	if (n != (size_t)h->header_len - 16) {
		snprintf(r->err, sizeof(r->err), "truncated record header (%zu of %u bytes)",
			 n + 16, h->header_len);
		return -1;
	}
	memcpy(h, raw, sizeof(*h));
	if (!str_ok(h->host, sizeof(h->host)) || !str_ok(h->driver, sizeof(h->driver)) ||
	    !str_ok(h->backend, sizeof(h->backend)) || !str_ok(h->what, sizeof(h->what))) {
		snprintf(r->err, sizeof(r->err), "corrupt record header: unterminated string");
		return -1;
	}
	r->event_size = h->event_size;
	return 0;
}

/* 1, or -1 with r->err set: a value no backend produces (trace_uvm.h limits). */
static int event_check(struct gt_reader *r, const struct gt_event *e, uint64_t at)
{
	uint64_t start = r->hdr.start_ts_ns;
	uint64_t hi = start > UINT64_MAX - GT_MAX_TS_SKEW_NS ? UINT64_MAX : start + GT_MAX_TS_SKEW_NS;
	uint64_t lo = start > GT_MAX_TS_SKEW_NS ? start - GT_MAX_TS_SKEW_NS : 0;
	const char *what = NULL;
	unsigned long long v = 0;

	if (e->type == GT_EV_NONE || e->type >= GT_EV_MAX ||
	    (r->hdr.version < 2 && e->type >= GT_EV_ALLOC)) {
		snprintf(r->err, sizeof(r->err), "corrupt event at offset %llu: type %u",
			 (unsigned long long)at, e->type);
		return -1;
	}
	if (e->latency_ns > GT_MAX_LATENCY_NS) {
		what = "latency (ns)";
		v = e->latency_ns;
	} else if (e->bytes > GT_MAX_EVENT_BYTES && !gt_is_tsg(e->type)) {
		what = "byte count";
		v = e->bytes;
	} else if (e->ts_ns && (e->ts_ns > hi || e->ts_ns < lo)) {
		what = "timestamp (years away from the record's start)";
		v = e->ts_ns;
	}
	if (!what && e->type == GT_EV_META && (e->count > GT_META_MAX || !e->cause ||
					      e->cause >= GT_META_KINDS)) {
		what = "table entry (kind, length)";
		v = (unsigned long long)e->cause << 32 | e->count;
	}
	if (!what)
		return 1;
	snprintf(r->err, sizeof(r->err), "corrupt event at offset %llu: %s %llu is impossible",
		 (unsigned long long)at, what, v);
	return -1;
}

/* A META's payload, after its event: 1, or -1 (truncated). */
static int meta_read(struct gt_reader *r, const struct gt_event *e, uint64_t at)
{
	uint8_t pad[8];
	size_t want = e->count, padn = (8 - want % 8) % 8;

	r->meta_len = 0;
	if (rd(r, r->meta, want) != want || rd(r, pad, padn) != padn) {
		snprintf(r->err, sizeof(r->err), "truncated table entry at offset %llu",
			 (unsigned long long)at);
		return -1;
	}
	r->meta[want] = '\0';
	r->meta_len = (uint32_t)want;
	return 1;
}

int gt_reader_next(struct gt_reader *r, struct gt_event *e)
{
	uint8_t raw[GT_MAX_EVENT];
	uint64_t at = r->offset;
	size_t n = rd(r, raw, r->event_size);

	if (n == 0) {
		if (r->f && ferror(r->f)) {
			snprintf(r->err, sizeof(r->err), "reading the record failed: %s",
				 strerror(errno ? errno : EIO));
			return -1;
		}
		return 0;
	}
	if (n != r->event_size) {
		snprintf(r->err, sizeof(r->err),
			 "truncated event at offset %llu (%zu of %u bytes)",
			 (unsigned long long)at, n, r->event_size);
		return -1;
	}
	memset(e, 0, sizeof(*e));
	memcpy(e, raw, sizeof(*e) < n ? sizeof(*e) : n);
	if (event_check(r, e, at) < 0)
		return -1;
	return e->type == GT_EV_META ? meta_read(r, e, at) : 1;
}
