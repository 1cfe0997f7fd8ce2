/* COW-COR fork: Sprite's copy-on-write / copy-on-reference (thesis 7.4, Figure 7-2).
 *
 * At fork the parent's heap and stack become masters and the child's slaves:
 *
 *   parent (master)   every page it holds, resident or on backing store, gets PTE_COW (and a
 *                     present one loses PTE_W): it may be read, not written
 *   child  (slave)    the entry for that page is  master-index << 12 | PTE_COR : not present,
 *                     naming the segment that holds the COW copy; a parent that is itself a
 *                     slave passes its own COR entries on unchanged (they name the original
 *                     master, 7.4.2)
 *
 * THE LIST. Every segment related by COW-COR (a whole fork tree of heaps, or of stacks) sits on
 * one doubly linked ring, cow_next/cow_prev in struct segment; a segment alone points at
 * itself. No trees, no shadow objects: a COR entry names its master directly, so a COR fault
 * goes straight there; only COW faults and clean-up walk the ring (7.4.2). cor_refs counts,
 * for each master, the COR entries naming it anywhere on the ring.
 *
 *   COR fault (cor_fault)   copy the page from the master: from its frame, or from the
 *                           master's backing file (7.4.4); the copy is private and writable.
 *                           If no other slave refers to the master's page, that page becomes
 *                           writable in the master (7.4.3)
 *   COW fault (cow_fault)   the master writes: find on the ring a slave whose entry is COR off
 *                           this page, give it a copy (the new master copy, COW if others are
 *                           left), repoint the other slaves' entries at it, and make the
 *                           master's page writable. A COW page that is not resident is paged
 *                           in first by the ordinary path, then the write faults again (7.4.4)
 *   clean-up (cowcor_delete, exit and exec; cowcor_release_range, sbrk shrinking)
 *                           each COW page moves to a dependant: a resident frame is remapped,
 *                           one on backing store is copied block to block (or read into a
 *                           frame when the dependant has no backing store yet); COR entries
 *                           are dropped. A master whose cor_refs reaches 0 has all its pages
 *                           made writable at once (7.4.3)
 *
 * Locking: cow_lock, a sleep lock, serialises every change to COW and COR entries and to the
 * rings (fork marking, both faults, clean-up). Under it the only other changes to a family's
 * entries are content-preserving ones made under vm_lock alone: page-out and page-in (present
 * <-> in transit <-> on disk, keeping PTE_COW), zero fill of untouched pages, accessed and dirty
 * bits. So a master's page never changes under a COR fault reading it, and a master never
 * dies while a slave copies from it. Entries are read and written under vm_lock as always.
 *
 * Counters (Table 7-3): vm.cow.marked, vm.cor.marked, vm.cow.faults, vm.cor.faults,
 * vm.fork.copies (pages copied for fork: all of them in copy mode; by COR and COW faults and
 * clean-up under COW-COR), vm.fork.copies_saved, vm.cow.list_max; and vm.cor.faults.backing
 * (COR faults served from a master's backing file), vm.cow.remapped (COW frames handed to a
 * dependant at clean-up), vm.cow.made_writable (pages a master got back writable).
 */
#include "kernel/klib.h"
#include "kernel/x86.h"
#include "kernel/proc.h"
#include "kernel/sleeplock.h"
#include "kernel/stats.h"
#include "kernel/sysctl.h"
#include "kernel/syscall.h"
#include "vm/vm.h"
#include "kernel/mem/coremap.h"
#include "vm/fault.h"
#include "kernel/audit.h"

uint32_t vm_fork_mode = FORK_COWCOR;
static struct sleeplock cow_lock;

static uint32_t st_cow_marked, st_cor_marked, st_cow_faults, st_cor_faults, st_list_max;
static uint32_t st_cowcor_copies, st_remaps, st_writable, st_cor_backing;
uint32_t st_fork_copies;

void cowcor_lock(void) { acquiresleep(&cow_lock); }
void cowcor_unlock(void) { releasesleep(&cow_lock); }

static inline pte_t cor_entry(struct segment *m) { return ((uint32_t)(m - segtab) << PGSHIFT) | PTE_COR; }
static inline struct segment *cor_master(pte_t e) { return &segtab[e >> PGSHIFT]; }
static inline pte_t *pte_of(struct segment *s, uint32_t va) { return seg_walk(s, va, false); }

static bool is_cor_of(struct segment *u, uint32_t va, struct segment *m)
{
  pte_t *p = pte_of(u, va);
  return p && pte_is_cor(*p) && cor_master(*p) == m;
}

/* A segment on m's ring, other than skip, whose entry at va is COR off m; or 0. */
static struct segment *find_slave(struct segment *m, uint32_t va, struct segment *skip)
{
  for (struct segment *u = m->cow_next; u != m; u = u->cow_next)
    if (u != skip && is_cor_of(u, va, m))
      return u;
  return 0;
}

/* Repoints every entry at va that is COR off m (except skip's) at nm; returns how many. */
static uint32_t repoint(struct segment *m, uint32_t va, struct segment *nm, struct segment *skip)
{
  uint32_t n = 0;
  for (struct segment *u = m->cow_next; u != m; u = u->cow_next) {
    if (u != skip && is_cor_of(u, va, m)) {
      *pte_of(u, va) = cor_entry(nm);
      n++;
    }
  }
  return n;
}

/* The master's page at va is no longer shared: readable and writable again (vm_lock held).
 * An entry in transit keeps its state; the pager reads PTE_COW when its I/O ends. */
static void unmark_page(struct segment *m, uint32_t va)
{
  pte_t *p = pte_of(m, va);
  if (!p || !(*p & PTE_COW))
    return;
  *p &= ~PTE_COW;
  if (*p & PTE_P)
    *p |= PTE_W;        /* more permission: a stale read-only TLB entry only faults spuriously */
  st_writable++;
}

/* No slave left off m: every page of it writable at once (7.4.3). */
static void check_master(struct segment *m)
{
  if (m->cor_refs != 0 || !m->pts)
    return;
  pte_t *p;
  for (uint32_t va = m->lo; (p = seg_next_pte(m, &va, m->hi)); va += PGSIZE)
    if (*p & PTE_COW)
      unmark_page(m, va);
}

static void list_insert_after(struct segment *ps, struct segment *s)
{
  s->cow_next = ps->cow_next;
  s->cow_prev = ps;
  ps->cow_next->cow_prev = s;
  ps->cow_next = s;
  uint32_t n = 1;
  for (struct segment *u = s->cow_next; u != s && n <= nsegtab; u = u->cow_next)
    n++;
  if (n > st_list_max)
    st_list_max = n;
}

static void list_remove(struct segment *s)
{
  s->cow_prev->cow_next = s->cow_next;
  s->cow_next->cow_prev = s->cow_prev;
  s->cow_next = s->cow_prev = s;
}

/* --- fork ----------------------------------------------------------------------------------- */

int cowcor_fork(struct segment *ps, struct segment *s)
{
  int err = 0;
  uint32_t cors = 0, marked_present = 0;
  acquiresleep(&cow_lock);
  acquire(&vm_lock);
  list_insert_after(ps, s);
  pte_t *pp;
  for (uint32_t va = ps->start; (pp = seg_next_pte(ps, &va, ps->end)); va += PGSIZE) {
    while (*pp & PTE_INTRANS)
      frame_wait(pa_to_frame(PTE_ADDR(*pp)), &vm_lock);   /* let the page settle in or out */
    pte_t e = *pp;
    if (e == 0)
      continue;               /* untouched: the child's is untouched too */
    pte_t *cp = seg_walk(s, va, true);
    if (!cp) {
      err = -ENOMEM;
      break;
    }
    if (pte_is_cor(e)) {
      *cp = e;                /* the parent is a slave here: the child names the same master */
      cor_master(e)->cor_refs++;
    } else {
      if (e & PTE_P) {
        *pp = (e & ~PTE_W) | PTE_COW;
        marked_present++;
      } else {
        *pp = e | PTE_COW;
      }
      *cp = cor_entry(ps);
      ps->cor_refs++;
      st_cow_marked++;
    }
    cors++;
    st_cor_marked++;
  }
  if (cors == 0 && err == 0)
    list_remove(s);           /* nothing shared: the child is a family of its own */
  release(&vm_lock);
  releasesleep(&cow_lock);
  /* The parent runs this: its TLB may still let it write pages now read-only. */
  if (marked_present && ps->as && myproc() && myproc()->as == ps->as)
    lcr3(V2P(ps->as->pgdir));
  return err;
}

/* --- faults --------------------------------------------------------------------------------- */

int cor_fault(struct segment *s, uint32_t va)
{
  struct frame *f = 0;
  int ret = 0;
  acquiresleep(&cow_lock);
  acquire(&vm_lock);
  for (;;) {
    pte_t *p = pte_of(s, va);
    if (!p || !pte_is_cor(*p))
      break;                  /* resolved meanwhile (a COW fault gave us the page) */
    struct segment *m = cor_master(*p);
    pte_t *mp = pte_of(m, va);
    pte_t me = mp ? *mp : 0;
    if (me & PTE_INTRANS) {
      frame_wait(pa_to_frame(PTE_ADDR(me)), &vm_lock);
      continue;
    }
    if (!(me & PTE_COW) || !(me & (PTE_P | PTE_ONDISK)))
      panic("cor_fault: segment %u va 0x%x names master %u, which has no COW page (0x%x)",
            (uint32_t)(s - segtab), va, (uint32_t)(m - segtab), me);
    if (!f) {
      release(&vm_lock);
      f = vm_getframe(s, va);
      acquire(&vm_lock);
      if (!f) {
        vm_fault_reason = "out of memory";
        ret = -1;
        break;
      }
      continue;               /* look again: getting the frame may have paged the master out */
    }
    if (me & PTE_P) {
      memmove(frame_va(f), frame_va(pa_to_frame(PTE_ADDR(me))), PGSIZE);
    } else {
      /* From the master's backing file (7.4.4). Under cow_lock the master's page cannot
       * change or go away; it may be paged in meanwhile, which only reads the block. */
      release(&vm_lock);
      int err = seg_rw(m, va, frame_va(f), false);
      acquire(&vm_lock);
      if (err < 0) {
        vm_putframe_locked(f);
        release(&vm_lock);
        releasesleep(&cow_lock);
        vm_fault_reason = "I/O error reading the master's backing store";
        return -1;
      }
      st_vm_pageins++;
      st_vm_pageins_backing++;
      myproc()->pageins++;
      st_cor_backing++;
    }
    f->pflags |= VMF_DIRTY;   /* exists in no backing file of s */
    vm_map_frame(s, va, f, PTE_U | PTE_W);
    f = 0;
    m->cor_refs--;
    st_cor_faults++;
    st_vm_faults++;
    st_cowcor_copies++;
    st_fork_copies++;
    if (!find_slave(m, va, 0))
      unmark_page(m, va);     /* the master is the page's only user now */
    check_master(m);
    break;
  }
  if (f)
    vm_putframe_locked(f);
  release(&vm_lock);
  releasesleep(&cow_lock);
  return ret;
}

int cow_fault(struct segment *s, uint32_t va)
{
  struct frame *f = 0;
  int ret = 0;
  acquiresleep(&cow_lock);
  acquire(&vm_lock);
  for (;;) {
    pte_t *p = pte_of(s, va);
    if (!p || (*p & (PTE_P | PTE_COW)) != (PTE_P | PTE_COW))
      break;                  /* not a resident COW page now: the caller looks again */
    struct segment *t = find_slave(s, va, 0);
    if (!t) {
      unmark_page(s, va);     /* an extra COW fault: nobody depends on this page any more */
      if (s->as && myproc() && myproc()->as == s->as)
        invlpg(va);
      st_cow_faults++;
      st_vm_faults++;
      break;
    }
    if (!f) {
      release(&vm_lock);
      f = vm_getframe(t, va);
      acquire(&vm_lock);
      if (!f) {
        vm_fault_reason = "out of memory";
        ret = -1;
        break;
      }
      continue;               /* look again: the master's page may have been paged out */
    }
    f->owner = t;             /* the slave found now (same index: same slot) */
    memmove(frame_va(f), frame_va(pa_to_frame(PTE_ADDR(*p))), PGSIZE);
    f->pflags |= VMF_DIRTY;
    uint32_t n = repoint(s, va, t, t);
    s->cor_refs -= n + 1;
    t->cor_refs += n;
    /* t holds the new master copy: COW while others depend on it, else its own page. */
    vm_map_frame(t, va, f, PTE_U | (n ? PTE_COW : PTE_W));
    f = 0;
    *p = (*p & ~PTE_COW) | PTE_W;
    if (s->as && myproc() && myproc()->as == s->as)
      invlpg(va);
    st_cow_faults++;
    st_vm_faults++;
    st_cowcor_copies++;
    st_fork_copies++;
    check_master(s);
    break;
  }
  if (f)
    vm_putframe_locked(f);
  release(&vm_lock);
  releasesleep(&cow_lock);
  return ret;
}

/* --- clean-up ----------------------------------------------------------------------------- */

/* The dependant t could not get the page (no memory): every slave still COR off s at va loses
 * it, and its process is killed rather than left reading a page that is gone. */
static void orphan_page(struct segment *s, uint32_t va)
{
  for (struct segment *u = s->cow_next; u != s; u = u->cow_next) {
    if (is_cor_of(u, va, s)) {
      *pte_of(u, va) = 0;
      s->cor_refs--;
      if (u->as) {
        kprintf("vm: no memory to move a copy-on-write page to pid %d: killed\n", u->as->pid);
        kill_proc(u->as->pid);
      }
    }
  }
}

/* Page va of s goes away (vm_lock and cow_lock held; may sleep). A COW page moves to a
 * dependant; a COR entry is dropped. Leaves the entry 0, or as it was for an unshared page. */
static void release_page(struct segment *s, uint32_t va)
{
  for (;;) {
    pte_t *p = pte_of(s, va);
    if (!p || *p == 0)
      return;
    pte_t e = *p;
    if (e & PTE_INTRANS) {
      frame_wait(pa_to_frame(PTE_ADDR(e)), &vm_lock);
      continue;
    }
    if (pte_is_cor(e)) {
      struct segment *m = cor_master(e);
      *p = 0;
      m->cor_refs--;
      check_master(m);
      return;
    }
    if (!(e & PTE_COW))
      return;                 /* the segment's own page: the caller frees it */
    struct segment *t = find_slave(s, va, 0);
    if (!t) {
      *p &= ~PTE_COW;
      return;
    }
    pte_t *tp = pte_of(t, va);
    if (e & PTE_P) {
      /* Resident: the frame itself moves to t; no copy (7.4.1). */
      struct frame *f = pa_to_frame(PTE_ADDR(e));
      uint32_t n = repoint(s, va, t, t);
      f->owner = t;
      f->pflags = (f->pflags & ~VMF_BACKED) | VMF_DIRTY;   /* not in t's backing file */
      *tp = PTE_ADDR(e) | PTE_P | PTE_U | (e & PTE_A) | (n ? PTE_COW : PTE_W);
      t->resident++;
      *p = 0;
      s->resident--;
      s->cor_refs -= n + 1;
      t->cor_refs += n;
      st_remaps++;
      if (s->as && myproc() && myproc()->as == s->as)
        invlpg(va);
      return;
    }
    /* On backing store: copied to t's backing store, or into a frame of t's when t's
     * backing store is not reserved yet (a recent fork). */
    bool backed = seg_block(t, va) < t->swapblocks && t->swap;
    void *buf = 0;
    struct frame *f = 0;
    release(&vm_lock);
    if (backed)
      buf = kalloc_page();
    else
      f = vm_getframe(t, va);
    int err = (buf || f) ? 0 : -ENOMEM;
    if (err == 0)
      err = seg_rw(s, va, buf ? buf : frame_va(f), false);
    if (err == 0 && buf)
      err = seg_rw(t, va, buf, true);
    acquire(&vm_lock);
    if (buf)
      kfree_page(buf);
    if (err < 0) {
      if (f)
        vm_putframe_locked(f);
      orphan_page(s, va);
      *p &= ~PTE_COW;
      check_master(s);
      return;
    }
    /* t's entry is still COR off s: only COW-COR operations change it, and we hold cow_lock. */
    uint32_t n = repoint(s, va, t, t);
    s->cor_refs -= n + 1;
    t->cor_refs += n;
    if (f) {
      f->pflags |= VMF_DIRTY;
      vm_map_frame(t, va, f, PTE_U | (n ? PTE_COW : PTE_W));
    } else {
      *tp = PTE_ONDISK | (n ? PTE_COW : 0);
    }
    *p &= ~PTE_COW;
    st_cowcor_copies++;
    st_fork_copies++;
    return;
  }
}

static void release_range(struct segment *s, uint32_t lo, uint32_t hi)
{
  for (uint32_t va = PGROUNDUP(lo); seg_next_pte(s, &va, hi); va += PGSIZE)
    release_page(s, va);
}

void cowcor_release_range(struct segment *s, uint32_t lo, uint32_t hi)
{
  acquiresleep(&cow_lock);
  acquire(&vm_lock);
  if (s->cow_next != s)
    release_range(s, lo, hi);
  release(&vm_lock);
  releasesleep(&cow_lock);
}

void cowcor_delete(struct segment *s)
{
  if (s->type == SEG_CODE || !s->pts)
    return;
  acquiresleep(&cow_lock);
  acquire(&vm_lock);
  if (s->cow_next != s) {
    release_range(s, s->start, s->end);
    struct segment *next = s->cow_next;
    list_remove(s);
    if (s->cor_refs != 0)
      panic("cowcor_delete: segment %u still has %u dependants", (uint32_t)(s - segtab), s->cor_refs);
    if (next->cow_next == next)
      check_master(next);     /* alone now */
  }
  release(&vm_lock);
  releasesleep(&cow_lock);
}

/* --- the audit (vm_lock held) ----------------------------------------------------------------- */

int cowcor_audit(bool quiet)
{
  static uint32_t refs[3 * NPROC];
  int bad = 0;
  if (nsegtab > NELEM(refs))
    return 0;
  memset(refs, 0, sizeof refs);
  for (uint32_t k = 0; k < nsegtab; k++) {
    struct segment *s = &segtab[k];
    if (!s->used || !s->pts)
      continue;
    /* The list: consistent both ways, segments of one kind, a ring that closes. */
    if (!s->cow_next || !s->cow_prev || s->cow_next->cow_prev != s || s->cow_prev->cow_next != s) {
      AUDIT_BAD("cowcor: segment %u: list links inconsistent\n", k);
      continue;
    }
    uint32_t n = 0;
    struct segment *u = s->cow_next;
    for (; u != s && n <= nsegtab; u = u->cow_next, n++)
      if (!u->used || u->type != s->type)
        AUDIT_BAD("cowcor: segment %u: list holds segment %u (unused or of another kind)\n", k, (uint32_t)(u - segtab));
    if (u != s)
      AUDIT_BAD("cowcor: segment %u: list does not close\n", k);
    if (s->type == SEG_CODE && s->cow_next != s)
      AUDIT_BAD("cowcor: code segment %u on a COW-COR list\n", k);
    bool has_cow = false;
    pte_t *p;
    for (uint32_t va = s->lo; (p = seg_next_pte(s, &va, s->hi)); va += PGSIZE) {
      pte_t e = *p;
      if (e & PTE_COW) {
        has_cow = true;
        if ((e & PTE_P) && (e & PTE_W))
          AUDIT_BAD("cowcor: segment %u va 0x%x: COW page mapped writable\n", k, va);
        if (!(e & (PTE_P | PTE_ONDISK | PTE_INTRANS)))
          AUDIT_BAD("cowcor: segment %u va 0x%x: COW entry 0x%x holds no page\n", k, va, e);
      }
      if (!pte_is_cor(e))
        continue;
      uint32_t mi = e >> PGSHIFT;
      if (mi >= nsegtab || mi == k) {
        AUDIT_BAD("cowcor: segment %u va 0x%x: COR entry names no master (0x%x)\n", k, va, e);
        continue;
      }
      struct segment *m = &segtab[mi];
      refs[mi]++;
      bool onlist = false;
      for (struct segment *w = s->cow_next; w != s && !onlist; w = w->cow_next)
        onlist = w == m;
      pte_t *mp = m->used && m->pts ? seg_walk(m, va, false) : 0;
      if (!m->used || !onlist)
        AUDIT_BAD("cowcor: segment %u va 0x%x: master %u is dead or not on its list\n", k, va, mi);
      else if (!mp || !(*mp & PTE_COW))
        AUDIT_BAD("cowcor: segment %u va 0x%x: master %u does not hold the page COW (0x%x)\n", k, va, mi,
            mp ? *mp : 0);
    }
    if (has_cow && s->cor_refs == 0)
      AUDIT_BAD("cowcor: segment %u has COW pages but no dependants\n", k);
  }
  for (uint32_t k = 0; k < nsegtab; k++)
    if (segtab[k].used && segtab[k].pts && refs[k] != segtab[k].cor_refs)
      AUDIT_BAD("cowcor: segment %u counts %u dependants, the entries say %u\n", k, segtab[k].cor_refs, refs[k]);
  /* No frame is mapped by two segments: each present entry's frame names that one segment as
   * its owner (vm_audit checks), so a COW frame is writable in nobody. */
  return bad;
}

/* --- settings and counters ------------------------------------------------------------------ */

static const char *const fork_names[] = { "cowcor", "copy", 0 };   /* FORK_COWCOR, FORK_COPY */

static uint32_t copies_saved(void)
{
  return st_cor_marked > st_cowcor_copies ? st_cor_marked - st_cowcor_copies : 0;
}

static const struct setting set_fork = {
  "vm.fork", "fork: cowcor (copy-on-write/copy-on-reference) or copy (copy everything)", &vm_fork_mode, 0, 0,
  0, 0, fork_names };

static const struct counter counters[] = {
  COUNTER("vm.cow.marked", &st_cow_marked),
  COUNTER("vm.cor.marked", &st_cor_marked),
  COUNTER("vm.cow.faults", &st_cow_faults),
  COUNTER("vm.cor.faults", &st_cor_faults),
  COUNTER("vm.cor.faults.backing", &st_cor_backing),
  COUNTER("vm.fork.copies", &st_fork_copies),
  COUNTER_FN("vm.fork.copies_saved", copies_saved),
  COUNTER("vm.cow.list_max", &st_list_max),
  COUNTER("vm.cow.remapped", &st_remaps),
  COUNTER("vm.cow.made_writable", &st_writable),
};

void cowcor_init(void)
{
  initsleeplock_ranked(&cow_lock, "cowcor", LOCK_COWCOR);
  setting_register(&set_fork);
  stat_register_table(counters, NELEM(counters));
}
