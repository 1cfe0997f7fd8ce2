/* Belady's MIN (1966): with the whole future known, on a fault evict the page whose next use
 * is farthest away (or that is never used again). No demand-paging policy can fault less on
 * the same reference string, which makes it the yardstick of Hagmann's Figures 2 and 3 and of
 * the grader: "percent over MIN".
 *
 * The reference string is the trace's references in the order the simulated machine applies
 * them (machine.c), and the machine has the same `frames`; wired and busy frames do not
 * constrain MIN, so it stays a lower bound for every policy the machine runs.
 *
 * next[i] is where the page of reference i is used next (nrefs: never). Resident pages sit
 * in a max-heap by their next use; a hit pushes the page again with its new next use rather
 * than moving it, and a popped entry that is no longer the page's current one is stale and
 * skipped (lazy deletion), so the whole run is O(n log n).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tools/lab/tracesim/min.h"

struct ent { uint32_t next, page; };
static struct ent *heap;
static uint32_t hn;

static bool above(struct ent a, struct ent b)
{
  return a.next > b.next || (a.next == b.next && a.page > b.page);
}

static void push(struct ent e)
{
  uint32_t i = hn++;
  while (i > 0 && above(e, heap[(i - 1) / 2])) {
    heap[i] = heap[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  heap[i] = e;
}

static struct ent pop(void)
{
  struct ent top = heap[0], e = heap[--hn];
  uint32_t i = 0;
  for (;;) {
    uint32_t c = 2 * i + 1;
    if (c >= hn)
      break;
    if (c + 1 < hn && above(heap[c + 1], heap[c]))
      c++;
    if (!above(heap[c], e))
      break;
    heap[i] = heap[c];
    i = c;
  }
  heap[i] = e;
  return top;
}

void min_run(const struct trace *t, uint32_t frames, struct sim_result *r)
{
  uint32_t n = t->nrefs;
  uint32_t *next = malloc((n ? n : 1) * sizeof *next);
  uint32_t *seen = malloc(t->npages * sizeof *seen);      /* next use of each page, backward */
  uint32_t *cur = malloc(t->npages * sizeof *cur);        /* the resident page's heap key */
  bool *in = calloc(t->npages, 1), *mod = calloc(t->npages, 1);
  uint32_t *per = calloc(intervals(t), sizeof *per);
  heap = malloc((n + 1) * sizeof *heap);
  if (!next || !seen || !cur || !in || !mod || !heap || !per) {
    fprintf(stderr, "tracesim: out of memory\n");
    exit(2);
  }
  for (uint32_t p = 0; p < t->npages; p++)
    seen[p] = n;
  for (uint32_t i = n; i-- > 0;) {
    next[i] = seen[t->refs[i].page];
    seen[t->refs[i].page] = i;
  }
  memset(r, 0, sizeof *r);
  hn = 0;
  uint32_t resident = 0;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t p = t->refs[i].page;
    if (!in[p]) {
      r->faults++;
      per[interval_of(t, t->refs[i].epoch)]++;
      if (resident == frames) {
        for (;;) {
          struct ent e = pop();
          if (in[e.page] && cur[e.page] == e.next) {
            in[e.page] = false;
            if (mod[e.page])
              r->writes++;
            resident--;
            break;
          }
        }
      }
      in[p] = true;
      mod[p] = false;
      resident++;
    }
    mod[p] |= t->refs[i].modified;
    cur[p] = next[i];
    push((struct ent){ next[i], p });
  }
  r->worst5 = worst_five(per, intervals(t));
  free(per);
  free(next);
  free(seen);
  free(cur);
  free(in);
  free(mod);
  free(heap);
}
