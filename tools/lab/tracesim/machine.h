/* The simulated machine: runs one replacement policy over a trace (machine.c). */
#ifndef TRACESIM_MACHINE_H
#define TRACESIM_MACHINE_H
#include "vm/policy.h"
#include "tools/lab/tracesim/trace.h"

struct sim_result {
  uint64_t faults;          /* references to a page not in memory (first touches included) */
  uint64_t writes;          /* victims that were modified since they came in (page-outs) */
  uint64_t worst5;          /* faults in the five intervals of INTERVAL_MS with the most (Hagmann's Figure 10) */
};

/* Hagmann's Figure 10 counts the faults of each interval (his 5 s epoch); ours are a second. */
#define INTERVAL_MS 1000
uint32_t intervals(const struct trace *t);
uint32_t interval_of(const struct trace *t, uint32_t epoch);
uint64_t worst_five(const uint32_t *per, uint32_t n);

/* The policies only the simulator has (Atlas's loop detector, atlas.c), 0-terminated. */
extern const struct vm_policy *const sim_policies[];

/* Frames of memory for pages (the machine has MACHINE_WIRED frames more, never replaceable).
 * Returns 0, or -1 with one line in why when the policy chose a frame it may not. */
#define MACHINE_WIRED 2
/* Keep the pages of segments that ended (their last reference is past) until evicted, instead
 * of freeing them as the kernel frees an exiting process's frames (tracesim -K). */
extern bool machine_keep_dead;
int machine_run(const struct vm_policy *p, const struct trace *t, uint32_t frames,
                struct sim_result *r, char *why, int whylen);
#endif
