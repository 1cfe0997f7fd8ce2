/* negtrace [-n N] [-s]: the last negotiations between the file cache and the VM (at most N,
 * default all the kernel keeps), oldest first, one a line:
 *
 *   seq time_ms asker fs_age_ms vm_age_ms penalty_s gave cache_frames vm_frames free_frames
 *       vm_refaults vm_saved evidence_age_ms
 *
 * asker is fs (a cache miss), vm (a page fault) or kernel (refilling its reserve of free
 * frames); an age is how long before the negotiation the page on offer was last used,
 * "free" for a free block or page (it has no age: it goes before any page in use), or
 * "refuse"; "<=N" for a pool that was not asked: none of its pages had been idle longer than
 * N ms, and even a page that old would have stayed, so the asker kept its own without asking
 * it (kernel/mem/negotiate.c); the VM's age is shown before the penalty is taken off it; gave is the pool whose
 * frame the asker got (its own: it recycles its own oldest page), "none", or "busy" (the pool
 * that should give had only dirty pages: it has them written, and the asker waits for one
 * before it recycles its own); then the frames each
 * pool held when the penalty was computed (a stepped penalty is vm.penalty for every whole
 * tenth of their sum that the cache holds); then the evidence an adaptive penalty (the learned
 * bias, vm.penalty_mode=adaptive) stands on: the VM's early refaults and the pages the bias
 * saved since neg.reset, and how long before this negotiation the last of them came ("-":
 * none yet). In the other modes the evidence is gathered all the same, and not used. -s prints only
 * a summary: how many each asker made and who gave among the records it read, first saying
 * how many those are out of all since boot or neg.reset (the kernel keeps only the last
 * NEGTRACE_MAX: a long sort makes thousands), then the whole run's totals from the counters
 * vmstat neg shows, which count every negotiation:
 *
 *   negtrace: the last 256 of 6,313 negotiations since boot or neg.reset
 *   negtrace: fs asked 250: fs gave 12, vm gave 238, none 0, busy 0
 *   ...
 *   negtrace: since boot or neg.reset (vmstat neg): fs asked 4,758, vm gave 2,854; vm asked
 *     1,299, fs gave 1,201; kernel refilled 256          (one line)
 *
 * (the kernel's refills of its reserve, neg.refills, are negotiations too, and in the trace). */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys.h>

static struct negrecord recs[NEGTRACE_MAX];
static const char *who[] = { "fs", "vm", "kernel", "none", "busy" };

/* 6313 -> "6,313": the counts run to the thousands. */
static const char *grouped(char *out, unsigned v)
{
  char digits[16];
  int n = snprintf(digits, sizeof digits, "%u", v), o = 0;
  for (int i = 0; i < n; i++) {
    if (i > 0 && (n - i) % 3 == 0)
      out[o++] = ',';
    out[o++] = digits[i];
  }
  out[o] = 0;
  return out;
}

/* A counter of vmstat neg, 0 if the kernel has none by that name. */
static unsigned counter(const char *name)
{
  long v = kstat_get(name);
  return v < 0 ? 0 : (unsigned)v;
}

static void age(char *out, int len, unsigned now, unsigned t, int refused, int free, int unasked)
{
  if (refused)
    snprintf(out, len, "refuse");
  else if (free)
    snprintf(out, len, "free");
  else if (unasked)
    snprintf(out, len, "<=%u", now - t);
  else
    snprintf(out, len, "%u", now - t);
}

int main(int argc, char **argv)
{
  int max = NEGTRACE_MAX, summary = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
      max = atoi(argv[++i]);
    else if (strcmp(argv[i], "-s") == 0)
      summary = 1;
    else {
      fprintf(stderr, "usage: negtrace [-n N] [-s]\n");
      return 1;
    }
  }
  int n = negtrace(recs, max);
  if (n < 0) {
    fprintf(stderr, "negtrace: cannot read the trace (error %d)\n", -n);
    return 1;
  }
  if (summary) {
    unsigned count[3][5];
    memset(count, 0, sizeof count);
    for (int i = 0; i < n; i++)
      if (recs[i].asker < 3 && recs[i].gave < 5)
        count[recs[i].asker][recs[i].gave]++;
    char t1[16], t2[16], t3[16], t4[16];
    /* The newest record's seq counts every negotiation since boot or neg.reset. */
    unsigned total = n > 0 ? recs[n - 1].seq : 0;
    printf("negtrace: the last %s of %s negotiations since boot or neg.reset\n", grouped(t1, n), grouped(t2, total));
    for (int a = 0; a < 3; a++)
      printf("negtrace: %s asked %u: fs gave %u, vm gave %u, none %u, busy %u\n", who[a],
             count[a][0] + count[a][1] + count[a][3] + count[a][4], count[a][0], count[a][1],
             count[a][3], count[a][4]);
    printf("negtrace: since boot or neg.reset (vmstat neg): fs asked %s, vm gave %s; vm asked %s, fs gave %s;",
           grouped(t1, counter("neg.fs_asks_vm")), grouped(t2, counter("neg.fs_asks_vm_satisfied")),
           grouped(t3, counter("neg.vm_asks_fs")), grouped(t4, counter("neg.vm_asks_fs_satisfied")));
    printf(" kernel refilled %s\n", grouped(t1, counter("neg.refills")));
    return 0;
  }
  printf("seq time_ms asker fs_age_ms vm_age_ms penalty_s gave cache_frames vm_frames free_frames "
         "vm_refaults vm_saved evidence_age_ms\n");
  for (int i = 0; i < n; i++) {
    struct negrecord *r = &recs[i];
    char fs[16], vm[16], ev[16];
    age(fs, sizeof fs, r->time_ms, r->fs_lastref_ms, r->flags & NEGT_FS_REFUSED, r->flags & NEGT_FS_FREE,
        r->flags & NEGT_FS_UNASKED);
    age(vm, sizeof vm, r->time_ms, r->vm_lastref_ms, r->flags & NEGT_VM_REFUSED, r->flags & NEGT_VM_FREE,
        r->flags & NEGT_VM_UNASKED);
    if (r->evidence_ms)
      snprintf(ev, sizeof ev, "%u", r->time_ms - r->evidence_ms);
    else
      snprintf(ev, sizeof ev, "-");
    printf("%u %u %s %s %s %u %s %u %u %u %u %u %s\n", r->seq, r->time_ms, who[r->asker < 3 ? r->asker : 3], fs, vm,
           r->penalty_ms / 1000, who[r->gave < 5 ? r->gave : 3], r->cache_frames, r->vm_frames,
           r->free_frames, r->vm_early, r->vm_saved, ev);
  }
  return 0;
}
