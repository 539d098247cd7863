// SPDX-License-Identifier: GPL-2.0
/*
 * The engine's allocation table (cmd/pfengine/allocs.c) on crafted watcher
 * events: ALLOC and FREE for each change of managed memory, CUDA's
 * PROT_NONE reservations, MAP_FIXED over a range, partial unmaps, mremap,
 * mprotect, and the decision ages and misses.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "allocs.h"
#include "pfengine_abi.h"

static int pass, failed;
#define CHECK(name, cond) do { if (cond) { pass++; printf("ok   %s\n", name); } \
	else { failed++; printf("FAIL %s (line %d)\n", name, __LINE__); } } while (0)

struct ev { int kind; uint64_t s, e; };
static struct ev got[64];
static int ngot;

static void emit(int kind, uint64_t s, uint64_t e, uint64_t ts, void *arg)
{
	(void)ts;
	(void)arg;
	if (ngot < 64)
		got[ngot++] = (struct ev){ kind, s, e };
}

static void ev(struct allocs *a, int op, uint64_t addr, uint64_t len, int uvm, unsigned prot)
{
	struct aw_event e = { .op = op, .addr = addr, .len = len, .flags = uvm ? AW_F_UVM : 0,
			      .prot = prot };

	ngot = 0;
	allocs_event(a, &e, 1000);
}

static int is(int i, int kind, uint64_t s, uint64_t e)
{
	return i < ngot && got[i].kind == kind && got[i].s == s && got[i].e == e;
}

#define M (1ull << 20)
#define B 0x7f0000000000ull

int main(void)
{
	struct allocs a;
	struct aw_event mr = { .op = AW_MREMAP, .addr = B + 64 * M, .len = 4 * M,
			       .addr2 = B + 128 * M, .len2 = 8 * M };
	struct alloc *x;

	allocs_init(&a, 1, emit, NULL);
	ev(&a, AW_MMAP, B, 64 * M, 1, 0);
	CHECK("a PROT_NONE reservation: no ALLOC", ngot == 0 && a.n == 1 && !allocs_find(&a, B));
	ev(&a, AW_MMAP, B + 2 * M, 4 * M, 1, 3);
	CHECK("MAP_FIXED RW over the reservation: ALLOC", ngot == 1 && is(0, PFE_EV_ALLOC, B + 2 * M, B + 6 * M));
	CHECK("the reservation split around it", a.n == 3 && a.v[0].e == B + 2 * M && a.v[2].s == B + 6 * M);
	x = allocs_find(&a, B + 3 * M);
	CHECK("found inside", x && x->s == B + 2 * M && x->e == B + 6 * M);
	CHECK("not in the reservation", !allocs_find(&a, B + 7 * M));
	ev(&a, AW_MMAP, B + 2 * M, 4 * M, 1, 0);
	CHECK("freed as CUDA frees it (PROT_NONE over it): FREE", ngot == 1 && is(0, PFE_EV_FREE, B + 2 * M, B + 6 * M));
	ev(&a, AW_MMAP, B + 2 * M, 4 * M, 1, 3);
	CHECK("the same address again: a new ALLOC", ngot == 1 && is(0, PFE_EV_ALLOC, B + 2 * M, B + 6 * M));
	ev(&a, AW_MMAP, B + 3 * M, 1 * M, 0, 3);
	CHECK("an anonymous MAP_FIXED inside: FREE of that part only", ngot == 1 && is(0, PFE_EV_FREE, B + 3 * M, B + 4 * M));
	CHECK("the rest stays managed", allocs_find(&a, B + 2 * M) && allocs_find(&a, B + 5 * M) && !allocs_find(&a, B + 3 * M));
	ev(&a, AW_MUNMAP, B, 64 * M, 0, 0);
	CHECK("munmap of all: FREE of each managed piece", ngot == 2 && is(0, PFE_EV_FREE, B + 2 * M, B + 3 * M) &&
	      is(1, PFE_EV_FREE, B + 4 * M, B + 6 * M) && a.n == 0);

	ev(&a, AW_MMAP, B + 64 * M, 4 * M, 1, 3);
	ngot = 0;
	allocs_event(&a, &mr, 1000);
	CHECK("mremap: FREE of the old, ALLOC of the new", ngot == 2 && is(0, PFE_EV_FREE, B + 64 * M, B + 68 * M) &&
	      is(1, PFE_EV_ALLOC, B + 128 * M, B + 136 * M));
	ev(&a, AW_MPROTECT, B + 128 * M, 8 * M, 0, 0);
	CHECK("mprotect PROT_NONE: FREE", ngot == 1 && is(0, PFE_EV_FREE, B + 128 * M, B + 136 * M));
	ev(&a, AW_MPROTECT, B + 130 * M, 2 * M, 0, 3);
	CHECK("mprotect RW of part of a reservation: ALLOC of that part", ngot == 1 &&
	      is(0, PFE_EV_ALLOC, B + 130 * M, B + 132 * M));
	ev(&a, AW_MUNMAP, B + 100 * M, 2 * M, 0, 0);
	CHECK("munmap elsewhere: nothing", ngot == 0);

	/* ages and misses */
	ev(&a, AW_MUNMAP, 0, ~0ull >> 1, 0, 0);
	ngot = 0;
	struct aw_event m1 = { .op = AW_MMAP, .addr = B, .len = 2 * M, .flags = AW_F_UVM, .prot = 3 };
	struct aw_event m2 = { .op = AW_MMAP, .addr = B + 2 * M, .len = 2 * M, .flags = AW_F_UVM, .prot = 3 };
	allocs_event(&a, &m1, 1000000);
	allocs_event(&a, &m2, 1000000);
	x = allocs_find(&a, B);
	CHECK("first fault: true once", x && allocs_fault(&a, x, 2000000) && !allocs_fault(&a, x, 2500000));
	allocs_served(&a, B, 2 * M, 4000000, 4000000);	/* 3 ms after it was made */
	CHECK("served: counted", a.served == 1);
	CHECK("age: from creation (3000 us)", allocs_age_us(&a, 50) >= 2900 && allocs_age_us(&a, 50) <= 3100);
	x = allocs_find(&a, B + 2 * M);
	allocs_fault(&a, x, 5000000);
	ev(&a, AW_MUNMAP, B + 2 * M, 2 * M, 0, 0);
	CHECK("faulted and freed unserved: missed", a.missed == 1);
	allocs_finish(&a);
	CHECK("served ones are not missed at the end", a.missed == 1);

	/* pulls: the CPU's first fault in an allocation after each move to a GPU */
	CHECK("pull: the served one waits for the CPU", allocs_pull_waiting(&a, 4500000) == 1);
	CHECK("pull: ... only for PULL_WINDOW_NS after its move",
	      allocs_pull_waiting(&a, 4000001 + PULL_WINDOW_NS) == 0 &&
	      !allocs_pull(&a, B, 4000001 + PULL_WINDOW_NS));
	CHECK("pull: a CPU fault outside every allocation: none", !allocs_pull(&a, B + 64 * M, 4500000));
	x = allocs_pull(&a, B + 4096, 4500000);
	CHECK("pull: the first CPU fault in it: it", x && x->s == B && x->e == B + 2 * M);
	CHECK("pull: the second: none", !allocs_pull(&a, B + 8192, 4600000) &&
	      allocs_pull_waiting(&a, 4600000) == 0);
	allocs_served(&a, B, 2 * M, 6000000, 6000000);
	CHECK("pull: moved again, watched again (not served twice)", allocs_pull_waiting(&a, 6500000) == 1 &&
	      a.served == 1 && allocs_pull(&a, B, 6500000));
	allocs_event(&a, &m2, 7000000);
	CHECK("pull: a new allocation is not watched before its move", !allocs_pull(&a, B + 2 * M, 7500000));
	allocs_watch(&a, B + 2 * M, 4096, 8000000);
	CHECK("pull: watched on request (PFE_DST_WATCH), nothing served", a.served == 1 &&
	      allocs_pull(&a, B + 2 * M, 8500000));
	/* a move that starts 2 ms after creation and lasts 51 ms */
	allocs_served(&a, B + 2 * M, 2 * M, 9000000, 60000000);
	CHECK("age: at the move's start (2000 us), not its end", a.served == 2 &&
	      allocs_age_us(&a, 50) >= 1900 && allocs_age_us(&a, 50) <= 2100 && allocs_age_us(&a, 99) <= 3100);
	CHECK("pull: watched from the move's end", allocs_pull_waiting(&a, 59000000 + PULL_WINDOW_NS) == 1);
	allocs_free(&a);
	printf("%d passed, %d failed\n", pass, failed);
	return failed ? 1 : 0;
}
