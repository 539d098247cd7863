#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# issue 23: make -C kernel-patch install never removes a directory it did not
# create.  INSTALL_DIR naming an existing directory with files (the install
# then failing, or stopping after the patch) is refused with one Error line,
# exit 1, and every file in it stays; a symbolic link is refused; an empty
# directory and one an earlier install made (.gpuctl-install) are used.
# issue 32 item 3: it writes nothing where another user could plant a link.
# An INSTALL_DIR (or a directory above it) that an unprivileged user (nobody)
# owns or can write is refused with one Error line, exit 1, and nobody's
# planted links (patch.log -> a root 0600 file) are neither followed nor
# removed; a .gpuctl-install marker that is not root's own is not taken as
# install's; a new directory under a sticky /tmp-like one, and one the user
# who ran sudo (SUDO_UID) owns, are used.
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
# --- issue 32 item 3: directories other users can change
[ "$(id -u)" = 0 ] || { echo "SKIP: the link checks need root (setpriv)"; summary; }
NOBODY=65534
as_user() { setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups -- "$@"; }
chmod 711 "$T_DIR"
V=$T_DIR/victim
echo secret > "$V"
chmod 600 "$V"
VS=$(sha256sum < "$V")
victim_kept() {	# NAME
	[ "$(sha256sum < "$V")" = "$VS" ] && ok "$1: the root file is unchanged" ||
		fail "$1: the root file is unchanged" "$(head -c 100 "$V")"
}
refused() {	# NAME DIR WHY: install refuses DIR, one Error line saying WHY
	GPUCTL_SYSROOT=$R INSTALL_DIR=$2 expect_exit 1 $INSTALL && expect_stderr_line "$1"
	case $ERR in *"$3"*) ok "$1: says why" ;; *) fail "$1: says why" "$ERR" ;; esac
}

# an empty directory nobody owns: nobody plants patch.log -> the root file
N=$T_DIR/nobodys
mkdir "$N" && chown $NOBODY:$NOBODY "$N"
as_user ln -s "$V" "$N/patch.log"
refused "INSTALL_DIR owned by another user" "$N" "belongs to uid $NOBODY"
victim_kept "INSTALL_DIR owned by another user"
[ -L "$N/patch.log" ] && [ ! -e "$N/.gpuctl-install" ] &&
	ok "INSTALL_DIR owned by another user: nothing in it touched" || fail "nobody's dir" "$(ls -la "$N")"

# ... and while it is still empty (nobody would plant the link mid-install)
N2=$T_DIR/nobodys-empty
mkdir "$N2" && chown $NOBODY:$NOBODY "$N2"
refused "empty INSTALL_DIR owned by another user" "$N2" "belongs to uid $NOBODY"
[ -z "$(ls -A "$N2")" ] && ok "empty INSTALL_DIR owned by another user: nothing written" ||
	fail "nobody's empty dir" "$(ls -la "$N2")"

# a sticky world-writable directory as INSTALL_DIR, nobody's marker and link in it
S=$T_DIR/sticky
mkdir "$S" && chmod 1777 "$S"
as_user touch "$S/.gpuctl-install"
as_user ln -s "$V" "$S/patch.log"
refused "INSTALL_DIR writable by all (sticky)" "$S" "can be written by other users"
victim_kept "INSTALL_DIR writable by all"
[ -L "$S/patch.log" ] && [ -f "$S/.gpuctl-install" ] &&
	ok "INSTALL_DIR writable by all: nobody's marker and link stay" || fail "sticky dir" "$(ls -la "$S")"

# a marker that is not root's own, in a directory only root can write
M=$T_DIR/marked
mkdir "$M" && touch "$M/.gpuctl-install" && chown $NOBODY "$M/.gpuctl-install"
echo mine > "$M/build.log"
refused "INSTALL_DIR with another user's marker" "$M" "belongs to uid $NOBODY"
[ "$(cat "$M/build.log")" = mine ] && ok "another user's marker: nothing removed" ||
	fail "another user's marker" "$(ls -la "$M")"

# a group-writable directory (nobody's group)
GW=$T_DIR/groupw
mkdir "$GW" && chgrp $NOBODY "$GW" && chmod 775 "$GW"
refused "INSTALL_DIR writable by a group" "$GW" "can be written by other users"

# a new directory below one nobody owns: nobody could swap it for a link
P=$T_DIR/parent
mkdir "$P" && chown $NOBODY:$NOBODY "$P"
refused "INSTALL_DIR below another user's directory" "$P/new" "belongs to uid $NOBODY"

# used: a new directory below a sticky one; a directory of the user who ran sudo
GPUCTL_SYSROOT=$R INSTALL_DIR=$S/fresh expect_exit 1 $INSTALL
case $ERR in *"does not apply"*) ok "new INSTALL_DIR below a sticky directory: used" ;;
*) fail "new INSTALL_DIR below a sticky directory" "$ERR" ;; esac
SU=$T_DIR/sudoer
mkdir "$SU" && chown $NOBODY:$NOBODY "$SU"
SUDO_UID=$NOBODY GPUCTL_SYSROOT=$R INSTALL_DIR=$SU expect_exit 1 $INSTALL
case $ERR in *"does not apply"*) ok "INSTALL_DIR of the user who ran sudo: used" ;;
*) fail "INSTALL_DIR of the user who ran sudo" "$ERR" ;; esac
summary
