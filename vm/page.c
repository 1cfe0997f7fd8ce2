/* Frames for pages, paging out, and the clock.
 *
 *   vm_getframe     a frame for a page: a free one while more than vm.reserve are free,
 *                   else one taken from the victim the replacement policy chooses
 *   evict           pages a victim out: the frame busy and its entry PTE_INTRANS while a
 *                   dirty page is written to its backing file, straight to disk
 *   vm_daemon       the clock: ten times a second it looks at the accessed bits of the
 *                   next vm.clock_rate/10 frames (refreshing each frame's time of last
 *                   reference) and lets the policy tick
 *   pol_*           the questions a policy may ask (vm/policy.h)
 *   vm_audit        the invariant checker (SYS_vmaudit, the audit program, vm.audit=1)
 */
#include "kernel/klib.h"
#include "kernel/x86.h"
#include "kernel/proc.h"
#include "kernel/time.h"
#include "kernel/stats.h"
#include "kernel/sysctl.h"
#include "kernel/syscall.h"
#include "fs/fs.h"
#include "vm/vm.h"
#include "vm/coremap.h"
#include "vm/policy.h"

extern pde_t boot_pgdir[];

/* User pages stop coming from the free pool while this many frames are free, so the kernel
 * can always get page tables, kernel structures and cache blocks. */
static uint32_t vm_reserve = 64;
static uint32_t clock_rate = 100;          /* frames the background clock checks per second */
uint32_t vm_audit_every_fault;
static const struct vm_policy *policy;
static uint32_t clock_hand;                /* the background sweep's position */
static uint32_t pageout_last;

uint32_t st_vm_faults, st_vm_faults_zero, st_vm_faults_code, st_vm_pageins, st_vm_pageouts;
static uint32_t st_sweeps, st_checks, st_evictions, st_oom;

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

/* A page that has no backing block yet (a forked segment whose backing store the daemon has
 * not reserved) cannot go out; nor can a page of a segment being torn down. */
static bool frame_unbacked(struct frame *f)
{
  struct segment *s = f->owner;
  return s->type != SEG_CODE && seg_block(s, frame_vaddr(f)) >= s->swapblocks;
}

bool pol_candidate(uint32_t i)
{
  struct frame *f = &coremap[i];
  if (f->pool != POOL_VM || (f->flags & (FRAME_BUSY | FRAME_WIRED)) || !f->owner)
    return false;
  struct segment *s = f->owner;
  if (s->refs <= 0 || frame_unbacked(f))
    return false;
  pte_t *pte = frame_pte(f);
  return pte && (*pte & PTE_P);
}

bool pol_accessed(uint32_t i)
{
  pte_t *pte = frame_pte(&coremap[i]);
  return pte && (*pte & PTE_A);
}

bool pol_referenced(uint32_t i)
{
  struct frame *f = &coremap[i];
  pte_t *pte = frame_pte(f);
  if (!pte || !(*pte & (PTE_A | PTE_D)))
    return false;
  bool ref = *pte & PTE_A;
  /* Fold the dirty bit in before clearing it, then drop the stale TLB entry: otherwise the
   * CPU would neither set the bits again nor tell us about the next write. */
  if (*pte & PTE_D)
    f->flags |= FRAME_DIRTY;
  *pte &= ~(PTE_A | PTE_D);
  invlpg(frame_vaddr(f));
  if (ref)
    f->lastref = uptime_ms();
  return ref;
}

/* --- frames for pages ------------------------------------------------------------------ */

void vm_drop_frame(struct frame *f)
{
  if (policy->page_out)
    policy->page_out(f - coremap);
  f->owner = 0;
  frame_free(f);
}

void vm_map_frame(struct segment *s, uint32_t va, struct frame *f, pte_t perm)
{
  pte_t *pte = seg_walk(s, va, false);
  KASSERT(pte);
  /* Mapped as accessed: a page just brought in is not the next victim. */
  *pte = frame_pa(f) | PTE_P | PTE_A | perm;
  s->resident++;
  f->lastref = uptime_ms();
  f->flags &= ~FRAME_BUSY;
  if (policy->page_in)
    policy->page_in(f - coremap);
  frame_wakeup(f);
}

/* Whether paging out the page in f (entry old) must write it: dirty, or a COW page whose
 * backing file does not hold it (slaves will read it from there; it must not become "0"). */
static bool must_write(struct segment *s, struct frame *f, pte_t old)
{
  if (s->type == SEG_CODE)
    return false;
  return (f->flags & FRAME_DIRTY) || ((old & PTE_COW) && !(f->flags & FRAME_BACKED));
}

/* The entry of a page whose page-out failed: present again, COW if it still is (COW-COR may
 * have made it writable meanwhile; cur is the in-transit entry). */
static pte_t restored(pte_t old, pte_t cur)
{
  pte_t perm = (cur & PTE_COW) ? PTE_COW : (old & (PTE_W | PTE_COW)) ? PTE_W : 0;
  return PTE_ADDR(old) | (old & PTE_U) | PTE_P | perm;
}

/* Pages one victim out; 1 when a frame went back to the free pool, 0 when every candidate
 * is busy (try again soon), 2 when the only pages left wait for the VM daemon to reserve
 * their backing store (forked segments), -1 when the VM holds nothing that could be taken. */
static int evict(void)
{
  acquire(&vm_lock);
  int32_t v = policy->choose();
  if (v < 0) {
    bool busy = false, unbacked = false;
    for (uint32_t i = 0; i < nframes && !busy; i++) {
      struct frame *f = &coremap[i];
      if (f->pool != POOL_VM || !f->owner)
        continue;
      busy = f->flags & FRAME_BUSY;
      if (!busy && frame_unbacked(f) && !((struct segment *)f->owner)->noswap)
        unbacked = vm_reserve_wanted = true;    /* the daemon reserves it; wait for that */
    }
    release(&vm_lock);
    return busy ? 0 : unbacked ? 2 : -1;
  }
  struct frame *f = &coremap[v];
  struct segment *s = f->owner;
  uint32_t va = frame_vaddr(f);
  pte_t *pte = frame_pte(f);
  pte_t old = *pte;
  f->flags |= FRAME_BUSY;
  s->refs++;                                /* the segment outlives our write */
  *pte = PTE_ADDR(old) | PTE_INTRANS | (old & PTE_COW);
  invlpg(va);
  if (old & PTE_D)
    f->flags |= FRAME_DIRTY;
  bool write = must_write(s, f, old);
  release(&vm_lock);

  int err = write ? bypass_rw(s->swap, seg_block(s, va), frame_va(f), true) : 0;

  acquire(&vm_lock);
  st_evictions++;
  if (err < 0) {
    /* Not written: the page stays. */
    kprintf("vm: cannot write a page of segment %u to backing store\n", (uint32_t)(s - segtab));
    *pte = restored(old, *pte);
    f->flags &= ~FRAME_BUSY;
    frame_wakeup(f);
    release(&vm_lock);
    seg_put_later(s);
    return 0;
  }
  if (write) {
    st_vm_pageouts++;
    if (s->as)              /* 0 once its process has exited */
      proc_count_pageout(s->as->pid);
  }
  bool ondisk = s->type != SEG_CODE && (write || (f->flags & FRAME_BACKED));
  *pte = (ondisk ? PTE_ONDISK : 0) | (*pte & PTE_COW);
  s->resident--;
  f->flags &= ~FRAME_BUSY;
  frame_wakeup(f);
  vm_drop_frame(f);
  release(&vm_lock);
  seg_put_later(s);         /* never freed here: the caller may hold cow_lock (vm/segment.c) */
  return 1;
}

struct frame *vm_getframe(struct segment *s, uint32_t va)
{
  uint32_t waited = 0;
  for (int tries = 0; tries < 1000; tries++) {
    if (frame_count(POOL_FREE) > vm_reserve) {
      struct frame *f = frame_alloc(POOL_VM, false);
      if (f) {
        acquire(&vm_lock);
        f->owner = s;
        f->index = (va - s->lo) >> PGSHIFT;
        f->flags = (f->flags & FRAME_WANTED) | FRAME_BUSY;
        f->pword = 0;
        release(&vm_lock);
        return f;
      }
    }
    int r = evict();
    if (r < 0)
      break;
    if (r == 0)
      sleep_ms(1);          /* every candidate is under I/O: let it finish */
    if (r == 2 && waited < 30000) {
      sleep_ms(10);         /* the daemon is reserving backing store: not a failed try */
      waited += 10;
      tries--;
    }
  }
  st_oom++;
  return 0;
}

/* --- vm.pageout=PID ------------------------------------------------------------------------ */

/* Pages out one resident page of s at va (vm_lock held on entry and exit). */
static int pageout_page(struct segment *s, uint32_t va)
{
  pte_t *pte = seg_walk(s, va, false);
  if (!pte || !(*pte & PTE_P))
    return 0;
  struct frame *f = pa_to_frame(PTE_ADDR(*pte));
  if (f->flags & (FRAME_BUSY | FRAME_WIRED) || frame_unbacked(f))
    return 0;
  pte_t old = *pte;
  f->flags |= FRAME_BUSY;
  *pte = PTE_ADDR(old) | PTE_INTRANS | (old & PTE_COW);
  invlpg(va);
  if (old & PTE_D)
    f->flags |= FRAME_DIRTY;
  bool write = must_write(s, f, old);
  release(&vm_lock);
  int err = write ? bypass_rw(s->swap, seg_block(s, va), frame_va(f), true) : 0;
  acquire(&vm_lock);
  if (err < 0) {
    *pte = restored(old, *pte);
    f->flags &= ~FRAME_BUSY;
    frame_wakeup(f);
    return 0;
  }
  if (write) {
    st_vm_pageouts++;
    if (s->as)              /* 0 if its process exited while we wrote */
      proc_count_pageout(s->as->pid);
  }
  *pte = ((write || (f->flags & FRAME_BACKED)) ? PTE_ONDISK : 0) | (*pte & PTE_COW);
  s->resident--;
  f->flags &= ~FRAME_BUSY;
  frame_wakeup(f);
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

/* --- the clock daemon ---------------------------------------------------------------------- */

static void vm_daemon(void *arg)
{
  for (;;) {
    sleep_ms(100);
    if (vm_damaged)
      continue;             /* a test damaged the bookkeeping on purpose (vm/corrupt.c) */
    acquire(&vm_lock);
    uint32_t n = (clock_rate + 9) / 10;
    for (uint32_t i = 0; i < n && nframes; i++) {
      if (pol_candidate(clock_hand)) {
        pol_referenced(clock_hand);
        st_checks++;
      }
      if (++clock_hand >= nframes) {
        clock_hand = 0;
        st_sweeps++;
      }
    }
    if (policy->tick)
      policy->tick();
    bool all = vm_reserve_wanted;
    vm_reserve_wanted = false;
    release(&vm_lock);
    seg_reserve_lazy(all);
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
  int32_t v = policy->next ? policy->next() : -1;
  uint32_t age = v < 0 ? 0 : uptime_ms() - coremap[v].lastref;
  release(&vm_lock);
  return age;
}

static const struct setting set_policy = {
  "vm.policy", "page replacement policy: clock fifo lru clusterlru random", 0, 0, 0,
  policy_get, policy_set };
static const struct setting set_pageout = {
  "vm.pageout", "write PID (0: all): push its pages to backing store (reads: pages written)",
  0, 0, 0, pageout_get, pageout_set };
static const struct setting set_cluster = {
  "vm.cluster", "cluster size of clusterlru (frames)", &vm_cluster_size, 1, 4096, 0, 0 };
static const struct setting set_audit = {
  "vm.audit", "1: run the VM audit after every fault", &vm_audit_every_fault, 0, 1, 0, 0 };
static const struct setting set_rate = {
  "vm.clock_rate", "frames the background clock checks per second", &clock_rate, 0, 1000000, 0, 0 };
static const struct setting set_reserve = {
  "vm.reserve", "frames kept free for the kernel and the cache", &vm_reserve, 8, 65536, 0, 0 };

void vm_init(void)
{
  initlock(&vm_lock, "vm");
  boot_pgdir[0] = 0;        /* the identity map was only for turning paging on */
  lcr3(V2P(boot_pgdir));
  policy = vm_policies[0];
  setting_register(&set_policy);
  setting_register(&set_pageout);
  setting_register(&set_cluster);
  setting_register(&set_audit);
  setting_register(&set_rate);
  setting_register(&set_reserve);
  stat_register("vm.faults", &st_vm_faults);
  stat_register("vm.faults.zero", &st_vm_faults_zero);
  stat_register("vm.faults.code", &st_vm_faults_code);
  stat_register("vm.pageins", &st_vm_pageins);
  stat_register("vm.pageouts", &st_vm_pageouts);
  stat_register_fn("vm.frames", frames_vm);
  stat_register("vm.clock.sweeps", &st_sweeps);
  stat_register("vm.clock.checks", &st_checks);
  stat_register("vm.evictions", &st_evictions);
  stat_register("vm.oom", &st_oom);
  stat_register_fn("vm.oldest_ms", oldest_age);
  stat_register("vm.swap.blocks", &bypass_swap_blocks);
  cowcor_init();
  corrupt_init();
}

void vm_start(void)
{
  if (kthread_create("vmclock", vm_daemon, 0) < 0)
    panic("vm: cannot start the clock");
  if (kthread_create("vmreap", seg_reaper, 0) < 0)
    panic("vm: cannot start the reaper");
}

/* --- the audit ----------------------------------------------------------------------------- */

#define BAD(...) do { bad++; if (!quiet) kprintf("audit: " __VA_ARGS__); } while (0)

int vm_audit(bool quiet)
{
  int bad = coremap_audit(quiet);
  acquire(&vm_lock);
  /* Every VM frame belongs to a live segment whose entry points back at it. */
  uint32_t vmframes = 0;
  for (uint32_t i = 0; i < nframes; i++) {
    struct frame *f = &coremap[i];
    if (f->pool != POOL_VM)
      continue;
    vmframes++;
    struct segment *s = f->owner;
    if (f->flags & FRAME_BUSY)
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
          if ((e & PTE_INTRANS) && inmap && !(f->flags & FRAME_BUSY))
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
  bad += cowcor_audit(quiet);
  bad += as_audit(quiet);
  release(&vm_lock);
  return bad;
}

int sys_vmaudit(void)
{
  return vm_audit(argint(0) != 0);
}
