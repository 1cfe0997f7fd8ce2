/* The arbiter: the rule that decides which pool gives up a frame, as a lab (docs/lab-arbiter.md).
 *
 * The negotiation (kernel/mem/negotiate.c) asks both pools "how old is the page you would give up
 * next?". With vm.arbiter=none, the default, kernel/mem/negotiate_rule.c's neg_decide answers, with
 * vm.penalty and vm.penalty_mode. With vm.arbiter=NAME an arbiter of kernel/arbiters.c's table
 * answers instead: a struct of hooks, one file kernel/arbiter_NAME.c that includes nothing but
 * this header, so that the host simulator (tools/lab/arbitersim/) compiles the very same file.
 *
 * The arbiter is asked only the real question: both pools offer a page in use. Whatever is
 * mechanical stays the kernel's: a pool at its floor refuses and the other gives (or nobody, if
 * both refuse); a free block or page goes before any page in use; a page that should go but is
 * dirty makes the asker wait for its writers (NEG_BUSY). Every hook may run with a spinlock
 * held and interrupts off: it must not sleep, wait, allocate or print, and must return at once.
 * Its state: small static variables. */
#ifndef KERNEL_ARBITER_H
#define KERNEL_ARBITER_H
#include "kernel/mem/negotiate_rule.h"

/* One pool as the arbiter sees it at a negotiation. */
struct arb_pool {
  uint32_t lastref_ms;        /* its offer: the time of last reference of the page it would give */
  bool busy;                  /* that page is dirty: if it must go, the asker waits for a write */
  uint32_t frames;            /* frames the pool holds */
  uint32_t refaults, early;   /* its refaults since neg.reset, and the early ones (below) */
};

/* What decide is told. Times are ms since boot, on the clock both pools stamp pages with (a VM
 * page's time is the aging clock's, up to 2 s stale). */
struct arb_view {
  enum neg_pool asker;        /* who needs a frame: NEG_FS (a cache miss) or NEG_VM (a fault);
                                 the kernel refilling its reserve asks as NEG_FS */
  uint32_t now_ms;
  struct arb_pool pool[2];    /* [NEG_FS] the file cache, [NEG_VM] the VM */
  uint32_t free_frames;       /* free frames (the kernel's reserve among them) */
  uint32_t penalty_s;         /* vm.penalty, the setting (an arbiter may ignore it) */
  enum neg_penalty_mode penalty_mode;
};

/* A refault: a pool missed on a page it had given up (a cache miss on a remembered block, a
 * page-in of a remembered VM page; kernel/mem/refault.c keeps the shadows). */
struct arb_refault {
  enum neg_pool pool;
  uint32_t now_ms;
  uint32_t distance;          /* pages the pool gave up since it gave this one */
  uint32_t reuse_ms;          /* from the page's last reference before it went until now */
  uint32_t other_frames;      /* frames the other pool holds now */
  bool early;                 /* distance <= other_frames: had the other pool given up that many
                                 instead, plain LRU order would have kept this page */
};

struct arbiter {
  const char *name;           /* vm.arbiter=name: lowercase letters, digits and _ */
  const char *description;
  /* Which pool gives up a frame: NEG_FS or NEG_VM (the asker's own pool: it recycles its
   * own oldest page). Anything else is an error: the kernel counts it (neg.arbiter_errors),
   * names the first on the console, and decides as neg_decide would instead. */
  enum neg_pool (*decide)(const struct arb_view *v);
  /* Optional: a refault, as it happens (with the refault lock held). */
  void (*refault)(const struct arb_refault *r);
  /* Optional: the aging clock found a VM page used again after idle_ms, longer than the cache's
   * oldest block was old (cache_age_ms) at the last negotiation met while the page lay idle:
   * under plain LRU that page would have gone first, so only the arbiter kept it. */
  void (*used)(uint32_t now_ms, uint32_t idle_ms, uint32_t cache_age_ms);
  /* Optional: start again (neg.reset=1, and when the arbiter is chosen). */
  void (*reset)(void);
};

extern const struct arbiter arbiter_reference;
#endif
