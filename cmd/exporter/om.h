/* SPDX-License-Identifier: GPL-2.0 */
/*
 * om.h - writing the exposition (Prometheus text format 0.0.4): the pieces
 * every family's writer uses (om.c), below render.c and sources.c.
 */
#ifndef GPUCTL_EXPORTER_OM_H
#define GPUCTL_EXPORTER_OM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* "# HELP name help" and "# TYPE name type". */
void om_family(FILE *f, const char *name, const char *type, const char *help);
/*
 * A label value escaped for the exposition (text.c's TXT_LABEL: \\, \", \n;
 * other control bytes '?'; invalid UTF-8 U+FFFD: a scraper takes any name).
 */
void om_label(FILE *f, const char *name, const char *value, bool first);
/* A sample's value and the line's end. */
void om_u64(FILE *f, uint64_t v);

#endif
