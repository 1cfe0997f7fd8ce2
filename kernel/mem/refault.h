/* Refaults (kernel/mem/refault.c): each pool's shadow table of the pages it gave up, the refaults
 * seen through them, and the bias the VM learns from its own (vm.penalty_mode=adaptive). The
 * pools call in with a few lines each; the negotiation reads the bias. */
#ifndef KERNEL_REFAULT_H
#define KERNEL_REFAULT_H
#include "kernel/types.h"
#include "kernel/mem/negotiate_rule.h"

void refault_init(void);
/* The pool gave up the page named key (the cache a block, the VM a page), last referenced at
 * lastref_ms. Called under the pool's lock. */
void refault_gave(enum neg_pool pool, uint32_t key, uint32_t lastref_ms);
/* The pool missed on the page named key (a cache miss, a page-in): a refault if it gave it up. */
void refault_missed(enum neg_pool pool, uint32_t key);
/* The aging clock found a VM page used again after idle_ms (the VM's lock held). */
void refault_used(enum neg_pool pool, uint32_t idle_ms);
/* What the cache offered at a negotiation, for judging saved pages. */
void refault_offered(struct neg_offer fs, uint32_t now_ms);
/* The VM's learned bias now, in ms. */
uint32_t refault_bias_ms(void);
/* For the negotiation's trace: the VM's early refaults and saved pages since neg.reset, and
 * when its last evidence came. */
void refault_evidence(uint32_t *early, uint32_t *saved, uint32_t *evidence_ms);
/* The pool's refaults since neg.reset, and the early ones among them. */
void refault_counts(enum neg_pool pool, uint32_t *refaults, uint32_t *early);
/* neg.reset=1: the counters start again, and the VM's learned bias with them. */
void refault_reset(void);
#endif
