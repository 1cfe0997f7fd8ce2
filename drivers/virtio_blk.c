/* The disk: virtio-blk through QEMU's transitional device (1af4:1001), legacy PCI interface.
 *
 * One virtqueue. A request is a chain of descriptors: the request header, its data buffers
 * (one for a buffer contiguous in physical memory; several, up to DISK_MAX_SEGS, when it
 * gathers 4 KB frames that lie anywhere, as a cluster of cache blocks or VM pages does), the
 * status byte the device writes back. A flush has no data and chains the header straight to
 * the status descriptor. Each slot owns the descriptors of one chain, so the free list is a
 * list of slots and the head descriptor the device returns in the used ring names the slot.
 * With indirect descriptors (VIRTIO_RING_F_INDIRECT_DESC, which QEMU offers), a slot's chain
 * lies in a table of its own and takes one ring descriptor (slot s: descriptor s, so 85 slots
 * whatever the chain's length); without them it takes DISK_MAX_SEGS + 2 descriptors of the
 * ring itself, and fewer requests fit. A device that sets VIRTIO_BLK_F_SEG_MAX may take fewer
 * buffers a request: disk_max_segs() says how many, and the callers that gather (fs/cluster.c,
 * the read-ahead, the VM's page-out) ask it.
 *
 * Each request counts as one of disk.reads or disk.writes whatever its size, and its bytes
 * go to disk.read_kb or disk.write_kb: requests and bytes are what a 1990 disk charged for
 * separately (a seek and rotation per request, a transfer per byte), and what QEMU's
 * throttle charges (tools/runqemu.py: iops-total and bps-total).
 *
 * Submission puts the chain on the available ring, kicks the device and returns. The
 * interrupt handler walks the used ring and completes each request: status, complete flag,
 * wakeup(r), then the optional done callback. While requests complete, nothing in the I/O
 * path polls the device: a waiter sleeps, or, before there is any process to sleep (early
 * boot), halts with interrupts on until the completion interrupt arrives. Only when requests
 * are in flight and none has completed for a second does the watchdog (below) look itself.
 *
 * Why no completion is lost on the way in, step by step:
 *  - The device's side of notification: we publish avail->idx, then (full barrier) read
 *    used->flags and kick unless NO_NOTIFY is set. The device (QEMU's virtio_blk_handle_vq)
 *    sets NO_NOTIFY while it drains the ring, then clears it, then (barrier) looks at
 *    avail->idx once more. Each side writes before it reads, so at least one of the two sees
 *    the other: either we kick or the device's last look finds our entry.
 *  - The interrupt: the legacy device raises INTx while its ISR byte is non-zero, and reading
 *    ISR clears it and lowers the line. The handler reads ISR first and walks the ring after:
 *    a completion that lands after the read sets ISR again and raises the line again, so it
 *    gets an interrupt of its own even if the walk already took it (the second walk finds
 *    nothing). Reading ISR after the walk would be the bug: a completion between the walk's
 *    last look at used->idx and the read would be acknowledged and never seen.
 *  - The PIC: the BIOS marks the PCI lines level-triggered in the ELCR (0x4d1 reads 0x0c:
 *    IRQ 10 and 11), which our ICW1 leaves alone, and trap() sends the EOI only after every
 *    handler has run, so a line still high at the EOI is delivered again. The cascade input
 *    (IRQ 2 of the master) is edge-triggered, but the slave lowers its output once it has
 *    delivered and raises it again at the slave's EOI if anything is pending, which the
 *    master then sees as a new edge. Nothing masks the disk's line after irq_register.
 * None of these steps leaves a hole. Still, a device or host may lose an interrupt or a notify
 * once in a long while (an fsync asleep for ever on its own request, disk.inflight=1, the
 * machine idle, is what that looks like), and a real driver does not trust either to arrive:
 * Linux's blk-mq times requests out. Hence the watchdog.
 *
 * The watchdog: the timer calls disk_watchdog at every tick; it returns at once unless
 * requests are in flight and the last completion (or the submission that ended an idle
 * spell) is older than a second. Then it does what the interrupt handler does (reads ISR,
 * walks the used ring: a lost interrupt is recovered here) and, if requests are still out,
 * notifies the device again whatever NO_NOTIFY says (a lost or skipped notify is recovered
 * there). It says so once on the console per stall and counts it (disk.stalls, and
 * disk.stalls.polled for requests found by its walk, disk.stalls.kicks for its notifies);
 * a stall that lasts gets a notify every second, quietly. To tell a lost notify from a
 * device merely slow (a host flush can take seconds): disk.stalls.no_notify counts stalls
 * during which the device said NO_NOTIFY, disk.notify_skipped the submissions that did not
 * notify because of it, disk.stalls.after_skip the stalls where one of the stuck requests
 * was such a submission (else the device lost a notify we sent), and disk.stalls.kick_ms is how long after the watchdog's notify the
 * next completion came (a few ms: the notify was what the device lacked). It runs in the
 * timer interrupt rather than in a daemon because a daemon may itself be asleep behind the
 * stuck request.
 * debug.disk_lose_irq and debug.disk_lose_notify (test only) plant each loss.
 *
 * Locking: disk_lock (a spinlock, so interrupts are off while held) protects the ring, the
 * slot table and the counters. The interrupt handler takes it too; it drops it before waking
 * sleepers and calling done callbacks, so a callback may submit a new request. (Only while
 * a slot is free, though: a full ring makes disk_submit wait, which a callback, running in
 * the interrupt handler, must not do. disk_inflight() < 85 tells.)
 */
#include "kernel/types.h"
#include "kernel/x86.h"
#include "kernel/klib.h"
#include "kernel/memlayout.h"
#include "kernel/spinlock.h"
#include "kernel/trap.h"
#include "kernel/stats.h"
#include "kernel/time.h"
#include "kernel/cmdline.h"
#include "kernel/sysctl.h"
#include "kernel/uapi/errno.h"
struct procinfo;                  /* proc.h names it in a prototype without declaring it */
#include "kernel/proc.h"
#include "kernel/mem/coremap.h"
#include "drivers/pci.h"
#include "drivers/virtio.h"
#include "drivers/disk.h"
#include "drivers/virtio_blk.h"

/* QEMU 7.2 gives virtio-blk a 256-entry queue; a legacy driver cannot choose another size,
 * so the ring area is sized for the largest queue we accept. */
#define QMAX      256
#define NSLOT_MAX (QMAX / 3)
#define CHAIN     (DISK_MAX_SEGS + 2)     /* descriptors of the longest chain */
#define RING_BYTES (PGROUNDUP(16 * QMAX + 6 + 2 * QMAX) + PGROUNDUP(6 + 8 * QMAX))

/* The legacy device takes one physical page number for the whole ring, so the area must be
 * physically contiguous: a page-aligned array in the kernel image is (it is direct-mapped). */
static uint8_t ring_area[RING_BYTES] __attribute__((aligned(PGSIZE)));

static struct spinlock disk_lock;
static bool present;
static uint16_t iobase;
static uint64_t capacity;         /* sectors */
static uint32_t qnum;             /* queue size the device reported */
static uint32_t nslots;
static bool has_flush;
static bool indirect;             /* chains in per-slot tables (VIRTIO_RING_F_INDIRECT_DESC) */
static uint32_t max_segs = 1;     /* buffers a request may gather */

static struct vring_desc *desc;
static volatile struct vring_avail *avail;
static volatile struct vring_used *used;
static uint16_t avail_idx;        /* our copy of avail->idx */
static uint16_t last_used;        /* next used-ring entry to look at */

/* Per slot: what the device reads and writes besides the data (must be DMA-able, which
 * anything in the kernel image is), and the request it belongs to. */
static struct virtio_blk_req_hdr hdrs[NSLOT_MAX];
static struct vring_desc itab[NSLOT_MAX][CHAIN] __attribute__((aligned(16)));  /* indirect */
static volatile uint8_t statuses[NSLOT_MAX];
static struct disk_req *slot_req[NSLOT_MAX];
static int free_slot[NSLOT_MAX];  /* a stack of free slot numbers */
static int nfree;
static int slot_waiters;          /* submitters sleeping for a free slot */

static uint32_t inflight;
uint32_t st_requests, st_inflight_max;     /* shared with the self-test */
static uint32_t st_reads, st_writes, st_flushes, st_errors;
static uint32_t st_read_kb, st_write_kb, st_segs_max;
static uint32_t read_bytes, write_bytes;   /* below a KB, carried to the next request */
/* The disk's busy time: milliseconds during which at least one request was in flight, the
 * utilisation of a server (WRL 90/4's Figures 1 and 3 plot its CPU's) seen from the client.
 * Requests overlapping each other count once. busy_since: when the current spell began. */
static uint32_t st_busy_ms, busy_since;

/* The watchdog (disk_watchdog): when the last completion, or the submission that ended an
 * idle spell, is older than this while requests are in flight. */
#define STALL_MS 1000
static uint32_t last_progress;    /* uptime_ms() of it */
static bool stalled;              /* said so on the console; quiet until something completes */
static uint32_t st_stalls, st_stall_polled, st_stall_kicks;
/* For telling a lost notify from a slow device: notifies left out because the device said
 * NO_NOTIFY, stalls during which it said so, and how long after the watchdog's notify the
 * next completion came (a few ms: the notify was what it lacked). */
static uint32_t st_notify_skipped, st_stall_no_notify, st_kick_ms, kick_at;
static bool skipped_notify[NSLOT_MAX];     /* this slot's submission left the notify out */
static uint32_t st_stall_after_skip;       /* stalls with such a request among the stuck */
/* debug.disk_lose_irq and debug.disk_lose_notify: the settings (what was last asked for, as
 * sysctl reads it back) and what is left of them (counters). */
static uint32_t lose_irq_set, lose_notify_set;
static uint32_t lose_irqs, lose_notifies;

/* A full barrier: the device must see the descriptors before the index that publishes them,
 * and we must read the device's NO_NOTIFY flag only after publishing. */
static inline void mb(void) { __sync_synchronize(); }

/* Waits, with disk_lock held, until something changes (a completion or a freed slot);
 * returns with disk_lock held again. Callers re-check their condition.
 *
 * With a process: sleep on chan (releases disk_lock atomically). Before the scheduler runs
 * there is no process to put to sleep, so we halt with interrupts enabled. `sti; hlt` is
 * atomic (sti takes effect only after the next instruction), so a completion that arrived
 * while we held the lock is still pending and ends the hlt at once instead of being missed.
 * Any other interrupt (the timer) ends it too; the caller then just checks again. */
static void wait_event(void *chan)
{
  if (myproc()) {
    sleep(chan, &disk_lock);
    return;
  }
  pushcli();                    /* keep interrupts off while the lock is let go */
  release(&disk_lock);
  __asm__ volatile("sti; hlt; cli" ::: "memory");
  acquire(&disk_lock);
  popcli();
}

static void complete_now(struct disk_req *r, int status)
{
  r->status = status;
  r->complete = 1;
  wakeup(r);
  if (r->done)
    r->done(r);
}

void disk_submit(struct disk_req *r)
{
  r->complete = 0;
  r->status = 0;

  if (!present) {
    /* No device will ever answer: fail at once (the callback, if any, runs here, in the
     * submitter's context). */
    complete_now(r, -EIO);
    return;
  }
  if (r->op == DISK_FLUSH && !has_flush) {
    /* A device without a flush command has no write cache: every completed write is
     * already durable, so there is nothing to wait for. */
    complete_now(r, 0);
    return;
  }
  if (r->op != DISK_FLUSH) {
    KASSERT(r->nbytes > 0 && r->nbytes % SECTOR_SIZE == 0);
    KASSERT(r->nsegs <= max_segs);
    uint32_t total = 0;
    for (uint32_t i = 0; i < (r->nsegs ? r->nsegs : 1); i++) {
      uint32_t va = (uint32_t)(r->nsegs ? r->segs[i].buf : r->buf);
      uint32_t len = r->nsegs ? r->segs[i].nbytes : r->nbytes;
      KASSERT(len > 0 && len % SECTOR_SIZE == 0);
      KASSERT(va >= KERNBASE && va + len - 1 <= KERNBASE + PHYSTOP_MAX - 1);
      total += len;
    }
    KASSERT(total == r->nbytes);
  }

  acquire(&disk_lock);
  while (nfree == 0) {
    slot_waiters++;
    wait_event(&nfree);
    slot_waiters--;
  }
  int s = free_slot[--nfree];
  slot_req[s] = r;

  struct virtio_blk_req_hdr *h = &hdrs[s];
  /* The chain: in the slot's own table (indirect), or in the ring at the slot's place. */
  struct vring_desc *d = indirect ? itab[s] : &desc[CHAIN * s];
  uint16_t base = indirect ? 0 : CHAIN * s;
  h->reserved = 0;
  switch (r->op) {
  case DISK_READ:  h->type = VIRTIO_BLK_T_IN;    h->sector = r->sector; st_reads++;   break;
  case DISK_WRITE: h->type = VIRTIO_BLK_T_OUT;   h->sector = r->sector; st_writes++;  break;
  default:         h->type = VIRTIO_BLK_T_FLUSH; h->sector = 0;         st_flushes++; break;
  }
  statuses[s] = 0xFF;           /* anything but OK, should the device not write it */

  uint32_t n = 0;
  d[n].addr = V2P(h);
  d[n].len = sizeof *h;
  d[n].flags = VRING_DESC_F_NEXT;
  n++;
  if (r->op != DISK_FLUSH) {
    uint16_t dir = r->op == DISK_READ ? VRING_DESC_F_WRITE : 0;
    uint32_t nseg = r->nsegs ? r->nsegs : 1;
    for (uint32_t i = 0; i < nseg; i++, n++) {
      d[n - 1].next = base + n;
      d[n].addr = V2P(r->nsegs ? r->segs[i].buf : r->buf);
      d[n].len = r->nsegs ? r->segs[i].nbytes : r->nbytes;
      d[n].flags = VRING_DESC_F_NEXT | dir;
    }
    uint32_t *kb = r->op == DISK_READ ? &st_read_kb : &st_write_kb;
    uint32_t *part = r->op == DISK_READ ? &read_bytes : &write_bytes;
    *part += r->nbytes;
    *kb += *part / 1024;
    *part %= 1024;
    if (nseg > st_segs_max)
      st_segs_max = nseg;
  }
  d[n - 1].next = base + n;
  d[n].addr = V2P(&statuses[s]);
  d[n].len = 1;
  d[n].flags = VRING_DESC_F_WRITE;
  d[n].next = 0;
  n++;
  uint16_t head = base;
  if (indirect) {
    /* The ring's descriptor only points at the table (neither NEXT nor WRITE may be set). */
    desc[s].addr = V2P(itab[s]);
    desc[s].len = n * sizeof(struct vring_desc);
    desc[s].flags = VRING_DESC_F_INDIRECT;
    desc[s].next = 0;
    head = s;
  }

  avail->ring[avail_idx % qnum] = head;
  mb();
  avail->idx = ++avail_idx;
  mb();

  st_requests++;
  if (inflight++ == 0)
    last_progress = busy_since = uptime_ms();
  if (inflight > st_inflight_max)
    st_inflight_max = inflight;

  skipped_notify[s] = true;
  if (lose_notifies) {
    lose_notifies--;            /* test only: as if NO_NOTIFY had been read stale */
  } else if (!(used->flags & VRING_USED_F_NO_NOTIFY)) {
    outw(iobase + VIRTIO_PCI_QUEUE_NOTIFY, 0);
    skipped_notify[s] = false;
  } else {
    st_notify_skipped++;
  }
  release(&disk_lock);
}

int disk_wait(struct disk_req *r)
{
  if (!present)
    return r->status;           /* completed (with -EIO) in disk_submit */
  acquire(&disk_lock);
  while (!r->complete)
    wait_event(r);
  release(&disk_lock);
  return r->status;
}

int disk_rw(enum disk_op op, uint64_t sector, void *buf, uint32_t nbytes)
{
  struct disk_req r;
  memset(&r, 0, sizeof r);
  r.op = op;
  r.sector = sector;
  r.buf = buf;
  r.nbytes = nbytes;
  disk_submit(&r);
  return disk_wait(&r);
}

/* Completes every request the device has put on the used ring since we last looked; returns
 * how many. Called with interrupts off (an interrupt handler), disk_lock not held. */
static uint32_t reap(void)
{
  uint32_t n = 0;
  for (;;) {
    acquire(&disk_lock);
    if (last_used == used->idx) {
      release(&disk_lock);
      break;
    }
    mb();                       /* read the entry only after seeing the index move */
    uint32_t id = used->ring[last_used % qnum].id;
    last_used++;
    uint32_t s = indirect ? id : id / CHAIN;
    KASSERT((indirect || id % CHAIN == 0) && s < nslots);
    struct disk_req *r = slot_req[s];
    KASSERT(r != 0);
    uint8_t st = statuses[s];
    slot_req[s] = 0;
    free_slot[nfree++] = s;
    n++;
    last_progress = uptime_ms();
    if (--inflight == 0)
      st_busy_ms += last_progress - busy_since;
    stalled = false;
    if (kick_at) {
      st_kick_ms = last_progress - kick_at;
      kick_at = 0;
    }
    if (st != VIRTIO_BLK_S_OK)
      st_errors++;
    release(&disk_lock);

    if (st != VIRTIO_BLK_S_OK)
      kprintf("virtio-blk: %s of sector %llu failed (status %d)\n",
              r->op == DISK_READ ? "read" : r->op == DISK_WRITE ? "write" : "flush",
              (unsigned long long)r->sector, st);
    /* After done() the request may be reused or freed by its owner: touch it no more. */
    complete_now(r, st == VIRTIO_BLK_S_OK ? 0 : -EIO);
  }
  if (n && slot_waiters)
    wakeup(&nfree);
  return n;
}

static void disk_intr(void *arg)
{
  (void)arg;
  /* Reading ISR acknowledges the interrupt and deasserts the (level-triggered, possibly
   * shared) line. If the queue bit is clear the interrupt was another device's or a
   * configuration change; walking an unchanged used ring below costs nothing. Reading it
   * before the walk matters: a completion that lands after the read raises the line again,
   * so the next interrupt finds it; read after the walk, it could be acknowledged unseen. */
  uint8_t isr = inb(iobase + VIRTIO_PCI_ISR);
  if ((isr & VIRTIO_ISR_QUEUE) && lose_irqs) {
    lose_irqs--;                /* test only: an interrupt lost on its way */
    return;
  }
  reap();
}

/* Called by the timer at every tick: cheap unless requests are in flight and nothing has
 * completed for STALL_MS. Then it does what the interrupt handler would have done (the
 * interrupt may be the thing lost) and, if requests are still out, notifies the device again
 * regardless of its NO_NOTIFY flag (the notify may be the thing lost). */
void disk_watchdog(void)
{
  uint32_t now = uptime_ms();
  if (inflight == 0 || now - last_progress < STALL_MS)
    return;
  uint32_t waited = now - last_progress, before = inflight;
  bool quiet = stalled;
  (void)inb(iobase + VIRTIO_PCI_ISR);   /* as disk_intr: a stuck-high line gets its edge back */
  uint32_t got = reap();
  st_stall_polled += got;
  if (!quiet) {
    st_stalls++;
    if (used->flags & VRING_USED_F_NO_NOTIFY)
      st_stall_no_notify++;
    for (uint32_t s = 0; s < nslots; s++)
      if (slot_req[s] && skipped_notify[s]) {
        st_stall_after_skip++;
        break;
      }
    kprintf("virtio-blk: no completion for %u s (%u in flight): polled, %u recovered%s\n",
            waited / 1000, before, got, inflight ? ", notified the device again" : "");
  }
  acquire(&disk_lock);
  if (inflight) {
    st_stall_kicks++;
    stalled = true;
    kick_at = now ? now : 1;
    outw(iobase + VIRTIO_PCI_QUEUE_NOTIFY, 0);
  }
  last_progress = now;          /* the next look, if still stuck, is STALL_MS from now */
  release(&disk_lock);
}

/* debug.disk_lose_irq=N: the next N completion interrupts are acknowledged and ignored, as if
 * lost; debug.disk_lose_notify=N: the next N submissions do not notify the device, as if it
 * had said NO_NOTIFY. So a test can see the watchdog recover from each. Refused, like the
 * VM's damage, unless debug.corrupt=1 (its boot key is read from the command line: the VM
 * registers the setting after the disk). */
static bool debug_allowed(void)
{
  char v[16];
  if (sysctl("debug.corrupt", 0, v, sizeof v) == 0)
    return strcmp(v, "1") == 0;
  const char *c = cmdline_get("debug.corrupt", 0);
  return c && strcmp(c, "1") == 0;
}

static int set_debug(uint32_t *setting, uint32_t *left, const char *value)
{
  uint32_t v;
  if (parse_uint(value, &v) < 0)
    return -EINVAL;
  if (v && !debug_allowed())
    return -EPERM;
  *setting = *left = v;
  return 0;
}
static int set_lose_irqs(const char *v) { return set_debug(&lose_irq_set, &lose_irqs, v); }
static int set_lose_notifies(const char *v) { return set_debug(&lose_notify_set, &lose_notifies, v); }

static const struct setting debug_settings[] = {
  { "debug.disk_lose_irq", "N: ignore the next N disk completion interrupts (needs debug.corrupt=1)",
    &lose_irq_set, 0, 1000, 0, set_lose_irqs },
  { "debug.disk_lose_notify", "N: do not notify the disk of the next N requests (needs debug.corrupt=1)",
    &lose_notify_set, 0, 1000, 0, set_lose_notifies },
};

static uint32_t busy_ms(void);

static const struct counter counters[] = {
  COUNTER("disk.requests", &st_requests),
  COUNTER("disk.reads", &st_reads),
  COUNTER("disk.writes", &st_writes),
  COUNTER("disk.flushes", &st_flushes),
  COUNTER("disk.read_kb", &st_read_kb),
  COUNTER("disk.write_kb", &st_write_kb),
  COUNTER("disk.segs.max", &st_segs_max),
  COUNTER("disk.errors", &st_errors),
  COUNTER("disk.inflight.max", &st_inflight_max),
  COUNTER_FN("disk.inflight", disk_inflight),
  COUNTER_FN("disk.busy_ms", busy_ms),
  COUNTER("disk.stalls", &st_stalls),
  COUNTER("disk.stalls.polled", &st_stall_polled),
  COUNTER("disk.stalls.kicks", &st_stall_kicks),
  COUNTER("disk.stalls.no_notify", &st_stall_no_notify),
  COUNTER("disk.stalls.kick_ms", &st_kick_ms),
  COUNTER("disk.stalls.after_skip", &st_stall_after_skip),
  COUNTER("disk.notify_skipped", &st_notify_skipped),
  COUNTER("disk.debug.irqs_to_lose", &lose_irqs),
  COUNTER("disk.debug.notifies_to_lose", &lose_notifies),
};

int disk_init(void)
{
  initlock(&disk_lock, "disk");
  stat_register_table(counters, NELEM(counters));
  setting_register_table(debug_settings, NELEM(debug_settings));
  disk_ceiling_init();

  struct pci_dev *d = pci_find(VIRTIO_VENDOR, VIRTIO_DEV_BLK_LEGACY);
  if (!d) {
    kprintf("virtio-blk: no disk\n");
    return -1;
  }
  if (!pci_bar_is_io(d, 0) || d->irq_line == 0xFF || d->irq_line >= 16) {
    kprintf("virtio-blk: no disk (device %02x:%02x.%x has no I/O BAR0 or no legacy irq)\n",
            d->bus, d->dev, d->fn);
    return -1;
  }
  pci_enable(d, PCI_CMD_IO | PCI_CMD_MASTER);
  iobase = pci_bar_addr(d, 0);

  /* Reset, then the legacy start-up sequence: acknowledge, driver, features, queue,
   * driver-ok. (Legacy devices have no FEATURES_OK step.) */
  outb(iobase + VIRTIO_PCI_STATUS, 0);
  uint8_t status = VIRTIO_STATUS_ACKNOWLEDGE;
  outb(iobase + VIRTIO_PCI_STATUS, status);
  status |= VIRTIO_STATUS_DRIVER;
  outb(iobase + VIRTIO_PCI_STATUS, status);

  uint32_t offered = inl(iobase + VIRTIO_PCI_HOST_FEATURES);
  uint32_t accepted = offered & ((1u << VIRTIO_BLK_F_FLUSH) | (1u << VIRTIO_BLK_F_SEG_MAX) |
                                 (1u << VIRTIO_RING_F_INDIRECT_DESC));
  outl(iobase + VIRTIO_PCI_GUEST_FEATURES, accepted);
  has_flush = accepted & (1u << VIRTIO_BLK_F_FLUSH);
  indirect = accepted & (1u << VIRTIO_RING_F_INDIRECT_DESC);
  max_segs = DISK_MAX_SEGS;
  if (accepted & (1u << VIRTIO_BLK_F_SEG_MAX)) {
    uint32_t seg_max = inl(iobase + VIRTIO_PCI_CONFIG + VIRTIO_BLK_CFG_SEG_MAX);
    max_segs = MAX(1u, MIN(seg_max, (uint32_t)DISK_MAX_SEGS));
  }

  outw(iobase + VIRTIO_PCI_QUEUE_SEL, 0);
  qnum = inw(iobase + VIRTIO_PCI_QUEUE_NUM);
  if (qnum < 3 || qnum > QMAX || vring_size(qnum) > sizeof ring_area) {
    kprintf("virtio-blk: no disk (queue size %u unsupported)\n", qnum);
    outb(iobase + VIRTIO_PCI_STATUS, status | VIRTIO_STATUS_FAILED);
    return -1;
  }
  memset(ring_area, 0, sizeof ring_area);
  desc = (struct vring_desc *)ring_area;
  avail = (volatile struct vring_avail *)(ring_area + 16 * qnum);
  used = (volatile struct vring_used *)(ring_area + PGROUNDUP(16 * qnum + 6 + 2 * qnum));
  avail_idx = 0;
  last_used = 0;
  nslots = MIN(indirect ? qnum : qnum / CHAIN, (uint32_t)NSLOT_MAX);
  nfree = 0;
  for (int s = nslots - 1; s >= 0; s--)
    free_slot[nfree++] = s;
  outl(iobase + VIRTIO_PCI_QUEUE_PFN, V2P(ring_area) >> PGSHIFT);

  /* Legacy configuration space is in guest byte order: two little-endian halves. */
  capacity = inl(iobase + VIRTIO_PCI_CONFIG + VIRTIO_BLK_CFG_CAPACITY) |
             (uint64_t)inl(iobase + VIRTIO_PCI_CONFIG + VIRTIO_BLK_CFG_CAPACITY + 4) << 32;

  /* The handler must be in place before the device may interrupt. */
  irq_register(d->irq_line, disk_intr, 0);
  present = true;
  status |= VIRTIO_STATUS_DRIVER_OK;
  outb(iobase + VIRTIO_PCI_STATUS, status);

  kprintf("virtio-blk: %u MB (%llu sectors), irq %d, queue %u, %u requests of %u buffers%s%s\n",
          (uint32_t)(capacity >> 11), (unsigned long long)capacity, d->irq_line, qnum, nslots, max_segs,
          has_flush ? ", flush" : "",
          (offered & (1u << VIRTIO_BLK_F_RO)) ? ", read-only" : "");
  if (capacity == 0)
    kprintf("virtio-blk: the disk is empty: every read and write will fail\n");
  disktest_start();
  return 0;
}

bool disk_present(void)
{
  return present;
}

uint64_t disk_sectors(void)
{
  return capacity;
}

uint32_t disk_inflight(void)
{
  return inflight;
}

uint32_t disk_max_segs(void)
{
  return max_segs;
}

/* The busy time so far, the spell under way included. */
static uint32_t busy_ms(void)
{
  acquire(&disk_lock);
  uint32_t ms = st_busy_ms + (inflight ? uptime_ms() - busy_since : 0);
  release(&disk_lock);
  return ms;
}
