#!/bin/sh
# tests/vm/flake_ftrace.sh [ROUNDS] — guest half of tests/vm/flake: stresses
# live kernel text patching, which is what QEMU TCG occasionally gets wrong
# ("Oops: int3" at a patched call site).  Switches the ftrace function tracer
# on and off ROUNDS times (default 4; each switch rewrites every traced call
# site with int3 breakpoints) while two busy loops run fork/exec/read work on
# the vCPUs.  Needs no gpuctl and no model (run it with NO_MODEL=1).
# Prints "flake: ok N rounds" and exits 0; exit 3 when dmesg shows an oops.
T=/sys/kernel/tracing
n=${1:-4}
grep -qw function "$T/available_tracers" || { echo "flake: no function tracer"; exit 2; }
busy() { while :; do cat /proc/self/status /proc/interrupts >/dev/null; done; }
busy & b1=$!
busy & b2=$!
i=0
while [ $i -lt "$n" ]; do
	echo function >"$T/current_tracer" || { echo "flake: tracer on failed"; exit 2; }
	sleep 0.2
	echo nop >"$T/current_tracer" || { echo "flake: tracer off failed"; exit 2; }
	i=$((i + 1))
done
kill $b1 $b2
wait 2>/dev/null
if dmesg | grep -qE 'Oops|int3|BUG:'; then
	dmesg | grep -E -A3 'Oops|int3|BUG:' | head -n 20
	exit 3
fi
echo "flake: ok $n rounds"
