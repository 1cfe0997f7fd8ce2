/* A recorded trace as a text stream, for both simulators (tools/lab/tracesim, arbitersim):
 * a trace over 1 MB ships gzipped (NAME.gz) and is read through gzip -dc. */
#ifndef TOOLS_LAB_TRACEFILE_H
#define TOOLS_LAB_TRACEFILE_H
#include <stdbool.h>
#include <stdio.h>

/* The file's text, or 0 when it cannot be opened (missing, unreadable, or a .gz path with a
 * quote in it, which the shell command could not name); *gz says how to close it. */
FILE *tracefile_open(const char *path, bool *gz);
/* 0 when the whole text was read: gzip's exit status tells a damaged file. */
int tracefile_close(FILE *f, bool gz);
#endif
