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
 * shuffling them changed nothing; on traces of a few seconds it makes clock look like FIFO,
 * as the lab's docs tell).
 *
 * An ordered trace (`trace -r`, header "order=reference") has the same lines, but within an
 * epoch in the order of each page's first use (the kernel's soft faults, vm/trace.c), then
 * what the faults could not see: pages only the kernel touched, and pages written after a
 * first read, as "0 1" lines. A later line of a page already referenced in the same epoch is
 * no new reference: it only says the page was written. A "# end epochs=N lost=L" line closes
 * a trace drained while recording.
 *
 * A trace records references, not exits. When a process exits the kernel frees its segments'
 * frames at once (a code segment's when its last process is gone), so dead pages never compete
 * with live ones for memory; replayed without that, they sit in the simulator's frames until a
 * policy evicts them, and at the memory the kernel's VM has every policy refaults two or three
 * times as often as the kernel does (docs/lab-replacement.md measures it). So each
 * segment's last reference is marked (ref.ends), and the machine frees the segment's pages at
 * the end of that epoch (machine.c): a process is over within the epoch of its last use, or
 * idle until the trace ends. seg_of gives each page its segment, numbered densely.
 *
 * A text format so that a student can read, grep and hand-write one; a trace over 1 MB ships
 * gzipped (NAME.trace.gz), read here through gzip -dc.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tools/lab/tracefile.h"
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

/* Ordered traces: the index of each page's reference in the current epoch, and that epoch. */
static uint32_t *seen_at, *seen_epoch, seen_cap;

static void seen_grow(uint32_t npages)
{
  if (npages <= seen_cap)
    return;
  uint32_t cap = seen_cap ? seen_cap : 1024;
  while (cap < npages)
    cap *= 2;
  seen_at = realloc(seen_at, cap * sizeof *seen_at);
  seen_epoch = realloc(seen_epoch, cap * sizeof *seen_epoch);
  if (!seen_at || !seen_epoch) {
    fprintf(stderr, "tracesim: out of memory\n");
    exit(2);
  }
  for (uint32_t i = seen_cap; i < cap; i++)
    seen_epoch[i] = UINT32_MAX;
  seen_cap = cap;
}

static void bad(const char *path, int line, const char *why)
{
  fprintf(stderr, "tracesim: %s:%d: %s\n", path, line, why);
  exit(2);
}

void trace_read(const char *path, struct trace *t)
{
  /* A large trace ships gzipped: read through gzip, which names the file itself if bad. */
  bool gz;
  FILE *f = tracefile_open(path, &gz);
  if (!f) {
    fprintf(stderr, "tracesim: %s: cannot open\n", path);
    exit(2);
  }
  memset(t, 0, sizeof *t);
  t->path = path;
  free(tab);
  tab = 0;
  tabsize = tabused = 0;
  free(seen_at);
  free(seen_epoch);
  seen_at = seen_epoch = 0;
  seen_cap = 0;
  uint32_t cap = 0, segcap = 0, nsegkeys = 0;
  char buf[512];
  int line = 0;
  while (fgets(buf, sizeof buf, f)) {
    line++;
    if (buf[0] == '#') {
      char *e = strstr(buf, "epoch_ms=");
      if (e)
        t->epoch_ms = (uint32_t)strtoul(e + 9, 0, 10);
      if (strstr(buf, "order=reference"))
        t->ordered = true;
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
    if (seg >= UINT32_MAX || page >= UINT32_MAX)
      bad(path, line, "a segment or page number above 4294967294");
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
    if (t->npages > segcap) {
      segcap = segcap ? 2 * segcap : 4096;
      t->seg_of = realloc(t->seg_of, segcap * sizeof *t->seg_of);
      if (!t->seg_of)
        bad(path, line, "out of memory");
    }
    t->seg_of[id] = page_id((uint32_t)seg, UINT32_MAX, &nsegkeys);
    if (t->ordered) {
      seen_grow(t->npages);
      if (seen_epoch[id] == ep) {
        t->refs[seen_at[id]].modified |= m != 0;
        continue;
      }
      seen_epoch[id] = (uint32_t)ep;
      seen_at[id] = t->nrefs;
    }
    t->refs[t->nrefs++] = (struct ref){ (uint32_t)ep, id, m != 0, false };
  }
  if (tracefile_close(f, gz) != 0)
    bad(path, line, "cannot be read to its end (a damaged gzip file?)");
  if (!t->epoch_ms)
    bad(path, line, "no '# trace epoch_ms=N' header");
  if (!t->nrefs)
    bad(path, line, "no references");
  t->first_epoch = t->refs[0].epoch;
  t->last_epoch = t->refs[t->nrefs - 1].epoch;
  /* The peak of pages "live" (used before and again after a point): +1 at a page's first use,
   * -1 after its last. */
  uint32_t *first = malloc(t->npages * sizeof *first), *last = malloc(t->npages * sizeof *last);
  int32_t *delta = calloc(t->nrefs + 1, sizeof *delta);
  if (!first || !last || !delta)
    bad(path, line, "out of memory");
  for (uint32_t i = t->nrefs; i-- > 0;)
    first[t->refs[i].page] = i;
  for (uint32_t i = 0; i < t->nrefs; i++)
    last[t->refs[i].page] = i;
  for (uint32_t p = 0; p < t->npages; p++) {
    delta[first[p]]++;
    delta[last[p] + 1]--;
  }
  int32_t cur = 0;
  for (uint32_t i = 0; i <= t->nrefs; i++) {
    cur += delta[i];
    if (cur > (int32_t)t->live)
      t->live = (uint32_t)cur;
  }
  free(first);
  free(last);
  free(delta);
  /* Segments numbered densely (their keys were numbered apart from the pages', above), and the
   * last reference of each marked: where its pages die. */
  uint32_t *dense = malloc((nsegkeys + t->npages + 1) * sizeof *dense);
  uint32_t *lastref = malloc((nsegkeys + t->npages + 1) * sizeof *lastref);
  if (!dense || !lastref)
    bad(path, line, "out of memory");
  memset(dense, 0xff, (nsegkeys + t->npages + 1) * sizeof *dense);
  t->nsegs = 0;
  for (uint32_t i = 0; i < t->nrefs; i++) {
    uint32_t k = t->seg_of[t->refs[i].page];
    if (dense[k] == UINT32_MAX)
      dense[k] = t->nsegs++;
    lastref[dense[k]] = i;
  }
  for (uint32_t p = 0; p < t->npages; p++)
    t->seg_of[p] = dense[t->seg_of[p]];
  for (uint32_t sg = 0; sg < t->nsegs; sg++)
    t->refs[lastref[sg]].ends = true;
  free(dense);
  free(lastref);
}
