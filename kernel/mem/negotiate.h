/* The negotiation between the two pools of frames, the file cache and the VM
 * (kernel/mem/negotiate.c): what each pool answers, and how either asks for a frame. This layer
 * knows the pools only by the operations each registers at boot; it names neither fs/ nor vm/. */
#ifndef KERNEL_NEGOTIATE_H
#define KERNEL_NEGOTIATE_H
#include "kernel/types.h"
#include "kernel/mem/coremap.h"
#include "kernel/mem/negotiate_rule.h"

/* Two names for one pool, each where it is needed: enum neg_pool (NEG_FS, NEG_VM) is the
 * negotiation's, pure C that the arbiter lab and the host simulators share; enum frame_pool is
 * the core map's, which also has the free frames and the kernel's. This is the one mapping. */
static inline enum frame_pool neg_frame_pool(enum neg_pool p)
{
  return p == NEG_FS ? POOL_CACHE : POOL_VM;
}

/* What a pool answers, registered once at boot (fs/cache.c for NEG_FS, vm/oldest.c for NEG_VM).
 * offer: the time of last reference of the page it would give up next, or refuse. giving:
 *   asked by the other pool (refused at the pool's floor), else asked as the asker's own
 *   ("what would you recycle?"). A pool not registered yet refuses.
 * surrender: that page's frame, detached (still in the pool's own POOL_*), or 0. It never
 *   writes: dirty pages met go to the pool's own writers, to be clean for the next ask.
 * audit: the pool's structures and its frames agree; problems found (printed unless quiet).
 * reset: the pool's negotiation counters start again (neg.reset=1); may be 0.
 * used_since_ms: a time before which none of the pages the pool could offer was last used (a
 *   free page, lastref 0, counts), read without the pool's lock; it lets an asker that would
 *   keep its own page even against a page that old skip the offer (neg_keeps_own). May be 0:
 *   no bound but 0. */
struct pool_ops {
  struct neg_offer (*offer)(bool giving);
  struct frame *(*surrender)(void);
  int (*audit)(bool quiet);
  void (*reset)(void);
  const uint32_t *used_since_ms;
};
void neg_register_pool(enum neg_pool pool, const struct pool_ops *ops);

/* getframe: a frame for the asker's pool (free, or the other's surrendered), or 0 and what
 * to do (NEG_OWN: recycle your own; NEG_BUSY: call neg_wait_clean and ask again while it
 * says so, then recycle your own; else wait a little and ask again). Call it holding
 * neither pool's lock. refill: tops the kernel's reserve of free frames up (the VM's clock,
 * ten times a second). */
struct frame *neg_getframe(enum neg_pool asker, enum neg_verdict *verdict);
/* After NEG_BUSY: waits until a pool says a page became clean, or a few ms; false (without
 * waiting) once *waited_ms has reached neg.busy_wait_ms. The caller holds no lock the pools'
 * writers need: neither pool's spinlock, no block it might have to write. */
bool neg_wait_clean(uint32_t *waited_ms);
/* A pool's writers made a page clean (a block written, a page laundered): wakes the waiters. */
void neg_note_clean(void);
void neg_refill(void);
/* For kalloc_page: tops the reserve up at once when it is down to half and the caller may
 * negotiate: it holds no spinlock (so neither pool's lock, which the pools take; an
 * interrupt handler may, since the code it interrupted held none either). */
void neg_refill_for_kernel(void);
void neg_init(void);

/* The arbiter lab's hook (kernel/arbiters.c): set while an arbiter is chosen or the lab's
 * recording is on, 0 otherwise, so that without the lab no code of it runs on any path. Each
 * member but arbitrate may be 0 (not wanted).
 * arbitrate: the verdict in neg_decide's place, own and other the two offers; penalty_ms the
 *   kernel's penalty for them; cache, vm, free: the frames each pool holds and the free ones.
 * gave, refault, used, reset: kernel/mem/refault.c's events (kernel/mem/refault.h), as they happen,
 *   under the refault lock: a pool gave up the page named key; missed on one it had given up;
 *   the aging clock found a VM page used again after idle_ms, longer than the cache's oldest
 *   block was old at the last negotiation met while it lay idle; neg.reset. */
struct neg_arbiter {
  enum neg_verdict (*arbitrate)(enum neg_pool asker, struct neg_offer own, struct neg_offer other,
                                uint32_t penalty_ms, uint32_t cache, uint32_t vm, uint32_t free);
  void (*gave)(enum neg_pool pool, uint32_t key, uint32_t lastref_ms);
  void (*refault)(enum neg_pool pool, uint32_t key, uint32_t distance, uint32_t reuse_ms,
                  uint32_t other_frames, bool early);
  void (*used)(uint32_t now_ms, uint32_t idle_ms, uint32_t cache_age_ms);
  void (*reset)(void);
};
extern const struct neg_arbiter *neg_arbiter;
void neg_set_arbiter(const struct neg_arbiter *a);
/* The penalty's settings as they are (vm.penalty in s, vm.penalty_mode), for an arbiter. */
void neg_penalty_setting(uint32_t *penalty_s, enum neg_penalty_mode *mode);

/* The last negotiations, oldest first: up to max records (NEGTRACE_MAX at most) copied to out;
 * how many. */
struct negrecord;
uint32_t neg_trace_copy(struct negrecord *out, uint32_t max);

/* The memory audit (SYS_vmaudit, the audit program): the core map, then each registered
 * pool's own audit; problems found. */
int mem_audit(bool quiet);
#endif
