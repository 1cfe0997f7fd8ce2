/* Belady's MIN over a trace (min.c). */
#ifndef TRACESIM_MIN_H
#define TRACESIM_MIN_H
#include "tools/lab/tracesim/machine.h"
void min_run(const struct trace *t, uint32_t frames, struct sim_result *r);
#endif
