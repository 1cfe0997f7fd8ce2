/* pages PID: the resident pages of process PID as the kernel sees them (SYS_vmpages,
 * scaffold/vm_view.c), one a line, by segment and address:
 *
 *   va type seg frame pool owner_seg owner_va age_ms flags
 *
 * va is the page; type and seg the segment mapping it (code, heap, stack; its number); frame
 * the physical frame its page-table entry names, and pool that frame's pool in the core map
 * (vm for every page of a sound VM); owner_seg and owner_va what the core map says the frame
 * holds (a segment's number and a page: the same as the entry's in a sound VM; "-" for
 * none); age_ms how long ago its time of last reference was; flags accessed
 * (used since the aging clock last looked), dirty (changed since its backing copy), cow,
 * write, busy, or "-". The first line says how many were found and when. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include "uapi/syscall.h"
#include "uapi/vmpages.h"

static struct vmpage recs[VMPAGES_MAX];
static const char *types[] = { "code", "heap", "stack" };
static const char *pools[] = { "none", "free", "kernel", "cache", "vm" };

static int vmpages(int pid, struct vmpages_info *info, struct vmpage *buf, int max)
{
  int ret;
  __asm__ volatile("int $0x80" : "=a"(ret) : "a"(SYS_vmpages), "b"(pid), "c"(info), "d"(buf), "S"(max)
                   : "memory", "cc");
  return ret;
}

int main(int argc, char **argv)
{
  if (argc != 2 || atoi(argv[1]) <= 0) {
    fprintf(stderr, "usage: pages PID\n");
    return 1;
  }
  struct vmpages_info info;
  int n = vmpages(atoi(argv[1]), &info, recs, VMPAGES_MAX);
  if (n < 0) {
    fprintf(stderr, "pages: %s: %s\n", argv[1], n == -ESRCH ? "no such process" : "cannot read its pages");
    return 1;
  }
  printf("pages: pid %s, %u resident, at %u ms%s\n", argv[1], info.count, info.now_ms,
         info.count > (unsigned)n ? " (the first shown)" : "");
  printf("va type seg frame pool owner_seg owner_va age_ms flags\n");
  for (int i = 0; i < n; i++) {
    struct vmpage *p = &recs[i];
    char owner[48], flags[48] = "";
    if (p->owner_seg == VMP_NONE)
      snprintf(owner, sizeof owner, "- -");
    else
      snprintf(owner, sizeof owner, "%u 0x%08x", p->owner_seg, p->owner_va);
    static const struct { int bit; const char *word; } words[] = {
      { VMP_ACCESSED, "accessed" }, { VMP_DIRTY, "dirty" }, { VMP_COW, "cow" }, { VMP_WRITE, "write" },
      { VMP_BUSY, "busy" } };
    for (unsigned k = 0; k < sizeof words / sizeof words[0]; k++)
      if (p->flags & words[k].bit) {
        if (flags[0])
          strcat(flags, ",");
        strcat(flags, words[k].word);
      }
    printf("0x%08x %s %u %u %s %s %u %s\n", p->va, types[p->type < 3 ? p->type : 0], p->seg, p->frame,
           p->pool < 5 ? pools[p->pool] : "?", owner, info.now_ms - p->lastref_ms, flags[0] ? flags : "-");
  }
  return 0;
}
