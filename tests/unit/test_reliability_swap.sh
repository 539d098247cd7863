#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# issue 32 item 11: the safe-write helper (cmd/lib/safefile.c) renames only
# its own file.  The output's directory belongs to an unprivileged user who
# runs a swapper: a loop that renames a symbolic link (to a root 0600 file)
# onto every temporary name it sees, while root's gpuctl writes the output
# again and again (exporter textfile --output).  The output never becomes a
# link, the root file never changes, and a write that lost its temporary
# file says so (one Error line, exit 1) instead of reporting success.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
G=$GPUCTL
T=$T_DIR
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (setpriv)"; ok "skipped"; summary; }
NOBODY=65534
as_user() { setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups -- "$@"; }

cat >"$T/swapper.c" <<'SRC'
/* swapper DIR TARGET STOPFILE: rename a link to TARGET onto every .*.tmp in DIR */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
int main(int argc, char **argv)
{
	unsigned long swaps = 0;
	int dfd;

	if (argc != 4 || (dfd = open(argv[1], O_RDONLY | O_DIRECTORY)) < 0)
		return 2;
	while (access(argv[3], F_OK)) {
		DIR *d = opendir(argv[1]);
		struct dirent *e;

		if (!d)
			return 2;
		while ((e = readdir(d))) {
			size_t n = strlen(e->d_name);

			if (e->d_name[0] != '.' || n < 5 || strcmp(e->d_name + n - 4, ".tmp") ||
			    !strncmp(e->d_name, ".sw", 3))
				continue;
			unlinkat(dfd, ".swlink", 0);
			if (!symlinkat(argv[2], dfd, ".swlink") &&
			    !renameat(dfd, ".swlink", dfd, e->d_name))
				swaps++;
		}
		closedir(d);
	}
	printf("%lu\n", swaps);
	return 0;
}
SRC
if ! ${CC:-cc} -O2 -Wall -o "$T/swapper" "$T/swapper.c" 2>"$T/cc.err"; then
	fail "build swapper" "$(head -c 400 "$T/cc.err")"
	summary
fi
chmod 711 "$T"
mkdir -p "$T/nobpf" "$T/out"
chown $NOBODY:$NOBODY "$T/out"
echo secret >"$T/victim"
chmod 600 "$T/victim"
V=$(sha256sum "$T/victim")
O=$T/out/metrics.prom

as_user "$T/swapper" "$T/out" "$T/victim" "$T/stop" >"$T/swaps" &
SW=$!
runs=0 good=0 refused=0 links=0 other=
while [ $runs -lt 300 ]; do
	runs=$((runs + 1))
	GPUCTL_BPFFS=$T/nobpf "$G" exporter textfile --output "$O" >/dev/null 2>"$T/err"
	rc=$?
	if [ -L "$O" ]; then
		links=$((links + 1))
		rm -f "$O"
	fi
	if [ $rc = 0 ]; then
		good=$((good + 1))
	elif [ $rc = 1 ] && [ "$(grep -c '' "$T/err")" = 1 ] && grep -q '^Error: .*replaced' "$T/err"; then
		refused=$((refused + 1))
	else
		other="rc $rc: $(cat "$T/err")"
	fi
done
touch "$T/stop"
wait $SW
echo "swapper: $(cat "$T/swaps") swaps; $runs writes: $good written, $refused refused, $links links"
[ $links = 0 ] && ok "racing swapper: the output never became a link ($runs writes)" ||
	fail "racing swapper: the output never became a link" "$links of $runs writes left a link"
[ "$(sha256sum "$T/victim")" = "$V" ] && ok "racing swapper: the root file is unchanged" ||
	fail "racing swapper: the root file is unchanged" "changed"
[ -z "$other" ] && ok "racing swapper: each write succeeded or said why (one Error line, exit 1)" ||
	fail "racing swapper: each write succeeded or said why" "$other"
[ $good -gt 0 ] && ok "racing swapper: writes still succeed" || fail "racing swapper: writes succeed" "none"
if [ -f "$O" ] && ! [ -L "$O" ]; then
	head -c 40 "$O" | grep -q . && ok "the output is gpuctl's file" || fail "output" "empty"
fi
summary
