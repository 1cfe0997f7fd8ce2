/* Reading a negotiation trace.
 *
 * The kernel records with neg.arbiter_record=1 (kernel/arbiters.c, to QEMU's debug console) and
 * tools/lab/record_negtraces.py writes the records as text, one event a line, in the order
 * they happened:
 *
 *   # negtrace version=1 workload=W penalty_s=P mode=fixed|stepped|adaptive ...
 *   N TIME ASKER FLAGS VERDICT FS_LASTREF VM_LASTREF CACHE VM FREE PENALTY_MS
 *   G TIME POOL KEY LASTREF
 *   R TIME POOL KEY DISTANCE REUSE OTHER EARLY
 *   U TIME IDLE AGE COUNT
 *   X TIME
 *
 * N a negotiation: who asked (0 the cache, 1 the VM; the kernel refilling its reserve asks as
 * the cache), the offers' flags (NF_*), the kernel's verdict (0 own, 1 other, 2 none, 3 busy),
 * both offers' times of last reference, the frames each pool and the free list held, and the
 * penalty the kernel used. G a page given up (the pool's shadow key, its time of last
 * reference). R a refault (the page's key, pages given up since, its reuse interval, the other
 * pool's frames, whether early). U pages used again in a 100 ms window: the one least idle
 * beyond the cache's age (its idle time and that age), and how many. X: neg.reset. Times are
 * ms since boot. A G is linked to the R that brought its page back, if one did. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tools/lab/tracefile.h"
#include "tools/lab/arbitersim/negtrace.h"

static void bad(const char *path, uint32_t line, const char *why)
{
  fprintf(stderr, "arbitersim: %s:%u: %s\n", path, line, why);
  exit(2);
}

static uint32_t field(const char **s, const char *path, uint32_t line)
{
  char *end;
  while (**s == ' ')
    (*s)++;
  unsigned long v = strtoul(*s, &end, 10);
  if (end == *s || (*end != ' ' && *end != '\n' && *end != 0))
    bad(path, line, "a number is missing or malformed");
  *s = end;
  return (uint32_t)v;
}

static const char *word(const char *header, const char *key, char *out, size_t len)
{
  const char *p = strstr(header, key);
  out[0] = 0;
  if (p) {
    p += strlen(key);
    size_t i = 0;
    while (p[i] && p[i] != ' ' && p[i] != '\n' && i + 1 < len)
      out[i] = p[i], i++;
    out[i] = 0;
  }
  return out;
}

/* Links each give-up to the refault that brought its page back: the last G of that pool and
 * key before the R. An open-addressing table of the keys seen. */
static void link_refaults(struct negtrace *t)
{
  uint32_t cap = 1;
  while (cap < 4 * t->n + 16)
    cap <<= 1;
  uint32_t *slot = malloc(cap * sizeof *slot);     /* index + 1 of the last G, 0: empty */
  if (!slot)
    bad(t->path, 0, "out of memory");
  memset(slot, 0, cap * sizeof *slot);
  for (uint32_t i = 0; i < t->n; i++) {
    struct event *e = &t->ev[i];
    if (e->type != EV_GAVE && e->type != EV_REFAULT)
      continue;
    uint32_t h = (e->key * 2654435761u ^ e->pool) & (cap - 1);
    while (slot[h] && (t->ev[slot[h] - 1].key != e->key || t->ev[slot[h] - 1].pool != e->pool))
      h = (h + 1) & (cap - 1);
    if (e->type == EV_GAVE) {
      e->gave_up = -1;
      slot[h] = i + 1;
    } else if (slot[h] && t->ev[slot[h] - 1].gave_up < 0) {
      t->ev[slot[h] - 1].gave_up = (int32_t)i;
    }
  }
  free(slot);
}

void negtrace_read(struct negtrace *t, const char *path)
{
  memset(t, 0, sizeof *t);
  t->path = path;
  bool gz;
  FILE *f = tracefile_open(path, &gz);
  if (!f)
    bad(path, 0, "cannot be opened");
  char buf[512];
  uint32_t line = 0, cap = 0;
  while (fgets(buf, sizeof buf, f)) {
    line++;
    if (line == 1) {
      if (strncmp(buf, "# negtrace version=1", 20) != 0)
        bad(path, line, "not a negotiation trace (its first line must be \"# negtrace version=1 ...\")");
      snprintf(t->header, sizeof t->header, "%s", buf);
      char v[32];
      t->penalty_s = (uint32_t)atoi(word(buf, "penalty_s=", v, sizeof v));
      word(buf, "mode=", v, sizeof v);
      t->penalty_mode = !strcmp(v, "stepped") ? 1 : !strcmp(v, "adaptive") ? 2 : 0;
      continue;
    }
    if (buf[0] == '#' || buf[0] == '\n')
      continue;
    if (t->n == cap) {
      cap = cap ? 2 * cap : 4096;
      t->ev = realloc(t->ev, cap * sizeof *t->ev);
      if (!t->ev)
        bad(path, line, "out of memory");
    }
    struct event *e = &t->ev[t->n];
    memset(e, 0, sizeof *e);
    e->type = buf[0];
    e->gave_up = -1;
    const char *s = buf + 1;
    if (buf[1] != ' ')
      bad(path, line, "an event is a letter and numbers, separated by spaces");
    e->time_ms = field(&s, path, line);
    switch (e->type) {
    case EV_NEG:
      e->pool = (uint8_t)field(&s, path, line);
      e->flags = (uint8_t)field(&s, path, line);
      e->verdict = (uint8_t)field(&s, path, line);
      for (int k = 0; k < 6; k++)
        e->a[k] = field(&s, path, line);
      if (e->pool > 1 || e->verdict > 3)
        bad(path, line, "an asker is 0 or 1, a verdict 0 to 3");
      break;
    case EV_GAVE:
      e->pool = (uint8_t)field(&s, path, line);
      e->key = field(&s, path, line);
      e->a[0] = field(&s, path, line);
      break;
    case EV_REFAULT:
      e->pool = (uint8_t)field(&s, path, line);
      e->key = field(&s, path, line);
      for (int k = 0; k < 3; k++)
        e->a[k] = field(&s, path, line);
      e->early = (uint8_t)field(&s, path, line);
      break;
    case EV_USED:
      for (int k = 0; k < 3; k++)
        e->a[k] = field(&s, path, line);
      break;
    case EV_RESET:
      break;
    default:
      bad(path, line, "an event is N, G, R, U or X");
    }
    if ((e->type == EV_GAVE || e->type == EV_REFAULT) && e->pool > 1)
      bad(path, line, "a pool is 0 (the cache) or 1 (the VM)");
    t->n++;
  }
  if (line == 0)
    bad(path, 0, "is empty");
  if (tracefile_close(f, gz) != 0)
    bad(path, line, "cannot be read to its end (a damaged gzip file?)");
  link_refaults(t);
}
