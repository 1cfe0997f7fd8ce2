/* Mounting, the superblock and its clean mark, and sync. Locking rules are at the top of
 * fs/internal.h.
 *
 * fs_init mounts the disk: it reads and checks the superblock, repairs a disk that was not
 * cleanly unmounted (fs/repair.c), checks the root directory and starts the write-back
 * daemon and the cleaners. Changes go into cache blocks that the cleaners write back later
 * (fs/writeback.c), in no particular order, and a power cut may lose any write not followed
 * by a completed flush; fs/ordering.c explains the two rules that keep what a crash leaves
 * repairable and honest. The superblock says "not clean" on disk before the first change
 * after a sync (fs_dirtying), so the next mount knows to repair. A sync puts everything
 * dirty on the disk's stable storage and then, if nothing was changed meanwhile, nothing
 * failed and no unlinked file is still open, sets the clean mark (thesis 3.6); fsync does
 * the same for one file, data before the metadata that names it.
 */
#include "fs/internal.h"
#include "fs/cluster.h"
#include "fs/fs.h"
#include "fs/file.h"
#include "kernel/klib.h"
#include "kernel/power.h"
#include "kernel/mem/coremap.h"
#include "kernel/uapi/errno.h"
#include "drivers/disk.h"
#include "fs/ordering.h"

struct fs_super fs_sb;
struct sleeplock ns_lock;
static struct sleeplock sb_lock;        /* writing the superblock */
static bool sb_clean_on_disk;
static char *sb_buf;           /* a kernel page for sb_write, taken at mount */

static int sb_write(uint32_t clean)
{
  /* Straight to the disk from a buffer of its own, never through the cache: the clean mark
   * is taken off on the way to writing other blocks (fs_dirtying), when the cache may have
   * no block to spare until those very writes finish. */
  /* The free counts matter only beside the clean mark (an unclean mount recounts them):
   * writing the mark, the caller holds alloc_lock, so they are whole. Taking it off happens on
   * the way to a write, perhaps inside balloc with alloc_lock held, and takes nothing. */
  struct fs_super copy = fs_sb;
  char *buf = sb_buf;
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
  /* alloc_lock before sb_lock, as fs/internal.h orders them: the other way round, this
   * waited for alloc_lock while an allocation holding it waited for a cache block whose
   * writer waited for sb_lock in fs_dirtying (sysfuzz hung on it). */
  acquiresleep(&alloc_lock);
  acquiresleep(&sb_lock);
  if (err == 0 && cache_ndirty() == 0 && !sb_clean_on_disk && !have_orphans()) {
    if (sb_write(1) == 0 && cache_flush_disk() == 0)
      sb_clean_on_disk = true;
    else
      kprintf("fs: could not mark the disk clean\n");
  }
  releasesleep(&sb_lock);
  releasesleep(&alloc_lock);
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

void fs_init(void)
{
  initsleeplock_ranked(&ns_lock, "namespace", LOCK_NAMESPACE);
  initsleeplock_ranked(&alloc_lock, "fsalloc", LOCK_ALLOC);
  initsleeplock_ranked(&sb_lock, "superblock", LOCK_SUPER);
  cache_init();
  writeback_init();
  cluster_init();
  readahead_init();
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
  disk_set_spare((uint64_t)fs_sb.nblocks * FS_SECTORS_PER_BLOCK);   /* for disk.ceiling_kb */
  order_init(&fs_sb);
  alloc_mount();
  if (!fs_sb.clean) {
    kprintf("fs: the disk was not cleanly unmounted; repairing it\n");
    fs_repair();
  }
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
  alloc_register();
  protect_init();
  writeback_start();
  kprintf("fs: mounted %u MB: %u of %u blocks free, %u descriptors free\n",
          fs_sb.nblocks / (1024 * 1024 / FS_BSIZE), fs_sb.free_blocks,
          fs_sb.nblocks - fs_sb.data_start, fs_sb.free_descs);
}
