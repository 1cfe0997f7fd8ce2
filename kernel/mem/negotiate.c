/* The negotiation: how the file cache and the VM share physical memory (Sprite thesis 6.3,
 * WRL 90/4 sections 2 and 6).
 *
 * THE POOLS. Every frame outside the kernel belongs to the free pool, the file cache or the
 * VM, and the core map (kernel/mem/coremap.h) says which. Nobody decides how big the cache or the VM
 * should be: each grows when it needs a frame and gets one, and shrinks when it is asked for
 * one and gives it. A frame travels like this:
 *
 *            frame_alloc                               frame_move (a trade, below)
 *     free ---------------> cache  <-------------------------------------------->  VM
 *       ^                     |                                                    |
 *       +---- frame_free -----+------- (a file deleted, a process exiting) --------+
 *
 * The free pool fills only when something is let go of; a cache and a VM that are both busy
 * keep it empty, and from then on every frame either needs is a trade. Free frames are taken
 * first, but for the last KERNEL_RESERVE of them: those are the kernel's, for page tables
 * and its own structures, which it takes (kalloc_page) where it cannot wait or negotiate
 * (under vm_lock, for a page table). When a negotiation finds the reserve short, the frame
 * the older pool gives up goes to it instead (refill_one), the VM's clock tops it up
 * ten times a second, and kalloc_page tops it up on the spot when it is down to half and
 * its caller holds no spinlock (neg_refill_for_kernel).
 *
 * WHO ASKS WHOM. Either pool asks when it needs a frame and none is free: the cache on a
 * miss (fs/cache.c, cache_alloc_block), the VM on a fault (vm/pageout.c, vm_getframe). The
 * asker calls neg_getframe, which puts the same question to both pools -- "how old is the
 * page you would give up next?" (cache_offer, vm_offer) -- and lets neg_decide
 * (kernel/mem/negotiate_rule.c, pure C that the host unit test drives) compare the answers: the
 * older page goes. If it is the other pool's, that pool surrenders it (cache_surrender,
 * vm_surrender) and the frame moves straight into the asker's pool, never through the free
 * list, where a third process could take it first; if it is the asker's own, the asker
 * recycles its own oldest page itself, as it would with no one to ask. A pool refuses to
 * give at its floor: the cache at fs.cache_min_kb (or always, at a fixed size), the VM at
 * 1/16 of memory (Sprite's minVMPages). An asker whose own pool has nothing that could go
 * (a cache below its floor, a VM whose pages are all busy) takes the other's page whatever
 * its age.
 *
 * NO I/O IN THE ASKER'S THREAD, NO RE-ENTRY. A cache miss may hold inode and block locks, a
 * COR fault cow_lock: whatever a negotiation does for them must not wait for those, nor
 * call back into the file system. So a pool gives up only what can go at once: a clean
 * block that nobody holds, a clean page. The dirty ones it meets go to those whose job it
 * is to write them -- the block cleaners (fs/flushd.c) for the cache, the page-out daemon
 * (vm/pageout.c) for the VM, which writes pages straight to disk at addresses recorded when
 * their blocks were reserved -- and are clean for the next ask. The negotiation takes
 * cache_lock and vm_lock one at a time, never both (the lock order: kernel/mem/coremap.h).
 *
 * BUSY. A pool whose page to give is dirty says so in its offer (busy). When the decision
 * picks that page, the pool is asked to surrender anyway -- it hands its oldest dirty pages
 * to its writers, and gives a clean one if it has one after all -- and if none comes the
 * asker is told NEG_BUSY: it waits, up to neg.busy_wait_ms in all, for a pool to say a page
 * became clean (neg_note_clean), and asks again, before it recycles its own page. Without
 * this (Sprite) a cache full of new writes refuses, and the VM asking under a penalty
 * recycles its own oldest page: the sleeping interactive program's, the page the penalty was
 * to keep. The wait is bounded because the asker's writers may be the ones behind: a disk
 * that fails keeps blocks dirty. It never happens in the asker's thread with a pool's lock.
 *
 * AGES THAT CAN BE COMPARED. Both pools stamp frame->lastref with the same clock, in ms.
 * The cache's times are exact (every read and write goes through it); a VM page's is what
 * the aging clock saw at its last visit, at most vm.age_lag_ms old (2 s).
 *
 * THE PENALTY. Comparing the two ages as they are is a global LRU, and it lets a
 * file-intensive program (sort) take the pages of an interactive one that sleeps for a few
 * seconds (the IFS benchmark: WRL 90/4 Table 3). vm.penalty seconds are added to the VM's
 * time before the comparison, so the cache can take a VM page only if it has been idle that
 * much longer than the cache's own oldest block (6.1); the VM taking from the cache is
 * biased the same way. vm.penalty_mode=stepped charges the penalty once per tenth of memory
 * the cache holds (Sprite's vmFSPenalty, vmNumPageGroups): a small cache competes on equal
 * terms, a big one pays more and more. Sprite ran with 20 minutes (1200 s, the default); the
 * paper measures 0 and 120 s. vm.penalty_mode=adaptive sets no constant at all: the bias is
 * what the VM learned from its refaults (kernel/mem/refault.c keeps the evidence,
 * kernel/mem/negotiate_rule.c turns it into ms), and vm.penalty is not used. vm.penalty_mode=ignored
 * is adaptive's control: the bias learned, not applied (a global LRU that pays for learning).
 *
 * UNASKED. Most negotiations trade nothing: the asker's own page is younger than the other's
 * with the penalty, and the asker recycles its own. Asking the other is then wasted work (the
 * VM's offer takes vm_lock and checks, in the page table, that its oldest page is still one it
 * could give). So a pool may publish a bound (pool_ops.used_since_ms): a time before which none
 * of the pages it could offer was last used. The asker's own pool answers first; when the rule
 * says it keeps its own even against a page of the other's as old as that bound
 * (neg_keeps_own), it keeps its own without asking the other. The rule is monotonic in the
 * other's time -- a younger page biased is no older, a refusal keeps too -- so no answer the
 * other could have given would change the verdict. The VM's bound is the least time of last
 * reference over its frames at its last scan, those found accessed left out (vm/oldest.c, HOW
 * OLD AT MOST): a page's time only grows, a frame the VM takes is stamped when it is mapped,
 * and an accessed page is stamped before it can be offered. The cache publishes none (0), so
 * the VM always asks it. Under a 120 s penalty a cache ask needs the VM only once some VM page
 * could have been idle 120 s longer than the cache's oldest block; under the learned bias it
 * needs it whenever the VM's oldest idle page is older than that block less the bias. An
 * arbiter (the lab's), whose rule need not be monotonic, always hears both.
 *
 * WHAT IS KEPT. The paper's Table 2 counters and a ring of the last negotiations, each with the
 * ages compared and the refault evidence an adaptive bias stood on: how to read them (vmstat,
 * negtrace, gdb) is docs/negotiation.md's.
 */
#include "kernel/klib.h"
#include "kernel/spinlock.h"
#include "kernel/stats.h"
#include "kernel/sysctl.h"
#include "kernel/time.h"
#include "kernel/uapi/errno.h"
#include "kernel/uapi/negtrace.h"
#include "kernel/x86.h"
#include "kernel/mem/coremap.h"
#include "kernel/mem/negotiate.h"
#include "kernel/mem/refault.h"

#define KERNEL_RESERVE 64         /* free frames only the kernel takes (256 KB) */

static uint32_t penalty_s = 1200;
static uint32_t penalty_mode = NEG_PENALTY_FIXED;
static uint32_t reset_value;
static uint32_t busy_wait_ms = 1000;    /* 0: no wait, the asker recycles its own (Sprite) */
static uint32_t clean_seq;              /* pages made clean by the pools' writers */
static uint32_t st_busy, st_busy_waited_ms, st_busy_gave_up;

static uint32_t st_fs_asks, st_fs_satisfied, st_vm_asks, st_vm_satisfied, st_refills;
/* What a negotiation costs when nothing is traded (the asker recycles its own page): the
 * time-stamp counter's ticks, which under QEMU's -icount are the guest's nanoseconds, 2^shift
 * an instruction: the sum in 64 bits, the average computed when read. */
static uint32_t st_untraded, st_untraded_tsc_min, st_unasked;
/* neg.verify_unasked=1: an unasked pool is asked all the same, after the verdict, and a verdict
 * its answer would have changed is counted (neg.unasked_wrong), as is any offer, asked or not,
 * older than its pool's bound: how the guest tests show that not asking changes no decision. */
static uint32_t verify_unasked, st_unasked_wrong;
static uint64_t untraded_tsc;

static struct spinlock trace_lock;
static struct negrecord trace[NEGTRACE_MAX];
static uint32_t trace_seq;        /* negotiations recorded since boot or neg.reset */

/* The arbiter lab's hook, 0 but while the lab is in use (kernel/arbiters.c). */
const struct neg_arbiter *neg_arbiter;

void neg_set_arbiter(const struct neg_arbiter *a)
{
  neg_arbiter = a;
}

void neg_penalty_setting(uint32_t *s, enum neg_penalty_mode *mode)
{
  *s = penalty_s;
  *mode = penalty_mode;
}

/* The pools, as they registered at boot. One not registered yet refuses: nothing of it can go. */
static const struct pool_ops *pools[2];

void neg_register_pool(enum neg_pool pool, const struct pool_ops *ops)
{
  pools[pool] = ops;
}

static struct neg_offer offer(enum neg_pool pool, bool giving)
{
  return pools[pool] ? pools[pool]->offer(giving) : (struct neg_offer){ .refuse = true };
}

static struct frame *surrender(enum neg_pool pool)
{
  return pools[pool] ? pools[pool]->surrender() : 0;
}

/* None of the pages the pool could offer was last used before this; 0 from a pool that keeps
 * no such bound (or none yet). */
static uint32_t used_since(enum neg_pool pool)
{
  return pools[pool] && pools[pool]->used_since_ms ? *pools[pool]->used_since_ms : 0;
}

/* For neg.verify_unasked: an offer older than its pool's bound says. */
static bool below_bound(enum neg_pool pool, struct neg_offer o)
{
  return !o.refuse && o.lastref_ms < used_since(pool);
}

/* The pools' sizes as one negotiation saw them: its penalty is computed from them and its
 * record keeps them, so that the trace shows what a stepped penalty was charged for. */
struct shares {
  uint32_t cache, vm, free;
};

/* The core map's counts, read in place (frame_count's, without a call on every ask). */
static const uint32_t *cache_count, *vm_count, *free_count;

static uint32_t penalty_ms(struct shares *sh)
{
  sh->cache = *cache_count;
  sh->vm = *vm_count;
  sh->free = *free_count;
  if (penalty_mode == NEG_PENALTY_ADAPTIVE)
    return refault_bias_ms();
  if (penalty_mode == NEG_PENALTY_IGNORED) {
    (void)refault_bias_ms();    /* computed as adaptive computes it, so only its use differs */
    return 0;
  }
  struct neg_penalty p = {
    .penalty_s = penalty_s,
    .mode = penalty_mode,
    .cache_frames = sh->cache,
    .total_frames = sh->cache + sh->vm + sh->free,
  };
  return neg_penalty_ms(&p);
}

/* The rule's verdict: neg_decide's, or the arbiter lab's while it is in use. */
static enum neg_verdict decide(enum neg_pool asker, struct neg_offer own, struct neg_offer other, uint32_t pen,
                               const struct shares *sh)
{
  const struct neg_arbiter *a = neg_arbiter;
  if (!a)
    return neg_decide(asker, own, other, pen);
  return a->arbitrate(asker, own, other, pen, sh->cache, sh->vm, sh->free);
}

/* The record of one negotiation, o[] the offers by pool (one of them, with unasked, the bound
 * that stood for it). Interrupts off, not trace_lock's flag: a negotiation in an interrupt
 * handler cannot find the ring half written, and this is on every ask's path. */
static void record(int asker, int gave, const struct neg_offer o[2], uint32_t pen, const struct shares *sh,
                   int unasked)
{
  pushcli();
  struct negrecord *r = &trace[trace_seq % NEGTRACE_MAX];
  r->seq = ++trace_seq;
  r->time_ms = uptime_ms();
  r->asker = asker;
  r->gave = gave;
  r->flags = unasked | (o[NEG_FS].refuse ? NEGT_FS_REFUSED : 0) | (o[NEG_VM].refuse ? NEGT_VM_REFUSED : 0) |
             (o[NEG_FS].free ? NEGT_FS_FREE : 0) | (o[NEG_VM].free ? NEGT_VM_FREE : 0) |
             (o[NEG_FS].busy ? NEGT_FS_BUSY : 0) | (o[NEG_VM].busy ? NEGT_VM_BUSY : 0);
  r->fs_lastref_ms = o[NEG_FS].lastref_ms;
  r->vm_lastref_ms = o[NEG_VM].lastref_ms;
  r->penalty_ms = pen;
  r->cache_frames = sh->cache;
  r->vm_frames = sh->vm;
  r->free_frames = sh->free;
  refault_evidence(&r->vm_early, &r->vm_saved, &r->evidence_ms);
  popcli();
}

/* One frame for the kernel's reserve, from the pool with the older page; false when neither
 * gives one. Decided as if the cache asked, so that the VM keeps its advantage. */
static bool refill_one(void)
{
  struct neg_offer fs = offer(NEG_FS, true), vm = offer(NEG_VM, true);
  refault_offered(fs, uptime_ms());
  struct shares sh;
  uint32_t pen = penalty_ms(&sh);
  enum neg_verdict v = decide(NEG_FS, fs, vm, pen, &sh);
  /* A busy pool surrenders too: it gets its dirty pages written, for the next refill. */
  struct frame *f = v == NEG_OTHER || v == NEG_BUSY ? surrender(NEG_VM) : v == NEG_OWN ? surrender(NEG_FS) : 0;
  struct neg_offer o[2] = { fs, vm };
  record(NEGT_KERNEL, f ? (v == NEG_OWN ? NEGT_FS : NEGT_VM) : v == NEG_BUSY ? NEGT_BUSY : NEGT_NOBODY,
         o, pen, &sh, 0);
  if (!f)
    return false;
  frame_free(f);
  st_refills++;
  return true;
}

void neg_refill(void)
{
  for (int n = 0; n < KERNEL_RESERVE && frame_count(POOL_FREE) < KERNEL_RESERVE; n++)
    if (!refill_one())
      break;
}

/* Ten refills a second are not enough for a burst: with the cache holding all but the
 * reserve in clean blocks (after writing a big file), 16 forks can take the reserve's 64
 * frames between two ticks; the 17th would fail with ENOMEM, and a fault needing a page table
 * would kill its process, with most of memory there for the taking. A caller that can
 * negotiate refills on the spot; one that cannot (a page table under vm_lock) finds the
 * other half. */
void neg_refill_for_kernel(void)
{
  if (frame_count(POOL_FREE) >= KERNEL_RESERVE / 2 || cli_depth() > 0)
    return;
  neg_refill();
}

/* The counters of one negotiation: asks and frames given, by pool, and what an untraded one
 * (the asker recycles its own) cost in TSC ticks since t0. */
static void count_ask(enum neg_pool asker, struct frame *f, enum neg_verdict verdict, uint64_t t0)
{
  if (asker == NEG_FS) {
    st_fs_asks++;
    st_fs_satisfied += f != 0;
  } else {
    st_vm_asks++;
    st_vm_satisfied += f != 0;
  }
  if (!f && verdict == NEG_OWN) {
    uint32_t d = (uint32_t)(rdtsc() - t0);
    untraded_tsc += d;
    st_untraded++;
    if (st_untraded == 1 || d < st_untraded_tsc_min)
      st_untraded_tsc_min = d;
  }
}

/* neg.verify_unasked: asks an unasked pool all the same and counts a verdict its answer would
 * have changed, and any offer older than its pool's bound (interrupts off since the offers). */
static void verify(enum neg_pool asker, struct neg_offer o[2], uint32_t pen, int unasked)
{
  enum neg_pool other = neg_other(asker);
  if (unasked) {
    struct neg_offer real = offer(other, true);
    st_unasked_wrong += below_bound(other, real) || neg_decide(asker, o[asker], real, pen) != NEG_OWN;
  }
  st_unasked_wrong += below_bound(asker, o[asker]) + (!unasked && below_bound(other, o[other]));
}

/* A frame for the asker's pool (owned by nobody yet: the asker claims it), or 0 with
 * *verdict saying what to do: NEG_OWN, recycle its own oldest page; NEG_OTHER, the other
 * should have given one but had none clean after all (ask again soon); NEG_NONE, neither
 * may give (wait, or fail). Call it holding neither cache_lock nor vm_lock. */
struct frame *neg_getframe(enum neg_pool asker, enum neg_verdict *verdict)
{
  uint64_t t0 = rdtsc();
  enum frame_pool pool = neg_frame_pool(asker);
  *verdict = NEG_OTHER;
  if (*free_count > KERNEL_RESERVE) {
    struct frame *f = frame_alloc(pool, false);
    if (f)
      return f;
  }
  /* None is free: the asker's own pool answers "what would you recycle", the other "what
   * would you give" -- unless no answer of the other's could change the verdict: when even a
   * page as old as its bound would stay (neg_keeps_own), the asker recycles its own without
   * asking (UNASKED, above). An arbiter, whose rule need not be monotonic, hears both. */
  enum neg_pool other = neg_other(asker);
  struct neg_offer o[2];
  bool check = verify_unasked;
  if (check)
    pushcli();                                /* the offers and the bounds they keep, at one instant */
  o[asker] = offer(asker, false);
  struct shares sh;
  uint32_t pen = penalty_ms(&sh);
  uint32_t since = used_since(other);         /* read once: the record shows what was compared */
  int unasked = 0;
  if (!neg_arbiter && neg_keeps_own(asker, o[asker], since, pen)) {
    o[other] = (struct neg_offer){ .refuse = false, .lastref_ms = since };
    unasked = other == NEG_VM ? NEGT_VM_UNASKED : NEGT_FS_UNASKED;
    *verdict = NEG_OWN;
    st_unasked++;
  } else {
    o[other] = offer(other, true);
    *verdict = decide(asker, o[asker], o[other], pen, &sh);
  }
  if (check) {
    verify(asker, o, pen, unasked);
    popcli();
  }
  if (unasked != NEGT_FS_UNASKED)
    refault_offered(o[NEG_FS], uptime_ms());    /* a bound is no offer */
  /* Asked to surrender after refusing (NEG_NONE), a pool that only lacked a clean page
   * hands its dirty ones to whoever writes them, and may have a clean one by now. */
  struct frame *f = 0;
  if (*verdict != NEG_OWN) {
    f = surrender(other);
    if (f)
      frame_move(f, pool);
  }
  int gave = f ? (int)other : *verdict == NEG_OWN ? (int)asker : *verdict == NEG_BUSY ? NEGT_BUSY : NEGT_NOBODY;
  if (f)
    *verdict = NEG_OTHER;
  st_busy += !f && *verdict == NEG_BUSY;
  record(asker, gave, o, pen, &sh, unasked);
  count_ask(asker, f, *verdict, t0);
  if (*free_count < KERNEL_RESERVE / 2)
    refill_one();             /* the kernel took from its reserve meanwhile */
  return f;
}

bool neg_wait_clean(uint32_t *waited_ms)
{
  if (*waited_ms >= busy_wait_ms) {
    st_busy_gave_up++;
    return false;
  }
  uint32_t t0 = uptime_ms(), seen = clean_seq;
  /* Polled: a note may come from a thread that holds a pool's spinlock, which a wakeup
   * under our own lock would have to nest in. A few ms are a write's time on this disk. */
  while (clean_seq == seen && uptime_ms() - t0 < 10 && *waited_ms + (uptime_ms() - t0) < busy_wait_ms)
    sleep_ms(1);
  uint32_t d = MAX(uptime_ms() - t0, 1u);
  *waited_ms += d;
  st_busy_waited_ms += d;
  return true;
}

void neg_note_clean(void)
{
  __atomic_add_fetch(&clean_seq, 1, __ATOMIC_RELAXED);
}

/* --- the trace, settings and counters ----------------------------------------------------- */

uint32_t neg_trace_copy(struct negrecord *out, uint32_t max)
{
  acquire(&trace_lock);
  uint32_t n = MIN(trace_seq, MIN(max, NEGTRACE_MAX));
  for (uint32_t i = 0; i < n; i++)      /* oldest first */
    out[i] = trace[(trace_seq - n + i) % NEGTRACE_MAX];
  release(&trace_lock);
  return n;
}

/* In enum neg_penalty_mode's order. */
static const char *const mode_names[] = { "fixed", "stepped", "adaptive", "ignored", 0 };

static int reset_set(const char *v)
{
  uint32_t n;
  if (parse_uint(v, &n) < 0)
    return -EINVAL;
  reset_value = n;
  if (n == 1) {
    st_fs_asks = st_fs_satisfied = st_vm_asks = st_vm_satisfied = st_refills = 0;
    st_untraded = st_untraded_tsc_min = st_unasked = st_unasked_wrong = 0;
    st_busy = st_busy_waited_ms = st_busy_gave_up = 0;
    untraded_tsc = 0;
    acquire(&trace_lock);
    trace_seq = 0;
    release(&trace_lock);
    refault_reset();
    for (int p = 0; p < 2; p++)
      if (pools[p] && pools[p]->reset)
        pools[p]->reset();
  }
  return 0;
}

static const struct setting settings[] = {
  { "vm.penalty", "seconds added to a VM page's time of last reference when the file cache and the VM compare ages",
    &penalty_s, 0, 1000000, 0, 0 },
  { "vm.penalty_mode", "fixed: the penalty once; stepped: once per tenth of memory the cache holds; adaptive: no constant, a bias learned from the VM's refaults; ignored: the bias learned as adaptive learns it and not used (adaptive's control)",
    &penalty_mode, 0, 0, 0, 0, mode_names },
  { "neg.reset", "1: the negotiation counters, its trace and fs.cache.held_min_kb/held_max_kb and fs.dirty.max start again",
    &reset_value, 0, 1, 0, reset_set },
  { "neg.busy_wait_ms", "ms an asker told busy (the page to give is dirty, being written) may wait for a clean one before it recycles its own (0: none, as Sprite)",
    &busy_wait_ms, 0, 60000, 0, 0 },
  { "neg.verify_unasked", "1: ask an unasked pool (neg.unasked) all the same; a verdict it would change, or an offer older than its pool's bound, counts in neg.unasked_wrong",
    &verify_unasked, 0, 1, 0, 0 },
};

/* Divided when read, not on every negotiation. */
static uint32_t untraded_tsc_avg(void)
{
  return st_untraded ? (uint32_t)(untraded_tsc / st_untraded) : 0;
}

/* A constant counter is a variable like the others (COUNTER reads it where it is). */
static const uint32_t reserve_frames = KERNEL_RESERVE;

static const struct counter counters[] = {
  COUNTER("neg.fs_asks_vm", &st_fs_asks),
  COUNTER("neg.fs_asks_vm_satisfied", &st_fs_satisfied),
  COUNTER("neg.vm_asks_fs", &st_vm_asks),
  COUNTER("neg.vm_asks_fs_satisfied", &st_vm_satisfied),
  COUNTER("neg.refills", &st_refills),
  COUNTER("neg.untraded", &st_untraded),
  COUNTER_FN("neg.untraded_tsc_avg", untraded_tsc_avg),
  COUNTER("neg.untraded_tsc_min", &st_untraded_tsc_min),
  COUNTER("neg.unasked", &st_unasked),
  COUNTER("neg.unasked_wrong", &st_unasked_wrong),
  COUNTER("neg.kernel_reserve", &reserve_frames),
  COUNTER("neg.busy", &st_busy),
  COUNTER("neg.busy_waited_ms", &st_busy_waited_ms),
  COUNTER("neg.busy_gave_up", &st_busy_gave_up),
};

void neg_init(void)
{
  cache_count = coremap_count_word(POOL_CACHE);
  vm_count = coremap_count_word(POOL_VM);
  free_count = coremap_count_word(POOL_FREE);
  initlock(&trace_lock, "negtrace");
  refault_init();
  setting_register_table(settings, NELEM(settings));
  stat_register_table(counters, NELEM(counters));
}

/* The memory audit: the core map first, then each pool's, in the order they were always run. */
int mem_audit(bool quiet)
{
  int bad = coremap_audit(quiet);
  for (int p = NEG_VM; p >= NEG_FS; p--)
    if (pools[p] && pools[p]->audit)
      bad += pools[p]->audit(quiet);
  return bad;
}
