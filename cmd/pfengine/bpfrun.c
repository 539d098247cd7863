// SPDX-License-Identifier: GPL-2.0
/*
 * bpfrun.c - runs an engine policy: a BPF_PROG_TYPE_SYSCALL program
 * (bpf/pfengine_abi.h), built in (the skeletons' embedded objects) or a
 * user's file.  Checked before anything loads (the section, the ABI
 * version, the batch), loaded with its verifier log kept for -d, its global
 * data mmap'ed: each batch of events is written into `pfe_io`, the program
 * is run with BPF_PROG_TEST_RUN and its requests are read back from the
 * same memory.  Parameters and counters are found by their BTF names.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "gpuctl.h"
#include "pfengine.h"
#include "trustfile.h"
#include "btfvar.h"

#include "engine_none.elf.h"
#include "engine_stream.elf.h"
#include "engine_stride.elf.h"
#include "engine_populate.elf.h"
#include "engine_thrashing.elf.h"
#include "engine_adaptive.elf.h"

const char *const pfe_ctr_names[PFE_C_MAX] = {
	[PFE_C_SEEN] = "seen",
	[PFE_C_FAULTS] = "faults",
	[PFE_C_REQUESTS] = "requests",
	[PFE_C_REQ_BYTES] = "requested_bytes",
	[PFE_C_IOCTLS] = "ioctls",
	[PFE_C_BYTES] = "migrated_bytes",
	[PFE_C_ERRORS] = "errors",
	[PFE_C_CAPPED] = "capped",
	[PFE_C_LOST] = "lost_events",
	[PFE_C_CPU_US] = "cpu_us",
	[PFE_C_DRV_FAULTS] = "driver_gpu_faults",
	[PFE_C_DRV_HTOD] = "driver_bytes_htod",
	[PFE_C_CALLS] = "prog_calls",
	[PFE_C_RUN_NS] = "prog_ns",
	[PFE_C_BAD_REQS] = "dropped_requests",
	[PFE_C_MAPS_READS] = "maps_reads",
	[PFE_C_WATCHER] = "alloc_watcher",
	[PFE_C_ALLOCS] = "allocs",
	[PFE_C_FREES] = "frees",
	[PFE_C_GAPS] = "gaps",
	[PFE_C_WATCH_LOST] = "alloc_events_lost",
	[PFE_C_FAULTS_ON] = "faults_on",
	[PFE_C_FAULTS_OFF] = "faults_off",
	[PFE_C_SAMPLES] = "fault_samples",
	[PFE_C_SERVED] = "allocs_served",
	[PFE_C_MISSED] = "allocs_missed",
	[PFE_C_AGE_P50] = "age_p50_us",
	[PFE_C_AGE_P99] = "age_p99_us",
	[PFE_C_PULLS] = "pull_events",
	[PFE_C_PULL_ON] = "cpu_faults_on",
};

/* --- the objects' data by BTF name (btfvar.c) -------------------------- */

/* The initial value of global name (before load): a pointer into it, or NULL. */
static const void *initial(struct bpf_object *obj, const char *name, uint32_t *size)
{
	struct pfe_var f;
	struct bpf_map *m;
	const void *base;
	size_t sz;

	if (!pfe_var_find(bpf_object__btf(obj), NULL, name, &f))
		return NULL;
	m = bpf_object__find_map_by_name(obj, f.sec);
	base = m ? bpf_map__initial_value(m, &sz) : NULL;
	if (!base || f.off + f.size > sz)
		return NULL;
	*size = f.size;
	return (const char *)base + f.off;
}

struct collect {
	struct pfe_policy *pol;
	struct bpf_object *obj;
	bool bad;
};

static int param_cb(const struct pfe_var *v, void *arg)
{
	struct collect *c = arg;
	struct pfe_policy *pol = c->pol;
	struct param *p;
	const struct pfe_param_info *pi;
	char info[96];
	uint32_t sz;
	int k = pol->nparams;

	if (strcmp(v->sec, PFE_SEC_PARAMS))
		return 0;
	if (k == PFE_MAX_PARAMS || v->size != 8 || strlen(v->name) >= sizeof(pol->pname[0])) {
		c->bad = true;
		return 1;
	}
	p = &pol->params[pol->nparams++];
	snprintf(pol->pname[k], sizeof(pol->pname[k]), "%s", v->name);
	p->name = pol->pname[k];
	p->doc = pol->pdoc[k];
	snprintf(info, sizeof(info), PFE_PARAM_INFO_PREFIX "%s", v->name);
	pi = initial(c->obj, info, &sz);
	if (pi && sz == sizeof(*pi)) {
		p->def = pi->def;
		p->min = pi->min;
		p->max = pi->max;
		snprintf(pol->pdoc[k], sizeof(pol->pdoc[k]), "%.*s", (int)sizeof(pi->doc), pi->doc);
	} else {
		/* declared by hand: its initial value, any value */
		const uint64_t *d = initial(c->obj, v->name, &sz);

		p->def = d && sz == 8 ? *d : 0;
		p->min = 0;
		p->max = UINT64_MAX;
		pol->pdoc[k][0] = '\0';
	}
	return 0;
}

static int silent_print(enum libbpf_print_level l, const char *fmt, va_list ap)
{
	(void)l, (void)fmt, (void)ap;
	return 0;
}

static struct bpf_object *open_obj(const struct pfe_policy *pol, int *err)
{
	LIBBPF_OPTS(bpf_object_open_opts, o, .object_name = pol->name);
	libbpf_print_fn_t prev = debug_output ? NULL : libbpf_set_print(silent_print);
	struct bpf_object *obj;

	obj = pol->elf ? bpf_object__open_mem(pol->elf, pol->elf_size, &o) :
			 bpf_object__open_file(pol->path, &o);
	*err = obj ? 0 : -errno;
	if (!debug_output)
		libbpf_set_print(prev);
	return obj;
}

/*
 * The checks before anything loads: 0, or -1 with why (one line) and what
 * the object is in *kind.
 */
static int check_obj(struct bpf_object *obj, struct pfe_policy *pol, enum pfe_file_kind *kind,
		     char *why, size_t len)
{
	struct collect c = { .pol = pol, .obj = obj };
	struct bpf_program *prog, *eng = NULL;
	struct bpf_map *map;
	const uint32_t *abi;
	const char *doc;
	uint32_t sz;
	int nprogs = 0;

	*kind = PFE_FILE_OTHER;
	bpf_object__for_each_map(map, obj)
		if (bpf_map__type(map) == BPF_MAP_TYPE_STRUCT_OPS)
			*kind = PFE_FILE_STRUCT_OPS;
	bpf_object__for_each_program(prog, obj) {
		nprogs++;
		if (bpf_program__type(prog) == BPF_PROG_TYPE_SYSCALL)
			eng = prog;
	}
	if (*kind == PFE_FILE_STRUCT_OPS)
		return snprintf(why, len, "it is a struct_ops policy, not an engine policy"), -1;
	if (!eng) {
		snprintf(why, len, "it has no SEC(\"syscall\") program (an engine policy is one "
			 "BPF_PROG_TYPE_SYSCALL program: see bpf/pfengine_abi.h)");
		return -1;
	}
	*kind = PFE_FILE_ENGINE;
	if (pol->path[0] && pfe_obj_limits(obj, pol->elf, pol->elf_size, pol->allow_helpers, why, len))
		return -1;
	if (nprogs != 1)
		return snprintf(why, len, "it has %d programs; an engine policy has one", nprogs), -1;
	abi = initial(obj, "pfe_abi_version", &sz);
	if (!abi || sz != 4) {
		snprintf(why, len, "it was not built with bpf/pfengine_abi.h (no pfe_abi_version: "
			 "use PFE_ENGINE())");
		return -1;
	}
	if (*abi != PFE_ABI_VERSION) {
		snprintf(why, len, "it speaks engine ABI version %u, this gpuctl speaks %u: rebuild "
			 "it with this gpuctl's bpf/pfengine_abi.h", *abi, PFE_ABI_VERSION);
		return -1;
	}
	if (!initial(obj, "pfe_io", &sz) || sz != sizeof(struct pfe_io)) {
		snprintf(why, len, "its pfe_io is missing or not ABI %u's size", PFE_ABI_VERSION);
		return -1;
	}
	abi = initial(obj, "pfe_wants", &sz);
	pol->wants = abi && sz == 4 ? *abi & (PFE_W_ALL | PFE_W_PULLS) : PFE_W_ALL;
	doc = initial(obj, "pfe_doc", &sz);
	if (doc && sz)
		snprintf(pol->doc, sizeof(pol->doc), "%.*s", (int)sz, doc);
	pol->nparams = 0;
	pfe_var_each(bpf_object__btf(obj), param_cb, &c);
	if (c.bad) {
		snprintf(why, len, "its parameters are not %d __u64s at most (PFE_PARAM)", PFE_MAX_PARAMS);
		return -1;
	}
	return 0;
}

/* --- built-ins ------------------------------------------------------------- */

static const struct {
	const char *name;
	const void *(*elf)(size_t *sz);
	bool never_migrates;
} builtins[] = {
	{ "none", engine_none__elf_bytes, true },
	{ "stream", engine_stream__elf_bytes, false },
	{ "stride", engine_stride__elf_bytes, false },
	{ "populate", engine_populate__elf_bytes, false },
	{ "thrashing", engine_thrashing__elf_bytes, false },
	{ "adaptive", engine_adaptive__elf_bytes, false },
};
#define NBUILTIN (int)(sizeof(builtins) / sizeof(builtins[0]))

static struct pfe_policy builtin_pol[NBUILTIN];
static bool builtin_ok[NBUILTIN];

const struct pfe_policy *pfe_builtin(int i)
{
	struct pfe_policy *p;
	enum pfe_file_kind k;
	struct bpf_object *obj;
	char why[256];
	int err;

	if (i < 0 || i >= NBUILTIN)
		return NULL;
	p = &builtin_pol[i];
	if (builtin_ok[i])
		return p;
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", builtins[i].name);
	p->elf = builtins[i].elf(&p->elf_size);
	p->never_migrates = builtins[i].never_migrates;
	obj = open_obj(p, &err);
	if (!obj || check_obj(obj, p, &k, why, sizeof(why))) {
		/* a build error: the tests catch it */
		snprintf(p->doc, sizeof(p->doc), "(broken: %s)", obj ? why : strerror(-err));
	}
	bpf_object__close(obj);
	builtin_ok[i] = true;
	return p;
}

const struct pfe_policy *pfe_policy_find(const char *name)
{
	for (int i = 0; i < NBUILTIN; i++)
		if (!strcmp(builtins[i].name, name))
			return pfe_builtin(i);
	return NULL;
}

/* libbpf's own error numbers (-LIBBPF_ERRNO__*) in words as well as errno's. */
static const char *bpf_strerror(int err, char *buf, size_t len)
{
	if (libbpf_strerror(err, buf, len))
		snprintf(buf, len, "%s", strerror(err < 0 ? -err : err));
	return buf;
}

/* The object's bytes, read once: pol->elf; 0, or -1 (after p_err unless quiet). */
static int read_file(const char *path, struct pfe_policy *pol, bool quiet)
{
	struct trusted_file tf;

	if (trust_file_read(path, &tf, quiet))
		return -1;
	pol->elf = tf.data;	/* the policy's for the process's life */
	pol->elf_size = tf.size;
	return 0;
}

int pfe_policy_file(const char *path, bool allow_helpers, struct pfe_policy *pol,
		    enum pfe_file_kind *kind)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	enum pfe_file_kind k = PFE_FILE_OTHER;
	struct bpf_object *obj;
	char why[256], *dot;
	int err;

	free((void *)pol->elf);
	memset(pol, 0, sizeof(*pol));
	snprintf(pol->path, sizeof(pol->path), "%s", path);
	pol->allow_helpers = allow_helpers;
	snprintf(pol->name, sizeof(pol->name), "%s", base);
	dot = strstr(pol->name, ".bpf.o");
	if (!dot)
		dot = strrchr(pol->name, '.');
	if (dot && dot != pol->name)
		*dot = '\0';
	if (read_file(path, pol, false))
		goto out;
	obj = open_obj(pol, &err);
	if (!obj) {
		p_err("%s is not a BPF object libbpf can open (%s)", path,
		      bpf_strerror(err, why, sizeof(why)));
		goto out;
	}
	err = check_obj(obj, pol, &k, why, sizeof(why));
	bpf_object__close(obj);
	if (err) {
		if (k != PFE_FILE_STRUCT_OPS || !kind)
			p_err("%s: %s", path, why);
		goto out;
	}
	if (kind)
		*kind = k;
	return 0;
out:
	if (kind)
		*kind = k;
	return -1;
}

enum pfe_file_kind pfe_file_kind(const char *path)
{
	static struct pfe_policy pol;
	enum pfe_file_kind k = PFE_FILE_OTHER;
	struct bpf_object *obj;
	char why[256];
	int err;

	free((void *)pol.elf);
	memset(&pol, 0, sizeof(pol));
	snprintf(pol.name, sizeof(pol.name), "probe");
	if (read_file(path, &pol, true))
		return k;
	obj = open_obj(&pol, &err);
	if (obj)
		check_obj(obj, &pol, &k, why, sizeof(why));
	bpf_object__close(obj);
	return k;
}

/* --- a run ------------------------------------------------------------------ */

int pfe_run_init(struct pfe_run *r, const struct pfe_policy *pol, int argc, char **argv)
{
	memset(r, 0, sizeof(*r));
	r->pol = pol;
	r->prog_fd = -1;
	for (int i = 0; i < pol->nparams; i++)
		r->params[i] = pol->params[i].def;
	for (; argc > 0; argc -= 2, argv += 2) {
		unsigned long long v;
		int i, err = param_parse_one(pol->params, (unsigned int)pol->nparams, argc, argv, &i, &v);

		if (err == PARAM_UNKNOWN)
			p_err("policy %s has no parameter '%s'", pol->name, argv[0]);
		if (err)
			return -1;
		r->params[i] = v;
	}
	return 0;
}

/* mmaps the global data map of section sec: its base, or NULL. */
static void *map_data(struct pfe_run *r, const char *sec, size_t *size)
{
	struct bpf_map *m = bpf_object__find_map_by_name(r->obj, sec);
	long page = sysconf(_SC_PAGESIZE);
	size_t len;
	void *p;

	if (!m || r->nmm == (int)(sizeof(r->mm) / sizeof(r->mm[0])))
		return NULL;
	len = ((size_t)bpf_map__value_size(m) + page - 1) & ~(size_t)(page - 1);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(m), 0);
	if (p == MAP_FAILED)
		return NULL;
	r->mm[r->nmm] = p;
	r->mmlen[r->nmm++] = len;
	if (size)
		*size = bpf_map__value_size(m);
	return p;
}

static int ctr_cb(const struct pfe_var *v, void *arg)
{
	struct pfe_run *r = arg;

	if (strcmp(v->sec, PFE_SEC_CTRS) || v->size != 8 || r->nctrs == PFE_MAX_CTRS)
		return 0;
	snprintf(r->ctr_name[r->nctrs], sizeof(r->ctr_name[0]), "%s", v->name);
	r->cv[r->nctrs++] = (uint64_t *)(uintptr_t)v->off;	/* an offset until mapped */
	return 0;
}

/* The last line of a verifier log that says something. */
static const char *log_reason(char *log)
{
	char *end = log + strlen(log), *line;

	while (end > log && (end[-1] == '\n' || end[-1] == ' '))
		*--end = '\0';
	for (;;) {
		line = end;
		while (line > log && line[-1] != '\n')
			line--;
		if (line == log || (strncmp(line, "processed ", 10) && strncmp(line, "verification time", 17) &&
				    strncmp(line, "stack depth", 11) && strncmp(line, "-- END", 6)))
			return line;
		end = line - 1;
		*end = '\0';
	}
}

/*
 * Loads r->obj (opened and checked): no log while it loads (a long one
 * could overflow); on a refusal, again from the same bytes with the
 * verifier's log, which the error then quotes.  The program, or NULL
 * after p_err.
 */
static struct bpf_program *load_prog(struct pfe_run *r)
{
	const struct pfe_policy *pol = r->pol;
	struct bpf_program *prog = NULL, *p;
	libbpf_print_fn_t prev;
	enum pfe_file_kind k;
	char why[256], *log;
	size_t logsz = 1 << 20;
	int err;

	bpf_object__for_each_program(p, r->obj)
		prog = p;
	log = calloc(1, logsz);
	if (!log) {
		p_err("out of memory");
		return NULL;
	}
	prev = debug_output ? NULL : libbpf_set_print(silent_print);
	err = bpf_object__load(r->obj);
	if (err) {
		/* again from the same bytes (pol->elf: never the path again), checked again */
		struct pfe_policy tmp = *pol;

		bpf_object__close(r->obj);
		r->obj = open_obj(pol, &err);
		prog = NULL;
		if (r->obj && !check_obj(r->obj, &tmp, &k, why, sizeof(why)))
			bpf_object__for_each_program(p, r->obj)
				prog = p;
		if (prog) {
			bpf_program__set_log_buf(prog, log, logsz);
			bpf_program__set_log_level(prog, 1);
			err = bpf_object__load(r->obj);
		} else if (!err) {
			err = -EINVAL;
		}
		/* (it may go through the second time: then it runs) */
	}
	if (!debug_output)
		libbpf_set_print(prev);
	if (err) {
		if (debug_output && log[0])
			fprintf(stderr, "%s\n", log);
		if (log[0])
			p_err("policy %s: the verifier refused it: %s%s", pol->name, log_reason(log),
			      debug_output ? "" : " (-d shows the verifier's log)");
		else
			p_err("policy %s: the kernel refused to load it: %s", pol->name,
			      bpf_strerror(err, why, sizeof(why)));
		prog = NULL;
	}
	free(log);
	return prog;
}

/* The loaded program's globals, mapped: its batch, its parameters (set), its counters. */
static int map_globals(struct pfe_run *r)
{
	const struct pfe_policy *pol = r->pol;
	struct pfe_var f = { 0 };
	char *base;
	size_t sz;

	pfe_var_find(bpf_object__btf(r->obj), NULL, "pfe_io", &f);
	base = f.sec ? map_data(r, f.sec, &sz) : NULL;
	if (!base || f.off + sizeof(struct pfe_io) > sz) {
		p_err("policy %s: cannot map its global data (%s)", pol->name, strerror(errno));
		return -1;
	}
	r->io = (struct pfe_io *)(base + f.off);
	r->io->abi = PFE_ABI_VERSION;
	r->io->nev = r->io->nreq = 0;
	if (pol->nparams) {
		base = map_data(r, PFE_SEC_PARAMS, &sz);
		if (!base) {
			p_err("policy %s: cannot map its parameters (%s)", pol->name, strerror(errno));
			return -1;
		}
		for (int i = 0; i < pol->nparams; i++) {
			if (!pfe_var_find(bpf_object__btf(r->obj), PFE_SEC_PARAMS, pol->params[i].name,
					  &f) || f.off + 8 > sz) {
				p_err("policy %s: parameter %s not found", pol->name, pol->params[i].name);
				return -1;
			}
			r->pv[i] = (uint64_t *)(base + f.off);
			*r->pv[i] = r->params[i];
		}
	}
	pfe_var_each(bpf_object__btf(r->obj), ctr_cb, r);
	if (r->nctrs) {
		base = map_data(r, PFE_SEC_CTRS, &sz);
		if (!base) {
			p_err("policy %s: cannot map its counters (%s)", pol->name, strerror(errno));
			return -1;
		}
		for (int i = 0; i < r->nctrs; i++)
			r->cv[i] = (uint64_t *)(base + (uintptr_t)r->cv[i]);
	}
	return 0;
}

int pfe_run_load(struct pfe_run *r)
{
	const struct pfe_policy *pol = r->pol;
	struct bpf_program *prog;
	enum pfe_file_kind k;
	char why[256];
	int err;

	r->obj = open_obj(pol, &err);
	if (!r->obj) {
		p_err("policy %s: cannot open its object (%s)", pol->name,
		      bpf_strerror(err, why, sizeof(why)));
		return -1;
	}
	{
		struct pfe_policy tmp = *pol;

		if (check_obj(r->obj, &tmp, &k, why, sizeof(why))) {
			p_err("policy %s: %s", pol->name, why);
			return -1;
		}
	}
	prog = load_prog(r);
	if (!prog)
		return -1;
	r->prog_fd = bpf_program__fd(prog);
	return map_globals(r);
}

struct pfe_event *pfe_run_slot(struct pfe_run *r)
{
	struct pfe_event *e;

	if (r->io->nev >= PFE_BATCH)
		return NULL;
	e = &r->io->ev[r->io->nev++];
	memset(e, 0, sizeof(*e));
	return e;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

int pfe_run_batch(struct pfe_run *r)
{
	LIBBPF_OPTS(bpf_test_run_opts, t);
	struct pfe_io *io = r->io;
	uint64_t t0;
	int ret;

	for (uint32_t i = 0; i < io->nev; i++) {
		r->ctr[PFE_C_SEEN]++;
		if (io->ev[i].kind == PFE_EV_FAULT && !(io->ev[i].flags & PFE_F_DUPLICATE))
			r->ctr[PFE_C_FAULTS]++;
	}
	io->nreq = 0;
	t0 = now_ns();
	io->now_ns = t0;
	ret = bpf_prog_test_run_opts(r->prog_fd, &t);
	r->ctr[PFE_C_RUN_NS] += now_ns() - t0;
	r->ctr[PFE_C_CALLS]++;
	io->nev = 0;
	if (ret) {
		io->nreq = 0;
		return -errno;
	}
	if (io->nreq > PFE_MAX_REQS)
		io->nreq = PFE_MAX_REQS;
	for (uint32_t i = 0; i < io->nreq; i++) {
		r->ctr[PFE_C_REQUESTS]++;
		r->ctr[PFE_C_REQ_BYTES] += io->req[i].len;
	}
	return 0;
}

/* The pinned files' names of the global data, by section. */
static const char *const pin_names[][2] = {
	{ ".data.pfe_io", "pfe_io" }, { PFE_SEC_PARAMS, "params" }, { PFE_SEC_CTRS, "counters" },
	{ ".rodata", "rodata" }, { ".bss", "bss" }, { ".data", "data" },
};

int pfe_run_pin(struct pfe_run *r, const char *dir)
{
	struct bpf_map *m;
	char name[64], path[PATH_MAX];
	int other = 0;

	if (mkdir(dir, 0700) && errno != EEXIST) {
		p_err("cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	snprintf(r->pin_dir, sizeof(r->pin_dir), "%s", dir);
	bpf_object__for_each_map(m, r->obj) {
		snprintf(name, sizeof(name), "%s", bpf_map__name(m));
		if (bpf_map__is_internal(m)) {
			snprintf(name, sizeof(name), "internal%d", other++);
			for (size_t i = 0; i < sizeof(pin_names) / sizeof(pin_names[0]); i++)
				if (bpf_object__find_map_by_name(r->obj, pin_names[i][0]) == m)
					snprintf(name, sizeof(name), "%s", pin_names[i][1]);
		}
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		unlink(path);
		if (bpf_map__pin(m, path)) {
			p_err("cannot pin %s: %s", path, strerror(errno));
			return -1;
		}
	}
	return 0;
}

void pfe_run_free(struct pfe_run *r)
{
	for (int i = 0; i < r->nmm; i++)
		munmap(r->mm[i], r->mmlen[i]);
	r->nmm = 0;
	if (r->pin_dir[0]) {
		struct bpf_map *m;

		bpf_object__for_each_map(m, r->obj)
			bpf_map__unpin(m, NULL);
		rmdir(r->pin_dir);
		r->pin_dir[0] = '\0';
	}
	bpf_object__close(r->obj);
	r->obj = NULL;
	r->io = NULL;
	r->prog_fd = -1;
}
