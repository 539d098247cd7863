// SPDX-License-Identifier: GPL-2.0
/*
 * cgtree_test.c - the text checks of cmd/lib/cgtree.c: pod UIDs (the API's
 * 8-4-4-4-12 form, a static pod's 32 digits, and what is neither) and
 * cgroup-tree paths with "." or ".." parts.  The cgroup lookups themselves
 * need a cgroup v2 hierarchy: tests/vm/t_sched_pods.sh.
 */
#include <stdio.h>
#include <string.h>

#include "cgtree.h"

static int passed, failed;

static void check(int cond, const char *what)
{
	if (cond) {
		passed++;
	} else {
		failed++;
		printf("FAIL %s\n", what);
	}
}

static void uid(const char *in, int want, const char *hex)
{
	char out[CG_UID_HEX + 1] = "";
	int got = cg_uid_norm(in, out);
	char what[160];

	snprintf(what, sizeof(what), "uid '%s': %d, want %d (%s)", in, got, want, out);
	check(got == want && (want < 0 || !strcmp(out, hex)), what);
}

static void path(const char *in, int want)
{
	char err[256] = "", what[400];
	int got = cg_tree_syntax(in, err, sizeof(err));

	snprintf(what, sizeof(what), "path '%s': %d, want %d (%s)", in, got, want, err);
	check(got == want && (got == 0 || strstr(err, "'..' part")), what);
}

int main(void)
{
	uid("7b2e1d63-4c8f-4e32-8d1f-6a4b3c2d1e01", 1, "7b2e1d634c8f4e328d1f6a4b3c2d1e01");
	uid("7B2E1D63-4C8F-4E32-8D1F-6A4B3C2D1E01", 1, "7b2e1d634c8f4e328d1f6a4b3c2d1e01");
	uid("0f3c8e5a9b1d4e6f8a2c7b9d1e3f5a70", 2, "0f3c8e5a9b1d4e6f8a2c7b9d1e3f5a70");
	uid("7b2e1d63_4c8f_4e32_8d1f_6a4b3c2d1e01", -1, "");	/* the systemd driver's spelling */
	uid("7b2e1d63-4c8f-4e32-8d1f-6a4b3c2d1e0", -1, "");	/* one digit short */
	uid("7b2e1d63-4c8f-4e32-8d1f-6a4b3c2d1e011", -1, "");	/* one too many */
	uid("7b2e1d634-c8f-4e32-8d1f-6a4b3c2d1e01", -1, "");	/* dash misplaced */
	uid("7b2e1d63-4c8f-4e32-8d1f-6a4b3c2d1eg1", -1, "");	/* not hex */
	uid("0f3c8e5a9b1d4e6f8a2c7b9d1e3f5a7", -1, "");
	uid("", -1, "");
	uid("../../../../etc/passwd-0000000000", -1, "");
	path("/kubepods.slice/kubepods-besteffort.slice", 0);
	path("kubepods/besteffort", 0);
	path("/sys/fs/cgroup/kubepods", 0);
	path("/", 0);
	path("/kubepods/../system.slice", -1);
	path("..", -1);
	path("/sys/fs/cgroup/..", -1);
	path("/sys/fs/cgroup/kubepods/./x", -1);
	path("a/b/..", -1);
	path("/kubepods/..x/y", 0);	/* a name that starts with dots is a name */
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
