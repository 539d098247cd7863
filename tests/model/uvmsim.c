// SPDX-License-Identifier: GPL-2.0
/*
 * uvmsim - the user-space driver of the UVM model: a stand-in for a CUDA
 * program.  It opens /dev/nvidia-uvm (the model's; /dev/uvm_model on an
 * older model), initializes it as CUDA does (UVM_INITIALIZE) and, to run a
 * pattern, maps the range as managed memory at UVM_MODEL_VA_BASE (offset
 * == address, shared: a /dev/nvidia-uvm line in /proc/PID/maps), so
 * gpuctl finds it as it finds a CUDA process.
 *
 *   uvmsim reset [KEY N]...        va_blocks gpu_chunks batch replay_policy
 *                                   threshold big_page prefetch migrate_us
 *   uvmsim run PATTERN [KEY N]...  seq | stride | random | moe | hotcold |
 *                                   scan | tenants | alloc | trace FILE
 *   uvmsim stats [-j]
 *   uvmsim bench ITERATIONS
 *   uvmsim trigger STRING
 *   uvmsim tenant INDEX PID
 *   uvmsim hookbench HOOK ITERATIONS  decide_replay | chunk_used |
 *                                   chunk_activate | evict_prepare
 *
 * run keys: blocks (range used, default all), pages, stride, degree-free
 * patterns take passes, warps (concurrency, default 16), seed, tenant,
 * first (first block), hot and hot_tenant (hotcold: hot blocks, and the
 * tenant their accesses count for).  A run does not reset the model:
 * counters add up.
 * Timing keys, for tools that watch the run: wait_ms (after the GPU
 * context is up, before the first access), slice N and gap_ms (the
 * accesses go in slices of N, gap_ms apart: a kernel that runs a while),
 * hold_ms (before exiting).  alloc: first touches of fresh allocations,
 * alloc blocks each (default 4), each mapped on its own just before its
 * sequential first touch, gap_ms apart; with life_ms N each is unmapped N
 * ms after its touch, with reuse 1 each is mapped where the first one was
 * (an address freed and mapped again), with touch_ms N first touched N ms
 * after it is mapped (a kernel launched after the allocation), with fixed 1 mapped with MAP_FIXED
 * over the one before instead of after its munmap.  churn N: N anonymous
 * mmap/munmap pairs before wait_ms (a burst of mapping calls for the
 * engine's watcher).  storm N: N threads making and dropping anonymous
 * mappings all at once for storm_ms (default 3000) from the start, beside
 * the run (most of them inside mmap or munmap at any moment, waiting for
 * the address space's lock: the watcher's calls in flight).  cpu_blocks N
 * (alloc): beside each allocation a scratch of N blocks is mapped (after
 * the pattern's blocks), written by the CPU (one write a block, touch_ms
 * after the mapping, cpu_gap_ms apart: a CPU filling it from the front) and
 * never by a GPU, and unmapped with it (a CPU fault for each block the GPU
 * holds then).  gpu N: the accesses are GPU N's
 * (its faults carry GPU N; the model has gpus=N GPUs, default 2).
 */
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "uvm_model_uapi.h"
#include "uvm_ioctl.h"

#define PAGES_PER_BLOCK 512
#define BLOCK_BYTES (2ULL << 20)
#define DEV "/dev/nvidia-uvm"
#define DEV_OLD "/dev/uvm_model"

static int dev_fd = -1;

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "uvmsim: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	exit(1);
}

static void xioctl(unsigned long req, void *arg, const char *what)
{
	if (ioctl(dev_fd, req, arg)) {
		fprintf(stderr, "uvmsim: %s: %s\n", what, strerror(errno));
		exit(1);
	}
}

static void sleep_ms(uint64_t ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* CUDA's first call on the fd; an older model has no UVM ABI: then nothing. */
static void uvm_initialize(void)
{
	struct uvm_initialize_params p = { 0 };

	if (ioctl(dev_fd, UVM_INITIALIZE, &p) == 0 && p.rm_status)
		fprintf(stderr, "uvmsim: UVM_INITIALIZE: status 0x%x\n", p.rm_status);
}

/* Blocks [first, first + n) of the range as managed memory, as CUDA maps it. */
static void map_blocks_how(uint64_t first, uint64_t n, int how)
{
	uint64_t va = UVM_MODEL_VA_BASE + first * BLOCK_BYTES;
	void *p = mmap((void *)va, n * BLOCK_BYTES, PROT_READ | PROT_WRITE,
		       MAP_SHARED | how, dev_fd, (off_t)va);

	if (p == MAP_FAILED) {
		fprintf(stderr, "uvmsim: mapping the managed range: %s\n", strerror(errno));
		exit(1);
	}
}

static void map_blocks(uint64_t first, uint64_t n)
{
	map_blocks_how(first, n, MAP_FIXED_NOREPLACE);
}

static void unmap_blocks(uint64_t first, uint64_t n)
{
	munmap((void *)(uintptr_t)(UVM_MODEL_VA_BASE + first * BLOCK_BYTES), n * BLOCK_BYTES);
}

static volatile int storm_stop;
static pthread_rwlock_t storm_gate = PTHREAD_RWLOCK_INITIALIZER;

static void *storm_thread(void *arg)
{
	(void)arg;
	/* all made first (blocked here, asleep): none makes the next ones wait for the lock */
	pthread_rwlock_rdlock(&storm_gate);
	pthread_rwlock_unlock(&storm_gate);
	while (!storm_stop) {
		void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p != MAP_FAILED)
			munmap(p, 4096);
	}
	return NULL;
}

/* n threads of mapping calls until ms have passed (a thread of its own stops them). */
static void *storm_timer(void *arg)
{
	sleep_ms((uint64_t)(uintptr_t)arg);
	storm_stop = 1;
	return NULL;
}

static void storm(uint64_t n, uint64_t ms)
{
	pthread_attr_t a;
	pthread_t t;

	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 64 << 10);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	pthread_rwlock_wrlock(&storm_gate);
	for (uint64_t i = 0; i < n; i++)
		if (pthread_create(&t, &a, storm_thread, NULL))
			break;
	pthread_rwlock_unlock(&storm_gate);
	pthread_create(&t, &a, storm_timer, (void *)(uintptr_t)(ms ? ms : 3000));
	pthread_attr_destroy(&a);
}

/* n anonymous mappings made and dropped: mapping calls and nothing else. */
static void churn(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p != MAP_FAILED)
			munmap(p, 4096);
	}
}

static uint64_t num(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		die("not a number: '%s'", s);
	return v;
}

/* --- the access list -------------------------------------------------- */

static struct uvm_model_access *acc;
static size_t nacc, cap;
static uint32_t access_gpu;	/* run ... gpu N: the GPU that accesses */

static void push(uint64_t page, uint32_t tenant, uint32_t type)
{
	if (nacc == cap) {
		cap = cap ? cap * 2 : 65536;
		acc = realloc(acc, cap * sizeof(*acc));
		if (!acc)
			die("%s", "out of memory");
	}
	acc[nacc].addr = page << 12;
	acc[nacc].tenant = tenant;
	acc[nacc].type = type | access_gpu << UVM_MODEL_ACCESS_GPU_SHIFT;
	nacc++;
}

static uint64_t rng_state = 88172645463325252ULL;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

struct run_opts {
	uint64_t first, blocks, pages, stride, passes, warps, tenant, hot, count;
	uint64_t wait_ms, slice, gap_ms, hold_ms, alloc;
	uint64_t life_ms, reuse, fixed, churn, touch_ms, storm, storm_ms, cpu_blocks, cpu_gap_ms;
	uint64_t hot_tenant;	/* hotcold: tenant of the hot accesses (+1) */
	const char *file;
};

static void pattern_trace(struct run_opts *o)
{
	FILE *f = strcmp(o->file, "-") ? fopen(o->file, "r") : stdin;
	char line[256], type[16];
	unsigned long long addr;
	unsigned int tenant;
	int n;

	if (!f)
		die("cannot open trace '%s'", o->file);
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		tenant = o->tenant;
		strcpy(type, "r");
		n = sscanf(line, "%llx %15s %u", &addr, type, &tenant);
		if (n < 1)
			die("bad trace line: %s", line);
		/* Recorded addresses are where the range is mapped. */
		if (addr >= UVM_MODEL_VA_BASE)
			addr -= UVM_MODEL_VA_BASE;
		push(addr >> 12, tenant, type[0] == 'w' ? UVM_MODEL_ACCESS_WRITE
							: UVM_MODEL_ACCESS_READ);
	}
	if (f != stdin)
		fclose(f);
}

static void build(const char *pattern, struct run_opts *o)
{
	uint64_t base = o->first * PAGES_PER_BLOCK;
	uint64_t span = o->blocks * PAGES_PER_BLOCK;
	uint64_t pages = o->pages ? o->pages : span;
	uint64_t p, i, pass;

	if (pages > span)
		pages = span;
	for (pass = 0; pass < o->passes; pass++) {
		if (!strcmp(pattern, "seq") || !strcmp(pattern, "scan") ||
		    !strcmp(pattern, "alloc")) {
			for (p = 0; p < pages; p++)
				push(base + p, o->tenant, 0);
		} else if (!strcmp(pattern, "stride")) {
			for (p = 0; p < pages; p += o->stride)
				push(base + p, o->tenant, 0);
		} else if (!strcmp(pattern, "random")) {
			for (i = 0; i < (o->count ? o->count : pages / 4); i++)
				push(base + rnd() % pages, o->tenant, 0);
		} else if (!strcmp(pattern, "moe")) {
			/* Prefill: one sequential pass over the weights.  Decode:
			 * experts (blocks) picked with a skewed (Zipf-like)
			 * distribution, each read as a run of pages. */
			uint64_t nexp = o->blocks, step, e, r;

			if (pass == 0)
				for (p = 0; p < span; p++)
					push(base + p, o->tenant, 0);
			for (step = 0; step < (o->count ? o->count : 256); step++) {
				r = rnd() % 1000;
				e = (r * r * r) / (1000ULL * 1000 * 1000 / nexp);
				e = nexp - 1 - (e % nexp);
				e = (e * 7919) % nexp;
				for (p = 0; p < PAGES_PER_BLOCK; p += 4)
					push(base + e * PAGES_PER_BLOCK + p, o->tenant, 0);
			}
		} else if (!strcmp(pattern, "hotcold")) {
			/* hot blocks [0, hot) read between scans of the cold rest */
			uint64_t hot = o->hot ? o->hot : o->blocks / 4, c;

			for (c = hot; c < o->blocks; c++) {
				for (p = 0; p < hot * PAGES_PER_BLOCK; p += 64)
					push(base + p, o->hot_tenant ? (uint32_t)o->hot_tenant - 1
								     : o->tenant, 0);
				for (p = 0; p < PAGES_PER_BLOCK; p++)
					push(base + c * PAGES_PER_BLOCK + p, o->tenant, 0);
			}
		} else if (!strcmp(pattern, "tenants")) {
			/* tenant 0 loops over the first half, tenant 1 over the
			 * second, interleaved block by block */
			uint64_t half = o->blocks / 2, b;

			for (b = 0; b < half; b++)
				for (i = 0; i < 2; i++)
					for (p = 0; p < PAGES_PER_BLOCK; p += 8)
						push(base + (b + i * half) * PAGES_PER_BLOCK + p,
						     (uint32_t)i, 0);
		} else if (!strcmp(pattern, "trace")) {
			if (pass == 0)
				pattern_trace(o);
		} else {
			die("unknown pattern '%s'", pattern);
		}
	}
}

static struct uvm_model_config cfg_default(void)
{
	struct uvm_model_config c = {
		.va_blocks = 512, .gpu_chunks = 0, .batch_size = 256,
		.replay_policy = UVM_MODEL_REPLAY_KEEP, .threshold = 51,
		.big_page_pages = 16, .prefetch = 1,
	};
	return c;
}

static int cmd_reset(int argc, char **argv)
{
	struct uvm_model_config c = cfg_default();
	int i;

	for (i = 0; i + 1 < argc; i += 2) {
		uint32_t v = (uint32_t)num(argv[i + 1]);

		if (!strcmp(argv[i], "va_blocks")) c.va_blocks = v;
		else if (!strcmp(argv[i], "gpu_chunks")) c.gpu_chunks = v;
		else if (!strcmp(argv[i], "batch")) c.batch_size = v;
		else if (!strcmp(argv[i], "replay_policy")) c.replay_policy = v;
		else if (!strcmp(argv[i], "threshold")) c.threshold = v;
		else if (!strcmp(argv[i], "big_page")) c.big_page_pages = v;
		else if (!strcmp(argv[i], "prefetch")) c.prefetch = v;
		else if (!strcmp(argv[i], "migrate_us")) c.migrate_us = v;
		else die("unknown reset key '%s'", argv[i]);
	}
	if (i != argc)
		die("reset key '%s' needs a value", argv[i]);
	xioctl(UVM_MODEL_IOC_RESET, &c, "reset");
	return 0;
}

/* The CPU writes the first page of each of n blocks from first on, gap_ms apart. */
static void cpu_write(uint64_t first, uint64_t n, uint64_t gap_ms)
{
	struct uvm_model_access w;
	struct uvm_model_accesses req = { .ptr = (uintptr_t)&w, .count = 1, .warps = 0 };

	for (uint64_t b = 0; b < n; b++) {
		if (b && gap_ms)
			sleep_ms(gap_ms);
		w.addr = (first + b) * BLOCK_BYTES;
		w.tenant = 0;
		w.type = UVM_MODEL_ACCESS_WRITE | UVM_MODEL_ACCESS_CPU;
		xioctl(UVM_MODEL_IOC_ACCESS, &req, "cpu access");
	}
}

static int cmd_run(int argc, char **argv)
{
	struct run_opts o = { .blocks = 64, .stride = 16, .passes = 1, .warps = 16 };
	struct uvm_model_accesses req;
	struct uvm_model_stats s;
	size_t done, n;
	bool alloc;
	const char *pattern;
	int i;

	if (argc < 1)
		die("%s", "run needs a pattern");
	pattern = argv[0];
	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "file")) { o.file = argv[i + 1]; continue; }
		uint64_t v = num(argv[i + 1]);

		if (!strcmp(argv[i], "blocks")) o.blocks = v;
		else if (!strcmp(argv[i], "first")) o.first = v;
		else if (!strcmp(argv[i], "pages")) o.pages = v;
		else if (!strcmp(argv[i], "stride")) o.stride = v;
		else if (!strcmp(argv[i], "passes")) o.passes = v;
		else if (!strcmp(argv[i], "warps")) o.warps = v;
		else if (!strcmp(argv[i], "seed")) rng_state = v ? v : 1;
		else if (!strcmp(argv[i], "tenant")) o.tenant = v;
		else if (!strcmp(argv[i], "hot")) o.hot = v;
		else if (!strcmp(argv[i], "hot_tenant")) o.hot_tenant = v + 1;
		else if (!strcmp(argv[i], "count")) o.count = v;
		else if (!strcmp(argv[i], "wait_ms")) o.wait_ms = v;
		else if (!strcmp(argv[i], "slice")) o.slice = v;
		else if (!strcmp(argv[i], "gap_ms")) o.gap_ms = v;
		else if (!strcmp(argv[i], "hold_ms")) o.hold_ms = v;
		else if (!strcmp(argv[i], "alloc")) o.alloc = v;
		else if (!strcmp(argv[i], "life_ms")) o.life_ms = v;
		else if (!strcmp(argv[i], "reuse")) o.reuse = v;
		else if (!strcmp(argv[i], "fixed")) o.fixed = v;
		else if (!strcmp(argv[i], "churn")) o.churn = v;
		else if (!strcmp(argv[i], "storm")) o.storm = v;
		else if (!strcmp(argv[i], "storm_ms")) o.storm_ms = v;
		else if (!strcmp(argv[i], "touch_ms")) o.touch_ms = v;
		else if (!strcmp(argv[i], "cpu_blocks")) o.cpu_blocks = v;
		else if (!strcmp(argv[i], "cpu_gap_ms")) o.cpu_gap_ms = v;
		else if (!strcmp(argv[i], "gpu")) access_gpu = (uint32_t)v;
		else die("unknown run key '%s'", argv[i]);
	}
	if (i != argc)
		die("run key '%s' needs a value", argv[i]);
	if (!o.stride || !o.blocks)
		die("%s", "stride and blocks must be > 0");
	if (!strcmp(pattern, "trace") && !o.file)
		die("%s", "trace needs: file PATH");
	build(pattern, &o);
	alloc = !strcmp(pattern, "alloc");
	if (alloc) {
		/* One allocation at a time: mapped, then first-touched. */
		o.alloc = o.alloc ? o.alloc : 4;
		o.slice = o.alloc * PAGES_PER_BLOCK;
	} else {
		xioctl(UVM_MODEL_IOC_STATS, &s, "stats");
		map_blocks(0, s.va_blocks);
	}
	churn(o.churn);
	if (o.storm)
		storm(o.storm, o.storm_ms);
	sleep_ms(o.wait_ms);
	req.warps = (uint32_t)o.warps;
	for (done = 0; done < nacc; done += n) {
		uint64_t at = o.first + done / PAGES_PER_BLOCK;

		n = o.slice && o.slice < nacc - done ? o.slice : nacc - done;
		if (done && o.gap_ms)
			sleep_ms(o.gap_ms);
		if (alloc && o.reuse) {
			/* the same address each time: the accesses move there too */
			for (size_t k = done; k < done + n; k++)
				acc[k].addr -= (at - o.first) * BLOCK_BYTES;
			at = o.first;
		}
		if (alloc)
			map_blocks_how(at, o.alloc, done && o.reuse && o.fixed ? MAP_FIXED :
						    MAP_FIXED_NOREPLACE);
		if (alloc && o.cpu_blocks)
			map_blocks(o.first + o.blocks, o.cpu_blocks);
		if (alloc)
			sleep_ms(o.touch_ms);	/* a kernel launched after the allocation */
		if (alloc && o.cpu_blocks)
			cpu_write(o.first + o.blocks, o.cpu_blocks, o.cpu_gap_ms);
		req.ptr = (uintptr_t)(acc + done);
		req.count = (uint32_t)n;
		xioctl(UVM_MODEL_IOC_ACCESS, &req, "access");
		if (alloc && o.life_ms) {
			sleep_ms(o.life_ms);
			if (!(o.reuse && o.fixed) || done + n >= nacc)
				unmap_blocks(at, o.alloc);
		}
		if (alloc && o.cpu_blocks)
			unmap_blocks(o.first + o.blocks, o.cpu_blocks);
	}
	sleep_ms(o.hold_ms);
	return 0;
}

#define STAT_FIELDS(X) X(accesses) X(fault_entries) X(duplicates) X(faults) \
	X(batches) X(replays) X(pages_migrated) X(pages_prefetched) \
	X(prefetch_hits) X(evictions) X(pages_evicted) X(refaults) \
	X(decisions) X(decisions_native) X(act_default) X(act_bypass) \
	X(act_enter_loop) X(tree_iters) X(chunks_used) X(thrashing_pages) \
	X(batches_deferred) X(replay_bpf_calls) X(replay_policy) \
	X(user_migrations) X(pages_migrated_user) X(pages_migrated_to_cpu) X(migrations_at_once_max) \
	X(remote_accesses) X(va_blocks) X(pages_accessed_by) X(pages_read_dup) \
	X(pages_preferred_gpu) X(pages_preferred_cpu) X(pages_mapped_remote) \
	X(cpu_faults)

static int cmd_stats(int argc, char **argv)
{
	struct uvm_model_stats s;
	int json = argc > 0 && !strcmp(argv[0], "-j");
	const char *sep = "";
	int t;

	xioctl(UVM_MODEL_IOC_STATS, &s, "stats");
	if (json) {
		printf("{");
#define X(f) printf("%s\"" #f "\":%" PRIu64, sep, (uint64_t)s.f), sep = ",";
		STAT_FIELDS(X)
#undef X
		printf(",\"tenants\":[");
		for (t = 0; t < UVM_MODEL_MAX_TENANTS; t++)
			printf("%s{\"pid\":%u,\"faults\":%" PRIu64 ",\"refaults\":%" PRIu64
			       ",\"chunks_evicted\":%" PRIu64 "}", t ? "," : "",
			       s.tenant[t].pid, (uint64_t)s.tenant[t].faults,
			       (uint64_t)s.tenant[t].refaults,
			       (uint64_t)s.tenant[t].chunks_evicted);
		printf("],\"pages_migrated_user_gpu\":[%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "]",
		       (uint64_t)s.pages_migrated_user_gpu[0], (uint64_t)s.pages_migrated_user_gpu[1],
		       (uint64_t)s.pages_migrated_user_gpu[2], (uint64_t)s.pages_migrated_user_gpu[3]);
		printf(",\"faults_per_replay\":%.2f}\n",
		       s.replays ? (double)s.faults / (double)s.replays : 0.0);
		return 0;
	}
#define X(f) printf("%s %" PRIu64 "\n", #f, (uint64_t)s.f);
	STAT_FIELDS(X)
#undef X
	for (t = 0; t < 4; t++)
		printf("pages_migrated_user_gpu%d %" PRIu64 "\n", t, (uint64_t)s.pages_migrated_user_gpu[t]);
	for (t = 0; t < 2; t++)
		printf("tenant%d_faults %" PRIu64 "\ntenant%d_refaults %" PRIu64
		       "\ntenant%d_chunks_evicted %" PRIu64 "\n",
		       t, (uint64_t)s.tenant[t].faults, t, (uint64_t)s.tenant[t].refaults,
		       t, (uint64_t)s.tenant[t].chunks_evicted);
	return 0;
}

static int cmd_bench(int argc, char **argv)
{
	struct uvm_model_bench b = { 0 };

	if (argc != 1)
		die("%s", "bench needs ITERATIONS");
	b.iterations = num(argv[0]);
	xioctl(UVM_MODEL_IOC_BENCH, &b, "bench");
	printf("iterations %" PRIu64 "\nns %" PRIu64 "\nns_per_decision %.2f\n"
	       "act_default %" PRIu64 "\nact_bypass %" PRIu64 "\nact_enter_loop %" PRIu64 "\n",
	       (uint64_t)b.iterations, (uint64_t)b.ns, (double)b.ns / (double)b.iterations,
	       (uint64_t)b.act_default, (uint64_t)b.act_bypass, (uint64_t)b.act_enter_loop);
	return 0;
}

static int cmd_hookbench(int argc, char **argv)
{
	static const char *const names[UVM_MODEL_HOOK_MAX] = {
		"decide_replay", "chunk_used", "chunk_activate", "evict_prepare",
	};
	struct uvm_model_hook_bench b = { 0 };
	uint32_t h;

	if (argc != 2)
		die("%s", "hookbench needs HOOK ITERATIONS");
	for (h = 0; h < UVM_MODEL_HOOK_MAX; h++)
		if (!strcmp(argv[0], names[h]))
			break;
	if (h == UVM_MODEL_HOOK_MAX)
		die("unknown hook '%s'", argv[0]);
	b.hook = h;
	b.iterations = num(argv[1]);
	xioctl(UVM_MODEL_IOC_HOOK_BENCH, &b, "hookbench");
	printf("hook %s\nattached %u\niterations %" PRIu64 "\nns %" PRIu64
	       "\nns_per_call %.2f\n", names[h], b.attached, (uint64_t)b.iterations,
	       (uint64_t)b.ns, (double)b.ns / (double)b.iterations);
	return 0;
}

static int cmd_trigger(int argc, char **argv)
{
	struct uvm_model_trigger t = { 0 };

	if (argc != 1)
		die("%s", "trigger needs STRING");
	t.ptr = (uintptr_t)argv[0];
	t.len = (uint32_t)strlen(argv[0]);
	xioctl(UVM_MODEL_IOC_TRIGGER, &t, "trigger");
	printf("%d\n", t.ret);
	return 0;
}

static int cmd_tenant(int argc, char **argv)
{
	struct uvm_model_tenant t;

	if (argc != 2)
		die("%s", "tenant needs INDEX PID");
	t.tenant = (uint32_t)num(argv[0]);
	t.pid = (uint32_t)num(argv[1]);
	xioctl(UVM_MODEL_IOC_TENANT, &t, "tenant");
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int, char **);
	} cmds[] = {
		{ "reset", cmd_reset }, { "run", cmd_run }, { "stats", cmd_stats },
		{ "bench", cmd_bench }, { "trigger", cmd_trigger }, { "tenant", cmd_tenant },
		{ "hookbench", cmd_hookbench },
	};
	size_t i;

	if (argc < 2) {
		fprintf(stderr, "usage: uvmsim {reset|run|stats|bench|trigger|tenant|hookbench} ...\n");
		return 2;
	}
	dev_fd = open(DEV, O_RDWR);
	if (dev_fd < 0)
		dev_fd = open(DEV_OLD, O_RDWR);
	if (dev_fd < 0)
		die("cannot open %s (is uvm_model loaded?)", DEV);
	uvm_initialize();
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 2, argv + 2);
	die("unknown command '%s'", argv[1]);
	return 2;
}
