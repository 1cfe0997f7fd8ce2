/* Broken on purpose: prints from a hook. */
#include <stdio.h>
#include "kernel/arbiter.h"

static enum neg_pool frank_decide(const struct arb_view *v)
{
  printf("asked by %d\n", v->asker);
  return v->asker;
}

const struct arbiter arbiter_frank = { .name = "frank", .description = "prints", .decide = frank_decide };
