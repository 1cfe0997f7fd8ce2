/* The sparse page arrays of fs/parray.h. */
#include "fs/parray.h"
#include "kernel/mem/coremap.h"

uint8_t *pa_at(struct parray *a, uint32_t byte)
{
  uint32_t p = byte / PAGE;
  if (p >= MAXPAGES) {
    a->oom = true;
    return 0;
  }
  if (!a->pg[p] && !(a->pg[p] = kalloc_page())) {
    a->oom = true;
    return 0;
  }
  return a->pg[p] + byte % PAGE;
}

void pa_free(struct parray *a)
{
  for (int i = 0; i < MAXPAGES; i++)
    if (a->pg[i]) {
      kfree_page(a->pg[i]);
      a->pg[i] = 0;
    }
}

bool bit_get(struct parray *a, uint32_t i)
{
  uint8_t *p = pa_at(a, i / 8);
  return p && (*p >> (i % 8)) & 1;
}

void bit_set(struct parray *a, uint32_t i, bool v)
{
  uint8_t *p = pa_at(a, i / 8);
  if (p)
    *p = v ? *p | (uint8_t)(1u << (i % 8)) : *p & (uint8_t)~(1u << (i % 8));
}
