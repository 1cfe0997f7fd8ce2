/* Broken on purpose: sleeps in a hook that runs with interrupts off. */
#include "kernel/arbiter.h"

int usleep(unsigned usec);

static enum neg_pool carol_decide(const struct arb_view *v)
{
  usleep(10);
  return v->asker;
}

const struct arbiter arbiter_carol = { .name = "carol", .description = "sleeps", .decide = carol_decide };
