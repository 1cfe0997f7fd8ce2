/* The kernel's side of the arbiter lab (kernel/arbiters.c): which arbiter decides (vm.arbiter),
 * the mechanical cases around it, and the recording of what a replay needs (neg.arbiter_trace).
 * kernel/negotiate.c asks arbitrate instead of neg_decide; kernel/refault.c reports give-ups,
 * refaults and pages used again. */
#ifndef KERNEL_ARBITERS_H
#define KERNEL_ARBITERS_H
#include "kernel/types.h"
#include "kernel/arbiter.h"

/* Whether arbitrate is needed at all: an arbiter chosen, or the recording on. Without either
 * kernel/negotiate.c calls neg_decide itself, so the lab costs a negotiation nothing. */
bool arbiter_in_use(void);
/* The verdict for asker, own and other being the two pools' offers and penalty_ms the kernel's
 * penalty for them (used when no arbiter is chosen); cache, vm and free: the frames each pool
 * holds and the free ones. Called only when arbiter_in_use. */
enum neg_verdict arbitrate(enum neg_pool asker, struct neg_offer own, struct neg_offer other,
                           uint32_t penalty_ms, uint32_t penalty_s, enum neg_penalty_mode mode,
                           uint32_t cache, uint32_t vm, uint32_t free);
/* kernel/refault.c's reports: a pool gave up the page named key; it missed on one it had given
 * up (distance, reuse_ms, other_frames, early: struct arb_refault); a VM page was used again. */
void arbiter_gave(enum neg_pool pool, uint32_t key, uint32_t lastref_ms);
void arbiter_refault(enum neg_pool pool, uint32_t key, uint32_t distance, uint32_t reuse_ms,
                     uint32_t other_frames, bool early);
bool arbiter_wants_used(void);
void arbiter_used(uint32_t now_ms, uint32_t idle_ms, uint32_t cache_age_ms);
void arbiter_reset(void);
void arbiter_init(void);
#endif
