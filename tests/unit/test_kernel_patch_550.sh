#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/run lane: kernel-patch
# tests/unit/test_kernel_patch_550.sh - the kernel-patch series built for NVIDIA
# 550.163.01 (KERNEL_PATCH_CHECK=1; tests/kernel_patch_check.sh says what is checked).
cd "$(dirname "$0")/../.." || exit 1
tests/kernel_patch_check.sh 550.163.01
