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
 * it (kernel/negotiate.c); the VM's age is shown before the penalty is taken off it; gave is the pool whose
 * frame the asker got (its own: it recycles its own oldest page), "none", or "busy" (the pool
 * that should give had only dirty pages: it has them written, and the asker waits for one
 * before it recycles its own); then the frames each
 * pool held when the penalty was computed (a stepped penalty is vm.penalty for every whole
 * tenth of their sum that the cache holds); then the evidence an adaptive penalty (the learned
 * bias, vm.penalty_mode=adaptive) stands on: the VM's early refaults and the pages the bias
 * saved since neg.reset, and how long before this negotiation the last of them came ("-":
 * none yet). In the other modes the evidence is gathered all the same, and not used. -s prints only
 * a summary: how many each asker made and who gave. */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys.h>

static struct negrecord recs[NEGTRACE_MAX];
static const char *who[] = { "fs", "vm", "kernel", "none", "busy" };

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
    printf("negtrace: %d negotiations\n", n);
    for (int a = 0; a < 3; a++)
      printf("negtrace: %s asked %u: fs gave %u, vm gave %u, none %u, busy %u\n", who[a],
             count[a][0] + count[a][1] + count[a][3] + count[a][4], count[a][0], count[a][1],
             count[a][3], count[a][4]);
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
