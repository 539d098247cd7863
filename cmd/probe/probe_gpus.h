/* SPDX-License-Identifier: GPL-2.0 */
/* probe_gpus.h - probe's GPU section (cmd/probe_gpus.c). */
#ifndef GPUCTL_PROBE_GPUS_H
#define GPUCTL_PROBE_GPUS_H
#include "json_writer.h"
void probe_gpus_json(json_writer_t *w);
void probe_gpus_text(void);
#endif
