#!/bin/bash
# make -j2 gpuctl-static runs packaging/static/deps.sh once: the two static
# libraries it builds are one grouped target (&:), not two targets sharing a
# recipe (which -j2 ran twice at once: colliding apt downloads).  Dry runs only.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
for j in 1 2 4; do
	n=$(make -n -W packaging/static/deps.sh -j$j gpuctl-static 2>/dev/null | grep -c '^packaging/static/deps.sh$')
	[ "$n" = 1 ] && ok "make -j$j gpuctl-static: deps.sh once" || fail "make -j$j gpuctl-static" "deps.sh runs $n times"
done
summary
