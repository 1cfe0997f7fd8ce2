/* The simulated machine: the kernel's view of memory, as a policy sees it, driven by a trace.
 *
 * A policy (vm/policy_*.c, the very files the kernel compiles) asks the VM a few questions
 * (vm/policy.h); here they are answered by this file instead of vm/aging.c. The machine has
 * `frames` frames for pages and MACHINE_WIRED more that hold kernel data (never candidates,
 * like a page table or a wired page), and one frame at a time is "busy": when a reference
 * faults, the page the reference before it brought in is still under I/O (as a frame being
 * read in is in the kernel). A policy that returns a wired, busy or empty frame is wrong, and the run stops
 * with one line saying so: the grader's correctness check (make grade).
 *
 * Time, as in the kernel: a tick every 100 ms; at each tick the aging sweep looks at a
 * twentieth of the frames (vm/aging.c's age_tick: a pass in 2 s), turning accessed bits into
 * times of last reference, then the policy's tick runs. An epoch of E ms is E/100 ticks (one
 * at least); its references are spread evenly over its ticks, in the trace's order (Hagmann
 * applied 1/50 of an epoch's references every tenth of a second), and the clock moves on within
 * a tick too, evenly from one reference to the next, as the kernel's millisecond clock does
 * between the faults of a tick: a policy that samples at each choice (lru) then orders pages
 * referenced in one tick by the millisecond of their use, as it does in the kernel, instead
 * of finding them all of one age. A reference sets the page's
 * accessed bit (and dirty bit, when modified); a reference to a page not in memory is a fault:
 * a free frame if there is one, else the policy's choice, whose page leaves (page_out); the
 * new page comes in accessed, its time of last reference now (page_in), as vm/fault.c maps it.
 *
 * Exits, as in the kernel: at the end of the epoch that holds a segment's last reference
 * (trace.c marks it) its pages leave their frames (page_out) and the frames are free, so the
 * next faults take them before any policy is asked; a dead page never pushes out a live one.
 * -K (machine_keep_dead) keeps them until a policy evicts them, as the simulator did first:
 * at the memory the kernel's VM has in a 16 MB machine that more than doubled every policy's
 * refaults on the session, and where the kernel's VM evicts nothing it still refaulted thousands
 * of times (docs/lab-replacement.md).
 *
 * Policies keep state in static variables, so each run is a process of its own (main.c forks):
 * every run starts from the same state and the counts repeat exactly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tools/lab/tracesim/machine.h"
#include "tools/lab/callwatch.h"

#define TICK_MS 100
#define AGE_PASS_MS 2000

static uint32_t nf, now;
static int32_t *page_of;            /* frame -> page, or -1 when free or wired */
static bool *wired, *acc, *dirty, *written;
static uint32_t *last, *word;
static int32_t busy = -1;
static uint32_t sweep_hand;
bool machine_keep_dead;             /* -K: ended segments' pages stay until evicted */

uint32_t pol_nframes(void) { return nf; }
uint32_t pol_now(void) { return now; }
uint32_t pol_lastref(uint32_t f) { return last[f]; }
uint32_t *pol_word(uint32_t f) { return &word[f]; }
uint32_t pol_page(uint32_t f) { return page_of[f] >= 0 ? (uint32_t)page_of[f] : 0; }
bool pol_candidate(uint32_t f) { return f < nf && page_of[f] >= 0 && (int32_t)f != busy; }
bool pol_accessed(uint32_t f) { return acc[f]; }

bool pol_referenced(uint32_t f)
{
  bool r = acc[f];
  if (dirty[f])
    written[f] = true;        /* folded into the frame, as VMF_DIRTY */
  acc[f] = dirty[f] = false;
  if (r)
    last[f] = now;
  return r;
}

uint32_t intervals(const struct trace *t)
{
  return interval_of(t, t->last_epoch) + 1;
}

uint32_t interval_of(const struct trace *t, uint32_t epoch)
{
  return (uint32_t)((uint64_t)(epoch - t->first_epoch) * t->epoch_ms / INTERVAL_MS);
}

/* The sum of the five largest of per[0..n). */
uint64_t worst_five(const uint32_t *per, uint32_t n)
{
  uint32_t top[5] = { 0 };
  for (uint32_t i = 0; i < n; i++) {
    uint32_t v = per[i];
    for (int k = 0; k < 5; k++)
      if (v > top[k]) {
        uint32_t x = top[k];
        top[k] = v;
        v = x;
      }
  }
  return (uint64_t)top[0] + top[1] + top[2] + top[3] + top[4];
}

extern const struct vm_policy policy_atlas;
const struct vm_policy *const sim_policies[] = { &policy_atlas, 0 };

static void *zalloc(size_t n)
{
  void *p = calloc(n ? n : 1, 1);
  if (!p) {
    fprintf(stderr, "tracesim: out of memory\n");
    exit(2);
  }
  return p;
}

/* The policy's hooks, each call watched (tools/lab/callwatch.c): step is the reference. */
static void hook_page_in(const struct vm_policy *p, uint32_t f, uint32_t step)
{
  callwatch_enter("page_in", step);
  p->page_in(f);
  callwatch_leave();
}

static void hook_page_out(const struct vm_policy *p, uint32_t f, uint32_t step)
{
  callwatch_enter("page_out", step);
  p->page_out(f);
  callwatch_leave();
}

static int32_t hook_choose(const struct vm_policy *p, uint32_t step)
{
  callwatch_enter("choose", step);
  int32_t f = p->choose();
  callwatch_leave();
  return f;
}

static void hook_tick(const struct vm_policy *p, uint32_t step)
{
  callwatch_enter("tick", step);
  p->tick();
  callwatch_leave();
}

static void age_tick(void)
{
  uint32_t n = (nf * TICK_MS + AGE_PASS_MS - 1) / AGE_PASS_MS;
  for (uint32_t i = 0; i < n; i++) {
    if (pol_candidate(sweep_hand))
      pol_referenced(sweep_hand);
    sweep_hand = (sweep_hand + 1) % nf;
  }
}

/* The segments in dying ended this epoch: their pages leave, as the kernel frees the frames of
 * an exiting process (vm_drop_frame: the policy's page_out, then the free list). */
static void free_dead(const struct vm_policy *p, const struct trace *t, const bool *dying,
                      int32_t *frame_of, uint32_t *free_next, uint32_t step)
{
  for (uint32_t g = 0; g < nf; g++) {
    if (page_of[g] < 0 || !dying[t->seg_of[page_of[g]]])
      continue;
    if (p->page_out)
      hook_page_out(p, g, step);
    frame_of[page_of[g]] = -1;
    page_of[g] = -1;
    acc[g] = dirty[g] = written[g] = false;
    if (g < *free_next)
      *free_next = g;
    if ((int32_t)g == busy)
      busy = -1;
  }
}

static const char *why_not(int32_t v)
{
  if (v < 0)
    return "none, though there were candidates";
  if ((uint32_t)v >= nf)
    return "out of range";
  if (wired[v])
    return "wired";
  if (v == busy)
    return "busy (under I/O)";
  return "free (holds no page)";
}

int machine_run(const struct vm_policy *p, const struct trace *t, uint32_t frames,
                struct sim_result *r, char *why, int whylen)
{
  nf = frames + MACHINE_WIRED;
  page_of = zalloc(nf * sizeof *page_of);
  wired = zalloc(nf);
  acc = zalloc(nf);
  dirty = zalloc(nf);
  written = zalloc(nf);
  last = zalloc(nf * sizeof *last);
  word = zalloc(nf * sizeof *word);
  int32_t *frame_of = zalloc(t->npages * sizeof *frame_of);
  uint32_t *per = zalloc(intervals(t) * sizeof *per);
  for (uint32_t i = 0; i < t->npages; i++)
    frame_of[i] = -1;
  /* The kernel's wired frames: one near the start, one in the middle. */
  for (uint32_t f = 0; f < nf; f++) {
    page_of[f] = -1;
    wired[f] = f == 1 || f == nf / 2;
  }
  uint32_t free_next = 0;        /* frames below it have been used */
  memset(r, 0, sizeof *r);
  now = 1000;
  sweep_hand = 0;
  busy = -1;
  uint32_t ticks = t->epoch_ms >= TICK_MS ? t->epoch_ms / TICK_MS : 1;
  uint32_t i = 0;
  bool *dying = zalloc(t->nsegs + 1);
  uint32_t ndying = 0;
  for (uint32_t e = t->first_epoch; e <= t->last_epoch; e++) {
    uint32_t k = i;
    while (k < t->nrefs && t->refs[k].epoch == e)
      k++;
    uint32_t n = k - i, base = i;
    for (uint32_t tk = 0; tk < ticks; tk++) {
      uint32_t upto = base + (uint32_t)((uint64_t)n * (tk + 1) / ticks);
      uint32_t t0 = now, first = i, cnt = upto - i;
      for (; i < upto; i++) {
        now = t0 + (uint32_t)((uint64_t)(i - first) * TICK_MS / cnt);
        const struct ref *ref = &t->refs[i];
        if (ref->ends && !machine_keep_dead) {
          dying[t->seg_of[ref->page]] = true;
          ndying++;
        }
        int32_t f = frame_of[ref->page];
        if (f < 0) {
          r->faults++;
          per[interval_of(t, e)]++;
          while (free_next < nf && (wired[free_next] || page_of[free_next] >= 0))
            free_next++;
          if (free_next < nf) {
            f = (int32_t)free_next;
          } else {
            f = hook_choose(p, i);
            if (f < 0 || (uint32_t)f >= nf || !pol_candidate((uint32_t)f)) {
              snprintf(why, whylen, "policy %s chose frame %d, which is %s, at epoch %u of %s",
                       p->name, f, why_not(f), e, t->path);
              return -1;
            }
            if (p->page_out)
              hook_page_out(p, (uint32_t)f, i);
            if (dirty[f] || written[f])
              r->writes++;
            frame_of[page_of[f]] = -1;
          }
          page_of[f] = (int32_t)ref->page;
          frame_of[ref->page] = f;
          dirty[f] = written[f] = false;
          last[f] = now;
          acc[f] = true;
          if (p->page_in)
            hook_page_in(p, (uint32_t)f, i);
          acc[f] = true;
          if (ref->modified)
            dirty[f] = true;
          busy = f;
          continue;
        }
        acc[f] = true;
        if (ref->modified)
          dirty[f] = true;
        busy = -1;
      }
      now = t0 + TICK_MS;
      if (ndying && tk == ticks - 1) {
        free_dead(p, t, dying, frame_of, &free_next, i ? i - 1 : 0);
        memset(dying, 0, t->nsegs + 1);
        ndying = 0;
      }
      age_tick();
      if (p->tick)
        hook_tick(p, i ? i - 1 : 0);
    }
  }
  r->worst5 = worst_five(per, intervals(t));
  return 0;
}
