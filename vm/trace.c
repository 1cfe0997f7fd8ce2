/* The reference trace: Hagmann's measurement (1991, section 4.1) inside the kernel.
 *
 * Every epoch (vm.trace_epoch_ms; he used 5 s on SunOS, by reading the kernel's page
 * structures from a user process) the aging clock's tick samples and clears the accessed and
 * dirty bits of every mapped VM page and appends, for each page referenced or modified in that
 * epoch, one record: (epoch, segment, page, referenced, modified). The guest's `trace`
 * program reads the buffer (SYS_vmtrace) and writes the text format of the host simulator
 * (tools/lab/tracesim/trace.c); the host copies the file out of the disk image.
 *
 * Sampling must not disturb the rest of the VM: it clears the bits exactly as pol_referenced
 * does (folding the dirty bit into VMF_DIRTY first, refreshing the time of last reference when
 * the accessed bit was set), so the aging clock, the policy and the negotiation see the same
 * history they would have seen; and since the aging sweep and the policy take accessed bits
 * too, a page counts as referenced when its time of last reference moved since the last
 * sample (vm_trace_sample, below). A page about to leave its frame (its process exits, it
 * is unmapped or evicted) is sampled then, in the current epoch (vm_trace_leave): otherwise a
 * short-lived process would vanish from the trace. Not seen: references to a dirty victim
 * waiting for the page-out daemon, or through another mapping than the frame's owner's (a COW
 * slave). Trace a machine with memory to spare, as Hagmann did.
 *
 * The order of references (vm.trace_order=1 when the trace starts): sampling says which pages
 * an epoch referenced, not in what order, and clock, FIFO and LRU live on that order (replayed
 * in the order the sampler met the frames, a sampled trace makes clock look like FIFO). In
 * this mode every epoch's sample also hides every mapped page from user mode (clears PTE_U,
 * leaving it present and mapped, so that page-out, COW-COR and the aging clock see nothing
 * new), and the first user access to it in the epoch takes a soft fault: vm_fault calls
 * vm_trace_fault, which records the page (and whether the access was a write) and shows it
 * again. A page that comes in during the epoch is recorded when its fault is done
 * (vm_trace_arrived). So an epoch's records are in the order of first references. What the
 * faults cannot see is appended at the epoch's end, unordered, from the accessed and dirty
 * bits as before: a page only the kernel touched (the kernel may read a hidden page), and a
 * page written after its first reference was a read (one record with REFERENCED 0, MODIFIED 1,
 * which the simulator takes as "this epoch's reference wrote it"). A frame's mark says which
 * epoch recorded its page and whether as written, so no page is recorded twice in an epoch. The
 * cost is one soft fault per page per epoch in which it is used (docs/lab-replacement.md
 * measures it); the pages of every process are traced, as in sampling.
 *
 * The buffer is a ring: SYS_vmtrace's `first` says the caller has what came before, so the
 * trace program can drain it while the command runs (or trace -f, while a session runs) and a
 * trace may last minutes; a record that would overwrite one not yet read is lost instead
 * (counted).
 *
 * Writing vm.trace_epoch_ms starts a new trace (the old one is dropped; the first sample only
 * clears the bits, so references before the start are not counted); writing 0 takes a last
 * sample and stops, keeping the records for SYS_vmtrace. The buffer is TRACE_PAGES kernel pages,
 * taken at the first start while memory is plentiful and kept; records that do not fit are
 * counted (lost) and dropped.
 */
#include "kernel/klib.h"
#include "kernel/x86.h"
#include "kernel/time.h"
#include "kernel/stats.h"
#include "kernel/sysctl.h"
#include "kernel/syscall.h"
#include "kernel/uapi/vmtrace.h"
#include "vm/vm.h"
#include "kernel/mem/coremap.h"
#include "vm/paging.h"

#define TRACE_PAGES 256
#define PER_PAGE (PGSIZE / sizeof(struct vmtrace_rec))
#define CAP (npages * PER_PAGE)
#define MARKS_PER_PAGE (PGSIZE / sizeof(uint32_t))
#define MARK_PAGES 224          /* 896 MB of frames, all the kernel maps */
#define MARK_MOD 1u             /* mark: epoch + 1 << 1 | MARK_MOD when recorded as written */
#define SPARE_FRAMES 512       /* free frames left to everyone else when taking the buffer */

static struct vmtrace_rec *pages[TRACE_PAGES];
static uint32_t npages;
static uint32_t epoch_ms;             /* the setting: 0 off */
static struct vmtrace_info info;      /* vm_lock */
static uint32_t next_ms, last_ms;     /* the next sample is due at next_ms; the last was at last_ms */
static uint32_t order_setting;        /* vm.trace_order: the next trace records the order */
static uint32_t consumed;             /* records below it were read: their slots may be reused */
static uint32_t *marks[MARK_PAGES];   /* per frame: the epoch that recorded its page (ordered) */
static bool hid_once;                 /* pages may have been hidden since boot: vm_fault must look */
static uint32_t st_softfaults;

/* Whether frame i holds a mapped VM page (its segment's serial and page number in *seg, *page),
 * and whether that page was referenced since ms `since` (its accessed bit, or a time of last
 * reference the aging sweep or a policy refreshed meanwhile) and modified (its dirty bit, or
 * dirty and referenced: the sweep may have folded the bit into VMF_DIRTY already). Clears both
 * bits as pol_referenced does, so the frame's time of last reference and VMF_DIRTY stay right
 * for the aging clock and the policy. vm_lock held. */
static bool vm_trace_sample(uint32_t i, uint32_t since, bool *ref, bool *mod, uint32_t *seg, uint32_t *page,
                            pte_t **ptep)
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
  *ptep = pte;
  return true;
}

static void append(uint32_t seg, uint32_t page, bool ref, bool mod)
{
  if (info.records - consumed >= CAP) {
    info.lost++;
    return;
  }
  uint32_t slot = info.records % CAP;
  struct vmtrace_rec *r = &pages[slot / PER_PAGE][slot % PER_PAGE];
  r->epoch = info.epochs;
  r->seg = seg;
  r->page = page << 2 | (mod ? VMTRACE_MOD : 0) | (ref ? VMTRACE_REF : 0);
  info.records++;
}

static uint32_t *mark(uint32_t i)
{
  return &marks[i / MARKS_PER_PAGE][i % MARKS_PER_PAGE];
}

/* Records the page of frame i as the current epoch's reference (ordered mode), unless this
 * epoch has it already: then only a first write is added. */
static void record_ordered(uint32_t i, uint32_t seg, uint32_t page, bool ref, bool mod)
{
  uint32_t *m = mark(i), cur = (info.epochs + 1) << 1;
  if ((*m & ~MARK_MOD) == cur) {
    if (mod && !(*m & MARK_MOD)) {
      append(seg, page, false, true);
      *m |= MARK_MOD;
    }
    return;
  }
  append(seg, page, ref, mod);
  *m = cur | (mod ? MARK_MOD : 0);
}

/* What the bits of frame i add to the trace (vm_lock held): sampling records every page used
 * since `since`; ordered mode only what its faults did not see. */
static bool take_bits(uint32_t i, bool record)
{
  bool ref, mod;
  uint32_t seg, page;
  pte_t *pte;
  if (!vm_trace_sample(i, last_ms, &ref, &mod, &seg, &page, &pte))
    return false;
  if (record && (ref || mod)) {
    if (info.ordered)
      record_ordered(i, seg, page, ref, mod);
    else
      append(seg, page, ref, mod);
  }
  return true;
}

/* One epoch's sample (vm_lock held); record: false for the start, which only clears; hide:
 * an ordered trace goes on, so every page must fault on its first use in the next epoch. */
static void sample(bool record, bool hide)
{
  uint32_t now = uptime_ms();
  for (uint32_t i = 0; i < nframes; i++) {
    if (take_bits(i, record) && hide) {
      *frame_pte(&coremap[i]) &= ~PTE_U;
      hid_once = true;
    }
  }
  if (hide)
    lcr3(rcr3());           /* the frames' pages are mapped in many address spaces: all of them */
  if (record)
    info.epochs++;
  last_ms = now;
}

/* Every page shown again (vm_lock held): the ordered trace stops. */
static void show_all(void)
{
  for (uint32_t i = 0; i < nframes; i++) {
    struct frame *f = &coremap[i];
    if (f->pool != POOL_VM || !f->owner)
      continue;
    pte_t *pte = frame_pte(f);
    if (pte && (*pte & PTE_P) && PTE_ADDR(*pte) == frame_pa(f))
      *pte |= PTE_U;
  }
  lcr3(rcr3());
}

void vm_trace_leave(uint32_t i)
{
  if (info.on)
    take_bits(i, true);
  if (info.ordered && marks[0])
    *mark(i) = 0;
}

bool vm_trace_hiding(void)
{
  return info.on && info.ordered;
}

/* The page at va of the current process, if present: its frame and entry. vm_lock held. */
static struct frame *present(struct addrspace *as, uint32_t va, pte_t **ptep)
{
  pte_t *pte = as_walk(as, va);
  if (!pte || !(*pte & PTE_P))
    return 0;
  struct frame *f = pa_to_frame(PTE_ADDR(*pte));
  *ptep = pte;
  return PTE_ADDR(*pte) >> PGSHIFT < nframes && f->pool == POOL_VM && f->owner ? f : 0;
}

int vm_trace_fault(struct addrspace *as, uint32_t va, bool write)
{
  if (!hid_once)
    return 0;
  acquire(&vm_lock);
  pte_t *pte = 0;
  struct frame *f = present(as, va, &pte);
  int r = pte && (*pte & PTE_P) ? 0 : -1;
  if (f && !(*pte & PTE_U)) {
    *pte |= PTE_U;
    invlpg(va);
    if (info.on && info.ordered) {
      st_softfaults++;
      record_ordered(f - coremap, ((struct segment *)f->owner)->serial, f->index, true, write && (*pte & PTE_W));
    }
    r = 1;
  }
  release(&vm_lock);
  return r;
}

void vm_trace_arrived(struct addrspace *as, uint32_t va, bool write)
{
  if (!info.on || !info.ordered)
    return;
  acquire(&vm_lock);
  pte_t *pte;
  struct frame *f = present(as, va, &pte);
  if (f && info.on && info.ordered)
    record_ordered(f - coremap, ((struct segment *)f->owner)->serial, f->index, true, write);
  release(&vm_lock);
}

void vm_trace_tick(void)
{
  if (!info.on || (int32_t)(uptime_ms() - next_ms) < 0)
    return;
  sample(true, info.ordered);
  next_ms += epoch_ms;
  if ((int32_t)(uptime_ms() - next_ms) >= 0)
    next_ms = uptime_ms() + epoch_ms;     /* the daemon was late: no burst of empty epochs */
}

static void epoch_get(char *out, int len)
{
  snprintf(out, len, "%u", epoch_ms);
}

static int epoch_set(const char *v)
{
  uint32_t ms;
  if (parse_uint(v, &ms) < 0 || (ms != 0 && (ms < 100 || ms > 60000)))
    return -EINVAL;
  if (ms == 0) {
    acquire(&vm_lock);
    if (info.on)
      sample(true, false);
    if (info.ordered)
      show_all();
    info.on = 0;
    epoch_ms = 0;
    release(&vm_lock);
    return 0;
  }
  while (npages < TRACE_PAGES && frame_count(POOL_FREE) > SPARE_FRAMES) {
    void *p = kalloc_page();
    if (!p)
      break;
    pages[npages++] = p;
  }
  for (uint32_t k = 0; order_setting && k * MARKS_PER_PAGE < nframes && k < MARK_PAGES; k++) {
    if (!marks[k] && !(marks[k] = kalloc_page()))
      return -ENOMEM;
    memset(marks[k], 0, PGSIZE);
  }
  if (!npages)
    return -ENOMEM;
  acquire(&vm_lock);
  if (info.on && info.ordered)
    show_all();
  epoch_ms = ms;
  info = (struct vmtrace_info){ .epoch_ms = ms, .on = 1, .ordered = order_setting };
  consumed = 0;
  last_ms = uptime_ms();
  sample(false, info.ordered);
  next_ms = uptime_ms() + ms;
  release(&vm_lock);
  return 0;
}

int sys_vmtrace(void)
{
  uint32_t uinfo = argraw(0), ubuf = argraw(1), first = argraw(2), max = argraw(3);
  acquire(&vm_lock);
  struct vmtrace_info in = info;
  bool gone = first < consumed;
  if (!gone && first <= info.records)
    consumed = first;       /* the caller has the records before `first`: their slots are free */
  release(&vm_lock);
  if (gone)
    return -EINVAL;         /* read already, and perhaps overwritten */
  /* Records from `first` on are not overwritten while `consumed` stays at or below it, and
   * the pages stay: copied without the lock (a copy may fault). */
  uint32_t n = 0, slot = npages ? first % CAP : 0;
  if (first < in.records) {
    n = MIN(max, in.records - first);
    n = MIN(n, (uint32_t)PER_PAGE - slot % PER_PAGE);     /* from one page at a time */
  }
  int err = copy_to_user(uinfo, &in, sizeof in);
  if (err == 0 && n)
    err = copy_to_user(ubuf, &pages[slot / PER_PAGE][slot % PER_PAGE], n * sizeof(struct vmtrace_rec));
  return err < 0 ? err : (int)n;
}

static const struct setting set_epoch = {
  "vm.trace_epoch_ms", "reference trace: sample every page's bits every MS ms (100..60000; 0 stops)",
  0, 0, 0, epoch_get, epoch_set };
static const struct setting set_order = {
  "vm.trace_order", "1: the next trace records the order of each epoch's first references (soft faults)",
  &order_setting, 0, 1, 0, 0 };

static const struct counter counters[] = {
  COUNTER("vm.trace.records", &info.records),
  COUNTER("vm.trace.lost", &info.lost),
  COUNTER("vm.trace.epochs", &info.epochs),
  COUNTER("vm.trace.softfaults", &st_softfaults),
};

void vm_trace_init(void)
{
  setting_register(&set_epoch);
  setting_register(&set_order);
  stat_register_table(counters, NELEM(counters));
}
