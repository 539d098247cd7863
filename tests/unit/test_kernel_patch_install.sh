#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/run lane: kernel-patch
# tests/unit/test_kernel_patch_install.sh - make -C kernel-patch install.
#
# Always (seconds, no root, fake sys/proc/usr/src under GPUCTL_SYSROOT):
# driver version detection from sysfs and procfs, refusal of versions
# without a series (exit 1, one Error line), DKMS source discovery, source
# version mismatch, usage; module signing with a throwaway openssl key
# (sign-file's trailer, and the PKCS#7 signature verified by openssl).
# With KERNEL_PATCH_CHECK=1 (CI, ~2 min): the whole path on NVIDIA's 580.142
# tree against the VM kernel headers: patch, build, strip, sign, and
# nvidia-uvm.ko carries the hooks' BTF and modinfo's signature fields.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

KP=kernel-patch
INSTALL=$KP/scripts/install
R=$T_DIR/root
export INSTALL_DIR=$T_DIR/install
unset NV_VERSION NVIDIA_SRC SIGN_KEY SIGN_CERT KVER SKIP_BUILD

# fake_tree DIR VERSION: the files install looks at in a kernel-open tree
fake_tree() {
    mkdir -p "$1/nvidia-uvm"
    printf 'ccflags-y += -DNV_VERSION_STRING=\\"%s\\"\n' "$2" > "$1/Kbuild"
    echo '/* not the driver */' > "$1/nvidia-uvm/uvm.c"
}
reset_root() { rm -rf "$R"; mkdir -p "$R/sys/module" "$R/proc/driver/nvidia" "$R/usr/src"; }

expect_exit 2 $INSTALL bogus
case $ERR in usage:*) ok "usage line" ;; *) fail "usage line" "$ERR" ;; esac

reset_root
GPUCTL_SYSROOT=$R expect_exit 1 $INSTALL && expect_stderr_line "no driver"
case $ERR in *"no NVIDIA driver loaded"*) ok "no driver: says so" ;; *) fail "no driver: says so" "$ERR" ;; esac

# An unsupported branch: refused before looking for any source.
mkdir -p "$R/sys/module/nvidia"
echo 570.86.15 > "$R/sys/module/nvidia/version"
GPUCTL_SYSROOT=$R expect_exit 1 $INSTALL && expect_stderr_line "570 refused"
case $ERR in
*"NVIDIA driver 570.86.15 is not supported: kernel-patch has series for 550.163.01 580.142 595.45.04 only") ok "570 refused: names the supported versions" ;;
*) fail "570 refused: names the supported versions" "$ERR" ;;
esac
[ ! -e "$INSTALL_DIR" ] && ok "570 refused: nothing written" || fail "570 refused: nothing written" "$(ls "$INSTALL_DIR")"
GPUCTL_SYSROOT=$R NV_VERSION=garbage expect_exit 1 $INSTALL && expect_stderr_line "bad version string"

# Version from sysfs, source found under usr/src (DKMS layout, no
# kernel-open/ level), and the series tried on it: the fake tree is refused
# as not patchable, which shows it was found.
echo 580.142 > "$R/sys/module/nvidia/version"
fake_tree "$R/usr/src/nvidia-580.142" 580.142
GPUCTL_SYSROOT=$R expect_exit 1 $INSTALL && expect_stderr_line "580 fake DKMS tree"
case $ERR in
*"the 580.142 series does not apply to $R/usr/src/nvidia-580.142 without fuzz"*) ok "580: DKMS source found, series tried" ;;
*) fail "580: DKMS source found, series tried" "$ERR" ;;
esac

# Version from procfs when sysfs has none; a DKMS tree of another version
# is not taken.
rm -rf "$R/sys/module/nvidia"
echo 'NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  595.45.04  Release Build  (dvs-builder@U22-I3-AE18-09-3)  Thu Mar  5 00:00:00 UTC 2026' \
    > "$R/proc/driver/nvidia/version"
fake_tree "$R/usr/src/nvidia-595.45.04-old/kernel-open" 595.44.00
GPUCTL_SYSROOT=$R expect_exit 1 $INSTALL && expect_stderr_line "595 from procfs"
case $ERR in
*"no NVIDIA 595.45.04 source under $R/usr/src (DKMS); name a kernel-open tree of 595.45.04 with NVIDIA_SRC="*) ok "595: version read from procfs, other versions' trees skipped" ;;
*) fail "595: version read from procfs, other versions' trees skipped" "$ERR" ;;
esac

# A user-named tree of another version is refused.
fake_tree "$T_DIR/src/kernel-open" 595.40.01
GPUCTL_SYSROOT=$R NVIDIA_SRC=$T_DIR/src expect_exit 1 $INSTALL && expect_stderr_line "NVIDIA_SRC version mismatch"
case $ERR in
*"is NVIDIA 595.40.01, the driver is 595.45.04"*) ok "NVIDIA_SRC of another version refused" ;;
*) fail "NVIDIA_SRC of another version refused" "$ERR" ;;
esac
GPUCTL_SYSROOT=$R NVIDIA_SRC=$T_DIR/nonexistent expect_exit 1 $INSTALL && expect_stderr_line "NVIDIA_SRC missing"

# Same branch, newer release (580.159.04 on the GPU machines): its series
# is 580.142's, taken only if it applies without fuzz.
mkdir -p "$R/sys/module/nvidia"
echo 580.159.04 > "$R/sys/module/nvidia/version"
fake_tree "$T_DIR/src159" 580.159.04
GPUCTL_SYSROOT=$R NVIDIA_SRC=$T_DIR/src159 expect_exit 1 $INSTALL && expect_stderr_line "580.159.04 fake tree"
case $ERR in
*"the 580.142 series does not apply to $T_DIR/src159 without fuzz: NVIDIA 580.159.04 is not supported"*) ok "580.159.04: branch series tried, refused without fuzz-free apply" ;;
*) fail "580.159.04: branch series tried, refused without fuzz-free apply" "$ERR" ;;
esac

# Real trees (seconds: the kernel-open archives of 580/595 are small; 550
# needs Debian's .deb, so only under KERNEL_PATCH_CHECK): each version's
# series applies to its tree through the install path (SKIP_BUILD), and a
# newer release of a branch (580.159.04, as on the GPU machines) takes the
# branch's series when that applies without fuzz.
real=""
for v in 580.142 595.45.04; do
    [ -r "${NV_TARBALLS:-/work/shared/nvidia}/open-gpu-kernel-modules-$v-kernel-open.tar.xz" ] && real="$real $v"
done
[ -n "${KERNEL_PATCH_CHECK:-}" ] && real="550.163.01 580.142 595.45.04"
for v in $real; do
    if ! $KP/scripts/nvsrc "$v" "$T_DIR/real-$v" > "$T_DIR/nvsrc.log" 2>&1; then
        fail "$v: source tree" "$(tail -n 2 "$T_DIR/nvsrc.log")"
        continue
    fi
    reset_root
    mkdir -p "$R/sys/module/nvidia"
    echo "$v" > "$R/sys/module/nvidia/version"
    GPUCTL_SYSROOT=$R NVIDIA_SRC=$T_DIR/real-$v SKIP_BUILD=1 expect_exit 0 $INSTALL &&
        case $OUT in *"NVIDIA $v: series/$v applied to a copy of $T_DIR/real-$v/kernel-open"*) ok "$v: install applies its series" ;;
        *) fail "$v: install applies its series" "$OUT" ;; esac
done
case " $real " in
*" 580.142 "*)
    cp -a "$T_DIR/real-580.142" "$T_DIR/real-159"
    sed -i 's/NV_VERSION_STRING=\\"580.142\\"/NV_VERSION_STRING=\\"580.159.04\\"/' "$T_DIR/real-159/kernel-open/Kbuild"
    echo 580.159.04 > "$R/sys/module/nvidia/version"
    GPUCTL_SYSROOT=$R NVIDIA_SRC=$T_DIR/real-159 SKIP_BUILD=1 expect_exit 0 $INSTALL &&
        case $OUT in *"NVIDIA 580.159.04: series/580.142 (same branch) applies without fuzz"*) ok "580.159.04: takes 580.142's series when it applies" ;;
        *) fail "580.159.04: takes 580.142's series when it applies" "$OUT" ;; esac
    ;;
*) printf 'skip installs on real trees (no NVIDIA archives in %s)\n' "${NV_TARBALLS:-/work/shared/nvidia}" ;;
esac

# Signing: a throwaway key and certificate, sign-file from the VM headers.
SYSOUT=${SYSOUT:-$(tests/vm/kernel-cache --print 2>/dev/null | sed -n 's/^SYSOUT=//p')}
if command -v openssl > /dev/null && [ -x "$SYSOUT/scripts/sign-file" ]; then
    openssl req -new -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=gpuctl-test \
        -keyout "$T_DIR/key.pem" -out "$T_DIR/cert.pem" 2> /dev/null
    head -c 4096 /dev/urandom > "$T_DIR/m.ko"
    cp "$T_DIR/m.ko" "$T_DIR/orig.ko"
    if $KP/scripts/sign-module "$T_DIR/m.ko" "$T_DIR/key.pem" "$T_DIR/cert.pem" "$SYSOUT" > /dev/null 2> "$T_DIR/err" &&
       [ "$(tail -c 28 "$T_DIR/m.ko")" = "~Module signature appended~" ]; then
        ok "sign-module appends a module signature"
    else
        fail "sign-module appends a module signature" "$(cat "$T_DIR/err")"
    fi
    # struct module_signature (12 bytes, sig_len big-endian at its end),
    # then the magic; the PKCS#7 blob before them signs the module.
    size=$(stat -c %s "$T_DIR/m.ko")
    siglen=$(tail -c 32 "$T_DIR/m.ko" | head -c 4 | od -An -tu1 | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }')
    body=$((size - 40 - siglen))
    head -c "$body" "$T_DIR/m.ko" > "$T_DIR/body"
    tail -c $((siglen + 40)) "$T_DIR/m.ko" | head -c "$siglen" > "$T_DIR/sig.p7"
    if cmp -s "$T_DIR/body" "$T_DIR/orig.ko" &&
       openssl cms -verify -binary -inform DER -in "$T_DIR/sig.p7" -content "$T_DIR/body" \
           -certfile "$T_DIR/cert.pem" -CAfile "$T_DIR/cert.pem" -purpose any -out /dev/null 2> "$T_DIR/err"; then
        ok "the signature verifies with the certificate"
    else
        fail "the signature verifies with the certificate" "$(head -n 2 "$T_DIR/err")"
    fi
    printf 'x' >> "$T_DIR/body"
    if ! openssl cms -verify -binary -inform DER -in "$T_DIR/sig.p7" -content "$T_DIR/body" \
           -certfile "$T_DIR/cert.pem" -CAfile "$T_DIR/cert.pem" -purpose any -out /dev/null 2> /dev/null; then
        ok "a changed module fails verification"
    else
        fail "a changed module fails verification" "verified"
    fi
    expect_exit 1 $KP/scripts/sign-module "$T_DIR/m.ko" "$T_DIR/nokey" "$T_DIR/cert.pem" "$SYSOUT"
    expect_stderr_line "sign-file fails on a missing key"
    SIGN_FILE=$T_DIR/none expect_exit 1 $KP/scripts/sign-module "$T_DIR/m.ko" "$T_DIR/key.pem" "$T_DIR/cert.pem" "$SYSOUT"
    expect_stderr_line "SIGN_FILE not executable"
else
    printf 'skip signing (no openssl or no %s/scripts/sign-file)\n' "$SYSOUT"
fi

# The whole path, on a real tree (CI).
if [ -n "${KERNEL_PATCH_CHECK:-}" ] && [ -n "${SIGN_KEY_TEST:-1}" ] && [ -f "$T_DIR/cert.pem" ]; then
    $KP/scripts/nvsrc 580.142 "$T_DIR/nv" > /dev/null 2>&1 || fail "580.142 source" "nvsrc failed"
    reset_root
    mkdir -p "$R/sys/module/nvidia"
    echo 580.142 > "$R/sys/module/nvidia/version"
    t0=$SECONDS
    if GPUCTL_SYSROOT=$R NVIDIA_SRC=$T_DIR/nv KVER=6.12.95+deb12-amd64 SYSOUT=$SYSOUT \
       SYSSRC=${SYSOUT%-amd64}-common SIGN_KEY=$T_DIR/key.pem SIGN_CERT=$T_DIR/cert.pem \
       $INSTALL > "$T_DIR/install.log" 2>&1; then
        ok "install builds and signs nvidia-uvm.ko for 580.142 ($((SECONDS - t0)) s)"
    else
        fail "install builds and signs nvidia-uvm.ko for 580.142" "$(grep Error "$T_DIR/install.log")"
    fi
    ko=$INSTALL_DIR/nvidia-uvm.ko
    if modinfo -F signer "$ko" 2> /dev/null | grep -qx gpuctl-test &&
       [ "$(modinfo -F sig_hashalgo "$ko" 2> /dev/null)" = sha256 ]; then
        ok "modinfo: signer gpuctl-test, sha256"
    else
        fail "modinfo: signer gpuctl-test, sha256" "$(modinfo "$ko" 2>&1 | grep -i sig)"
    fi
    if bpftool btf dump file "$ko" -B "$SYSOUT/vmlinux" 2> /dev/null | grep -q "ENUM 'uvm_bpf_ext_abi'" &&
       bpftool btf dump file "$ko" -B "$SYSOUT/vmlinux" 2> /dev/null | grep -q "STRUCT 'uvm_evict_ops'"; then
        ok "stripped nvidia-uvm.ko keeps the hooks' BTF and the ABI version"
    else
        fail "stripped nvidia-uvm.ko keeps the hooks' BTF and the ABI version" "no uvm_bpf_ext_abi / uvm_evict_ops"
    fi
    grep -q "^  echo 'override nvidia_uvm 6.12.95+deb12-amd64 extra/gpuctl' > /etc/depmod.d/gpuctl-nvidia-uvm.conf$" "$T_DIR/install.log" &&
        grep -q '^Go back to the stock module:$' "$T_DIR/install.log" &&
        ok "install prints how to swap and how to go back" ||
        fail "install prints how to swap and how to go back" "$(tail -n 12 "$T_DIR/install.log")"
else
    printf 'skip the install build (set KERNEL_PATCH_CHECK=1; ~2 min)\n'
fi

summary
