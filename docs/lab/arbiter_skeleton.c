/* The arbiter lab's starting point (docs/lab-arbiter.md): copy this file to
 * kernel/arbiter_NAME.c, rename "mine" and arbiter_mine to your arbiter's name, and fill in
 * the hooks.
 *
 *   python3 tools/lab/arbiter_grade.py NAME --file kernel/arbiter_NAME.c --host-only
 *                                   the recorded negotiations, before the kernel knows it
 *   then add `extern const struct arbiter arbiter_NAME;` to kernel/arbiter.h and
 *   `&arbiter_NAME,` to the table in kernel/arbiters.c, and
 *   make grade LAB=arbiter ARBITER=NAME     the traces and the kernel, with a score
 *
 * Replace this comment with your essay: which pool your arbiter makes give up a frame, and why
 * that should beat a fixed penalty.
 *
 * Rules (kernel/arbiter.h): every hook may run with a spinlock held and interrupts off, and
 * must not sleep, wait, allocate, print or loop for long; include nothing but kernel/arbiter.h
 * (the host simulator compiles this very file); decide answers NEG_FS or NEG_VM. Your state:
 * small static variables. */
#include "kernel/arbiter.h"

/* Which pool gives up a frame: v->asker's own (it recycles its oldest page) or the other's.
 * This one is global LRU, Sprite with no penalty: the older page goes, and a tie keeps pages
 * where they are. TODO: protect the pages that come back. */
static enum neg_pool mine_decide(const struct arb_view *v)
{
  enum neg_pool other = neg_other(v->asker);
  uint32_t own_t = v->pool[v->asker].lastref_ms, other_t = v->pool[other].lastref_ms;
  return other_t < own_t ? other : v->asker;
}

/* A refault: r->pool got back a page it gave up r->reuse_ms after the page's last use.
 * Optional: delete the hook if your arbiter learns nothing from refaults. */
static void mine_refault(const struct arb_refault *r)
{
  (void)r;
}

/* A VM page used again after idle_ms, kept although the cache's oldest block was younger
 * (cache_age_ms) when the cache last asked. Optional. */
static void mine_used(uint32_t now_ms, uint32_t idle_ms, uint32_t cache_age_ms)
{
  (void)now_ms, (void)idle_ms, (void)cache_age_ms;
}

/* neg.reset=1, and when vm.arbiter chooses this arbiter: forget what you learned. Optional. */
static void mine_reset(void)
{
}

const struct arbiter arbiter_mine = {
  .name = "mine",
  .description = "the lab's skeleton: global LRU (penalty 0)",
  .decide = mine_decide,
  .refault = mine_refault,
  .used = mine_used,
  .reset = mine_reset,
};
