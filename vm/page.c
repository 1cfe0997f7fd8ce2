/* Frames for pages: where they come from, how they are cleaned, and how pages age.
 *
 *   vm_getframe     a frame for a page: free, traded from the file cache, or the VM's own
 *                   clean victim (kernel/negotiate.c decides which); never written in the
 *                   asker's thread: with no clean victim, it waits for the page-out daemon
 *   take_clean      the VM's next clean victim, unmapped: first a page the daemon has just
 *                   cleaned (the ready list), else the replacement policy's choice; dirty
 *                   victims met on the way go to the laundry
 *   pageout_daemon  Sprite's page-out process: writes each laundered page to its backing
 *                   block, straight to disk by the address recorded when it was reserved,
 *                   and puts it, clean and unreferenced, on the ready list
 *   vm_offer        what the VM tells the negotiation: the time of last reference of its
 *   vm_surrender    oldest page (or refuse, at its floor of 1/16 of memory), and that frame;
 *                   oldest by the aging clock's stamps, whatever the policy, as Sprite's VM
 *                   answers with the page at the old end of its allocate list
 *   vm_daemon       the aging clock: ten times a second it looks at the accessed bits of a
 *                   twentieth of the frames (a whole pass in 2 s, vm.age_lag_ms), refreshing
 *                   each VM frame's time of last reference, and lets the policy tick
 *   pol_*           the questions a policy may ask (vm/policy.h)
 *   vm_audit        the invariant checker (SYS_vmaudit, the audit program, vm.audit=1)
 *
 * The laundry and the ready list run through the frames' next/prev links (vm_lock); a frame
 * on the laundry (VMF_LAUNDRY) is no candidate for replacement until it is clean.
 */
#include "kernel/klib.h"
#include "kernel/x86.h"
#include "kernel/proc.h"
#include "kernel/time.h"
#include "kernel/stats.h"
#include "kernel/sysctl.h"
#include "kernel/syscall.h"
#include "fs/bypass.h"
#include "vm/vm.h"
#include "kernel/coremap.h"
#include "vm/policy.h"
#include "kernel/negotiate.h"

extern pde_t boot_pgdir[];

#define LAUNDER_BATCH 16          /* dirty victims one search may hand to the laundry */
#define AGE_PASS_MS 2000          /* the aging clock's pass, when vm.clock_rate is 0 */

static uint32_t clock_rate = 0;            /* frames the aging clock checks per second; 0: auto */
uint32_t vm_audit_every_fault;
static const struct vm_policy *policy;
static uint32_t clock_hand;                /* the aging sweep's position */
static uint32_t pass_start, age_lag_ms;    /* when the sweep's pass began; the last pass's length */
static uint32_t pageout_last;
static struct frame laundry, ready;        /* list heads (sentinels, not in the core map) */
static uint32_t nlaundry, nready;
static int ready_waiters;                  /* askers waiting for the page-out daemon */
#define OLDEST_BATCH 16
static int32_t oldest[OLDEST_BATCH];       /* the oldest candidates of the last scan, oldest first */
static uint32_t oldest_lastref[OLDEST_BATCH];   /* their times then: a changed one is no longer old */
static uint32_t noldest, oldest_tick;      /* how many; the tick of the scan + 1 (0: none yet) */
static uint32_t ticks;

uint32_t st_vm_faults, st_vm_faults_zero, st_vm_faults_code, st_vm_pageins, st_vm_pageouts;
uint32_t st_vm_pageins_backing;
static uint32_t st_sweeps, st_checks, st_evictions, st_oom, st_laundered, st_waits;
static uint32_t st_policy_errors;
static int32_t oldest_victim(int32_t *k);

/* --- the page behind a frame --------------------------------------------------------------- */

static uint32_t frame_vaddr(struct frame *f)
{
  struct segment *s = f->owner;
  return s->lo + (f->index << PGSHIFT);
}

static pte_t *frame_pte(struct frame *f)
{
  struct segment *s = f->owner;
  return seg_walk(s, frame_vaddr(f), false);
}

/* --- what policies ask (vm_lock held) ------------------------------------------------------ */

uint32_t pol_nframes(void) { return nframes; }
uint32_t pol_now(void) { return uptime_ms(); }
uint32_t pol_lastref(uint32_t f) { return coremap[f].lastref; }
uint32_t *pol_word(uint32_t f) { return &coremap[f].pword; }
uint32_t pol_page(uint32_t f)
{
  struct segment *s = coremap[f].owner;
  return s ? s->serial * 2654435761u + coremap[f].index : 0;
}

/* A page that has no backing block yet (a forked segment whose backing store the daemon has
 * not reserved) cannot go out; nor can a page of a segment being torn down. */
static bool frame_unbacked(struct frame *f)
{
  struct segment *s = f->owner;
  return s->type != SEG_CODE && seg_block(s, frame_vaddr(f)) >= s->swapblocks;
}

bool pol_candidate(uint32_t i)
{
  if (i >= nframes)
    return false;
  struct frame *f = &coremap[i];
  if (f->pool != POOL_VM || frame_busy(f) || !f->owner || (f->pflags & VMF_LAUNDRY))
    return false;
  struct segment *s = f->owner;
  if (s->refs <= 0 || frame_unbacked(f))
    return false;
  pte_t *pte = frame_pte(f);
  return pte && (*pte & PTE_P) && PTE_ADDR(*pte) == frame_pa(f);
}

/* A frame holding no VM page has no entry to look at: a policy asking about one (a mistake
 * the lab's students will make) gets "no". */
static bool holds_page(uint32_t i)
{
  return i < nframes && coremap[i].pool == POOL_VM && coremap[i].owner;
}

bool pol_accessed(uint32_t i)
{
  if (!holds_page(i))
    return false;
  pte_t *pte = frame_pte(&coremap[i]);
  return pte && (*pte & PTE_A);
}

/* A candidate not used since the aging clock last stamped it: its time of last reference is
 * its age (an accessed one's stamp is stale). What the VM offers and gives comes from these. */
static bool idle(uint32_t i)
{
  return pol_candidate(i) && !pol_accessed(i);
}

bool pol_referenced(uint32_t i)
{
  if (!holds_page(i))
    return false;
  struct frame *f = &coremap[i];
  pte_t *pte = frame_pte(f);
  if (!pte || !(*pte & (PTE_A | PTE_D)))
    return false;
  bool ref = *pte & PTE_A;
  /* Fold the dirty bit in before clearing it, then drop the stale TLB entry: otherwise the
   * CPU would neither set the bits again nor tell us about the next write. */
  if (*pte & PTE_D)
    f->pflags |= VMF_DIRTY;
  *pte &= ~(PTE_A | PTE_D);
  invlpg(frame_vaddr(f));
  if (ref)
    f->lastref = uptime_ms();
  return ref;
}

/* For the reference trace (vm/trace.c), vm_lock held: whether frame i holds a mapped VM page
 * (its segment's serial and page number in *seg, *page), and whether that page was referenced
 * since ms `since` (its accessed bit, or a time of last reference the aging sweep or a policy
 * refreshed meanwhile) and modified (its dirty bit, or dirty and referenced: the sweep may have
 * folded the bit into VMF_DIRTY already). Clears both bits as pol_referenced does, so the
 * frame's time of last reference and VMF_DIRTY stay right for the aging clock and the policy. */
bool vm_trace_sample(uint32_t i, uint32_t since, bool *ref, bool *mod, uint32_t *seg, uint32_t *page)
{
  struct frame *f = &coremap[i];
  if (f->pool != POOL_VM || frame_busy(f) || !f->owner || (f->pflags & VMF_LAUNDRY))
    return false;
  struct segment *s = f->owner;
  pte_t *pte = frame_pte(f);
  if (!pte || !(*pte & PTE_P) || PTE_ADDR(*pte) != frame_pa(f))
    return false;
  bool d = *pte & PTE_D;
  *ref = (*pte & PTE_A) || (int32_t)(f->lastref - since) > 0;
  pol_referenced(i);
  *mod = d || (*ref && (f->pflags & VMF_DIRTY));
  *seg = s->serial;
  *page = f->index;
  return true;
}

/* --- the laundry and the ready list (vm_lock held) ----------------------------------------- */

static void fl_init(struct frame *head) { head->next = head->prev = head; }
static bool fl_empty(struct frame *head) { return head->next == head; }

static void fl_append(struct frame *head, struct frame *f)
{
  f->prev = head->prev;
  f->next = head;
  head->prev->next = f;
  head->prev = f;
}

/* Takes f off the laundry or the ready list, if it is on one. */
static void unlist(struct frame *f)
{
  if (!(f->pflags & (VMF_LAUNDRY | VMF_READY)))
    return;
  f->prev->next = f->next;
  f->next->prev = f->prev;
  f->next = f->prev = 0;
  if (f->pflags & VMF_LAUNDRY)
    nlaundry--;
  else
    nready--;
  f->pflags &= ~(VMF_LAUNDRY | VMF_READY);
}

static void launder(struct frame *f)
{
  unlist(f);
  f->pflags |= VMF_LAUNDRY;
  fl_append(&laundry, f);
  nlaundry++;
  st_laundered++;
  wakeup(&laundry);
}

static void make_ready(struct frame *f)
{
  unlist(f);
  f->pflags |= VMF_READY;
  fl_append(&ready, f);
  nready++;
}

/* --- frames for pages ------------------------------------------------------------------ */

void vm_drop_frame(struct frame *f)
{
  vm_trace_leave(f - coremap);
  unlist(f);
  if (policy->page_out)
    policy->page_out(f - coremap);
  f->owner = 0;
  frame_free(f);
}

void vm_putframe_locked(struct frame *f)
{
  f->owner = 0;             /* first: a candidate no more, whatever its entry says */
  frame_unbusy(f);
  frame_free(f);
}

void vm_putframe(struct frame *f)
{
  acquire(&vm_lock);
  vm_putframe_locked(f);
  release(&vm_lock);
}

void vm_map_frame(struct segment *s, uint32_t va, struct frame *f, pte_t perm)
{
  pte_t *pte = seg_walk(s, va, false);
  KASSERT(pte);
  /* Mapped as accessed: a page just brought in is not the next victim. */
  *pte = frame_pa(f) | PTE_P | PTE_A | perm;
  s->resident++;
  f->lastref = uptime_ms();
  if (policy->page_in)
    policy->page_in(f - coremap);
  frame_unbusy(f);
}

/* Whether paging out the page in f (entry old) must write it: dirty, or a COW page whose
 * backing file does not hold it (slaves will read it from there; it must not become "0"). */
static bool must_write(struct segment *s, struct frame *f, pte_t old)
{
  if (s->type == SEG_CODE)
    return false;
  return (f->pflags & VMF_DIRTY) || ((old & PTE_COW) && !(f->pflags & VMF_BACKED));
}

/* The entry of a page whose page-out failed or that was cleaned: present again, COW if it
 * still is (COW-COR may have made it writable meanwhile; cur is the in-transit entry), and
 * neither accessed nor dirty. */
static pte_t restored(pte_t old, pte_t cur)
{
  pte_t perm = (cur & PTE_COW) ? PTE_COW : (old & (PTE_W | PTE_COW)) ? PTE_W : 0;
  return PTE_ADDR(old) | (old & PTE_U) | PTE_P | perm;
}

/* Candidate f's page goes, if it is clean: its entry then says where the page is now (on
 * backing store, or 0: zero fill or the executable again), and f, mapped nowhere and owned
 * by nobody, stays in the VM's pool for the taker. A dirty one goes to the laundry. */
static bool take_if_clean(struct frame *f)
{
  struct segment *s = f->owner;
  uint32_t va = frame_vaddr(f);
  pte_t *pte = frame_pte(f);
  pte_t old = *pte;
  if (old & PTE_D)
    f->pflags |= VMF_DIRTY;
  if (must_write(s, f, old)) {
    launder(f);
    return false;
  }
  vm_trace_leave(f - coremap);
  unlist(f);
  bool ondisk = s->type != SEG_CODE && (f->pflags & VMF_BACKED);
  *pte = (ondisk ? PTE_ONDISK : 0) | (old & PTE_COW);
  invlpg(va);
  s->resident--;
  if (policy->page_out)
    policy->page_out(f - coremap);
  f->owner = 0;
  f->pflags = 0;
  st_evictions++;
  return true;
}

/* The VM's next clean victim, taken (vm_lock held), or 0. A page the daemon has cleaned is
 * the next victim, as Sprite puts it at the front of its allocate list, unless referenced
 * since; else the policy chooses, and the dirty victims it chooses go to the laundry. */
static struct frame *take_clean(void)
{
  while (!fl_empty(&ready)) {
    struct frame *f = ready.next;
    unlist(f);
    uint32_t i = f - coremap;
    if (idle(i) && take_if_clean(f))
      return f;
  }
  for (int n = 0; n < LAUNDER_BATCH; n++) {
    int32_t v = policy->choose();
    if (v >= (int32_t)nframes || (v >= 0 && !pol_candidate(v))) {
      /* A policy under development (docs/lab-replacement.md) must not corrupt the VM: its
       * mistake is counted and named once, and the oldest page goes instead. */
      if (st_policy_errors++ == 0)
        kprintf("vm: policy %s chose frame %d, which is not a candidate; taking the oldest page\n",
                policy->name, v);
      int32_t k;
      v = oldest_victim(&k);
    }
    if (v < 0)
      break;
    if (take_if_clean(&coremap[v]))
      return &coremap[v];
  }
  return 0;
}

/* What to wait for when take_clean found nothing (vm_lock held). */
enum { WAIT_NOTHING = -1, WAIT_DAEMON, WAIT_IO, WAIT_RESERVE };
static int why_none(void)
{
  if (nlaundry > 0)
    return WAIT_DAEMON;       /* dirty victims being cleaned */
  bool busy = false, unbacked = false;
  for (uint32_t i = 0; i < nframes && !busy; i++) {
    struct frame *f = &coremap[i];
    if (f->pool != POOL_VM || !f->owner)
      continue;
    busy = frame_busy(f);
    if (!busy && frame_unbacked(f) && !((struct segment *)f->owner)->noswap)
      unbacked = vm_reserve_wanted = true;    /* the daemon reserves it; wait for that */
  }
  return busy ? WAIT_IO : unbacked ? WAIT_RESERVE : WAIT_NOTHING;
}

/* The frame becomes s's page va, busy (the caller fills it). vm_lock held. */
static void claim(struct frame *f, struct segment *s, uint32_t va)
{
  f->owner = s;
  f->index = (va - s->lo) >> PGSHIFT;
  f->pflags = 0;
  f->pword = 0;
  frame_try_busy(f);        /* nobody else knows it; from the core map it comes busy already */
}

struct frame *vm_getframe(struct segment *s, uint32_t va)
{
  uint32_t waited = 0;
  for (int tries = 0; tries < 1000; tries++) {
    enum neg_verdict verdict;
    struct frame *f = neg_getframe(NEG_VM, &verdict);
    acquire(&vm_lock);
    if (!f)
      f = take_clean();     /* its own: as told, or since the cache had nothing after all */
    if (f) {
      claim(f, s, va);
      release(&vm_lock);
      return f;
    }
    int why = why_none();
    if (why == WAIT_DAEMON) {
      /* Never written in the asker's thread (it may hold cow_lock): the daemon cleans. */
      st_waits++;
      ready_waiters++;
      sleep(&ready_waiters, &vm_lock);
      ready_waiters--;
      release(&vm_lock);
      tries--;
      continue;
    }
    release(&vm_lock);
    if (why == WAIT_NOTHING && verdict == NEG_OWN)
      break;                /* nothing of its own, and the cache was not asked */
    if (why == WAIT_NOTHING)
      sleep_ms(1);          /* the cache's dirty blocks are being written: ask again */
    if (why == WAIT_IO)
      sleep_ms(1);          /* every candidate is under I/O: let it finish */
    if (why == WAIT_RESERVE && waited < 30000) {
      sleep_ms(10);         /* the daemon is reserving backing store: not a failed try */
      waited += 10;
      tries--;
    }
  }
  st_oom++;
  return 0;
}

/* --- what the negotiation asks (kernel/negotiate.c) ------------------------------------------- */

/* The VM keeps 1/16 of memory whoever asks (Sprite's minVMPages). */
static bool at_floor(void)
{
  return frame_count(POOL_VM) <= frame_total() / 16;
}

/* THE VM'S OLDEST PAGE. The negotiation compares the cache's least recently used block
 * with the VM's least recently used page, so the VM answers with its oldest page by time of
 * last reference, whatever its replacement policy: a policy's own next victim may be young
 * (clock's hand stands still while the VM replaces nothing, and the page under it was
 * touched a second ago), and a cache told "young" would never be given a page. A page the
 * page-out daemon has cleaned comes first (it was old when laundered, and is free to go);
 * then the oldest by the aging clock's stamps, skipping pages accessed since (their stamp is
 * stale). Finding the oldest means looking at every frame, and the cache asks on every miss
 * once memory is full: the aging clock's daemon scans once a tick, keeping the OLDEST_BATCH
 * oldest, oldest first, and they serve for the rest of the tick while each is still a
 * candidate with the same stamp; only an asker that uses them all up scans again. */

static bool older(uint32_t a, uint32_t b, uint32_t now)
{
  return now - a > now - b;           /* by age, so that the ms clock may wrap */
}

static void scan_oldest(void)
{
  uint32_t now = uptime_ms();
  noldest = 0;
  for (uint32_t i = 0; i < nframes; i++) {
    if (!idle(i))
      continue;
    uint32_t t = coremap[i].lastref;
    uint32_t k = noldest;
    while (k > 0 && older(t, oldest_lastref[k - 1], now))
      k--;                            /* equal ages keep frame order: the lower index first */
    if (k >= OLDEST_BATCH)
      continue;
    uint32_t last = MIN(noldest, OLDEST_BATCH - 1);
    for (uint32_t m = last; m > k; m--) {
      oldest[m] = oldest[m - 1];
      oldest_lastref[m] = oldest_lastref[m - 1];
    }
    oldest[k] = (int32_t)i;
    oldest_lastref[k] = t;
    if (noldest < OLDEST_BATCH)
      noldest++;
  }
  oldest_tick = ticks + 1;
}

static bool still_oldest(uint32_t k)
{
  int32_t v = oldest[k];
  return idle(v) && coremap[v].lastref == oldest_lastref[k];
}

/* The frame vm_offer reports and vm_surrender gives first (vm_lock held), or -1; *k is its
 * place in the batch (-1 for a ready page). */
static int32_t oldest_victim(int32_t *k)
{
  *k = -1;
  for (struct frame *f = ready.next; f != &ready; f = f->next)
    if (idle(f - coremap))
      return f - coremap;
  for (int pass = 0; pass < 2; pass++) {
    if (oldest_tick != ticks + 1)
      scan_oldest();
    for (uint32_t i = 0; i < noldest; i++)
      if (still_oldest(i)) {
        *k = (int32_t)i;
        return oldest[i];
      }
    if (noldest == 0)
      break;
    oldest_tick = 0;                  /* the batch is used up: scan again */
  }
  return -1;
}

static struct neg_offer vm_offer(bool giving)
{
  struct neg_offer o = { .refuse = true };
  int32_t k = -1;
  acquire(&vm_lock);
  int32_t v = giving && at_floor() ? -1 : oldest_victim(&k);
  if (v >= 0) {
    o.refuse = false;
    o.lastref_ms = coremap[v].lastref;
  }
  release(&vm_lock);
  return o;
}

/* The oldest page goes, if it is clean. A dirty one goes to the laundry, and so do the dirty
 * ones after it in the batch, up to the first clean one, which goes instead: the next
 * oldest, the page-out daemon cleaning ahead for the next asks. */
static struct frame *vm_surrender(void)
{
  struct frame *f = 0;
  int32_t k = -1;
  acquire(&vm_lock);
  int32_t v = at_floor() ? -1 : oldest_victim(&k);
  if (v >= 0 && take_if_clean(&coremap[v]))
    f = &coremap[v];
  for (int32_t i = k + 1; !f && k >= 0 && i < (int32_t)noldest; i++)
    if (still_oldest(i) && take_if_clean(&coremap[oldest[i]]))
      f = &coremap[oldest[i]];
  release(&vm_lock);
  return f;
}

/* --- the page-out daemon ------------------------------------------------------------------ */

/* Writes laundered page f to its backing block and makes it ready (vm_lock held, let go
 * during the write). The page stays resident: in transit while written, so that a touch
 * waits for the write instead of changing the page under it. */
static void clean_page(struct frame *f)
{
  uint32_t i = f - coremap;
  if (!pol_candidate(i))
    return;                   /* freed, or taken, while it waited */
  struct segment *s = f->owner;
  uint32_t va = frame_vaddr(f);
  pte_t *pte = frame_pte(f);
  pte_t old = *pte;
  if (old & PTE_D)
    f->pflags |= VMF_DIRTY;
  if (!must_write(s, f, old)) {
    make_ready(f);
    return;
  }
  /* No reference taken: the segment's end waits for the write (seg_free). */
  frame_try_busy(f);
  *pte = PTE_ADDR(old) | PTE_INTRANS | (old & PTE_COW);
  invlpg(va);
  release(&vm_lock);
  int err = seg_rw(s, va, frame_va(f), true);
  acquire(&vm_lock);
  *pte = restored(old, *pte);
  if (err < 0) {
    kprintf("vm: cannot write a page of segment %u to backing store\n", (uint32_t)(s - segtab));
  } else {
    f->pflags = (f->pflags & ~VMF_DIRTY) | VMF_BACKED;
    st_vm_pageouts++;
    if (s->as)
      proc_count_pageout(s->as->pid);
    make_ready(f);
  }
  frame_unbusy(f);
  if (ready_waiters)
    wakeup(&ready_waiters);
}

static void pageout_daemon(void *arg)
{
  (void)arg;
  acquire(&vm_lock);
  for (;;) {
    while (fl_empty(&laundry)) {
      if (ready_waiters)
        wakeup(&ready_waiters);   /* nothing left to clean: let the askers look again */
      sleep(&laundry, &vm_lock);
    }
    struct frame *f = laundry.next;
    unlist(f);
    clean_page(f);
  }
}

/* --- vm.pageout=PID ------------------------------------------------------------------------ */

/* Pages out one resident page of s at va (vm_lock held on entry and exit). */
static int pageout_page(struct segment *s, uint32_t va)
{
  pte_t *pte = seg_walk(s, va, false);
  if (!pte || !(*pte & PTE_P))
    return 0;
  struct frame *f = pa_to_frame(PTE_ADDR(*pte));
  if (frame_busy(f) || frame_unbacked(f))
    return 0;
  pte_t old = *pte;
  frame_try_busy(f);
  *pte = PTE_ADDR(old) | PTE_INTRANS | (old & PTE_COW);
  invlpg(va);
  if (old & PTE_D)
    f->pflags |= VMF_DIRTY;
  bool write = must_write(s, f, old);
  release(&vm_lock);
  int err = write ? seg_rw(s, va, frame_va(f), true) : 0;
  acquire(&vm_lock);
  if (err < 0) {
    *pte = restored(old, *pte);
    frame_unbusy(f);
    return 0;
  }
  if (write) {
    st_vm_pageouts++;
    if (s->as)              /* 0 if its process exited while we wrote */
      proc_count_pageout(s->as->pid);
  }
  *pte = ((write || (f->pflags & VMF_BACKED)) ? PTE_ONDISK : 0) | (*pte & PTE_COW);
  s->resident--;
  frame_unbusy(f);
  vm_drop_frame(f);
  return write;
}

/* Pid 0: every process. */
int vm_pageout_pid(int pid)
{
  int n = 0;
  bool found = false;
  acquire(&vm_lock);
  for (uint32_t i = 0; i < nsegtab; i++) {
    struct segment *s = &segtab[i];
    if (!s->used || s->refs <= 0 || !s->as || s->type == SEG_CODE || (pid && s->as->pid != pid))
      continue;
    found = true;
    s->refs++;              /* held while we sleep writing its pages */
    for (uint32_t va = s->start; va < s->end; va += PGSIZE)
      n += pageout_page(s, va);
    release(&vm_lock);
    seg_put(s);
    acquire(&vm_lock);
  }
  release(&vm_lock);
  return found || pid == 0 ? n : -ESRCH;    /* "every process" may be none (at boot) */
}

/* --- the aging clock ---------------------------------------------------------------------- */

/* A VM page's time of last reference is only as fresh as the sweep's last visit: the
 * negotiation compares it with the cache's exact times, under a penalty of seconds to
 * minutes, so a whole pass takes AGE_PASS_MS whatever the memory size (Sprite's 100 frames
 * a second would take 164 s over 64 MB), at a cost that grows with memory. Frames of other
 * pools are skipped at the price of one comparison. vm.age_lag_ms is the last pass's
 * length: how stale a VM time may be, whatever the policy. */
static void age_tick(void)
{
  uint32_t n = clock_rate ? (clock_rate + 9) / 10 : (nframes * 100 + AGE_PASS_MS - 1) / AGE_PASS_MS;
  for (uint32_t i = 0; i < n && nframes; i++) {
    if (coremap[clock_hand].pool == POOL_VM && pol_candidate(clock_hand)) {
      pol_referenced(clock_hand);
      st_checks++;
    }
    if (++clock_hand >= nframes) {
      clock_hand = 0;
      st_sweeps++;
      age_lag_ms = uptime_ms() - pass_start;
      pass_start = uptime_ms();
    }
  }
}

static void vm_daemon(void *arg)
{
  for (;;) {
    sleep_ms(100);
    if (vm_damaged)
      continue;             /* a test damaged the bookkeeping on purpose (vm/corrupt.c) */
    acquire(&vm_lock);
    ticks++;
    age_tick();
    vm_trace_tick();
    if (policy->tick)
      policy->tick();
    scan_oldest();          /* here, not in the first cache miss of the tick */
    bool all = vm_reserve_wanted;
    vm_reserve_wanted = false;
    release(&vm_lock);
    seg_reserve_lazy(all);
    neg_refill();
  }
}

/* --- settings and counters ---------------------------------------------------------------- */

static void policy_get(char *out, int len)
{
  snprintf(out, len, "%s", policy->name);
}

static int policy_set(const char *name)
{
  const struct vm_policy *p = vm_policy_find(name);
  if (!p)
    return -EINVAL;
  acquire(&vm_lock);
  policy = p;
  /* The new policy has not seen the pages that came in before it. */
  for (uint32_t i = 0; i < nframes; i++)
    if (coremap[i].pool == POOL_VM && coremap[i].owner && p->page_in)
      p->page_in(i);
  release(&vm_lock);
  return 0;
}

static void pageout_get(char *out, int len)
{
  snprintf(out, len, "%u", pageout_last);
}

static int pageout_set(const char *v)
{
  uint32_t pid;
  if (parse_uint(v, &pid) < 0)
    return -EINVAL;
  int n = vm_pageout_pid((int)pid);
  if (n < 0)
    return n;
  pageout_last = n;
  return 0;
}

static uint32_t frames_vm(void) { return frame_count(POOL_VM); }
static uint32_t oldest_age(void)
{
  acquire(&vm_lock);
  int32_t k, v = oldest_victim(&k);
  uint32_t age = v < 0 ? 0 : uptime_ms() - coremap[v].lastref;
  release(&vm_lock);
  return age;
}

static const struct setting set_policy = {
  "vm.policy", "page replacement policy: clock fifo lru clusterlru random spt aging", 0, 0, 0,
  policy_get, policy_set };
static const struct setting set_pageout = {
  "vm.pageout", "write PID (0: all): push its pages to backing store (reads: pages written)",
  0, 0, 0, pageout_get, pageout_set };
static const struct setting set_cluster = {
  "vm.cluster", "cluster size of clusterlru (frames)", &vm_cluster_size, 1, 4096, 0, 0 };
static const struct setting set_spt_epoch = {
  "vm.spt_epoch_ms", "epoch of the spt policy's history (ms)", &vm_spt_epoch_ms, 10, 60000, 0, 0 };
static const struct setting set_audit = {
  "vm.audit", "1: run the VM audit after every fault", &vm_audit_every_fault, 0, 1, 0, 0 };
static const struct setting set_rate = {
  "vm.clock_rate", "frames the aging clock checks per second (0: a whole pass every 2 s)",
  &clock_rate, 0, 1000000, 0, 0 };

/* The VM's answers to the negotiation (kernel/negotiate.h). */
static const struct pool_ops vm_pool = {
  .name = "vm", .offer = vm_offer, .surrender = vm_surrender, .audit = vm_audit,
};

void vm_init(void)
{
  initlock(&vm_lock, "vm");
  fl_init(&laundry);
  fl_init(&ready);
  boot_pgdir[0] = 0;        /* the identity map was only for turning paging on */
  lcr3(V2P(boot_pgdir));
  policy = vm_policies[0];
  setting_register(&set_policy);
  setting_register(&set_pageout);
  setting_register(&set_cluster);
  setting_register(&set_spt_epoch);
  setting_register(&set_audit);
  setting_register(&set_rate);
  neg_register_pool(NEG_VM, &vm_pool);
  stat_register("vm.faults", &st_vm_faults);
  stat_register("vm.faults.zero", &st_vm_faults_zero);
  stat_register("vm.faults.code", &st_vm_faults_code);
  stat_register("vm.pageins", &st_vm_pageins);
  stat_register("vm.pageins.backing", &st_vm_pageins_backing);
  stat_register("vm.pageouts", &st_vm_pageouts);
  stat_register_fn("vm.frames", frames_vm);
  stat_register("vm.clock.sweeps", &st_sweeps);
  stat_register("vm.clock.checks", &st_checks);
  stat_register("vm.evictions", &st_evictions);
  stat_register("vm.oom", &st_oom);
  stat_register("vm.policy_errors", &st_policy_errors);
  stat_register_fn("vm.oldest_ms", oldest_age);
  stat_register("vm.age_lag_ms", &age_lag_ms);
  stat_register("vm.laundered", &st_laundered);
  stat_register("vm.pageout_waits", &st_waits);
  stat_register("vm.swap.blocks", &bypass_swap_blocks);
  stat_register_fn("vm.segments", seg_count_used);
  vm_trace_init();          /* after the VM's own counters: ^P prints them in this order */
  cowcor_init();
  corrupt_init();
}

void vm_start(void)
{
  if (kthread_create("vmclock", vm_daemon, 0) < 0 || kthread_create("vmpageout", pageout_daemon, 0) < 0)
    panic("vm: cannot start the clock and the page-out daemon");
  if (kthread_create("vmreap", seg_reaper, 0) < 0)
    panic("vm: cannot start the reaper");
}

/* --- the audit ----------------------------------------------------------------------------- */

#define BAD(...) do { bad++; if (!quiet) kprintf("audit: " __VA_ARGS__); } while (0)

int vm_audit(bool quiet)
{
  int bad = 0;
  acquire(&vm_lock);
  /* Every VM frame belongs to a live segment whose entry points back at it. */
  uint32_t vmframes = 0;
  for (uint32_t i = 0; i < nframes; i++) {
    struct frame *f = &coremap[i];
    if (f->pool != POOL_VM)
      continue;
    vmframes++;
    struct segment *s = f->owner;
    if (frame_busy(f))
      continue;               /* being filled or written: its entry is in transit */
    if (!s || s < segtab || s >= segtab + nsegtab || !s->used) {
      BAD("VM frame %u has no live segment\n", i);
      continue;
    }
    uint32_t va = frame_vaddr(f);
    pte_t *pte = f->index < (s->hi - s->lo) >> PGSHIFT ? seg_walk(s, va, false) : 0;
    if (!pte || !(*pte & PTE_P) || PTE_ADDR(*pte) != frame_pa(f))
      BAD("VM frame %u (segment %u, va 0x%x) is not mapped there\n", i, (uint32_t)(s - segtab), va);
  }
  /* Every present entry points at a VM frame of its segment; counts agree. */
  for (uint32_t k = 0; k < nsegtab; k++) {
    struct segment *s = &segtab[k];
    if (!s->used || !s->pts)
      continue;
    uint32_t resident = 0, ondisk = 0, maxblock = 0;
    for (uint32_t i = 0; i < (s->hi - s->lo) / PTSPAN; i++) {
      pte_t *pt = s->pts[i];
      if (!pt)
        continue;
      for (uint32_t j = 0; j < 1024; j++) {
        pte_t e = pt[j];
        uint32_t va = s->lo + i * PTSPAN + j * PGSIZE;
        if (e & (PTE_P | PTE_INTRANS)) {
          resident++;
          struct frame *f = pa_to_frame(PTE_ADDR(e));
          bool inmap = PTE_ADDR(e) >> PGSHIFT < nframes;
          if (!inmap || f->pool != POOL_VM || f->owner != s || f->index != (va - s->lo) >> PGSHIFT)
            BAD("segment %u va 0x%x maps frame 0x%x it does not own\n", k, va, PTE_ADDR(e));
          if ((e & PTE_INTRANS) && inmap && !frame_busy(f))
            BAD("segment %u va 0x%x in transit but its frame is not busy\n", k, va);
          /* Every mapping the VM makes is a user one; code is shared, so never writable. */
          if ((e & PTE_P) && !(e & PTE_U))
            BAD("segment %u va 0x%x: present entry without the user bit 0x%x\n", k, va, e);
          if ((e & PTE_P) && (e & PTE_W) && s->type == SEG_CODE)
            BAD("segment %u va 0x%x: code page mapped writable 0x%x\n", k, va, e);
        } else if (pte_is_cor(e)) {
          /* checked by cowcor_audit */
        } else if (e & PTE_ONDISK) {
          ondisk++;
          if (seg_block(s, va) + 1 > maxblock)
            maxblock = seg_block(s, va) + 1;
        } else if (e) {
          BAD("segment %u va 0x%x has a strange entry 0x%x\n", k, va, e);
        }
        if ((e & PTE_P) && (e & PTE_COR))
          BAD("segment %u va 0x%x: present entry with the COR bit 0x%x\n", k, va, e);
        if ((e & PTE_ONDISK) && (e & PTE_COR))
          BAD("segment %u va 0x%x: COR entry with the on-disk bit 0x%x\n", k, va, e);
        if (e && (va < s->start || va >= s->end))
          BAD("segment %u has a page at 0x%x outside [0x%x, 0x%x)\n", k, va, s->start, s->end);
      }
    }
    if (resident != s->resident)
      BAD("segment %u counts %u resident pages but maps %u\n", k, s->resident, resident);
    if (s->type != SEG_CODE && s->refs > 0 && !s->lazy && s->swapblocks < seg_npages(s))
      BAD("segment %u has %u pages but %u backing blocks (type %d, [0x%x, 0x%x), refs %d)\n", k, seg_npages(s), s->swapblocks, s->type, s->start, s->end, s->refs);
    if (ondisk && (!s->swap || maxblock > s->swapblocks))
      BAD("segment %u has pages on backing store beyond its %u blocks\n", k, s->swapblocks);
  }
  if (vmframes != frame_count(POOL_VM))
    BAD("%u VM frames, the core map counts %u\n", vmframes, frame_count(POOL_VM));
  /* The laundry and the ready list hold VM frames marked so, each once, and the counts. */
  uint32_t marked[2] = { 0, 0 }, listed[2] = { 0, 0 };
  for (uint32_t i = 0; i < nframes; i++)
    if (coremap[i].pool == POOL_VM)
      for (int k = 0; k < 2; k++)
        marked[k] += (coremap[i].pflags & (k ? VMF_READY : VMF_LAUNDRY)) != 0;
  for (int k = 0; k < 2; k++) {
    struct frame *head = k ? &ready : &laundry;
    for (struct frame *f = head->next; f != head && listed[k] <= nframes; f = f->next) {
      listed[k]++;
      if (f < coremap || f >= coremap + nframes || f->pool != POOL_VM ||
          !(f->pflags & (k ? VMF_READY : VMF_LAUNDRY)) || f->next->prev != f)
        BAD("frame %d on the %s list is not a marked VM frame\n", (int)(f - coremap), k ? "ready" : "laundry");
    }
    if (listed[k] != marked[k] || listed[k] != (k ? nready : nlaundry))
      BAD("%s list: %u frames listed, %u marked, %u counted\n", k ? "ready" : "laundry",
          listed[k], marked[k], k ? nready : nlaundry);
  }
  /* The VM's offer to the negotiation: the page the batch names still has the stamp it was
   * found with, and a new scan puts first a page no younger than any other that could go. */
  int32_t k, v = oldest_victim(&k);
  if (v >= 0 && k >= 0 && coremap[v].lastref != oldest_lastref[k])
    BAD("the VM offers frame %d as last used at %u ms; it was used at %u\n", v, oldest_lastref[k],
        coremap[v].lastref);
  scan_oldest();
  uint32_t now = uptime_ms();
  for (uint32_t i = 0; i < nframes; i++) {
    if (!pol_candidate(i) || pol_accessed(i))
      continue;
    /* Ages compared here, not by older(): the audit must not share the scan's mistakes. */
    if (noldest == 0 || now - coremap[i].lastref > now - oldest_lastref[0]) {
      BAD("frame %u (last used at %u ms) is older than the VM's oldest page %d\n", i, coremap[i].lastref,
          noldest ? oldest[0] : -1);
      break;
    }
  }
  bad += cowcor_audit(quiet);
  bad += as_audit(quiet);
  release(&vm_lock);
  return bad;
}

