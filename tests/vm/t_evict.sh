#!/bin/sh
# evict, end to end on the model: every policy passes the verifier, the
# designed behaviour under oversubscription (priority protects a tenant,
# lfu keeps a hot set through a scan, mru beats LRU on a cyclic scan,
# quota caps a tenant), set/show/swap/unload, loading evict with replay and
# prefetch, and the bad input of issue 5.
. "$(dirname "$0")/../lib.sh"

PIN=/sys/fs/bpf/gpuctl/evict
CHUNKS=32

st() { uvmsim stats | awk -v k="$1" '$1 == k { print $2 }'; }
unchanged() {	# nothing attached, no pins left by a refused command
	if [ ! -e $PIN/link ] && [ -z "$(ls $PIN 2>/dev/null)" ]; then
		ok "$1: nothing changed"
	else
		fail "$1: nothing changed" "$(ls -R $PIN)"
	fi
}
pct() { [ "$2" -gt 0 ] && echo $(( (100 * ($2 - $1)) / $2 )) || echo 0; }

sleep 1000 & P0=$!
sleep 1000 & P1=$!
uvmsim tenant 0 $P0
uvmsim tenant 1 $P1

# --- list -------------------------------------------------------------
expect_exit 0 gpuctl evict list
for p in fifo mru lfu priority quota; do
	expect_out "list names $p" "^$p "
done
expect_exit 0 gpuctl -j evict list && expect_json "evict list"

# --- bad input: clear errors, nothing changed --------------------------
expect_exit 1 gpuctl evict set min_freq 3 && expect_stderr_line "set with nothing loaded"
expect_exit 1 gpuctl evict set pid $P0 high && expect_stderr_line "set pid with nothing loaded"
expect_exit 2 gpuctl evict load bogus && expect_stderr_line "unknown policy"
expect_exit 2 gpuctl evict load lfu bogus 1 && expect_stderr_line "unknown key"
expect_exit 2 gpuctl evict load lfu decay 0 && expect_stderr_line "decay 0 out of range"
expect_exit 2 gpuctl evict load lfu min_freq 99999999999 && expect_stderr_line "min_freq out of range"
expect_exit 2 gpuctl evict load quota default_share 101 && expect_stderr_line "share over 100"
expect_exit 2 gpuctl evict load priority pid 3999999 high && expect_stderr_line "pid that does not exist"
expect_exit 2 gpuctl evict load priority pid $P0 urgent && expect_stderr_line "unknown level"
expect_exit 2 gpuctl evict load priority pid $P0 && expect_stderr_line "pid without level"
expect_exit 2 gpuctl evict load priority && expect_stderr_line "priority without processes"
expect_exit 2 gpuctl evict load priority pid abc high && expect_stderr_line "pid not a number"
expect_exit 2 gpuctl evict load quota pid $P0 0 && expect_stderr_line "share 0"
expect_exit 2 gpuctl evict load lfu pid $P0 high && expect_stderr_line "pid for lfu"
expect_exit 2 gpuctl evict load priority cgroup no/such/group high && expect_stderr_line "cgroup that does not exist"
expect_exit 2 gpuctl -j evict load priority pid 3999999 high && expect_json "-j error"
unchanged "bad loads"

# --- every policy passes the verifier, -j output is JSON ---------------
for p in fifo mru lfu quota "priority pid $P0 high"; do
	# shellcheck disable=SC2086
	expect_exit 0 gpuctl -j evict load $p && expect_json "load $p"
	expect_exit 0 gpuctl -j evict show && expect_json "show $p"
done
expect_exit 0 gpuctl -j evict unload && expect_json "unload"
unchanged "unload"

# --- two tenants: priority protects tenant 0 ---------------------------
tenants() { uvmsim reset gpu_chunks $CHUNKS && uvmsim run tenants blocks 64 passes 4; }
tenants
lru_t0=$(st tenant0_refaults); lru_t1=$(st tenant1_refaults)
expect_exit 0 gpuctl evict load priority pid $P0 high
expect_out "load priority" "^evict: priority attached"
tenants
pr_t0=$(st tenant0_refaults); pr_t1=$(st tenant1_refaults)
echo "# tenants: protected tenant re-faults LRU $lru_t0 -> priority $pr_t0 (-$(pct $pr_t0 $lru_t0) %); other tenant $lru_t1 -> $pr_t1"
[ "$pr_t0" -lt $((lru_t0 / 2)) ] && ok "priority cuts the protected tenant's re-faults by $(pct $pr_t0 $lru_t0) %" ||
	fail "priority protects tenant 0" "LRU $lru_t0, priority $pr_t0"
expect_exit 0 gpuctl -j evict show
expect_json "show priority"
expect_json_eq "show lists the pid" ".pids[0].pid" "$P0"
expect_json_eq "show lists the level" ".pids[0].level" high
[ "$(json_get .counters.protected)" -gt 0 ] && ok "protected counted" || fail "protected counted" "$OUT"

# set: a pid's level changes in place; bad set changes nothing
expect_exit 0 gpuctl evict set pid $P1 low
expect_exit 0 gpuctl evict show
expect_out "set added a pid" "^  pid $P1 +low$"
expect_out "set kept the other" "^  pid $P0 +high$"
expect_exit 2 gpuctl evict set pid 3999999 high && expect_stderr_line "set pid that does not exist"
expect_exit 2 gpuctl evict set min_freq 3 && expect_stderr_line "set a key priority lacks"
expect_exit 2 gpuctl evict set pid $P1 top && expect_stderr_line "set bad level"
expect_exit 0 gpuctl evict show
expect_out "bad set changed nothing" "^  pid $P1 +low$"
expect_exit 0 gpuctl evict set pid $P1 normal
expect_exit 0 gpuctl -j evict show
expect_json_eq "normal removes the entry" ".pids[1]" ""
expect_json_eq "the other stays" ".pids[0].pid" "$P0"

# --- quota: tenant 0 gets 75 % ------------------------------------------
expect_exit 0 gpuctl evict load quota pid $P0 75 pid $P1 25
expect_out "hot swap to quota" "^evict: quota replaced priority"
tenants
q_t0=$(st tenant0_refaults)
echo "# tenants: tenant 0 (75 % share) re-faults LRU $lru_t0 -> quota $q_t0 (-$(pct $q_t0 $lru_t0) %)"
[ "$q_t0" -lt "$lru_t0" ] && ok "quota: the 75 % tenant re-faults less" ||
	fail "quota protects its share" "LRU $lru_t0, quota $q_t0"
expect_exit 0 gpuctl -j evict show && expect_json "show quota"
expect_exit 0 gpuctl evict show
expect_out "quota show: share" "^  pid $P0 +share 75%$"
expect_out "quota show: usage" "^  usage pid $P0 +[0-9]+ chunks$"
expect_exit 0 gpuctl evict set default_share 50
expect_exit 0 gpuctl -j evict show
expect_json_eq "set default_share" ".params.default_share" 50

# --- lfu keeps a hot set resident through a scan of 1.5x memory ---------
hot_scan() {
	uvmsim reset gpu_chunks $CHUNKS
	uvmsim run hotcold blocks 40 hot 8 passes 1 hot_tenant 1
	uvmsim run seq blocks 8 tenant 1
	a=$(st tenant1_refaults)
	uvmsim run seq first 64 blocks $((CHUNKS * 3 / 2)) tenant 0
	uvmsim run seq blocks 8 tenant 1
	echo $(($(st tenant1_refaults) - a))
}
gpuctl evict unload >/dev/null
lru_hot=$(hot_scan)
expect_exit 0 gpuctl evict load lfu
lfu_hot=$(hot_scan)
echo "# scan: hot-set re-faults after a 1.5x scan: LRU $lru_hot, lfu $lfu_hot"
[ "$lfu_hot" -lt $((lru_hot / 4)) ] && ok "lfu keeps the hot set through the scan ($lru_hot -> $lfu_hot)" ||
	fail "lfu keeps the hot set" "LRU $lru_hot, lfu $lfu_hot"
expect_exit 0 gpuctl evict set min_freq 3 decay 256
expect_exit 0 gpuctl -j evict show
expect_json_eq "lfu set min_freq" ".params.min_freq" 3
expect_json_eq "lfu set decay" ".params.decay" 256

# --- mru on a cyclic scan 1.5x memory ------------------------------------
cyc() { uvmsim reset gpu_chunks $CHUNKS && uvmsim run scan blocks $((CHUNKS * 3 / 2)) passes 3 && st refaults; }
gpuctl evict unload >/dev/null
lru_cyc=$(cyc)
expect_exit 0 gpuctl evict load mru
mru_cyc=$(cyc)
expect_exit 0 gpuctl evict load fifo
fifo_cyc=$(cyc)
echo "# cyclic scan: re-faults LRU $lru_cyc, mru $mru_cyc, fifo $fifo_cyc"
[ "$mru_cyc" -lt "$lru_cyc" ] && ok "mru re-faults less than LRU on a cyclic scan" ||
	fail "mru on a cyclic scan" "LRU $lru_cyc, mru $mru_cyc"
[ -n "$fifo_cyc" ] && ok "fifo runs" || fail "fifo runs" "no stats"

# --- evict, replay and prefetch together; unloading one leaves the others --
expect_exit 0 gpuctl evict load lfu
expect_exit 0 gpuctl replay load once
expect_exit 0 gpuctl prefetch load always_max
uvmsim reset gpu_chunks $CHUNKS replay_policy 4 && uvmsim run scan blocks 48 >/dev/null
[ "$(st act_bypass)" -gt 0 ] && [ "$(st replay_bpf_calls)" -gt 0 ] && ok "all three policies ran" ||
	fail "all three ran" "$(uvmsim stats | tr '\n' ' ')"
expect_exit 0 gpuctl evict unload
expect_exit 0 gpuctl -j replay show && expect_json_eq "replay stays loaded" .policy once
expect_exit 0 gpuctl -j prefetch show && expect_json_eq "prefetch stays loaded" .policy always_max
expect_exit 0 gpuctl -j evict show && expect_json_eq "evict gone" .policy null
expect_exit 0 gpuctl evict load priority pid $P1 high
expect_exit 0 gpuctl replay unload
expect_exit 0 gpuctl -j evict show && expect_json_eq "evict stays after replay unload" .policy priority
expect_exit 0 gpuctl -j prefetch show && expect_json_eq "prefetch stays after replay unload" .policy always_max
expect_exit 0 gpuctl prefetch unload
expect_exit 0 gpuctl evict unload
expect_exit 0 gpuctl evict unload
expect_out "unload with nothing loaded" "no policy loaded"
unchanged "final unload"

kill $P0 $P1 2>/dev/null
summary
