/* The kernel's side of the arbiter lab (kernel/arbiters.c): which arbiter decides (vm.arbiter),
 * the mechanical cases around it, and the recording of what a replay needs (neg.arbiter_record).
 * It reaches the negotiation only through the hook it registers (struct neg_arbiter,
 * kernel/mem/negotiate.h). */
#ifndef KERNEL_ARBITERS_H
#define KERNEL_ARBITERS_H
/* Its settings and counters, after the negotiation's (neg_init). */
void arbiter_init(void);
#endif
