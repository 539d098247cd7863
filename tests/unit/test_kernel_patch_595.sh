#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/run lane: kernel-patch
# tests/unit/test_kernel_patch_595.sh - the kernel-patch series built for NVIDIA
# 595.45.04 (KERNEL_PATCH_CHECK=1; tests/kernel_patch_check.sh says what is checked).
cd "$(dirname "$0")/../.." || exit 1
tests/kernel_patch_check.sh 595.45.04
