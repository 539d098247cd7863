/* SPDX-License-Identifier: GPL-2.0 */
/* probe_mps.h - probe's MPS section (cmd/probe_mps.c). */
#ifndef GPUCTL_PROBE_MPS_H
#define GPUCTL_PROBE_MPS_H
#include "json_writer.h"
void probe_mps_json(json_writer_t *w);
void probe_mps_text(void);
#endif
