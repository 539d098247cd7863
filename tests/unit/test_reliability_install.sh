#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# issue 23: make -C kernel-patch install never removes a directory it did not
# create.  INSTALL_DIR naming an existing directory with files (the install
# then failing, or stopping after the patch) is refused with one Error line,
# exit 1, and every file in it stays; a symbolic link is refused; an empty
# directory and one an earlier install made (.gpuctl-install) are used.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

KP=kernel-patch
INSTALL=$KP/scripts/install
R=$T_DIR/root
unset NV_VERSION NVIDIA_SRC SIGN_KEY SIGN_CERT KVER SKIP_BUILD INSTALL_DIR
mkdir -p "$R/sys/module/nvidia" "$R/proc/driver/nvidia" "$R/usr/src"
echo 580.142 > "$R/sys/module/nvidia/version"
# a tree the series does not apply to: the install fails after the directory step
mkdir -p "$R/usr/src/nvidia-580.142/nvidia-uvm"
printf 'ccflags-y += -DNV_VERSION_STRING=\\"580.142\\"\n' > "$R/usr/src/nvidia-580.142/Kbuild"
echo '/* not the driver */' > "$R/usr/src/nvidia-580.142/nvidia-uvm/uvm.c"

D=$T_DIR/precious
mkdir -p "$D/sub"
echo keep > "$D/file"
echo keep > "$D/sub/file"
GPUCTL_SYSROOT=$R INSTALL_DIR=$D expect_exit 1 $INSTALL && expect_stderr_line "existing INSTALL_DIR"
case $ERR in *"not made by make install"*) ok "existing INSTALL_DIR: says why" ;;
*) fail "existing INSTALL_DIR: says why" "$ERR" ;; esac
[ "$(cat "$D/file" "$D/sub/file")" = "keep
keep" ] && [ "$(ls -A "$D" | tr '\n' ' ')" = "file sub " ] &&
	ok "existing INSTALL_DIR: every file stays" || fail "existing INSTALL_DIR" "$(ls -la "$D")"

ln -s "$D" "$T_DIR/link"
GPUCTL_SYSROOT=$R INSTALL_DIR=$T_DIR/link expect_exit 1 $INSTALL && expect_stderr_line "symlink INSTALL_DIR"
[ -f "$D/file" ] && [ -L "$T_DIR/link" ] && ok "symlink INSTALL_DIR: nothing removed" ||
	fail "symlink INSTALL_DIR" "$(ls -la "$T_DIR")"

echo x > "$T_DIR/plainfile"
GPUCTL_SYSROOT=$R INSTALL_DIR=$T_DIR/plainfile expect_exit 1 $INSTALL &&
	expect_stderr_line "INSTALL_DIR a file"
[ "$(cat "$T_DIR/plainfile")" = x ] && ok "INSTALL_DIR a file: it stays" || fail "plainfile" "changed"

# an empty directory is used; the failed install leaves it marked as ours
E=$T_DIR/empty
mkdir "$E"
GPUCTL_SYSROOT=$R INSTALL_DIR=$E expect_exit 1 $INSTALL
case $ERR in *"does not apply"*) ok "empty INSTALL_DIR: used (the series is tried)" ;;
*) fail "empty INSTALL_DIR" "$ERR" ;; esac
[ -f "$E/.gpuctl-install" ] && ok "empty INSTALL_DIR: marked as made by install" ||
	fail "marker" "$(ls -la "$E")"
# ... and a second run may replace what the first made
echo mine > "$E/notes"
GPUCTL_SYSROOT=$R INSTALL_DIR=$E expect_exit 1 $INSTALL
case $ERR in *"does not apply"*) ok "INSTALL_DIR made by install: reused" ;;
*) fail "reuse" "$ERR" ;; esac
[ "$(cat "$E/notes")" = mine ] && ok "reused INSTALL_DIR: files not its own stay" ||
	fail "reuse notes" "gone"
summary
