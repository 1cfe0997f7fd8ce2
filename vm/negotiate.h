/* The negotiation between the file cache and the VM (vm/negotiate.c): what each pool answers,
 * and how either asks for a frame. The only place where fs and vm meet besides the core map. */
#ifndef VM_NEGOTIATE_H
#define VM_NEGOTIATE_H
#include "kernel/types.h"
#include "vm/negotiate_rule.h"

struct frame;

/* fs/cache.c. offer: the time of last reference of the block the cache would give up next
 * (a block on its free list: 0), or refuse; giving: asked by the other pool (refused at the
 * floor, fs.cache_min_kb, or in fixed mode), else asked as the asker's own (refused while the
 * cache must grow: under its floor or fixed size). surrender: that block's frame, detached
 * (still POOL_CACHE), or 0; it never writes (dirty blocks met go to the cleaners). */
struct neg_offer cache_offer(bool giving);
struct frame *cache_surrender(void);
void cache_minmax_reset(void);     /* fs.cache.min_kb and max_kb start again from now */
int cache_audit(bool quiet);       /* blocks, frames and lists agree: problems found */

/* vm/page.c. offer: the time of last reference of the VM's oldest page, or refuse: when
 * giving, at its floor (1/16 of memory); else when it has no page that could go. surrender:
 * that page's frame if it is clean, else the next oldest clean one, unmapped (still POOL_VM),
 * or 0; it never writes (a dirty page goes to the page-out daemon, to be clean for the next
 * ask). */
struct neg_offer vm_offer(bool giving);
struct frame *vm_surrender(void);

/* vm/negotiate.c. getframe: a frame for the asker's pool (free, or the other's surrendered),
 * or 0 and what to do (NEG_OWN: recycle your own; else wait a little and ask again). Call
 * it holding neither cache_lock nor vm_lock. refill: tops the kernel's reserve of free
 * frames up (the VM's clock, ten times a second). */
struct frame *neg_getframe(enum neg_pool asker, enum neg_verdict *verdict);
void neg_refill(void);
/* For kalloc_page: tops the reserve up at once when it is down to half and the caller may
 * negotiate: it holds no spinlock (so not vm_lock or cache_lock, which the pools take; an
 * interrupt handler may, since the code it interrupted held none either). */
void neg_refill_for_kernel(void);
void neg_init(void);
#endif
