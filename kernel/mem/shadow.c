/* Shadow tables: the memory a pool keeps of the pages it gave up (after Linux's
 * mm/workingset.c, in Sprite's terms).
 *
 * When the file cache gives up a block, or the VM a page, the pool writes the page's identity
 * (a 32-bit hash: the cache's file and block number, the VM's segment serial and page number)
 * into its shadow table, with its count of pages given up so far and the page's time of last
 * reference. When the pool misses on a page (a cache miss, a page-in), it looks the identity
 * up: found, the page came back after the pool gave it up -- a refault -- and two distances
 * say how early that was: in pages, how many the pool gave up since (had it held that many
 * more frames, LRU order would have kept this one), and in time, how long the page was idle
 * in all (the reuse interval: how long a bias must protect such a page to keep it).
 *
 * BOUNDED. The table never grows: nsets sets of SHADOW_WAYS entries, fixed at boot from the
 * memory size (kernel/mem/refault.c chooses how many), whatever the disk or the address spaces.
 * A page given up goes into the set its key hashes to, over the entry given up longest ago
 * when the set is full: the set forgets in the order the pool gave pages up, so the table as a
 * whole holds about the last nsets * SHADOW_WAYS pages given up.
 *
 * AGED OUT. An entry given up more than horizon give-ups ago is not a refault even if it is
 * still there (a quiet set keeps its entries for ever): kernel/mem/refault.c sets the horizon to
 * the table's size, the furthest back the table can remember at all, so that whether a refault
 * is seen does not depend on which set its key fell in. */
#include "kernel/mem/shadow.h"

void shadow_init(struct shadow *t, struct shadow_set **pages, uint32_t npages, uint32_t horizon)
{
  if (npages > SHADOW_MAX_PAGES)
    npages = SHADOW_MAX_PAGES;
  for (uint32_t i = 0; i < npages; i++)
    t->page[i] = pages[i];
  t->nsets = npages * SHADOW_SETS_PER_PAGE;
  t->horizon = horizon;
  t->gone = 0;
}

static struct shadow_set *set_of(struct shadow *t, uint32_t key)
{
  uint32_t s = (key * 2654435761u >> 7) % t->nsets;
  return &t->page[s / SHADOW_SETS_PER_PAGE][s % SHADOW_SETS_PER_PAGE];
}

void shadow_remember(struct shadow *t, uint32_t key, uint32_t lastref_ms)
{
  if (!t->nsets)
    return;
  if (++t->gone == 0)
    t->gone = 1;              /* 0 marks an empty entry */
  struct shadow_set *s = set_of(t, key);
  struct shadow_entry *victim = 0;
  for (int w = 0; w < SHADOW_WAYS && !victim; w++)
    if (s->way[w].gone && s->way[w].key == key)
      victim = &s->way[w];    /* given up again before it came back: the newer time counts */
  for (int w = 0; w < SHADOW_WAYS && !victim; w++)
    if (!s->way[w].gone)
      victim = &s->way[w];
  if (!victim) {
    victim = &s->way[0];      /* full: over the one given up longest ago */
    for (int w = 1; w < SHADOW_WAYS; w++)
      if (t->gone - s->way[w].gone > t->gone - victim->gone)
        victim = &s->way[w];
  }
  victim->key = key;
  victim->gone = t->gone;
  victim->lastref_ms = lastref_ms;
}

enum shadow_found shadow_recall(struct shadow *t, uint32_t key, uint32_t *distance, uint32_t *lastref_ms)
{
  if (!t->nsets)
    return SHADOW_NONE;
  struct shadow_set *s = set_of(t, key);
  for (int w = 0; w < SHADOW_WAYS; w++) {
    struct shadow_entry *e = &s->way[w];
    if (!e->gone || e->key != key)
      continue;
    uint32_t d = t->gone - e->gone;
    e->gone = 0;
    if (d > t->horizon)
      return SHADOW_AGED;
    *distance = d;
    *lastref_ms = e->lastref_ms;
    return SHADOW_HIT;
  }
  return SHADOW_NONE;
}

uint32_t shadow_count(const struct shadow *t)
{
  uint32_t n = 0;
  for (uint32_t s = 0; s < t->nsets; s++)
    for (int w = 0; w < SHADOW_WAYS; w++)
      n += t->page[s / SHADOW_SETS_PER_PAGE][s % SHADOW_SETS_PER_PAGE].way[w].gone != 0;
  return n;
}
