#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_bench_mps_slow.sh - bench/mps/slow_smi.py on known times, no GPU: slow
# requests under way at the sampler's lines are counted at a sample, those
# between samples not, chance is (length + window) / interval each; no
# samples said so; the slow requests' bursts and their period; a bad
# slow.txt or window: one Error line, exit 2.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

S=bench/mps/slow_smi.py
W=$T_DIR/w
mkdir -p "$W"
# samples every 0.5 s from 100.0 to 110.0
python3 -c 'print("\n".join("%.3f 1980 2619 300.0 90" % (100 + i * 0.5) for i in range(21)))' >"$W/clocks.txt"
# at: 10 slow requests of 20 ms, each starting 10 ms before a sample (under way at it)
# off: 10 of 20 ms, each starting 200 ms after a sample (far from any window)
# edge: 2 of 20 ms ending 40 ms before a sample (inside a 50-ms window) and 60 ms before (outside)
python3 -c '
at = " ".join("%.4f:20000" % (100.49 + i * 0.5) for i in range(10))
off = " ".join("%.4f:20000" % (100.2 + i * 0.5) for i in range(10))
print("alone_at " + at)
print("alone_off " + off)
print("edge 100.44:20000 100.92:20000")
# stall: bursts at 200.0 (3 within 300 ms), 201.5 (2), 203.0 (4); alone: one burst only
print("stall 200.0:9000 200.1:9000 200.25:9000 201.5:9000 201.6:9000 203.0:9000 203.1:9000 203.2:9000 203.3:9000")
print("single 104.1:20000 104.2:20000")' >"$W/slow.txt"
printf 'alone_at t0=1 %s\nalone_off t0=1 %s\n' "$(seq 1000 1899 | tr '\n' ' ')" "$(seq 1000 1099 | tr '\n' ' ')" >"$W/lat.txt"

expect_exit 0 python3 $S "$W"
expect_out "the interval and the window" '^slow requests \(over 2x their run.s P50\) against nvidia-smi.s samples \(every 500 ms, window 50 ms\):$'
expect_out "under way at a sample: all 10, chance 1.4" '^   alone_at +10 slow of 900, +10 at a sample, chance 1\.4 \(7\.1x\)$'
expect_out "between samples: none" '^   alone_off +10 slow of 100, +0 at a sample, chance 1\.4 \(0\.0x\)$'
expect_out "the window's edge: the one inside counted" '^   edge +2 slow, +1 at a sample, chance 0\.3'
expect_out "bursts: the heading" '^bursts of slow requests \(each within 300 ms of the one before, in one run\):$'
expect_out "bursts: three, 1.5 s apart, 3 a burst" '^   stall +3 bursts, one every 1\.50 s \(median\), 3\.0 slow a burst$'
expect_out "bursts: requests 0.5 s apart are bursts of one" '^   alone_at +10 bursts, one every 0\.50 s \(median\), 1\.0 slow a burst$'
if printf '%s' "$OUT" | grep -q '^   single .* bursts'; then fail "one burst: no interval, no line" "$(printf '%s' "$OUT" | grep single)"
else ok "one burst: no interval, no line"; fi
expect_exit 0 python3 $S "$W" 5
expect_out "a 5-ms window: the edge's inside one no longer" '^   edge +2 slow, +0 at a sample'

mkdir -p "$T_DIR/none" && cp "$W/slow.txt" "$T_DIR/none/"
expect_exit 0 python3 $S "$T_DIR/none"
expect_out "no samples: said so" '^slow requests against the GPU.s samples: no samples \(clocks.txt\)$'
expect_exit 2 python3 $S "$W" 5ms
expect_stderr_line "a window not in ms"
mkdir -p "$T_DIR/bad" && cp "$W/clocks.txt" "$T_DIR/bad/" && echo "alone 100.1-20000" >"$T_DIR/bad/slow.txt"
expect_exit 2 python3 $S "$T_DIR/bad"
expect_stderr_line "a slow.txt that is not START:US"
expect_exit 2 python3 $S
expect_stderr_line "no WORKDIR"
summary
