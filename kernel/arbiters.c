/* The arbiter lab's hooks in the kernel: who decides which pool gives up a frame, and the
 * recording a host replay stands on (docs/lab-arbiter.md).
 *
 * CHOOSING. vm.arbiter=none (the default) leaves the decision to neg_decide and vm.penalty,
 * vm.penalty_mode, as kernel/mem/negotiate.c has always made it. vm.arbiter=NAME hands it to an
 * arbiter of the table below (kernel/arbiter.h: one file each, pure C), at run time, so that one
 * kernel boots every arbiter and the lab's kernel pass compares a student's with the fixed
 * penalties and the reference on the same binary, switching with a sysctl (a build variable
 * would need a kernel per arbiter, and the comparisons would run different binaries). The
 * arbiter answers only the real question, both pools offering a page in use; the refusals, free
 * pages and dirty ones stay mechanical here, as neg_decide has them. Its answer is checked:
 * anything but NEG_FS or NEG_VM is counted (neg.arbiter_errors), the first named on the
 * console, and neg_decide decides instead, so that a wrong arbiter cannot wedge the memory
 * system. decide runs with interrupts off, as the other hooks do (they are called under the
 * pools' and the refault table's spinlocks), so an arbiter's state is never seen half-changed.
 *
 * THE HOOK. The kernel hears the lab through one registered hook (struct neg_arbiter,
 * kernel/mem/negotiate.h), set only while an arbiter is chosen or the recording is on, with only
 * the events wanted: with vm.arbiter=none and no recording, no code of this file runs.
 *
 * RECORDING. neg.arbiter_record=1 writes every negotiation (its offers, the pools' frames and
 * the verdict), every page a pool gives up (its name and time of last reference), every refault
 * and, folded to one record per 100 ms, the pages the aging clock found used again, to QEMU's
 * debug console (drivers/debugcon.c; a file when QEMU runs with -debugcon file:PATH), as
 * records of eight 32-bit words. tools/lab/record_negtraces.py turns them into the text traces
 * of traces/negotiation/, which tools/lab/arbitersim/ replays. The negtrace ring (256 records)
 * could not: it keeps the last negotiations only, and neither the give-ups nor the refaults'
 * reuse intervals that a learning rule and a replay's score need. */
#include "kernel/klib.h"
#include "kernel/spinlock.h"
#include "kernel/stats.h"
#include "kernel/sysctl.h"
#include "kernel/time.h"
#include "kernel/uapi/errno.h"
#include "kernel/mem/coremap.h"
#include "kernel/mem/negotiate.h"
#include "kernel/mem/refault.h"
#include "kernel/arbiter.h"
#include "kernel/arbiters.h"
#include "drivers/debugcon.h"

/* The table: a new arbiter is one file, its extern in kernel/arbiter.h and one line here. */
static const struct arbiter *const arbiters[] = {
  &arbiter_reference,         /* the lab's model solution (docs/lab-arbiter.md) */
  0,
};

static const struct arbiter *chosen;
static uint32_t tracing, st_errors, st_decisions, st_trace_records;

enum { ARBT_NEG = 1, ARBT_GAVE = 2, ARBT_REFAULT = 3, ARBT_USED = 4, ARBT_RESET = 5, ARBT_START = 6 };
#define ARBT_VERSION 1

/* The pages used again, folded: the one least idle beyond the cache's age in a 100 ms window
 * (the one an arbiter's "kept only by me" test is likeliest to count), and how many. */
static struct { bool open; uint32_t start, idle, age, count; } used_win;

static void emit(uint32_t w0, uint32_t w1, uint32_t w2, uint32_t w3, uint32_t w4, uint32_t w5,
                 uint32_t w6, uint32_t w7)
{
  uint32_t rec[8] = { w0, w1, w2, w3, w4, w5, w6, w7 };
  debugcon_write(rec, sizeof rec);
  st_trace_records++;
}

static void flush_used(void)
{
  if (used_win.open)
    emit(ARBT_USED, used_win.start, used_win.idle, used_win.age, used_win.count, 0, 0, 0);
  used_win.open = false;
}

static bool real_pool(enum neg_pool p)
{
  return p == NEG_FS || p == NEG_VM;
}

static enum neg_verdict arbitrate(enum neg_pool asker, struct neg_offer own, struct neg_offer other,
                                  uint32_t penalty_ms, uint32_t cache, uint32_t vm, uint32_t free)
{
  const struct arbiter *a = chosen;
  struct neg_offer fs = asker == NEG_FS ? own : other, vmo = asker == NEG_FS ? other : own;
  enum neg_verdict v;
  pushcli();
  if (!a || own.refuse || other.refuse || own.free || other.free) {
    v = neg_decide(asker, own, other, penalty_ms);
  } else {
    struct arb_view view = { .asker = asker, .now_ms = uptime_ms(), .free_frames = free };
    neg_penalty_setting(&view.penalty_s, &view.penalty_mode);
    view.pool[NEG_FS] = (struct arb_pool){ .lastref_ms = fs.lastref_ms, .busy = fs.busy, .frames = cache };
    view.pool[NEG_VM] = (struct arb_pool){ .lastref_ms = vmo.lastref_ms, .busy = vmo.busy, .frames = vm };
    for (int p = NEG_FS; p <= NEG_VM; p++)
      refault_counts(p, &view.pool[p].refaults, &view.pool[p].early);
    enum neg_pool p = a->decide(&view);
    st_decisions++;
    if (!real_pool(p)) {
      if (st_errors++ == 0)
        kprintf("arbiter %s: decide answered %d, neither NEG_FS (0) nor NEG_VM (1); deciding as "
                "neg_decide would (counted in neg.arbiter_errors)\n", a->name, (int)p);
      v = neg_decide(asker, own, other, penalty_ms);
    } else {
      v = p == asker ? NEG_OWN : other.busy ? NEG_BUSY : NEG_OTHER;
    }
  }
  if (tracing) {
    flush_used();
    uint32_t flags = (fs.refuse ? 1 : 0) | (vmo.refuse ? 2 : 0) | (fs.free ? 4 : 0) | (vmo.free ? 8 : 0) |
                     (fs.busy ? 16 : 0) | (vmo.busy ? 32 : 0);
    emit(ARBT_NEG | asker << 8 | flags << 16 | (uint32_t)v << 24, uptime_ms(), fs.lastref_ms, vmo.lastref_ms,
         cache, vm, free, penalty_ms);
  }
  popcli();
  return v;
}

static void arbiter_gave(enum neg_pool pool, uint32_t key, uint32_t lastref_ms)
{
  pushcli();
  flush_used();
  emit(ARBT_GAVE | pool << 8, uptime_ms(), key, lastref_ms, 0, 0, 0, 0);
  popcli();
}

static void arbiter_refault(enum neg_pool pool, uint32_t key, uint32_t distance, uint32_t reuse_ms,
                            uint32_t other_frames, bool early)
{
  pushcli();
  uint32_t now = uptime_ms();
  if (chosen && chosen->refault) {
    struct arb_refault r = { pool, now, distance, reuse_ms, other_frames, early };
    chosen->refault(&r);
  }
  if (tracing) {
    flush_used();
    emit(ARBT_REFAULT | pool << 8 | (uint32_t)early << 16, now, key, distance, reuse_ms, other_frames, 0, 0);
  }
  popcli();
}

static void arbiter_used(uint32_t now_ms, uint32_t idle_ms, uint32_t cache_age_ms)
{
  if (idle_ms <= cache_age_ms)
    return;                   /* LRU order would have kept it too */
  pushcli();
  if (chosen && chosen->used)
    chosen->used(now_ms, idle_ms, cache_age_ms);
  if (tracing) {
    if (used_win.open && now_ms - used_win.start >= 100)
      flush_used();
    if (!used_win.open)
      used_win.open = true, used_win.start = now_ms, used_win.count = 0, used_win.idle = idle_ms,
      used_win.age = cache_age_ms;
    if (idle_ms - cache_age_ms < used_win.idle - used_win.age)
      used_win.idle = idle_ms, used_win.age = cache_age_ms;
    used_win.count++;
  }
  popcli();
}

static void arbiter_reset(void)
{
  pushcli();
  if (chosen && chosen->reset)
    chosen->reset();
  if (tracing) {
    flush_used();
    emit(ARBT_RESET, uptime_ms(), 0, 0, 0, 0, 0, 0);
  }
  popcli();
}

/* The kernel's hook: set while an arbiter is chosen or the recording is on, with the events
 * one of them wants. Interrupts off: no negotiation sees it half set. */
static struct neg_arbiter hook = { .arbitrate = arbitrate, .reset = arbiter_reset };

static void rehook(void)
{
  hook.gave = tracing ? arbiter_gave : 0;
  hook.refault = tracing || (chosen && chosen->refault) ? arbiter_refault : 0;
  hook.used = tracing || (chosen && chosen->used) ? arbiter_used : 0;
  neg_set_arbiter(chosen || tracing ? &hook : 0);
}

/* --- settings and counters ------------------------------------------------------------------ */

static void arbiter_get(char *out, int len)
{
  snprintf(out, len, "%s", chosen ? chosen->name : "none");
}

static int arbiter_set(const char *v)
{
  const struct arbiter *a = 0;
  if (strcmp(v, "none") != 0) {
    for (int i = 0; arbiters[i] && !a; i++)
      if (strcmp(arbiters[i]->name, v) == 0)
        a = arbiters[i];
    if (!a)
      return -EINVAL;
  }
  pushcli();
  chosen = a;
  if (a && a->reset)
    a->reset();
  rehook();
  popcli();
  return 0;
}

static int trace_set(const char *v)
{
  uint32_t n;
  if (parse_uint(v, &n) < 0 || n > 1)
    return -EINVAL;
  pushcli();
  if (n && !tracing)
    emit(ARBT_START | ARBT_VERSION << 8, uptime_ms(), frame_total(), 0, 0, 0, 0, 0);
  if (!n)
    flush_used();
  tracing = n;
  rehook();
  popcli();
  return 0;
}

static void trace_get(char *out, int len)
{
  snprintf(out, len, "%u", tracing);
}

static const struct setting settings[] = {
  { "vm.arbiter", "none: neg_decide with vm.penalty and vm.penalty_mode decides which pool gives up a frame; NAME: that arbiter (kernel/arbiters.c's table, docs/lab-arbiter.md)",
    0, 0, 0, arbiter_get, arbiter_set },
  { "neg.arbiter_record", "1: every negotiation, give-up, refault and page used again goes to QEMU's debug console (-debugcon file:PATH) for the arbiter lab's replay",
    0, 0, 0, trace_get, trace_set },
};

static const struct counter counters[] = {
  COUNTER("neg.arbiter_decisions", &st_decisions),
  COUNTER("neg.arbiter_errors", &st_errors),
  COUNTER("neg.arbiter_records", &st_trace_records),
};

void arbiter_init(void)
{
  setting_register_table(settings, NELEM(settings));
  stat_register_table(counters, NELEM(counters));
}
