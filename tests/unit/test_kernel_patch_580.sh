#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/run lane: kernel-patch
# tests/unit/test_kernel_patch_580.sh - the kernel-patch series built for NVIDIA
# 580.142 (KERNEL_PATCH_CHECK=1; tests/kernel_patch_check.sh says what is checked).
cd "$(dirname "$0")/../.." || exit 1
tests/kernel_patch_check.sh 580.142
