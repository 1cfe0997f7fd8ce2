/* Kernel counters for vmstat: a table of names and where to read each value. */
#include "kernel/stats.h"
#include "kernel/klib.h"
#include "kernel/spinlock.h"

#define MAXSTATS 160
static struct counter stats[MAXSTATS];
static int nstats;

static void add(const char *name, const uint32_t *value, uint32_t (*get)(void))
{
  if (nstats == MAXSTATS)
    panic("stats: table full at %s", name);
  stats[nstats++] = (struct counter){ name, value, get };
}

void stat_register_table(const struct counter *c, uint32_t n)
{
  for (uint32_t i = 0; i < n; i++)
    add(c[i].name, c[i].value, c[i].get);
}

int stat_format(char *buf, int len)
{
  int n = 0;
  /* One instant for all: counters that are read added up (free and backing blocks) are
   * changed together with interrupts off, so no process switch falls between them here. */
  pushcli();
  for (int i = 0; i < nstats && n < len; i++) {
    uint32_t v = stats[i].get ? stats[i].get() : *stats[i].value;
    n += snprintf(buf + n, len - n, "%s %u\n", stats[i].name, v);
  }
  popcli();
  return MIN(n, len);
}

void stat_dump(void)
{
  int col = 0;
  for (int i = 0; i < nstats; i++) {
    char item[64];
    int n = snprintf(item, sizeof item, " %s=%u", stats[i].name, stats[i].get ? stats[i].get() : *stats[i].value);
    if (col > 0 && col + n > 100) {
      kprintf("\n");
      col = 0;
    }
    kprintf("%s%s", col == 0 ? " " : "", item);
    col += n + (col == 0);
  }
  kprintf("\n");
}
