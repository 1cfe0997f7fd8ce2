/* In-memory inodes, the block map, and reading and writing file contents. Locking rules are
 * at the top of fs/internal.h.
 *
 * An inode is the memory copy of a file's descriptor, found by descriptor number in a table
 * of NINODE and referenced while in use; its sleeplock guards the copy and the contents.
 * The last reference to a file with no links left frees it. The block map finds a file's
 * logical block through the descriptor's direct, indirect and doubly-indirect pointers,
 * allocating on the way when asked (fs/alloc.c). Changes go into cache blocks that the
 * cleaners write back later, in no particular order (fs/ordering.c), so a new block that
 * will hold pointers is zeroed on disk at once, a directory's new block reaches the disk
 * before its descriptor can name it, and a truncation clears the pointers on disk before it
 * frees the blocks: a crash leaks blocks but never shares them.
 */
#include "fs/internal.h"
#include "fs/fs.h"
#include "kernel/klib.h"
#include "kernel/spinlock.h"
#include "kernel/proc.h"
#include "kernel/time.h"
#include "kernel/stats.h"
#include "kernel/syscall.h"

_Static_assert(FS_T_FILE == T_FILE && FS_T_DIR == T_DIR, "layout.h and uapi/stat.h agree");
_Static_assert(FS_NAME_MAX == DIRNAME_MAX, "name length agrees with uapi/stat.h");
_Static_assert(sizeof(struct dirent) == sizeof(struct fs_dirent), "dirent sizes agree");

static struct {
  struct spinlock lock;
  struct inode inode[NINODE];
} icache;

static const uint8_t zeros[FS_BSIZE];

uint32_t fs_now(void) { return uptime_ms() / 1000; }

/* --- inodes ------------------------------------------------------------------------------ */

/* Files unlinked while still open: their descriptors are on disk with no name, and only
 * the last close frees them, so a disk with any is not clean. */
bool have_orphans(void)
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

static const struct counter counters[] = {
  COUNTER_FN("fs.inodes.used", inodes_used),
};

void iinit(void)
{
  initlock(&icache.lock, "icache");
  for (int i = 0; i < NINODE; i++)
    initsleeplock(&icache.inode[i].lock, "inode");
  stat_register_table(counters, NELEM(counters));
}

/* The in-memory inode for inum, referenced. With fresh (for ialloc), a descriptor that is
 * still referenced in memory (being freed, or named by a damaged entry) is not handed out:
 * *inuse is set instead. 0 when the table is full. */
struct inode *iget_common(uint32_t inum, bool fresh, bool *inuse)
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
    empty->ra_next = empty->ra_win = 0;
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
    readahead_note(ip, b, lbn);
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
      if ((err = readahead_fill(ip, b, lbn, a)) < 0) {
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

/* For fs/backing.c (the VM's backing files and demand loading): bmap from outside. */
int inode_bmap(struct inode *ip, uint32_t lbn, bool alloc, uint32_t *addr)
{
  return bmap(ip, lbn, alloc, addr);
}
