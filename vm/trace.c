/* The reference trace: Hagmann's measurement (1991, section 4.1) inside the kernel.
 *
 * Every epoch (vm.trace_epoch_ms; he used 5 s on SunOS, by reading the kernel's page
 * structures from a user process) the aging clock's tick samples and clears the accessed and
 * dirty bits of every mapped VM page and appends, for each page referenced or modified in that
 * epoch, one record: (epoch, segment, page, referenced, modified). The guest's `trace`
 * program reads the buffer (SYS_vmtrace) and writes the text format of the host simulator
 * (tools/tracesim/trace.c); the host copies the file out of the disk image.
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
 * Writing vm.trace_epoch_ms starts a new trace (the old one is dropped; the first sample only
 * clears the bits, so references before the start are not counted); writing 0 takes a last
 * sample and stops, keeping the records for SYS_vmtrace. The buffer is TRACE_PAGES kernel pages,
 * taken at the first start while memory is plentiful and kept; records that do not fit are
 * counted (lost) and dropped.
 */
#include "kernel/klib.h"
#include "kernel/time.h"
#include "kernel/stats.h"
#include "kernel/sysctl.h"
#include "kernel/syscall.h"
#include "kernel/uapi/vmtrace.h"
#include "vm/vm.h"
#include "kernel/coremap.h"
#include "vm/paging.h"

#define TRACE_PAGES 256
#define PER_PAGE (PGSIZE / sizeof(struct vmtrace_rec))
#define SPARE_FRAMES 512       /* free frames left to everyone else when taking the buffer */

static struct vmtrace_rec *pages[TRACE_PAGES];
static uint32_t npages;
static uint32_t epoch_ms;             /* the setting: 0 off */
static struct vmtrace_info info;      /* vm_lock */
static uint32_t next_ms, last_ms;     /* the next sample is due at next_ms; the last was at last_ms */

/* Whether frame i holds a mapped VM page (its segment's serial and page number in *seg, *page),
 * and whether that page was referenced since ms `since` (its accessed bit, or a time of last
 * reference the aging sweep or a policy refreshed meanwhile) and modified (its dirty bit, or
 * dirty and referenced: the sweep may have folded the bit into VMF_DIRTY already). Clears both
 * bits as pol_referenced does, so the frame's time of last reference and VMF_DIRTY stay right
 * for the aging clock and the policy. vm_lock held. */
static bool vm_trace_sample(uint32_t i, uint32_t since, bool *ref, bool *mod, uint32_t *seg, uint32_t *page)
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

static void append(uint32_t seg, uint32_t page, bool ref, bool mod)
{
  if (info.records >= npages * PER_PAGE) {
    info.lost++;
    return;
  }
  struct vmtrace_rec *r = &pages[info.records / PER_PAGE][info.records % PER_PAGE];
  r->epoch = info.epochs;
  r->seg = seg;
  r->page = page << 2 | (mod ? VMTRACE_MOD : 0) | (ref ? VMTRACE_REF : 0);
  info.records++;
}

/* One epoch's sample (vm_lock held); record: false for the start, which only clears. */
static void sample(bool record)
{
  uint32_t now = uptime_ms();
  for (uint32_t i = 0; i < nframes; i++) {
    bool ref, mod;
    uint32_t seg, page;
    if (vm_trace_sample(i, last_ms, &ref, &mod, &seg, &page) && record && (ref || mod))
      append(seg, page, ref, mod);
  }
  if (record)
    info.epochs++;
  last_ms = now;
}

void vm_trace_leave(uint32_t i)
{
  bool ref, mod;
  uint32_t seg, page;
  if (info.on && vm_trace_sample(i, last_ms, &ref, &mod, &seg, &page) && (ref || mod))
    append(seg, page, ref, mod);
}

void vm_trace_tick(void)
{
  if (!info.on || (int32_t)(uptime_ms() - next_ms) < 0)
    return;
  sample(true);
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
      sample(true);
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
  if (!npages)
    return -ENOMEM;
  acquire(&vm_lock);
  epoch_ms = ms;
  info = (struct vmtrace_info){ .epoch_ms = ms, .on = 1 };
  last_ms = uptime_ms();
  sample(false);
  next_ms = uptime_ms() + ms;
  release(&vm_lock);
  return 0;
}

int sys_vmtrace(void)
{
  uint32_t uinfo = argraw(0), ubuf = argraw(1), first = argraw(2), max = argraw(3);
  acquire(&vm_lock);
  struct vmtrace_info in = info;
  release(&vm_lock);
  /* Records already written do not change until the next start, and the pages stay: copied
   * without the lock (a copy may fault). */
  uint32_t n = 0;
  if (first < in.records) {
    n = MIN(max, in.records - first);
    n = MIN(n, (uint32_t)PER_PAGE - first % PER_PAGE);     /* from one page at a time */
  }
  int err = copy_to_user(uinfo, &in, sizeof in);
  if (err == 0 && n)
    err = copy_to_user(ubuf, &pages[first / PER_PAGE][first % PER_PAGE], n * sizeof(struct vmtrace_rec));
  return err < 0 ? err : (int)n;
}

static const struct setting set_epoch = {
  "vm.trace_epoch_ms", "reference trace: sample every page's bits every MS ms (100..60000; 0 stops)",
  0, 0, 0, epoch_get, epoch_set };

static const struct counter counters[] = {
  COUNTER("vm.trace.records", &info.records),
  COUNTER("vm.trace.lost", &info.lost),
  COUNTER("vm.trace.epochs", &info.epochs),
};

void vm_trace_init(void)
{
  setting_register(&set_epoch);
  stat_register_table(counters, NELEM(counters));
}
