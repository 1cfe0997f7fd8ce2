/* Broken on purpose (tests/host/test_arbiter_grade.py): answers a verdict that is no pool. */
#include "kernel/arbiter.h"

static enum neg_pool bob_decide(const struct arb_view *v)
{
  return v->asker == NEG_FS ? (enum neg_pool)7 : NEG_VM;   /* neither NEG_FS nor NEG_VM */
}

const struct arbiter arbiter_bob = { .name = "bob", .description = "answers 7", .decide = bob_decide };
