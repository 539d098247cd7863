#!/bin/sh
# VM basics: filesystems mounted, kernel BTF present, model loaded, binaries run.
. "$(dirname "$0")/../lib.sh"

check() {	# check NAME COMMAND... : ok when COMMAND succeeds
	name=$1; shift
	if "$@" >/dev/null 2>&1; then ok "$name"; else fail "$name" "'$*' failed"; fi
}
mounted() { grep -q "^[^ ]* $1 $2 " /proc/mounts; }
runs() {	# the binary starts (loader and libraries found): not 126/127
	"$@" >/dev/null 2>&1 </dev/null
	rc=$?
	[ $rc -ne 126 ] && [ $rc -ne 127 ]
}

check "root" test "$(id -u)" = 0
check "bpffs mounted at /sys/fs/bpf" mounted /sys/fs/bpf bpf
check "tracefs mounted at /sys/kernel/tracing" mounted /sys/kernel/tracing tracefs
check "debugfs mounted" mounted /sys/kernel/debug debugfs
check "kernel BTF /sys/kernel/btf/vmlinux" test -r /sys/kernel/btf/vmlinux
check "bpffs writable" sh -c 'mkdir /sys/fs/bpf/t_boot_$$ && rmdir /sys/fs/bpf/t_boot_$$'
check "gpuctl in PATH" command -v gpuctl
check "gpuctl runs" runs gpuctl --help
check "./gpuctl in repo copy" test -x ./gpuctl
check "tests/lib.sh in repo copy" test -r tests/lib.sh
if [ "${VM_PYTHON:-1}" != 0 ]; then
	check "python3 with json (lib.sh expect_json)" python3 -c 'import json, sys; json.loads(sys.argv[1])' '{"a": 1}'
fi

if [ "${NO_MODEL:-0}" = 1 ]; then
	echo "# NO_MODEL=1: model checks skipped"
else
	check "model module loaded" test -d "/sys/module/${MODEL_NAME:-uvm_model}"
	check "model BTF /sys/kernel/btf/${MODEL_NAME:-uvm_model}" test -r "/sys/kernel/btf/${MODEL_NAME:-uvm_model}"
	# the model compiles kernel-patch's uvm_bpf_ext.c: its BTF has the ABI version
	if gpuctl probe 2>&1 | grep -q "UVM hooks  *yes (${MODEL_NAME:-uvm_model}, ABI 1)"; then
		ok "probe: UVM hooks of ABI 1 in ${MODEL_NAME:-uvm_model}"
	else
		fail "probe: UVM hooks of ABI 1 in ${MODEL_NAME:-uvm_model}" "$(gpuctl probe 2>&1 | grep -A1 'UVM hooks')"
	fi
	# the verdict first: policies on the model's hooks, tracing with bpf
	V=$(gpuctl probe 2>&1 | head -6)
	case $V in "verdict (details below)"*) ok "probe: the verdict first" ;;
		*) fail "probe: the verdict first" "$V" ;; esac
	if printf '%s\n' "$V" | grep -q "^  prefetch policies  yes: struct_ops hooks in ${MODEL_NAME:-uvm_model}; system-wide$"; then
		ok "probe verdict: prefetch policies yes (${MODEL_NAME:-uvm_model})"
	else
		fail "probe verdict: prefetch policies yes" "$V"
	fi
	if printf '%s\n' "$V" | grep -q "^  trace/stat         yes: bpf"; then
		ok "probe verdict: trace/stat yes (bpf)"
	else
		fail "probe verdict: trace/stat yes (bpf)" "$V"
	fi
	check "uvmsim in PATH" command -v uvmsim
	check "uvmsim runs" runs uvmsim --help
fi

summary
