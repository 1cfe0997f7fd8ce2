/* The reference arbiter: the lab's model solution (docs/lab-arbiter.md), the kernel's own
 * vm.penalty_mode=adaptive written as an arbiter. It holds no rule of its own: the learned
 * bias and the comparison are kernel/mem/negotiate_rule.c's (its essay says what they do and
 * why), fed here by the arbiter's hooks instead of by kernel/mem/refault.c, so that an arbiter a
 * student writes is measured against the very rule the kernel runs. */
#include "kernel/arbiter.h"

static struct neg_learned learned;

static void ref_refault(const struct arb_refault *r)
{
  if (r->pool == NEG_VM && r->early)
    neg_learn_refault(&learned, r->now_ms, r->reuse_ms);
}

static void ref_used(uint32_t now, uint32_t idle_ms, uint32_t cache_age_ms)
{
  if (neg_saved(idle_ms, cache_age_ms, neg_learned_bias(&learned, now)))
    neg_learn_saved(&learned, now);
}

/* neg_decide with the learned bias for penalty; the kernel has dealt with refusals, free pages
 * and busy ones before asking, so only the ages are compared. */
static enum neg_pool ref_decide(const struct arb_view *v)
{
  enum neg_pool other = neg_other(v->asker);
  struct neg_offer own = { .lastref_ms = v->pool[v->asker].lastref_ms };
  struct neg_offer theirs = { .lastref_ms = v->pool[other].lastref_ms };
  uint32_t bias = neg_learned_bias(&learned, v->now_ms);
  return neg_decide(v->asker, own, theirs, bias) == NEG_OWN ? v->asker : other;
}

static void ref_reset(void)
{
  learned = (struct neg_learned){ 0, 0 };
}

const struct arbiter arbiter_reference = {
  .name = "reference",
  .description = "the lab's model solution: the older page goes, the VM's biased by what its refaults taught",
  .decide = ref_decide,
  .refault = ref_refault,
  .used = ref_used,
  .reset = ref_reset,
};
