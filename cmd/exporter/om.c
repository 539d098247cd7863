// SPDX-License-Identifier: GPL-2.0
/*
 * om.c - the exposition's pieces (om.h): a family's HELP and TYPE, an
 * escaped label, a sample's value.  render.c and sources.c write with them.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "gpuctl.h"
#include "exporter/om.h"

void om_family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void om_label(FILE *f, const char *name, const char *value, bool first)
{
	fprintf(f, "%s%s=\"", first ? "" : ",", name);
	/* a process name may hold anything: valid UTF-8 out, whatever came in */
	fput_escaped(f, value, SIZE_MAX, TXT_LABEL);
	fputc('"', f);
}

void om_u64(FILE *f, uint64_t v)
{
	fprintf(f, "%llu\n", (unsigned long long)v);
}
