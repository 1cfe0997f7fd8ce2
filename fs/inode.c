/* Mounting, block and descriptor allocation, in-memory inodes, the block map, and reading and
 * writing file contents. Locking rules are at the top of fs/internal.h.
 *
 * Changes go into cache blocks that the cleaners write back later (fs/cache.h), in no
 * particular order, and a power cut may lose any write not followed by a completed flush.
 * fs/ordering.c explains the two rules that keep what a crash leaves repairable and honest;
 * this file holds rule 2, the pending frees: a freed block or descriptor is not handed out
 * again until the change that let go of it (a cleared pointer, a removed directory entry)
 * is on stable storage. The superblock says "not clean" on disk before the first change
 * after a sync, so the next mount knows to repair (fs/repair.c).
 */
#include "fs/internal.h"
#include "fs/fs.h"
#include "fs/file.h"
#include "kernel/klib.h"
#include "kernel/sysctl.h"
#include "kernel/spinlock.h"
#include "kernel/proc.h"
#include "kernel/time.h"
#include "kernel/stats.h"
#include "kernel/power.h"
#include "kernel/syscall.h"
#include "drivers/disk.h"
#include "kernel/coremap.h"
#include "fs/ordering.h"
#include "fs/bitset.h"

/* Blocks kept free for the VM's backing files (fs.backing_reserve); set at mount. */
static uint32_t backing_reserve;
static const struct setting backing_reserve_setting = {
  "fs.backing_reserve", "disk blocks only backing files (/swap) may use, so a full disk can still start programs",
  &backing_reserve, 0, 1u << 20, 0, 0,
};

_Static_assert(FS_T_FILE == T_FILE && FS_T_DIR == T_DIR, "layout.h and uapi/stat.h agree");
_Static_assert(FS_NAME_MAX == DIRNAME_MAX, "name length agrees with uapi/stat.h");
_Static_assert(sizeof(struct dirent) == sizeof(struct fs_dirent), "dirent sizes agree");

struct fs_super fs_sb;
struct sleeplock ns_lock;
static struct sleeplock alloc_lock;     /* bitmap, descriptor allocation, free counts */
static struct sleeplock sb_lock;        /* writing the superblock */
static bool sb_clean_on_disk;
static uint32_t brotor, drotor;         /* where the next allocation search starts */
static uint32_t st_data_blocks;

static struct {
  struct spinlock lock;
  struct inode inode[NINODE];
} icache;

static const uint8_t zeros[FS_BSIZE];

uint32_t fs_now(void) { return uptime_ms() / 1000; }

/* --- the superblock ---------------------------------------------------------------------- */

static void pending_init(void);
static uint32_t st_pending_blocks, st_pending_descs;    /* freed, not yet reusable */
static char *sb_buf;           /* a kernel page for sb_write, taken at mount */

static int sb_write(uint32_t clean)
{
  /* Straight to the disk from a buffer of its own, never through the cache: the clean mark
   * is taken off on the way to writing other blocks (fs_dirtying), when the cache may have
   * no block to spare until those very writes finish. */
  struct fs_super copy;
  char *buf = sb_buf;
  /* The free counts matter only beside the clean mark (an unclean mount recounts them).
   * Taking the mark off happens on the way to a write, perhaps inside balloc with
   * alloc_lock held, so that path must not take it again. */
  if (clean)
    acquiresleep(&alloc_lock);
  copy = fs_sb;
  if (clean)
    releasesleep(&alloc_lock);
  copy.clean = clean;
  fs_super_seal(&copy);
  memset(buf, 0, FS_BSIZE);
  memcpy(buf, &copy, sizeof(copy));
  int err = disk_rw(DISK_WRITE, (uint64_t)FS_SUPER_BLOCK * FS_SECTORS_PER_BLOCK, buf, FS_BSIZE);
  return err < 0 ? -EIO : 0;
}

/* The disk says "cleanly unmounted" from a sync until the next block is written to it: the
 * cache calls this before it writes anything but the superblock itself. Changes still only
 * in memory leave the mark true, since the disk as it stands is consistent. */
void fs_dirtying(void)
{
  if (!sb_clean_on_disk)
    return;
  acquiresleep(&sb_lock);
  /* Flushed before the writes it guards: a power cut that kept them but lost the mark
   * would skip the repair. */
  if (sb_clean_on_disk && sb_write(0) == 0 && disk_rw(DISK_FLUSH, 0, 0, 0) == 0)
    sb_clean_on_disk = false;
  releasesleep(&sb_lock);
}

/* Files unlinked while still open: their descriptors are on disk with no name, and only
 * the last close frees them, so a disk with any is not clean. */
static bool have_orphans(void)
{
  bool found = false;
  acquire(&icache.lock);
  for (int i = 0; i < NINODE && !found; i++) {
    struct inode *ip = &icache.inode[i];
    found = ip->ref > 0 && ip->valid && ip->d.nlink == 0 && ip->d.type != FS_T_FREE;
  }
  release(&icache.lock);
  return found;
}

/* Everything dirty goes to the disk and onto its stable storage; then, if nothing was
 * changed meanwhile, nothing failed and no unlinked file is still open, the clean mark
 * (thesis 3.6). */
void fs_sync(void)
{
  if (fs_sb.magic != FS_MAGIC)
    return;                     /* never mounted */
  fs_pending_cut();
  int err = cache_sync_all();
  if (cache_flush_disk() < 0)
    err = -EIO;
  if (fs_pending_release() > 0) {
    /* The bitmap blocks that release just changed, so the clean mark can follow. */
    if (cache_sync_file(CACHE_DEV) < 0 || cache_flush_disk() < 0)
      err = -EIO;
  }
  acquiresleep(&sb_lock);
  if (err == 0 && cache_ndirty() == 0 && !sb_clean_on_disk && !have_orphans()) {
    if (sb_write(1) == 0 && cache_flush_disk() == 0)
      sb_clean_on_disk = true;
    else
      kprintf("fs: could not mark the disk clean\n");
  }
  releasesleep(&sb_lock);
}

/* The file's data and its directory's entries, a flush, then the descriptors, indirect
 * blocks and bitmap that name them, and a flush (fs/ordering.c, rule 1). */
int fs_fsync(struct inode *ip)
{
  int err = cache_sync_file(ip->inum);
  int e;
  uint32_t parent = ip->parent;
  if (parent && (e = cache_sync_file(parent)) < 0)
    err = e;
  if ((e = cache_flush_disk()) < 0)
    err = e;
  if ((e = cache_sync_file(CACHE_DEV)) < 0)
    err = e;
  if ((e = cache_flush_disk()) < 0)
    err = e;
  if ((e = cache_take_error(ip->inum)) < 0)
    err = e;
  fs_pending_release();
  return err;
}

static uint32_t shown_free_blocks(void) { return fs_sb.free_blocks + st_pending_blocks; }
static uint32_t shown_free_descs(void) { return fs_sb.free_descs + st_pending_descs; }

void fs_init(void)
{
  initsleeplock(&ns_lock, "namespace");
  initsleeplock(&alloc_lock, "fsalloc");
  initsleeplock(&sb_lock, "superblock");
  cache_init();
  cleaner_init();
  iinit();
  fileinit();
  if (!disk_present()) {
    kprintf("fs: no disk: the kernel needs a Sprite file-system image as its disk\n");
    machine_poweroff(1);
  }
  int err;
  struct cblock *b = cache_read_dev(FS_SUPER_BLOCK, &err);
  if (!b) {
    kprintf("fs: cannot read the superblock (I/O error)\n");
    machine_poweroff(1);
  }
  struct fs_super sb;
  memcpy(&sb, b->data, sizeof(sb));
  cache_release(b);
  cache_invalidate(CACHE_DEV, FS_SUPER_BLOCK);   /* from now on sb_write alone writes it */
  if (!sb_buf && !(sb_buf = kalloc_page())) {
    kprintf("fs: out of memory at mount\n");
    machine_poweroff(1);
  }
  char why[160];
  if (fs_super_check(&sb, disk_sectors() / FS_SECTORS_PER_BLOCK, why, sizeof(why)) < 0) {
    kprintf("fs: disk is not a Sprite file system: %s\n", why);
    machine_poweroff(1);
  }
  fs_sb = sb;
  cache_set_desc_range(fs_sb.desc_start, fs_sb.desc_start + fs_sb.desc_blocks);
  order_init(&fs_sb);
  pending_init();
  if (!fs_sb.clean) {
    kprintf("fs: the disk was not cleanly unmounted; repairing it\n");
    fs_repair();
  }
  brotor = fs_sb.data_start;
  drotor = FS_ROOT_DESC + 1;
  fs_sb.mounts++;
  if (sb_write(0) < 0) {
    kprintf("fs: cannot write the superblock\n");
    machine_poweroff(1);
  }
  struct inode *root = iget(FS_ROOT_DESC);
  ilock(root);
  if (root->err || root->d.type != FS_T_DIR) {
    kprintf("fs: the root directory (descriptor 1) is damaged\n");
    machine_poweroff(1);
  }
  iunlockput(root);
  st_data_blocks = fs_sb.nblocks - fs_sb.data_start;
  backing_reserve = MIN(MAX(128u, st_data_blocks / 32), 2048u);
  setting_register(&backing_reserve_setting);
  protect_init();
  /* Free as a user counts it (df): blocks waiting to be reusable are free already. */
  stat_register_fn("fs.disk.blocks.free", shown_free_blocks);
  stat_register("fs.disk.blocks.reusable", &fs_sb.free_blocks);
  stat_register("fs.disk.blocks.total", &st_data_blocks);
  stat_register_fn("fs.disk.descriptors.free", shown_free_descs);
  stat_register("fs.disk.blocks.pending", &st_pending_blocks);
  stat_register("fs.disk.descriptors.pending", &st_pending_descs);
  cleaner_start();
  kprintf("fs: mounted %u MB: %u of %u blocks free, %u descriptors free\n",
          fs_sb.nblocks / (1024 * 1024 / FS_BSIZE), fs_sb.free_blocks, st_data_blocks,
          fs_sb.free_descs);
}

/* --- blocks ------------------------------------------------------------------------------ */


/* Free blocks as a user counts them are reusable plus pending, and tests add the VM's backing
 * blocks (bypass_swap_blocks) to that to tell a leak from backing store. kstat reads every
 * counter with interrupts off, so each block changes category here, in one step that no
 * other process can see half done: counting a backing file's blocks out when its removal
 * began and the blocks themselves back in when freed, a while later, made a usertests run
 * see 91 blocks leaked that came back a moment after (unlinkopen, once in 70 runs). */
static void count_blocks(int reusable, int pending, int backing)
{
  pushcli();
  fs_sb.free_blocks += reusable;
  st_pending_blocks += pending;
  bypass_swap_blocks += backing;
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

/* --- pending frees (fs/ordering.c, rule 2) -------------------------------------------------
 * A block or descriptor let go of is not handed out again until the change that let go of
 * it is on stable storage: were it reused first, a power cut could leave the old file's
 * pointer or name on disk beside the new owner's, and the repair could give the new owner's
 * data to the old file. Frees collect in the young generation; a cut (each daemon scan, each
 * sync) makes it old, stamped with the latest dirty sequence number (merging into an old
 * generation still waiting, with the newer stamp); once every change dirtied up to the stamp
 * is durable (cache_durable_seq, moved on by each flush) the old generation is freed for
 * real: bitmap bits cleared, free counts raised. Backing files are exempt: the repair
 * empties /swap, so their stale names and pointers never count. */

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

static int bfree(uint32_t addr, bool backing)
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
static void dfree(uint32_t inum, bool backing)
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
static int newblock(struct inode *ip, bool zero, uint32_t *addr)
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

/* --- inodes ------------------------------------------------------------------------------ */

/* In-memory inodes referenced (of NINODE): all but the root's and the cwds' come back. */
static uint32_t inodes_used(void)
{
  uint32_t n = 0;
  acquire(&icache.lock);
  for (int i = 0; i < NINODE; i++)
    n += icache.inode[i].ref > 0;
  release(&icache.lock);
  return n;
}

void iinit(void)
{
  initlock(&icache.lock, "icache");
  for (int i = 0; i < NINODE; i++)
    initsleeplock(&icache.inode[i].lock, "inode");
  stat_register_fn("fs.inodes.used", inodes_used);
}

/* The in-memory inode for inum, referenced. With fresh (for ialloc), a descriptor that is
 * still referenced in memory (being freed, or named by a damaged entry) is not handed out:
 * *inuse is set instead. 0 when the table is full. */
static struct inode *iget_common(uint32_t inum, bool fresh, bool *inuse)
{
  struct inode *empty = 0, *same = 0;
  acquire(&icache.lock);
  for (int i = 0; i < NINODE; i++) {
    struct inode *ip = &icache.inode[i];
    if (ip->ref > 0 && ip->inum == inum) {
      if (fresh) {
        *inuse = true;
        ip = 0;
      } else {
        ip->ref++;
      }
      release(&icache.lock);
      return ip;
    }
    if (ip->ref == 0 && ip->inum == inum && !same)
      same = ip;
    else if (ip->ref == 0 && !empty)
      empty = ip;
  }
  /* An unreferenced slot still holding this descriptor keeps what memory knows of it (its
   * directory for fsync, where its blocks go), unless the descriptor is new. */
  if (same && !fresh) {
    same->ref = 1;
    release(&icache.lock);
    return same;
  }
  if (same)
    empty = same;
  if (empty) {
    empty->inum = inum;
    empty->ref = 1;
    empty->valid = false;
    empty->err = 0;
    empty->writers = 0;
    empty->text = 0;
    empty->lastblk = 0;
    empty->parent = 0;
    empty->backing = false;
  }
  release(&icache.lock);
  return empty;
}

struct inode *iget(uint32_t inum)
{
  return iget_common(inum, false, 0);
}

struct inode *idup(struct inode *ip)
{
  acquire(&icache.lock);
  ip->ref++;
  release(&icache.lock);
  return ip;
}

/* A descriptor that cannot be read or makes no sense gives -EIO for its file only. */
void ilock(struct inode *ip)
{
  KASSERT(ip && ip->ref > 0);
  acquiresleep(&ip->lock);
  if (ip->valid)
    return;
  ip->valid = true;
  if (ip->inum == 0 || ip->inum >= fs_sb.ndesc) {
    kprintf("fs: descriptor number %u is out of range\n", ip->inum);
    ip->err = -EIO;
    return;
  }
  int err;
  struct cblock *b = cache_read_dev(fs_desc_block(&fs_sb, ip->inum), &err);
  if (!b) {
    ip->err = err;
    ip->valid = false;        /* try the disk again next time */
    return;
  }
  memcpy(&ip->d, b->data + fs_desc_offset(ip->inum), sizeof(ip->d));
  cache_release(b);
  const char *why;
  if (fs_desc_check(&fs_sb, &ip->d, &why) < 0) {
    kprintf("fs: descriptor %u is damaged: %s\n", ip->inum, why);
    ip->err = -EIO;
  } else {
    ip->err = 0;
  }
}

void iunlock(struct inode *ip)
{
  KASSERT(ip && holdingsleep(&ip->lock));
  releasesleep(&ip->lock);
}

int iupdate(struct inode *ip)
{
  if (ip->err)
    return ip->err;
  int err;
  struct cblock *b = cache_read_dev(fs_desc_block(&fs_sb, ip->inum), &err);
  if (!b)
    return err;
  memcpy(b->data + fs_desc_offset(ip->inum), &ip->d, sizeof(ip->d));
  err = cache_dirty(b);
  cache_release(b);
  return err;
}

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

/* Drops a reference; the last one to a file with no links left frees it. */
void iput(struct inode *ip)
{
  acquiresleep(&ip->lock);
  if (ip->valid && !ip->err && ip->d.nlink == 0 && ip->d.type != FS_T_FREE) {
    acquire(&icache.lock);
    int r = ip->ref;
    release(&icache.lock);
    if (r == 1) {
      itrunc(ip);
      memset(&ip->d, 0, sizeof(ip->d));
      int err = iupdate(ip);
      ip->valid = false;
      if (err == 0)
        dfree(ip->inum, ip->backing);
    }
  }
  releasesleep(&ip->lock);
  acquire(&icache.lock);
  ip->ref--;
  release(&icache.lock);
}

void iunlockput(struct inode *ip)
{
  iunlock(ip);
  iput(ip);
}

uint32_t inode_size(struct inode *ip) { return ip->err ? 0 : ip->d.size; }
int inode_type(struct inode *ip) { return ip->err ? 0 : ip->d.type; }
uint32_t inode_num(struct inode *ip) { return ip->inum; }

int inode_text_get(struct inode *ip)
{
  int r = 0;
  acquire(&icache.lock);
  if (ip->writers > 0)
    r = -ETXTBSY;
  else
    ip->text++;
  release(&icache.lock);
  return r;
}

void inode_text_put(struct inode *ip)
{
  acquire(&icache.lock);
  KASSERT(ip->text > 0);
  ip->text--;
  release(&icache.lock);
}

int inode_write_get(struct inode *ip)
{
  int r = 0;
  acquire(&icache.lock);
  if (ip->text > 0)
    r = -ETXTBSY;
  else
    ip->writers++;
  release(&icache.lock);
  return r;
}

void inode_write_put(struct inode *ip)
{
  acquire(&icache.lock);
  KASSERT(ip->writers > 0);
  ip->writers--;
  release(&icache.lock);
}

void istat(struct inode *ip, struct stat *st)
{
  memset(st, 0, sizeof(*st));
  st->dev = 1;
  st->ino = ip->inum;
  st->type = (short)ip->d.type;
  st->nlink = (short)ip->d.nlink;
  st->size = ip->d.size;
  st->blocks = ip->d.blocks;
  st->mtime = ip->d.mtime;
}

/* --- the block map ----------------------------------------------------------------------- */

static int damaged(struct inode *ip, uint32_t ptr)
{
  kprintf("fs: descriptor %u: block pointer %u out of range\n", ip->inum, ptr);
  return -EIO;
}

/* Slot idx of indirect block ind: *out = the block it names, allocating one if asked (a
 * zeroed one when it will hold pointers). The indirect block is not held across the
 * allocation: ip is locked, so nobody else changes this file's tree meanwhile. */
static int slot_get(struct inode *ip, uint32_t ind, uint32_t idx, bool alloc, bool zero,
                    uint32_t *out)
{
  int err;
  struct cblock *b = cache_read_dev(ind, &err);
  if (!b)
    return err;
  uint32_t v = ((uint32_t *)b->data)[idx];
  cache_release(b);
  if (v && !fs_block_ok(&fs_sb, v))
    return damaged(ip, v);
  if (v || !alloc) {
    *out = v;
    return 0;
  }
  if ((err = newblock(ip, zero, &v)) < 0)
    return err;
  b = cache_read_dev(ind, &err);
  if (b) {
    ((uint32_t *)b->data)[idx] = v;
    err = cache_dirty(b);
    cache_release(b);
  }
  if (err < 0) {
    bfree(v, ip->backing);
    ip->d.blocks--;
    return err;
  }
  *out = v;
  return 0;
}

/* A pointer held in the descriptor itself (direct, indirect, doubly-indirect). */
static int desc_get(struct inode *ip, uint32_t *slot, bool alloc, bool zero, uint32_t *out)
{
  uint32_t v = *slot;
  if (v && !fs_block_ok(&fs_sb, v))
    return damaged(ip, v);
  if (!v && alloc) {
    int err = newblock(ip, zero, &v);
    if (err < 0)
      return err;
    *slot = v;              /* written with the descriptor by the caller */
  }
  *out = v;
  return 0;
}

/* The disk block holding logical block lbn of ip (locked): 0 in *addr for a hole unless
 * alloc. Returns 0 or -EIO / -ENOSPC / -EFBIG. */
static int bmap(struct inode *ip, uint32_t lbn, bool alloc, uint32_t *addr)
{
  struct fs_bpath p;
  uint32_t ind, mid;
  int err;
  *addr = 0;
  if (lbn >= FS_MAXFILE_BLOCKS || fs_bmap_path(lbn, &p) < 0)
    return -EFBIG;
  switch (p.level) {
  case 0:
    return desc_get(ip, &ip->d.direct[p.idx[0]], alloc, false, addr);
  case 1:
    if ((err = desc_get(ip, &ip->d.indirect, alloc, true, &ind)) < 0 || !ind)
      return err;
    return slot_get(ip, ind, p.idx[0], alloc, false, addr);
  default:
    if ((err = desc_get(ip, &ip->d.dindirect, alloc, true, &ind)) < 0 || !ind)
      return err;
    if ((err = slot_get(ip, ind, p.idx[0], alloc, true, &mid)) < 0 || !mid)
      return err;
    return slot_get(ip, mid, p.idx[1], alloc, false, addr);
  }
}

/* --- contents ---------------------------------------------------------------------------- */

int readi(struct inode *ip, bool user, uint32_t dst, uint32_t off, uint32_t n)
{
  if (ip->err)
    return ip->err;
  if (off >= ip->d.size)
    return 0;
  n = MIN(n, ip->d.size - off);
  uint32_t tot = 0;
  int err = 0;
  while (tot < n) {
    uint32_t lbn = off / FS_BSIZE, boff = off % FS_BSIZE;
    uint32_t m = MIN(n - tot, FS_BSIZE - boff);
    struct cblock *b = cache_get(ip->inum, lbn);
    if (!(b->flags & CB_VALID)) {
      uint32_t a;
      if ((err = bmap(ip, lbn, false, &a)) < 0) {
        cache_discard(b);
        break;
      }
      if (a == 0 && ip->d.type == FS_T_DIR) {
        /* The kernel never leaves a hole in a directory; a damaged size that runs past its
         * blocks would otherwise make every lookup in it read up to 2 GB of zeros. */
        kprintf("fs: directory %u: block %u of its %u bytes is missing\n", ip->inum, lbn,
                ip->d.size);
        cache_discard(b);
        err = -EIO;
        break;
      }
      if (a == 0) {
        /* A hole reads as zeros and is not worth a cache block. */
        cache_discard(b);
        if ((err = either_copyout(user, dst + tot, zeros, m)) < 0)
          break;
        tot += m;
        off += m;
        continue;
      }
      if ((err = cache_fill(b, a)) < 0) {
        cache_release(b);
        break;
      }
    }
    err = either_copyout(user, dst + tot, b->data + boff, m);
    cache_release(b);
    if (err < 0)
      break;
    tot += m;
    off += m;
  }
  return tot > 0 ? (int)tot : err;
}

int writei(struct inode *ip, bool user, uint32_t src, uint32_t off, uint32_t n)
{
  if (ip->err)
    return ip->err;
  if (n == 0)
    return 0;
  if (off >= FS_MAXFILE)
    return -EFBIG;
  n = MIN(n, FS_MAXFILE - off);
  uint32_t tot = 0;
  int err = 0;
  while (tot < n) {
    uint32_t lbn = off / FS_BSIZE, boff = off % FS_BSIZE;
    uint32_t m = MIN(n - tot, FS_BSIZE - boff);
    uint32_t a = 0;
    struct cblock *b = cache_get(ip->inum, lbn);
    bool hole = false, was_valid = (b->flags & CB_VALID) != 0;
    if (!was_valid) {
      if ((err = bmap(ip, lbn, false, &a)) < 0) {
        cache_discard(b);
        break;
      }
      if (a == 0) {
        hole = true;
        memset(b->data, 0, FS_BSIZE);
        uint32_t prev;
        if (ip->lastblk == 0 && lbn > 0 && bmap(ip, lbn - 1, false, &prev) == 0 && prev)
          ip->lastblk = prev;       /* a file opened again grows next to its last block */
      } else if (m < FS_BSIZE) {
        if ((err = cache_fill(b, a)) < 0) {
          cache_release(b);
          break;
        }
      } else {
        cache_assign(b, a);     /* overwritten whole: no need to read it */
      }
    }
    /* Copy before allocating, so a bad user pointer costs no disk space. */
    if ((err = either_copyin(user, b->data + boff, src + tot, m)) < 0) {
      /* A failed copy changes nothing; a cached block may hold delayed writes: keep it. */
      if (was_valid)
        cache_release(b);
      else
        cache_discard(b);
      break;
    }
    if (hole) {
      if ((err = bmap(ip, lbn, true, &a)) < 0) {
        cache_discard(b);
        break;
      }
      cache_assign(b, a);
    }
    /* A directory's new block reaches the disk before its descriptor can name it, so a
     * crash never shows a directory made of some earlier file's bytes. */
    err = hole && ip->d.type == FS_T_DIR ? cache_write_now(b) : cache_dirty(b);
    cache_release(b);
    if (err < 0)
      break;
    tot += m;
    off += m;
    if (off > ip->d.size)
      ip->d.size = off;
  }
  /* Pointers and block counts changed by bmap are saved even when nothing was written. */
  ip->d.mtime = fs_now();
  int uerr = iupdate(ip);
  if (tot > 0)
    return (int)tot;
  return err < 0 ? err : uerr;
}

/* Frees an indirect block and everything under it. first is the logical block number of the
 * first data block it maps (to drop cached copies). */
static int free_tree(struct inode *ip, uint32_t ind, int level, uint32_t first)
{
  if (!fs_block_ok(&fs_sb, ind))
    return damaged(ip, ind);
  int err, ret = 0;
  struct cblock *b = cache_read_dev(ind, &err);
  if (!b)
    return err;           /* its blocks leak: better than freeing what we cannot see */
  for (uint32_t i = 0; i < FS_NINDIRECT; i++) {
    uint32_t v = ((uint32_t *)b->data)[i];
    if (!v)
      continue;
    if (!fs_block_ok(&fs_sb, v)) {
      ret = damaged(ip, v);
      continue;
    }
    if (level == 2) {
      err = free_tree(ip, v, 1, first + i * FS_NINDIRECT);
    } else {
      cache_invalidate(ip->inum, first + i);
      err = bfree(v, ip->backing);
    }
    if (err < 0)
      ret = err;
  }
  cache_release(b);
  err = bfree(ind, ip->backing);
  return err < 0 ? err : ret;
}

int itrunc(struct inode *ip)
{
  if (ip->err)
    return ip->err;
  struct fs_desc old = ip->d;
  /* Pointers cleared on disk first: a crash now leaks the blocks but never shares them. */
  memset(ip->d.direct, 0, sizeof(ip->d.direct));
  ip->d.indirect = ip->d.dindirect = 0;
  ip->d.size = 0;
  ip->d.blocks = 0;
  ip->d.mtime = fs_now();
  int ret = iupdate(ip);
  if (ret < 0) {
    ip->d = old;
    return ret;
  }
  int err;
  for (uint32_t i = 0; i < FS_NDIRECT; i++) {
    if (!old.direct[i])
      continue;
    cache_invalidate(ip->inum, i);
    if ((err = bfree(old.direct[i], ip->backing)) < 0)
      ret = err;
  }
  if (old.indirect && (err = free_tree(ip, old.indirect, 1, FS_NDIRECT)) < 0)
    ret = err;
  if (old.dindirect && (err = free_tree(ip, old.dindirect, 2, FS_NDIRECT + FS_NINDIRECT)) < 0)
    ret = err;
  return ret;
}

/* For fs/bypass.c (the VM's backing files and demand loading): bmap from outside. */
int inode_bmap(struct inode *ip, uint32_t lbn, bool alloc, uint32_t *addr)
{
  return bmap(ip, lbn, alloc, addr);
}
