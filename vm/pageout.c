/*
 * Page-out: where a page's frame comes from, and how dirty pages are cleaned.
 *
 * FRAMES FOR PAGES. A fault, a fork's copy or exec's arguments need a frame for a page, and
 * vm_getframe gives one: a free frame, one traded from the file cache, or one of the VM's own
 * pages, the victim. kernel/mem/negotiate.c decides which, by the ages the two pools report (the
 * VM's answers are in vm/oldest.c). The VM's victim is taken only clean (take_clean): first a
 * page the page-out daemon has just cleaned (the ready list), as Sprite puts a cleaned page
 * at the front of its allocate list, unless it was referenced since; else the replacement
 * policy's choice (vm.policy, vm/policy_*.c). A policy under development must not corrupt
 * the VM: a frame it chooses that is no candidate is counted (vm.policy_errors) and the
 * oldest page goes instead.
 *
 * BUSY. When the negotiation says the cache should give but its oldest blocks are dirty
 * (NEG_BUSY: kernel/mem/negotiate.c), the cache has had them scheduled, and the asker waits for
 * one to be written (a bounded time, holding no lock) instead of recycling its own page,
 * which under a penalty is one the comparison judged younger. The laundry answers the same
 * way when the cache asks: vm_offer says busy when the VM's oldest page is dirty
 * (vm_page_dirty), vm_surrender launders it, and make_ready tells the waiting asker.
 *
 * NO WRITE IN THE ASKER'S THREAD. The asker may hold cow_lock (a COR fault), and a cache miss
 * asking the VM for a frame may hold inode and block locks: writing a page there would wait
 * for those, or re-enter the file system. So a dirty victim met on the way goes to the
 * laundry, and an asker that finds no clean victim waits for the page-out daemon
 * (vm.pageout_waits).
 *
 * THE LAUNDRY. The page-out daemon (pageout_daemon, the vmpageout thread: Sprite's page-out
 * process) works through the laundry: it writes each page to its backing block, straight to
 * disk at the address recorded when the block was reserved (vm/segment.c, fs/backing.h), and
 * puts it, clean and unreferenced, on the ready list for the next asker. The page stays
 * resident while it is written, in transit (PTE_INTRANS), so that a touch waits for the write
 * instead of changing the page under it. A frame on the laundry (VMF_LAUNDRY) is no candidate
 * for replacement until it is clean. The laundry and the ready list run through the frames'
 * next/prev links, under vm_lock.
 *
 * A clean page goes without a write: its entry then says where the page is (on backing
 * store, or 0: zero fill or the executable again). A COW page whose backing file does not
 * hold it is written even when clean, since its slaves will read it from there.
 *
 * vm.pageout=PID pushes every resident page of a process to backing store at once (0: every
 * process), in the writer's own thread, for tests and experiments.
 */
#include "kernel/klib.h"
#include "kernel/x86.h"
#include "kernel/proc.h"
#include "kernel/time.h"
#include "kernel/sysctl.h"
#include "kernel/uapi/errno.h"
#include "kernel/mem/coremap.h"
#include "kernel/mem/negotiate.h"
#include "kernel/mem/refault.h"
#include "vm/vm.h"
#include "vm/policy.h"
#include "vm/paging.h"
#include "fs/backing.h"
#include "kernel/audit.h"

#define LAUNDER_BATCH 16          /* dirty victims one search may hand to the laundry */

static const struct vm_policy *policy;     /* the replacement policy in use (vm.policy) */
static uint32_t pageout_last;              /* pages the last vm.pageout=PID wrote */
static struct frame laundry, ready;        /* list heads (sentinels, not in the core map) */
static uint32_t nlaundry, nready;
static int ready_waiters;                  /* askers waiting for the page-out daemon */

uint32_t st_vm_pageouts, st_vm_evictions, st_vm_oom, st_vm_policy_errors, st_vm_laundered,
    st_vm_pageout_waits, st_vm_pageout_requests;

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
  st_vm_laundered++;
  wakeup(&laundry);
}

static void make_ready(struct frame *f)
{
  unlist(f);
  f->pflags |= VMF_READY;
  fl_append(&ready, f);
  nready++;
  neg_note_clean();         /* an asker told "busy" may take it now */
}

int32_t ready_first_idle(void)
{
  for (struct frame *f = ready.next; f != &ready; f = f->next)
    if (idle(f - coremap))
      return f - coremap;
  return -1;
}

/* --- frames for pages ---------------------------------------------------------------------- */

void vm_drop_frame(struct frame *f)
{
  vm_trace_leave(f - coremap);
  refault_gave(NEG_VM, pol_page(f - coremap), f->lastref);   /* its shadow: kernel/mem/refault.c */
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

/* Frame f's page-table entry, read once into *old, its dirty bit folded into the frame
 * (VMF_DIRTY); whether the page must be written before its frame can go. vm_lock held. */
static bool needs_write(struct frame *f, pte_t *old)
{
  *old = *frame_pte(f);
  if (*old & PTE_D)
    f->pflags |= VMF_DIRTY;
  return must_write(f->owner, f, *old);
}

/* The entry of a page whose page-out failed or that was cleaned: present again, COW if it
 * still is (COW-COR may have made it writable meanwhile; cur is the in-transit entry), and
 * neither accessed nor dirty; a user page, even if an ordered trace had hidden it (vm/trace.c),
 * since the trace may have stopped meanwhile. */
static pte_t restored(pte_t old, pte_t cur)
{
  pte_t perm = (cur & PTE_COW) ? PTE_COW : (old & (PTE_W | PTE_COW)) ? PTE_W : 0;
  return PTE_ADDR(old) | PTE_U | PTE_P | perm;
}

/* Candidate f's page goes, if it is clean: its entry then says where the page is now (on
 * backing store, or 0: zero fill or the executable again), and f, mapped nowhere and owned
 * by nobody, stays in the VM's pool for the taker. A dirty one goes to the laundry. */
bool take_if_clean(struct frame *f)
{
  pte_t old;
  if (needs_write(f, &old)) {
    launder(f);
    return false;
  }
  struct segment *s = f->owner;
  uint32_t va = frame_vaddr(f);
  pte_t *pte = frame_pte(f);
  vm_trace_leave(f - coremap);
  refault_gave(NEG_VM, pol_page(f - coremap), f->lastref);   /* its shadow: kernel/mem/refault.c */
  unlist(f);
  bool ondisk = s->type != SEG_CODE && (f->pflags & VMF_BACKED);
  *pte = (ondisk ? PTE_ONDISK : 0) | (old & PTE_COW);
  invlpg(va);
  s->resident--;
  if (policy->page_out)
    policy->page_out(f - coremap);
  f->owner = 0;
  f->pflags = 0;
  st_vm_evictions++;
  return true;
}

bool vm_page_dirty(struct frame *f)
{
  pte_t old;
  return needs_write(f, &old);
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
      if (st_vm_policy_errors++ == 0)
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
  uint32_t waited = 0, busy_waited = 0;
  for (int tries = 0; tries < 1000; tries++) {
    enum neg_verdict verdict;
    struct frame *f = neg_getframe(NEG_VM, &verdict);
    if (!f && verdict == NEG_BUSY && neg_wait_clean(&busy_waited)) {
      tries--;              /* the cache's oldest blocks are being written: one will be ours */
      continue;
    }
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
      st_vm_pageout_waits++;
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
  st_vm_oom++;
  return 0;
}

/* --- the page-out daemon ------------------------------------------------------------------- */

/* The disk address of the backing block of s's page at va, or 0 (named on the console). */
static uint32_t backing_addr(struct segment *s, uint32_t va)
{
  uint32_t b = seg_block(s, va);
  if (b >= s->swapblocks || !s->swapaddr) {
    kprintf("vm: segment %u has no backing block %u\n", (uint32_t)(s - segtab), b);
    return 0;
  }
  return s->swapaddr[b / SWAPADDR_PER_PAGE][b % SWAPADDR_PER_PAGE];
}

/* Writes a run of laundered pages to their backing blocks and makes them ready (vm_lock
 * held, let go during the write): as many as one request may carry (fs.cluster_max, through
 * backing_run_limit), so that pages whose blocks lie side by side on the disk go in one
 * request, and with the limit at 1 one page a request as before clustering. A page stays
 * resident: in transit while written, so that a touch waits for the write instead of
 * changing the page under it. A failed run leaves its pages dirty, off the laundry, named. */
static void clean_run(void)
{
  struct frame *v[BACKING_RUN];
  pte_t old[BACKING_RUN], *ptes[BACKING_RUN];
  uint32_t addr[BACKING_RUN];
  void *buf[BACKING_RUN];
  uint32_t limit = MIN(backing_run_limit(), (uint32_t)BACKING_RUN);
  int n = 0;
  while ((uint32_t)n < limit && !fl_empty(&laundry)) {
    struct frame *f = laundry.next;
    unlist(f);
    if (!pol_candidate(f - coremap))
      continue;               /* freed, or taken, while it waited */
    if (!needs_write(f, &old[n])) {
      make_ready(f);
      continue;
    }
    struct segment *s = f->owner;
    uint32_t va = frame_vaddr(f);
    if (!(addr[n] = backing_addr(s, va)))
      continue;
    /* No reference taken: the segment's end waits for the write (seg_free). */
    frame_try_busy(f);
    ptes[n] = frame_pte(f);
    *ptes[n] = PTE_ADDR(old[n]) | PTE_INTRANS | (old[n] & PTE_COW);
    invlpg(va);
    buf[n] = frame_va(f);
    v[n++] = f;
  }
  if (n == 0)
    return;
  release(&vm_lock);
  int reqs = backing_rwv(addr, buf, n, true);
  acquire(&vm_lock);
  if (reqs > 0)
    st_vm_pageout_requests += reqs;
  for (int k = 0; k < n; k++) {
    struct frame *f = v[k];
    struct segment *s = f->owner;
    *ptes[k] = restored(old[k], *ptes[k]);
    oldest_unstamped(f);
    if (reqs < 0) {
      kprintf("vm: cannot write a page of segment %u to backing store\n", (uint32_t)(s - segtab));
    } else {
      f->pflags = (f->pflags & ~VMF_DIRTY) | VMF_BACKED;
      st_vm_pageouts++;
      if (s->as)
        proc_count_pageout(s->as->pid);
      make_ready(f);
    }
    frame_unbusy(f);
  }
  if (ready_waiters)
    wakeup(&ready_waiters);
}

void pageout_daemon(void *arg)
{
  (void)arg;
  acquire(&vm_lock);
  for (;;) {
    while (fl_empty(&laundry)) {
      if (ready_waiters)
        wakeup(&ready_waiters);   /* nothing left to clean: let the askers look again */
      sleep(&laundry, &vm_lock);
    }
    clean_run();
  }
}

/* --- vm.pageout=PID ------------------------------------------------------------------------ */

/* Pages out the resident pages of s from va on, as many side by side as one request may
 * carry (vm_lock held on entry and exit): their writes go out together, in one request
 * where their backing blocks are consecutive (backing_rwv). The run ends before the first page
 * that is not resident, is under I/O or has no backing block; *len is how many pages it
 * covered (at least one). Returns the pages written. */
static int pageout_run(struct segment *s, uint32_t va, uint32_t *len)
{
  struct frame *v[BACKING_RUN];
  pte_t old[BACKING_RUN], *ptes[BACKING_RUN];
  bool write[BACKING_RUN];
  uint32_t addr[BACKING_RUN];
  void *buf[BACKING_RUN];
  uint32_t limit = MIN(backing_run_limit(), (uint32_t)BACKING_RUN);
  int n = 0, nw = 0;
  for (; (uint32_t)n < limit && va + n * PGSIZE < s->end; n++) {
    uint32_t a = va + n * PGSIZE;
    pte_t *pte = seg_walk(s, a, false);
    if (!pte || !(*pte & PTE_P))
      break;
    struct frame *f = pa_to_frame(PTE_ADDR(*pte));
    if (frame_busy(f) || frame_unbacked(f))
      break;
    old[n] = *pte;
    if (old[n] & PTE_D)
      f->pflags |= VMF_DIRTY;
    write[n] = must_write(s, f, old[n]);
    if (write[n] && !(addr[nw] = backing_addr(s, a)))
      break;
    frame_try_busy(f);
    *pte = PTE_ADDR(old[n]) | PTE_INTRANS | (old[n] & PTE_COW);
    invlpg(a);
    ptes[n] = pte;
    v[n] = f;
    if (write[n])
      buf[nw++] = frame_va(f);
  }
  *len = n ? n : 1;
  release(&vm_lock);
  int reqs = nw ? backing_rwv(addr, buf, nw, true) : 0;
  acquire(&vm_lock);
  if (reqs > 0)
    st_vm_pageout_requests += reqs;
  int written = 0;
  for (int k = 0; k < n; k++) {
    struct frame *f = v[k];
    if (write[k] && reqs < 0) {
      *ptes[k] = restored(old[k], *ptes[k]);
      oldest_unstamped(f);
      frame_unbusy(f);
      continue;
    }
    if (write[k]) {
      st_vm_pageouts++;
      written++;
      if (s->as)            /* 0 if its process exited while we wrote */
        proc_count_pageout(s->as->pid);
    }
    *ptes[k] = ((write[k] || (f->pflags & VMF_BACKED)) ? PTE_ONDISK : 0) | (*ptes[k] & PTE_COW);
    s->resident--;
    frame_unbusy(f);
    vm_drop_frame(f);
  }
  return written;
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
    uint32_t len;
    for (uint32_t va = s->start; va < s->end; va += len * PGSIZE)
      n += pageout_run(s, va, &len);
    release(&vm_lock);
    seg_put(s);
    acquire(&vm_lock);
  }
  release(&vm_lock);
  return found || pid == 0 ? n : -ESRCH;    /* "every process" may be none (at boot) */
}

/* --- the policy in use, the settings, the start -------------------------------------------- */

const struct vm_policy *current_policy(void)
{
  return policy;
}

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

/* vm.policy's description names the table's policies, whichever the tree has. */
static char policy_help[128];
static const struct setting set_policy = { "vm.policy", policy_help, 0, 0, 0, policy_get, policy_set };
static const struct setting set_pageout = {
  "vm.pageout", "write PID (0: all): push its pages to backing store (reads: pages written)",
  0, 0, 0, pageout_get, pageout_set };

void pageout_init(void)
{
  fl_init(&laundry);
  fl_init(&ready);
  policy = vm_policy_find(VM_POLICY_DEFAULT);
  if (!policy)
    panic("vm: no replacement policy named %s", VM_POLICY_DEFAULT);
  uint32_t n = snprintf(policy_help, sizeof policy_help, "page replacement policy:");
  for (uint32_t i = 0; vm_policy_at(i) && n < sizeof policy_help; i++)
    n += snprintf(policy_help + n, sizeof policy_help - n, " %s", vm_policy_at(i)->name);
  setting_register(&set_policy);
  setting_register(&set_pageout);
}

/* --- the audit (vm_lock held) -------------------------------------------------------------- */

/* The laundry and the ready list hold VM frames marked so, each once, and the counts. */
int pageout_audit(bool quiet)
{
  int bad = 0;
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
        AUDIT_BAD("frame %d on the %s list is not a marked VM frame\n", (int)(f - coremap), k ? "ready" : "laundry");
    }
    if (listed[k] != marked[k] || listed[k] != (k ? nready : nlaundry))
      AUDIT_BAD("%s list: %u frames listed, %u marked, %u counted\n", k ? "ready" : "laundry",
          listed[k], marked[k], k ? nready : nlaundry);
  }
  return bad;
}
