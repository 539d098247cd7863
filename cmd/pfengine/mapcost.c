// SPDX-License-Identifier: GPL-2.0
/*
 * mapcost.c - what a BPF map takes of the kernel's memory (pfengine.h),
 * from the layouts the kernel gives each type (6.x, 64-bit), rounded up:
 * an engine object's cap (objcheck.c) counts this, not key + value bytes
 * times entries.  The differences are large: a per-CPU map keeps a value
 * for every possible CPU (not online: possible, often more); a hash keeps
 * a 48-byte element header beside key and value, a bucket for each entry
 * rounded up to a power of two, and, preallocated (the default), every
 * element from the start (plus one spare per possible CPU); without
 * preallocation each element is a kmalloc of a size class and every CPU
 * keeps a cache of free ones.
 */
#include <linux/bpf.h>

#include "pfengine.h"

#define R8(x)		(((unsigned long long)(x) + 7) & ~7ull)
#define PAGE		4096ull
#define MAP_BASE	PAGE	/* struct bpf_map and its type's header, at most */
#define HTAB_ELEM	48ull	/* struct htab_elem before the key */
#define HTAB_BUCKET	16ull	/* struct bucket: a list head and a lock */
#define LRU_PER_CPU	192ull	/* an LRU's per-CPU lists */
#define MA_CACHE	96ull	/* free elements a CPU's bpf_mem_alloc cache may keep */

static unsigned long long pow2(unsigned long long n)
{
	unsigned long long p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

/* The size class kmalloc serves n bytes from. */
static unsigned long long kmalloc_size(unsigned long long n)
{
	if (n <= 8)
		return 8;
	if (n > 64 && n <= 96)
		return 96;
	if (n > 128 && n <= 192)
		return 192;
	if (n <= 8192)
		return pow2(n);
	return (n + PAGE - 1) & ~(PAGE - 1);
}

static unsigned long long hash_cost(unsigned int type, unsigned long long key,
				    unsigned long long value, unsigned long long entries,
				    unsigned int flags, unsigned long long ncpu)
{
	bool percpu = type == BPF_MAP_TYPE_PERCPU_HASH || type == BPF_MAP_TYPE_LRU_PERCPU_HASH;
	bool lru = type == BPF_MAP_TYPE_LRU_HASH || type == BPF_MAP_TYPE_LRU_PERCPU_HASH;
	unsigned long long elem = HTAB_ELEM + R8(key) + (percpu ? 8 : R8(value));
	unsigned long long n = entries, cost;

	cost = pow2(entries) * HTAB_BUCKET + 8 * sizeof(int) * ncpu;	/* buckets, map_locked */
	if (lru)
		cost += LRU_PER_CPU * ncpu;
	if ((flags & BPF_F_NO_PREALLOC) && !lru) {
		/* each element a kmalloc; every CPU's cache of free ones */
		n += MA_CACHE * ncpu;
		cost += n * kmalloc_size(elem);
	} else {
		if (!percpu && !lru)
			n += ncpu;	/* a spare element per CPU for updates */
		cost += n * elem;
	}
	if (percpu)
		cost += n * R8(value) * ncpu;
	return cost;
}

unsigned long long pfe_map_cost(unsigned int type, unsigned int key_size, unsigned int value_size,
				unsigned int max_entries, unsigned int flags, unsigned int ncpu)
{
	unsigned long long k = key_size, v = value_size, n = max_entries, c = ncpu ? ncpu : 1;
	unsigned long long bits;

	switch (type) {
	case BPF_MAP_TYPE_ARRAY:
		/* mmapable global data (.bss, .data) in whole pages */
		return MAP_BASE + ((R8(v) * n + PAGE - 1) & ~(PAGE - 1));
	case BPF_MAP_TYPE_PERCPU_ARRAY:
		return MAP_BASE + n * (8 + R8(v) * c);
	case BPF_MAP_TYPE_HASH:
	case BPF_MAP_TYPE_PERCPU_HASH:
	case BPF_MAP_TYPE_LRU_HASH:
	case BPF_MAP_TYPE_LRU_PERCPU_HASH:
		return MAP_BASE + hash_cost(type, k, v, n, flags, c);
	case BPF_MAP_TYPE_RINGBUF:
	case BPF_MAP_TYPE_USER_RINGBUF:
		/* the data pages, the header pages and the page array */
		return MAP_BASE + n + 2 * PAGE + (n / PAGE + 2) * 8;
	case BPF_MAP_TYPE_QUEUE:
	case BPF_MAP_TYPE_STACK:
		return MAP_BASE + (n + 1) * v;
	case BPF_MAP_TYPE_BLOOM_FILTER:
		/* nr_hash_funcs (flags' low 4 bits, default 5) x entries / ln 2, power of two */
		bits = pow2(n * ((flags & 0xf) ? (flags & 0xf) : 5) * 3 / 2 + 1);
		return MAP_BASE + (bits < 64 ? 8 : bits / 8);
	case BPF_MAP_TYPE_LPM_TRIE:
		/* a leaf per entry and at most as many inner nodes, each a kmalloc */
		return MAP_BASE + 2 * n * kmalloc_size(40 + k + v);
	default:
		/* a type not modelled: as a per-CPU hash would take, the dearest */
		return MAP_BASE + hash_cost(BPF_MAP_TYPE_LRU_PERCPU_HASH, k, v, n, flags, c) +
		       n * (HTAB_ELEM + R8(k) + R8(v));
	}
}
