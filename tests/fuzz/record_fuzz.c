// SPDX-License-Identifier: GPL-2.0
/*
 * record_fuzz - libFuzzer target for the gpuctl trace record reader
 * (cmd/trace/record.c): any input must give events or a clear error, never a
 * crash, a hang or an out-of-bounds read.
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Icmd \
 *       tests/fuzz/record_fuzz.c cmd/trace/record.c -o record_fuzz
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gt_reader r;
	struct gt_event e;
	int n, events = 0;

	if (gt_reader_open(&r, NULL, data, size)) {
		if (!r.err[0])
			__builtin_trap();	/* an error must say why */
		return 0;
	}
	while ((n = gt_reader_next(&r, &e)) > 0) {
		if (e.type == 0 || e.type >= GT_EV_MAX)
			__builtin_trap();
		events++;
		if ((size_t)events > size)
			__builtin_trap();	/* must make progress */
	}
	if (n < 0 && !r.err[0])
		__builtin_trap();
	return 0;
}
