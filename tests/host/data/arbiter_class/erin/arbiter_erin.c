/* Broken on purpose: follows a null pointer once the VM has refaulted. */
#include "kernel/arbiter.h"

static const struct arb_view *last;

static enum neg_pool erin_decide(const struct arb_view *v)
{
  if (v->pool[NEG_VM].refaults > 0)
    return last->asker;       /* never set: null */
  return v->asker;
}

const struct arbiter arbiter_erin = { .name = "erin", .description = "null", .decide = erin_decide };
