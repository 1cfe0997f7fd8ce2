/* Broken on purpose: a hook that never returns once it has seen a refault. */
#include "kernel/arbiter.h"

static volatile uint32_t seen;

static void dave_refault(const struct arb_refault *r)
{
  seen = r->now_ms;
}

static enum neg_pool dave_decide(const struct arb_view *v)
{
  while (seen)
    ;
  return v->asker;
}

const struct arbiter arbiter_dave = { .name = "dave", .description = "spins", .decide = dave_decide,
                                      .refault = dave_refault };
