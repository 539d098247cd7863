#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/prefetch_engine/run2.sh - the second GPU run: the PyTorch loop under
# populate with and without eager (allocations moved before their first
# fault) and small allocations, three rounds; the sweeps again with the
# engine waking on every event.  Expected time: about 6 minutes.
D=$(dirname "$(readlink -f "$0")")
ROUNDS=2 SROUNDS=1 TROUNDS=3 SKIP_SAFETY=1 \
	SWEEP_CFGS="alone populate stream stride" STRIDE_CFGS="alone stride" \
	TORCH_CFGS="alone populate populate-noeager populate-small" \
	exec bash "$D/run.sh"
