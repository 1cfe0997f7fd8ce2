/* The trace file, one text format from the kernel to the simulator.
 *
 * Hagmann (1991, section 4.1) sampled every physical page's reference and modify bits every
 * five seconds (an "epoch") and wrote them out with the virtual object they belonged to. Ours
 * is the same record, one per line, written by the guest's `trace` program from the kernel's
 * buffer (vm/trace.c):
 *
 *     # trace epoch_ms=500 workload=sort
 *     EPOCH SEGMENT PAGE REFERENCED MODIFIED
 *
 * "# " lines are comments, but the first line must give epoch_ms. SEGMENT is the kernel's
 * serial number of the segment (code, heap or stack; a code segment is shared by every
 * process running the program, so its pages are one page each whatever the process), PAGE the
 * page within it. A page appears in an epoch only when its accessed or dirty bit was set, or it
 * came in, during that epoch: an absent line means "not referenced". Lines are ordered by
 * epoch; within an epoch they are in the order the kernel met the frames, which is what the
 * simulator takes as the order of the references (Hagmann did the same and found that
 * shuffling them changed nothing).
 *
 * A text format so that a student can read, grep and hand-write one; the shipped traces are a
 * few hundred KB at most.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tools/lab/tracesim/trace.h"

/* (segment, page) to dense page numbers: open addressing, doubled at half full. */
struct key { uint32_t seg, page, id; bool used; };
static struct key *tab;
static uint32_t tabsize, tabused;

static uint32_t hash(uint32_t seg, uint32_t page)
{
  uint32_t h = seg * 2654435761u ^ (page + 0x9e3779b9u) * 40503u;
  return h ^ (h >> 15);
}

static struct key *lookup(uint32_t seg, uint32_t page)
{
  uint32_t i = hash(seg, page) & (tabsize - 1);
  while (tab[i].used && (tab[i].seg != seg || tab[i].page != page))
    i = (i + 1) & (tabsize - 1);
  return &tab[i];
}

static void grow(void)
{
  struct key *old = tab;
  uint32_t oldsize = tabsize;
  tabsize = tabsize ? tabsize * 2 : 1024;
  tab = calloc(tabsize, sizeof *tab);
  if (!tab) {
    fprintf(stderr, "tracesim: out of memory\n");
    exit(2);
  }
  for (uint32_t i = 0; i < oldsize; i++)
    if (old[i].used)
      *lookup(old[i].seg, old[i].page) = old[i];
  free(old);
}

/* The dense number of (seg, page); a new pair gets the next one, *n. */
static uint32_t page_id(uint32_t seg, uint32_t page, uint32_t *n)
{
  if (2 * (tabused + 1) > tabsize)
    grow();
  struct key *k = lookup(seg, page);
  if (!k->used) {
    *k = (struct key){ seg, page, (*n)++, true };
    tabused++;
  }
  return k->id;
}

static void bad(const char *path, int line, const char *why)
{
  fprintf(stderr, "tracesim: %s:%d: %s\n", path, line, why);
  exit(2);
}

void trace_read(const char *path, struct trace *t)
{
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "tracesim: %s: cannot open\n", path);
    exit(2);
  }
  memset(t, 0, sizeof *t);
  t->path = path;
  free(tab);
  tab = 0;
  tabsize = tabused = 0;
  uint32_t cap = 0;
  char buf[512];
  int line = 0;
  while (fgets(buf, sizeof buf, f)) {
    line++;
    if (buf[0] == '#') {
      char *e = strstr(buf, "epoch_ms=");
      if (e)
        t->epoch_ms = (uint32_t)strtoul(e + 9, 0, 10);
      continue;
    }
    if (!t->epoch_ms)
      bad(path, line, "no '# trace epoch_ms=N' header before the first record");
    unsigned long ep, seg, page, r, m;
    char extra;
    int n = sscanf(buf, "%lu %lu %lu %lu %lu %c", &ep, &seg, &page, &r, &m, &extra);
    if (n == EOF)
      continue;             /* a blank line */
    if (n != 5 || r > 1 || m > 1)
      bad(path, line, "expected EPOCH SEGMENT PAGE REFERENCED(0/1) MODIFIED(0/1)");
    if (t->nrefs && ep < t->refs[t->nrefs - 1].epoch)
      bad(path, line, "epochs go backwards");
    if (!r && !m)
      continue;             /* neither bit: no reference */
    if (t->nrefs == cap) {
      cap = cap ? 2 * cap : 4096;
      t->refs = realloc(t->refs, cap * sizeof *t->refs);
      if (!t->refs)
        bad(path, line, "out of memory");
    }
    uint32_t id = page_id((uint32_t)seg, (uint32_t)page, &t->npages);
    t->refs[t->nrefs++] = (struct ref){ (uint32_t)ep, id, m != 0 };
  }
  fclose(f);
  if (!t->epoch_ms)
    bad(path, line, "no '# trace epoch_ms=N' header");
  if (!t->nrefs)
    bad(path, line, "no references");
  t->first_epoch = t->refs[0].epoch;
  t->last_epoch = t->refs[t->nrefs - 1].epoch;
}
