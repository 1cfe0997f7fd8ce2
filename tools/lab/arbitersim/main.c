/* arbitersim: replays recorded negotiations through arbiters (docs/lab-arbiter.md).
 *
 *   arbitersim [-a NAME,...] [-t MS] [-c CSV] TRACE...
 *
 * For each trace (traces/negotiation/NAME.negtrace.gz; tools/lab/arbitersim/negtrace.c says what
 * it holds) and each arbiter, the events are replayed in their order: a refault goes to the
 * arbiter's refault hook, pages used again to its used hook, neg.reset to its reset, and at
 * every negotiation in which both pools offered a page in use (the only ones an arbiter is asked
 * in the kernel) its decide is asked, with the view the kernel gave it: the same offers, the same
 * frames, the refault evidence of the trace so far. The arbiters are the one compiled in with
 * -DARBITER_EXTRA=arbiter_NAME (a student's file), the reference (kernel/arbiter_reference.c,
 * when the tree has it), and three of the simulator's own: lru (global LRU, penalty 0), p120
 * (Sprite's fixed 120 s, the paper's) and recorded (what the kernel decided in the recorded run).
 *
 * THE SCORE PROXY. A replay cannot know what a different decision would have changed: a page kept
 * is used again or not, the pools' sizes move, the next offers and refaults differ. What the
 * trace does say is, for every page the recorded run gave up, whether it came back (the shadows
 * saw a refault) or not. So for each pool and each age a page had when it went (its idle time,
 * in doubling buckets from 64 ms), the share of them that came back is the chance that giving up
 * a page of that age costs a read: a VM page paged in again, a file block read again. An arbiter's
 * proxy is the sum of those chances over its decisions (the page its answer gives up, at the age
 * offered): the disk reads its decisions would cost if each page's future were the one recorded
 * for pages of its pool and age. An age with no give-up recorded takes the nearest one with some.
 *
 * Its score on a trace: 100 * (W - C) / (W - B), within 0..100, where C is its proxy and B and W
 * the best and worst of lru, p120 and the reference (both fixed penalties when the tree has no
 * reference). Every decision must be NEG_FS or NEG_VM: anything else stops the replay with an
 * "error:" line and exit status 1. Exit status 2: a trace could not be read. Each call of an
 * arbiter's hook may take at most -t MS of CPU time (1000 by default; tools/lab/callwatch.c): one
 * that loops ends the replay with one line naming the hook and the event, and exit status 3. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernel/arbiter.h"
#include "tools/lab/arbitersim/negtrace.h"
#include "tools/lab/callwatch.h"

#define NBUCKETS 22

/* The simulator's own arbiters: the older page goes, the VM's time biased by a fixed penalty. */

static enum neg_pool older(const struct arb_view *v, uint32_t bias)
{
  uint64_t fs = v->pool[NEG_FS].lastref_ms, vm = (uint64_t)v->pool[NEG_VM].lastref_ms + bias;
  enum neg_pool other = neg_other(v->asker);
  uint64_t own_t = v->asker == NEG_FS ? fs : vm, other_t = v->asker == NEG_FS ? vm : fs;
  return other_t < own_t ? other : v->asker;
}

static enum neg_pool lru_decide(const struct arb_view *v) { return older(v, 0); }
static enum neg_pool p120_decide(const struct arb_view *v) { return older(v, 120000); }

static const struct arbiter arbiter_lru = { "lru", "global LRU: penalty 0", lru_decide, 0, 0, 0 };
static const struct arbiter arbiter_p120 = { "p120", "Sprite's fixed penalty of 120 s", p120_decide, 0, 0, 0 };
static const struct arbiter arbiter_recorded = { "recorded", "what the kernel decided in the recorded run", 0, 0, 0, 0 };

/* The reference, when the tree has it (the students' tree does not). */
extern const struct arbiter arbiter_reference __attribute__((weak));
#ifdef ARBITER_EXTRA
extern const struct arbiter ARBITER_EXTRA;
#endif

static const struct arbiter *known[8];
static int nknown;

static void table(void)
{
#ifdef ARBITER_EXTRA
  known[nknown++] = &ARBITER_EXTRA;
#endif
  if (&arbiter_reference)
    known[nknown++] = &arbiter_reference;
  known[nknown++] = &arbiter_lru;
  known[nknown++] = &arbiter_p120;
  known[nknown++] = &arbiter_recorded;
}

static const struct arbiter *find(const char *name)
{
  for (int i = 0; i < nknown; i++)
    if (!strcmp(known[i]->name, name))
      return known[i];
  return 0;
}

/* --- the cost model ---------------------------------------------------------------------- */

static int bucket(uint32_t age_ms)
{
  int b = 0;
  for (uint32_t lim = 64; b < NBUCKETS - 1 && age_ms >= lim; lim *= 2)
    b++;
  return b;
}

struct model {
  double p[2][NBUCKETS];      /* the chance a page of that pool and age comes back */
  uint32_t gave[2][NBUCKETS], back[2][NBUCKETS];
};

static void model_build(struct model *m, const struct negtrace *t)
{
  memset(m, 0, sizeof *m);
  for (uint32_t i = 0; i < t->n; i++) {
    const struct event *e = &t->ev[i];
    if (e->type != EV_GAVE)
      continue;
    int b = bucket(e->time_ms - e->a[0]);
    m->gave[e->pool][b]++;
    m->back[e->pool][b] += e->gave_up >= 0;
  }
  for (int p = 0; p < 2; p++)
    for (int b = 0; b < NBUCKETS; b++) {
      int near = -1;
      for (int d = 0; d < NBUCKETS && near < 0; d++) {
        if (b + d < NBUCKETS && m->gave[p][b + d])
          near = b + d;
        else if (b - d >= 0 && m->gave[p][b - d])
          near = b - d;
      }
      m->p[p][b] = near < 0 ? 0 : (double)m->back[p][near] / m->gave[p][near];
    }
}

/* --- the replay ---------------------------------------------------------------------------- */

struct result {
  uint32_t decisions, changed, given[2];
  double cost[2];
};

static int replay(const struct negtrace *t, const struct model *m, const struct arbiter *a, struct result *r)
{
  memset(r, 0, sizeof *r);
  uint32_t refaults[2] = { 0, 0 }, early[2] = { 0, 0 };
  char who[300];
  snprintf(who, sizeof who, "arbiter %s on %s", a->name, strrchr(t->path, '/') ? strrchr(t->path, '/') + 1 : t->path);
  callwatch_context(who, "event", t->n);
  if (a->reset) {
    callwatch_enter("reset", 0);
    a->reset();
    callwatch_leave();
  }
  for (uint32_t i = 0; i < t->n; i++) {
    const struct event *e = &t->ev[i];
    switch (e->type) {
    case EV_REFAULT: {
      refaults[e->pool]++;
      early[e->pool] += e->early;
      struct arb_refault rf = { (enum neg_pool)e->pool, e->time_ms, e->a[0], e->a[1], e->a[2], e->early };
      if (a->refault) {
        callwatch_enter("refault", i);
        a->refault(&rf);
        callwatch_leave();
      }
      break;
    }
    case EV_USED:
      if (a->used && e->a[0] > e->a[1]) {
        callwatch_enter("used", i);
        a->used(e->time_ms, e->a[0], e->a[1]);
        callwatch_leave();
      }
      break;
    case EV_RESET:
      refaults[0] = refaults[1] = early[0] = early[1] = 0;
      if (a->reset) {
        callwatch_enter("reset", i);
        a->reset();
        callwatch_leave();
      }
      break;
    case EV_NEG: {
      if (e->flags & (NF_FS_REFUSED | NF_VM_REFUSED | NF_FS_FREE | NF_VM_FREE))
        break;              /* mechanical in the kernel: no arbiter is asked */
      enum neg_pool asker = (enum neg_pool)e->pool, other = neg_other(asker);
      enum neg_pool was = e->verdict == NEG_OWN ? asker : other;
      struct arb_view v = {
        .asker = asker, .now_ms = e->time_ms, .free_frames = e->a[4], .penalty_s = t->penalty_s,
        .penalty_mode = (enum neg_penalty_mode)t->penalty_mode,
        .pool = {
          [NEG_FS] = { e->a[0], (e->flags & NF_FS_BUSY) != 0, e->a[2], refaults[NEG_FS], early[NEG_FS] },
          [NEG_VM] = { e->a[1], (e->flags & NF_VM_BUSY) != 0, e->a[3], refaults[NEG_VM], early[NEG_VM] },
        },
      };
      int p = (int)was;
      if (a->decide) {
        callwatch_enter("decide", i);
        p = (int)a->decide(&v);
        callwatch_leave();
      }
      if (p != NEG_FS && p != NEG_VM) {
        printf("error: arbiter %s answered %d at %s's event %u (time %u ms): decide must answer NEG_FS (0) or "
               "NEG_VM (1)\n", a->name, p, t->path, i + 1, e->time_ms);
        return -1;
      }
      r->decisions++;
      r->changed += p != (int)was;
      r->given[p]++;
      uint32_t lastref = p == NEG_FS ? e->a[0] : e->a[1];
      r->cost[p] += m->p[p][bucket(e->time_ms - lastref)];
      break;
    }
    default:
      break;
    }
  }
  return 0;
}

static double score(double c, double best, double worst)
{
  if (worst - best < 1e-9)
    return c <= best + 1e-9 ? 100 : 0;
  double s = 100 * (worst - c) / (worst - best);
  return s < 0 ? 0 : s > 100 ? 100 : s;
}

static void usage(void)
{
  fprintf(stderr, "usage: arbitersim [-a NAME,...] [-t MS] [-c CSV] TRACE...\n");
  exit(2);
}

int main(int argc, char **argv)
{
  table();
  const struct arbiter *run[8];
  int nrun = 0;
  const char *csvpath = 0, *names = 0;
  uint32_t limit_ms = CALLWATCH_DEFAULT_MS;
  int i = 1;
  for (; i < argc && argv[i][0] == '-'; i++) {
    if (!strcmp(argv[i], "-a") && i + 1 < argc)
      names = argv[++i];
    else if (!strcmp(argv[i], "-c") && i + 1 < argc)
      csvpath = argv[++i];
    else if (!strcmp(argv[i], "-t") && i + 1 < argc) {
      char *end;
      unsigned long v = strtoul(argv[++i], &end, 10);
      if (*end || v < 10 || v > 3600000) {
        fprintf(stderr, "arbitersim: -t wants 10..3600000 ms of CPU time per hook call\n");
        return 2;
      }
      limit_ms = (uint32_t)v;
    }
    else
      usage();
  }
  if (i == argc)
    usage();
  callwatch_init("arbitersim", limit_ms);
  if (names) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", names);
    for (char *s = strtok(buf, ","); s; s = strtok(0, ",")) {
      const struct arbiter *a = find(s);
      if (!a) {
        fprintf(stderr, "arbitersim: no arbiter %s (known:", s);
        for (int k = 0; k < nknown; k++)
          fprintf(stderr, " %s", known[k]->name);
        fprintf(stderr, ")\n");
        return 2;
      }
      if (nrun < 8)
        run[nrun++] = a;
    }
  } else {
    for (int k = 0; k < nknown; k++)
      run[nrun++] = known[k];
  }
  /* The anchors of the score are replayed whatever was asked. */
  const struct arbiter *anchors[3] = { &arbiter_lru, &arbiter_p120, &arbiter_reference ? &arbiter_reference : 0 };
  FILE *csv = csvpath ? fopen(csvpath, "w") : 0;
  if (csvpath && !csv) {
    fprintf(stderr, "arbitersim: cannot write %s\n", csvpath);
    return 2;
  }
  if (csv)
    fprintf(csv, "trace,arbiter,decisions,changed,vm_given,fs_given,vm_reads,fs_reads,reads,score\n");
  int status = 0;
  for (; i < argc; i++) {
    struct negtrace t;
    negtrace_read(&t, argv[i]);
    struct model m;
    model_build(&m, &t);
    const char *base = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
    double best = 1e300, worst = -1;
    for (int k = 0; k < 3; k++) {
      struct result r;
      if (!anchors[k] || replay(&t, &m, anchors[k], &r) < 0)
        continue;
      double c = r.cost[0] + r.cost[1];
      best = c < best ? c : best;
      worst = c > worst ? c : worst;
    }
    printf("%s: %s", base, t.header + 2);
    printf("%-12s %9s %8s %9s %9s %10s %10s %10s %6s\n", "arbiter", "decisions", "changed", "vm gave", "fs gave",
           "vm reads", "fs reads", "reads", "score");
    for (int k = 0; k < nrun; k++) {
      struct result r;
      fflush(stdout);
      if (replay(&t, &m, run[k], &r) < 0) {
        status = 1;
        continue;
      }
      double c = r.cost[0] + r.cost[1];
      double s = score(c, best, worst);
      printf("%-12s %9u %8u %9u %9u %10.1f %10.1f %10.1f %6.0f\n", run[k]->name, r.decisions, r.changed,
             r.given[NEG_VM], r.given[NEG_FS], r.cost[NEG_VM], r.cost[NEG_FS], c, s);
      if (csv)
        fprintf(csv, "%s,%s,%u,%u,%u,%u,%.2f,%.2f,%.2f,%.1f\n", base, run[k]->name, r.decisions, r.changed,
                r.given[NEG_VM], r.given[NEG_FS], r.cost[NEG_VM], r.cost[NEG_FS], c, s);
    }
    free(t.ev);
  }
  if (csv)
    fclose(csv);
  return status;
}
