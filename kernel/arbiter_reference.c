/* The reference arbiter: the lab's model solution (docs/lab-arbiter.md), the kernel's own
 * vm.penalty_mode=adaptive written as an arbiter, self-contained.
 *
 * Sprite compares the two pools' oldest pages after adding a penalty to the VM's time, so the
 * cache takes a VM page only when it has been idle that much longer than the cache's own oldest
 * block. A constant penalty protects an interactive program that sleeps less than it and no
 * other. Here the penalty (the bias) is learned from the VM's refaults, as Linux's
 * mm/workingset.c learns from refault distances:
 *
 * - An early refault (the cache held at least as many frames as the VM gave up since the page
 *   went: LRU order would have kept it) says the VM gave up too much. Its reuse interval is the
 *   protection the page needed: the bias moves half way to that, a quarter more (the next
 *   round's jitter) and the aging clock's 2 s lag, at most an hour. A program refaulting at one
 *   interval is protected after three such refaults (7/8 of 1.25 is more than 1).
 * - A protected program stops refaulting, so the VM's pages used again after an idle time that
 *   only the bias covered (idle longer than the cache's oldest block, by no more than the bias)
 *   renew the evidence. With no evidence for twice the bias and 10 s, the bias halves, and
 *   again each such period: a program that stopped gives the cache its plain LRU back.
 * - A scan never refaults early and never saves a page: it never raises the bias.
 *
 * The comparison itself is neg_decide's: the older page goes, the VM's time biased; a tie
 * keeps pages where they are (the asker recycles its own). */
#include "kernel/arbiter.h"

#define BIAS_MAX_MS (3600u * 1000)
#define LAG_MS 2000
#define GRACE_MS 10000

static uint32_t bias_ms, evidence_ms;

/* The bias now: halved for every whole quiet period since the last evidence. */
static uint32_t bias_now(uint32_t now)
{
  if (bias_ms == 0)
    return 0;
  uint32_t halvings = (now - evidence_ms) / (2 * bias_ms + GRACE_MS);
  return halvings >= 32 ? 0 : bias_ms >> halvings;
}

static void ref_refault(const struct arb_refault *r)
{
  if (r->pool != NEG_VM || !r->early)
    return;
  uint64_t want = (uint64_t)r->reuse_ms + r->reuse_ms / 4 + LAG_MS;
  uint32_t target = want > BIAS_MAX_MS ? BIAS_MAX_MS : (uint32_t)want;
  uint32_t b = bias_now(r->now_ms);
  if (target > b)
    b += (target - b + 1) / 2;
  bias_ms = b;
  evidence_ms = r->now_ms;
}

static void ref_used(uint32_t now, uint32_t idle_ms, uint32_t cache_age_ms)
{
  uint32_t b = bias_now(now);
  if (b > 0 && idle_ms > cache_age_ms && idle_ms - cache_age_ms <= b) {
    bias_ms = b;
    evidence_ms = now;
  }
}

static enum neg_pool ref_decide(const struct arb_view *v)
{
  uint32_t b = bias_now(v->now_ms);
  uint32_t fs = v->pool[NEG_FS].lastref_ms, vm = v->pool[NEG_VM].lastref_ms;
  vm = vm > UINT32_MAX - b ? UINT32_MAX : vm + b;
  enum neg_pool other = v->asker == NEG_FS ? NEG_VM : NEG_FS;
  uint32_t own_t = v->asker == NEG_FS ? fs : vm, other_t = v->asker == NEG_FS ? vm : fs;
  return other_t < own_t ? other : v->asker;
}

static void ref_reset(void)
{
  bias_ms = evidence_ms = 0;
}

const struct arbiter arbiter_reference = {
  .name = "reference",
  .description = "the lab's model solution: the older page goes, the VM's biased by what its refaults taught",
  .decide = ref_decide,
  .refault = ref_refault,
  .used = ref_used,
  .reset = ref_reset,
};
