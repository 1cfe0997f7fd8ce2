/* Write ordering: what may reach stable storage before what.
 *
 * A disk with a volatile write cache (and QEMU's, at a power cut) keeps the writes it has
 * acknowledged only once a flush after them has completed; until then any subset of them
 * may be lost, in any order. The cleaners write blocks in no particular order, so two
 * rules, in the manner of soft updates, keep every state a power cut can leave both
 * repairable and honest:
 *
 *   1. A pointer never reaches the disk before the block it points to. A block allocated
 *      for a file is "new" until its contents have been written and a flush has completed
 *      after that write. When a descriptor block or an indirect block is written while
 *      some pointer in it still names a new block, the disk gets a copy with that pointer
 *      cleared (a hole, read as zeros), and the cached block stays dirty, keeping its age,
 *      so the next write-back after the flush puts the real pointer out. A file therefore
 *      never shows another file's old bytes, nor stale pointers in a fresh indirect block.
 *
 *   2. A block or a descriptor is not handed out again before the change that let go of
 *      it (a cleared pointer, a removed directory entry) is on stable storage: fs/alloc.c
 *      keeps freed ones pending until then. Two files on disk never name one block, and a
 *      stale name never reaches a reused descriptor.
 *
 * Together with fsync's order (the file's data and directory, a flush, then the metadata
 * that names them, a flush) these make an fsync'ed file survive any later power cut, and
 * the repairing mount (fs/repair.c) only ever has to drop what was never promised.
 *
 * This file keeps rule 1's bookkeeping: a bit per disk block that is new, a bit per new
 * block written since the last flush began, and the filter applied to pointer blocks on
 * their way to the disk. Its lock is innermost (taken under cache_lock).
 */
#include "fs/ordering.h"
#include "fs/bitset.h"
#include "fs/layout.h"
#include "kernel/klib.h"
#include "kernel/spinlock.h"
#include "kernel/mem/coremap.h"

static struct spinlock order_lock;
static struct bitset newbits;       /* allocated, contents not yet on stable storage */
static struct bitset wrotebits;     /* new and written since the last flush began */
static struct bitset flushing;      /* what the flush in progress makes durable */
static uint32_t desc_lo, desc_hi, data_start;
static bool ready;

void order_init(const struct fs_super *sb)
{
  initlock(&order_lock, "ordering");
  desc_lo = sb->desc_start;
  desc_hi = sb->desc_start + sb->desc_blocks;
  data_start = sb->data_start;
  ready = bitset_init(&newbits, sb->nblocks) && bitset_init(&wrotebits, sb->nblocks) &&
          bitset_init(&flushing, sb->nblocks);
  if (!ready)
    kprintf("fs: no memory to order writes: a power cut may show stale blocks\n");
}

/* Block b starts (allocated) or stops (freed) being new; no write of it counts yet. */
static void mark_new(uint32_t b, bool v)
{
  if (!ready)
    return;
  acquire(&order_lock);
  bitset_set(&newbits, b, v);
  bitset_set(&wrotebits, b, false);
  release(&order_lock);
}

void order_new(uint32_t b) { mark_new(b, true); }
void order_forget(uint32_t b) { mark_new(b, false); }

void order_written(uint32_t b)
{
  if (!ready)
    return;
  acquire(&order_lock);
  if (bitset_get(&newbits, b))
    bitset_set(&wrotebits, b, true);
  release(&order_lock);
}

void order_flush_begin(void)
{
  if (!ready)
    return;
  acquire(&order_lock);
  bitset_move(&flushing, &wrotebits);     /* flushing is empty between flushes */
  release(&order_lock);
}

void order_flush_end(bool ok)
{
  if (!ready)
    return;
  acquire(&order_lock);
  for (uint32_t w = 0; w < bitset_words(&flushing); w++) {
    uint32_t f = *bitset_word(&flushing, w);
    if (ok)
      *bitset_word(&newbits, w) &= ~f;    /* on stable storage: no longer new */
    else
      *bitset_word(&wrotebits, w) |= f;   /* the next flush tries again */
    *bitset_word(&flushing, w) = 0;
  }
  release(&order_lock);
}

bool order_holds_pointers(uint32_t diskaddr)
{
  return (diskaddr >= desc_lo && diskaddr < desc_hi) || diskaddr >= data_start;
}

/* Clears *p in the copy when it names a new block; true if it did. */
static bool filter(uint32_t *p)
{
  if (*p && bitset_get(&newbits, *p)) {
    *p = 0;
    return true;
  }
  return false;
}

bool order_filter(uint32_t diskaddr, const uint8_t *data, uint8_t *copy)
{
  if (!ready || !order_holds_pointers(diskaddr))
    return false;
  bool changed = false;
  memcpy(copy, data, FS_BSIZE);
  acquire(&order_lock);
  if (diskaddr < data_start) {
    for (uint32_t j = 0; j < FS_DESCS_PER_BLOCK; j++) {
      struct fs_desc *d = (struct fs_desc *)(copy + j * FS_DESC_SIZE);
      if (d->type != FS_T_FILE && d->type != FS_T_DIR)
        continue;
      for (uint32_t i = 0; i < FS_NDIRECT; i++)
        changed |= filter(&d->direct[i]);
      changed |= filter(&d->indirect);
      changed |= filter(&d->dindirect);
    }
  } else {
    uint32_t *slot = (uint32_t *)copy;
    for (uint32_t i = 0; i < FS_NINDIRECT; i++)
      changed |= filter(&slot[i]);
  }
  release(&order_lock);
  return changed;
}
