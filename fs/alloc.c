/* The block and descriptor allocator: the free-block bitmap, the descriptor area, the free
 * counts, and the pending frees. Locking: alloc_lock (fs/internal.h).
 *
 * A file's new block goes next to the one it was given last (thesis 3.4), and a new
 * descriptor near its directory's own, so that one directory's descriptors share blocks and
 * go to the disk together (thesis 3.4 and 5). The last fs.backing_reserve blocks are for the
 * VM's backing files only: a full disk must still let the VM start a process, or nobody
 * could run `rm` to free space.
 *
 * Pending frees (fs/ordering.c, rule 2): a block or descriptor let go of is not handed out
 * again until the change that let go of it (a cleared pointer, a removed directory entry) is
 * on stable storage: were it reused first, a power cut could leave the old file's pointer or
 * name on disk beside the new owner's, and the repair could give the new owner's data to the
 * old file. Frees collect in the young generation; a cut (each daemon scan, each sync) makes
 * it old, stamped with the latest dirty sequence number (merging into an old generation
 * still waiting, with the newer stamp); once every change dirtied up to the stamp is durable
 * (cache_durable_seq, moved on by each flush) the old generation is freed for real: bitmap
 * bits cleared, free counts raised. Backing files are exempt: the repair empties /swap, so
 * their stale names and pointers never count.
 */
#include "fs/internal.h"
#include "fs/fs.h"
#include "kernel/klib.h"
#include "kernel/sysctl.h"
#include "kernel/stats.h"
#include "kernel/syscall.h"
#include "fs/ordering.h"
#include "fs/bitset.h"

/* Blocks kept free for the VM's backing files (fs.backing_reserve); set at mount. */
static uint32_t backing_reserve;
static const struct setting backing_reserve_setting = {
  "fs.backing_reserve", "disk blocks only backing files (/swap) may use, so a full disk can still start programs",
  &backing_reserve, 0, 1u << 20, 0, 0,
};

struct sleeplock alloc_lock;            /* bitmap, descriptor allocation, free counts */
static uint32_t brotor, drotor;         /* where the next allocation search starts */
static uint32_t st_data_blocks;
static uint32_t st_pending_blocks, st_pending_descs;    /* freed, not yet reusable */

/* --- blocks ------------------------------------------------------------------------------ */

/* Free blocks as a user counts them are reusable plus pending, and tests add the VM's backing
 * blocks (backing_swap_blocks) to that to tell a leak from backing store. kstat reads every
 * counter with interrupts off, so each block changes category here, in one step that no
 * other process can see half done: were a backing file's blocks counted out when its removal
 * began and counted back in only when freed, a while later, a reader in between would see
 * them leaked. */
static void count_blocks(int reusable, int pending, int backing)
{
  pushcli();
  fs_sb.free_blocks += reusable;
  st_pending_blocks += pending;
  backing_swap_blocks += backing;
  popcli();
}

/* Allocates a block in the bitmap, the first free one at or after hint (0: where the last
 * search ended): 0 and *addr, or -ENOSPC / -EIO. */
static int balloc(uint32_t hint, uint32_t *addr, bool backing)
{
  acquiresleep(&alloc_lock);
  /* The last backing_reserve blocks are for backing files only: a full disk must still let
   * the VM start a process, or nobody could run `rm` to free space. */
  if (fs_sb.free_blocks == 0 || (!backing && fs_sb.free_blocks <= backing_reserve)) {
    releasesleep(&alloc_lock);
    return -ENOSPC;
  }
  uint32_t nbm = fs_sb.bitmap_blocks;
  uint32_t start = hint >= fs_sb.data_start && hint < fs_sb.nblocks ? hint : brotor;
  if (start < fs_sb.data_start || start >= fs_sb.nblocks)
    start = fs_sb.data_start;
  uint32_t sbi = start / FS_BITS_PER_BLOCK;
  /* One pass from the rotor to the end, then wrap round to the rotor's own block. */
  for (uint32_t k = 0; k <= nbm; k++) {
    uint32_t bi = (sbi + k) % nbm;
    uint32_t base = bi * FS_BITS_PER_BLOCK;
    uint32_t from = k == 0 ? start - base : 0;
    uint32_t limit = MIN(FS_BITS_PER_BLOCK, fs_sb.nblocks - base);
    if (k == nbm)
      limit = start - base;
    int err;
    struct cblock *b = cache_read_dev(fs_sb.bitmap_start + bi, &err);
    if (!b) {
      releasesleep(&alloc_lock);
      return err;
    }
    for (;;) {
      int32_t bit = fs_bit_find_clear(b->data, from, limit);
      if (bit < 0)
        break;
      uint32_t blk = base + (uint32_t)bit;
      if (blk < fs_sb.data_start) {
        /* A metadata block marked free: the bitmap is damaged; never hand it out. */
        from = (uint32_t)bit + 1;
        continue;
      }
      fs_bit_set(b->data, (uint32_t)bit);
      err = cache_dirty(b);
      if (err < 0) {
        /* Not on disk (write-through): take it back; the retry writes the old bit. */
        fs_bit_clear(b->data, (uint32_t)bit);
        cache_dirty(b);
        cache_release(b);
        releasesleep(&alloc_lock);
        return err;
      }
      cache_release(b);
      count_blocks(-1, 0, backing);
      brotor = blk + 1;
      if (!backing)
        order_new(blk);       /* a backing file's contents mean nothing after a crash */
      releasesleep(&alloc_lock);
      *addr = blk;
      return 0;
    }
    cache_release(b);
  }
  /* The count said there was room but the bitmap has none: believe the bitmap. */
  kprintf("fs: free block count %u but the bitmap is full\n", fs_sb.free_blocks);
  fs_sb.free_blocks = 0;
  releasesleep(&alloc_lock);
  return -ENOSPC;
}

/* --- pending frees (fs/ordering.c, rule 2) ------------------------------------------------ */

struct generation {
  struct bitset blocks, descs;
  uint32_t nblocks, ndescs;
  uint32_t seq;                   /* every change it waits for was dirtied by then */
};
static struct generation young, old;
static bool pending_ok;           /* memory for the generations (else frees are immediate) */

static void pending_init(void)
{
  pending_ok = bitset_init(&young.blocks, fs_sb.nblocks) && bitset_init(&old.blocks, fs_sb.nblocks) &&
               bitset_init(&young.descs, fs_sb.ndesc) && bitset_init(&old.descs, fs_sb.ndesc);
  if (!pending_ok)
    kprintf("fs: no memory for pending frees: a power cut may mix files\n");
}

static bool pending_desc(uint32_t inum)
{
  return pending_ok && (bitset_get(&young.descs, inum) || bitset_get(&old.descs, inum));
}

uint32_t fs_pending_blocks(void)
{
  return st_pending_blocks;
}

uint32_t fs_pending_descs(void)
{
  return st_pending_descs;
}

void fs_pending_cut(void)
{
  if (!pending_ok)
    return;
  acquiresleep(&alloc_lock);
  if (young.nblocks + young.ndescs > 0) {
    bitset_move(&old.blocks, &young.blocks);
    bitset_move(&old.descs, &young.descs);
    old.nblocks += young.nblocks;
    old.ndescs += young.ndescs;
    young.nblocks = young.ndescs = 0;
    old.seq = cache_seq_now();
  }
  releasesleep(&alloc_lock);
}

/* Clears the bitmap bit of block addr (alloc_lock held), a pending block or a backing file's
 * (it leaves that count even when the bit cannot be cleared): 0 or -EIO. */
static int bitmap_clear(uint32_t addr, bool pending, bool backing)
{
  int err;
  struct cblock *b = cache_read_dev(fs_bitmap_block(&fs_sb, addr), &err);
  if (!b) {
    count_blocks(0, -pending, -backing);
    return err;
  }
  uint32_t bit = fs_bitmap_bit(addr);
  if (!fs_bit_get(b->data, bit)) {
    kprintf("fs: freeing block %u, which is already free\n", addr);
    cache_release(b);
    count_blocks(0, -pending, -backing);
    return -EIO;
  }
  fs_bit_clear(b->data, bit);
  count_blocks(1, -pending, -backing);
  err = cache_dirty(b);       /* on failure the block stays dirty and is retried */
  cache_release(b);
  return err;
}

int fs_pending_release(void)
{
  if (!pending_ok)
    return 0;
  acquiresleep(&alloc_lock);
  int n = 0;
  if (old.nblocks + old.ndescs > 0 && (int32_t)(cache_durable_seq() - old.seq) > 0) {
    for (uint32_t w = 0; w < bitset_words(&old.blocks); w++) {
      uint32_t bits = *bitset_word(&old.blocks, w);
      for (uint32_t i = 0; bits && i < 32; i++)
        if (bits & (1u << i))
          bitmap_clear(w * 32 + i, true, false);
      *bitset_word(&old.blocks, w) = 0;
    }
    for (uint32_t w = 0; w < bitset_words(&old.descs); w++)
      *bitset_word(&old.descs, w) = 0;
    n = (int)(old.nblocks + old.ndescs);
    pushcli();                /* both counts in one step, as count_blocks does */
    fs_sb.free_descs += old.ndescs;
    st_pending_descs -= old.ndescs;
    popcli();
    old.nblocks = old.ndescs = 0;
  }
  releasesleep(&alloc_lock);
  return n;
}

int bfree(uint32_t addr, bool backing)
{
  if (!fs_block_ok(&fs_sb, addr)) {
    kprintf("fs: freeing block %u, outside the data area\n", addr);
    return -EIO;
  }
  /* Its cached copy (if it held pointers) goes first: once free it may be handed out again
   * and get a new identity. */
  cache_invalidate(CACHE_DEV, addr);
  order_forget(addr);
  acquiresleep(&alloc_lock);
  int err = 0;
  if (backing || !pending_ok) {
    err = bitmap_clear(addr, false, backing);
  } else if (bitset_get(&young.blocks, addr) || bitset_get(&old.blocks, addr)) {
    kprintf("fs: freeing block %u, which is already being freed\n", addr);
    err = -EIO;
  } else {
    bitset_set(&young.blocks, addr, true);
    young.nblocks++;
    count_blocks(0, 1, 0);
  }
  releasesleep(&alloc_lock);
  return err;
}

/* A descriptor freed by iput: pending like a block (its name may still be on disk). */
void dfree(uint32_t inum, bool backing)
{
  acquiresleep(&alloc_lock);
  if (backing || !pending_ok) {
    fs_sb.free_descs++;
  } else {
    bitset_set(&young.descs, inum, true);
    young.ndescs++;
    st_pending_descs++;
  }
  releasesleep(&alloc_lock);
}

/* A newly allocated block for ip, next to the one it was given last (thesis 3.4); zeroed on
 * disk at once when it will hold pointers, so no pointer on disk ever leads into stale
 * ones, whatever order the cleaners write in. */
int newblock(struct inode *ip, bool zero, uint32_t *addr)
{
  int err = balloc(ip->lastblk ? ip->lastblk + 1 : 0, addr, ip->backing);
  if (err < 0)
    return err;
  ip->lastblk = *addr;
  if (zero) {
    struct cblock *b = cache_get(CACHE_DEV, *addr);
    memset(b->data, 0, FS_BSIZE);
    cache_assign(b, *addr);
    err = cache_write_now(b);
    cache_release(b);
    if (err < 0) {
      bfree(*addr, ip->backing);
      return err;
    }
  }
  ip->d.blocks++;
  return 0;
}

/* --- descriptors ------------------------------------------------------------------------- */

struct inode *ialloc(int type, uint32_t near, int *errp)
{
  acquiresleep(&alloc_lock);
  if (fs_sb.free_descs == 0) {
    releasesleep(&alloc_lock);
    *errp = -ENOSPC;
    return 0;
  }
  uint32_t nb = fs_sb.desc_blocks;
  /* Near the directory's own descriptor: one directory's files share descriptor blocks, so
   * their descriptors go to the disk together (thesis 3.4 and 5). */
  uint32_t start = near > FS_ROOT_DESC && near < fs_sb.ndesc ? near :
                   drotor < fs_sb.ndesc ? drotor : FS_ROOT_DESC + 1;
  for (uint32_t k = 0; k <= nb; k++) {
    uint32_t bi = (start / FS_DESCS_PER_BLOCK + k) % nb;
    int err;
    struct cblock *b = cache_read_dev(fs_sb.desc_start + bi, &err);
    if (!b) {
      releasesleep(&alloc_lock);
      *errp = err;
      return 0;
    }
    for (uint32_t j = 0; j < FS_DESCS_PER_BLOCK; j++) {
      uint32_t inum = bi * FS_DESCS_PER_BLOCK + j;
      struct fs_desc *d = (struct fs_desc *)(b->data + j * FS_DESC_SIZE);
      if (inum <= FS_ROOT_DESC || d->type != FS_T_FREE || pending_desc(inum))
        continue;
      bool inuse = false;
      struct inode *ip = iget_common(inum, true, &inuse);
      if (inuse)
        continue;     /* still referenced in memory (being freed, or named by a bad entry) */
      if (!ip) {
        cache_release(b);
        releasesleep(&alloc_lock);
        *errp = -ENFILE;
        return 0;
      }
      memset(d, 0, sizeof(*d));
      d->type = (uint16_t)type;
      d->mtime = fs_now();
      err = cache_dirty(b);
      if (err < 0) {
        memset(d, 0, sizeof(*d));   /* not on disk (write-through): give it back */
        cache_dirty(b);
      }
      cache_release(b);
      if (err < 0) {
        releasesleep(&alloc_lock);
        iput(ip);
        *errp = err;
        return 0;
      }
      fs_sb.free_descs--;
      drotor = inum + 1;
      releasesleep(&alloc_lock);
      return ip;
    }
    cache_release(b);
  }
  kprintf("fs: free descriptor count %u but none is free\n", fs_sb.free_descs);
  fs_sb.free_descs = 0;
  releasesleep(&alloc_lock);
  *errp = -ENOSPC;
  return 0;
}

/* --- at mount ---------------------------------------------------------------------------- */

void alloc_mount(void)
{
  pending_init();
  brotor = fs_sb.data_start;
  drotor = FS_ROOT_DESC + 1;
}

static uint32_t shown_free_blocks(void) { return fs_sb.free_blocks + st_pending_blocks; }
static uint32_t shown_free_descs(void) { return fs_sb.free_descs + st_pending_descs; }

/* Free as a user counts it (df): blocks waiting to be reusable are free already. */
static const struct counter counters[] = {
  COUNTER_FN("fs.disk.blocks.free", shown_free_blocks),
  COUNTER("fs.disk.blocks.reusable", &fs_sb.free_blocks),
  COUNTER("fs.disk.blocks.total", &st_data_blocks),
  COUNTER_FN("fs.disk.descriptors.free", shown_free_descs),
  COUNTER("fs.disk.blocks.pending", &st_pending_blocks),
  COUNTER("fs.disk.descriptors.pending", &st_pending_descs),
};

void alloc_register(void)
{
  st_data_blocks = fs_sb.nblocks - fs_sb.data_start;
  backing_reserve = MIN(MAX(128u, st_data_blocks / 32), 2048u);
  setting_register(&backing_reserve_setting);
  stat_register_table(counters, NELEM(counters));
}
