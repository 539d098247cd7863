#!/bin/sh
# Unit test: the uvm-tools queue consumer against a synthetic producer
# (wrap-around, drops, partial reads), entry decoding, record round trip.
# Built here with cc from cmd/drv/ut_*.c and cmd/trace/record.c; no root needed.
cd "$(dirname "$0")/../.." || exit 1
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuctl-tq.XXXXXX")
trap 'rm -rf "$T"' EXIT
if ! ${CC:-cc} -std=gnu11 -O1 -g -Wall -Wextra -Werror -Wno-format-truncation -fsanitize=address,undefined \
	-fno-sanitize-recover=undefined -Icmd -Icmd/lib -Icmd/drv -Ibpf -o "$T/tq" tests/unit/trace_queue_test.c \
	cmd/drv/ut_queue.c cmd/drv/ut_session.c cmd/trace/record.c cmd/lib/borrow.c 2>"$T/cc.err"; then
	echo "FAIL build: $(head -c 500 "$T/cc.err")"
	echo "0 passed, 1 failed"
	exit 1
fi
# the H200 cost tool is built from the same consumer: it must keep compiling
if ${CC:-cc} -std=gnu11 -O2 -Wall -Wextra -Werror -Wno-format-truncation -Icmd -Icmd/lib -Icmd/drv -Ibpf \
	-o "$T/cost" bench/uvm_tools_cost.c cmd/drv/ut_queue.c cmd/drv/ut_session.c cmd/lib/borrow.c \
	2>"$T/cc2.err" && "$T/cost" 2>/dev/null; [ $? = 2 ]; then
	COST_OK=1
else
	COST_OK=0
fi
"$T/tq" | sed '$d'
res=$("$T/tq" | tail -1)
p=${res%% passed*}; f=${res#*, }; f=${f%% failed*}
if [ $COST_OK = 1 ]; then
	echo "ok   bench/uvm_tools_cost builds and prints usage"; p=$((p + 1))
else
	echo "FAIL bench/uvm_tools_cost: $(head -c 300 "$T/cc2.err")"; f=$((f + 1))
fi
echo "$p passed, $f failed"
[ "$f" = 0 ]
