/* The repairing mount: after a crash (the superblock lacks its clean mark) the disk holds
 * whatever mix of old and new blocks the cleaners had written. Before anything is
 * allocated, this pass makes it consistent again, working on raw descriptors through the
 * cache:
 *
 *   A. every allocated descriptor: pointers out of range are cleared, a size beyond 2 GB is
 *      cut to it, and a directory's size to whole entries (nothing is claimed yet);
 *   B. the tree from the root: entries naming free, damaged or out-of-range descriptors, or
 *      a directory already reached (a second path), or a directory without its "." block
 *      (or whose "." block a directory reached earlier has claimed), or the second of two
 *      equal names in one directory (a lookup only finds the first), are cleared, and so is
 *      every backing file in /swap; "." and ".." are set right; directory entries are
 *      counted per file. A directory claims its blocks when it is first reached, as in C,
 *      so that a block two directories name goes to the first, the root before all; then
 *      its size is cut at its first hole (the entries past it have no block to be in);
 *   C. the blocks of the files some entry reaches are claimed: a pointer beyond the file's
 *      size, or to a block already claimed (a directory's, or another file's), is cleared
 *      and block counts are recounted;
 *   D. descriptors no entry names (orphans: unlinked while open, deleted in memory but not
 *      yet on disk, or created and never named on disk) are freed, and every other one gets
 *      the link count just counted;
 *   E. the free bitmap is rebuilt from the blocks claimed in B and C, and the free counts
 *      taken.
 *
 * Why only reachable descriptors claim blocks: an orphan's descriptor on disk can be stale,
 * still naming blocks that were freed in memory and given to another file since. Were it
 * allowed to claim first (a lower descriptor number), the live file would lose them. The
 * kernel never reuses a block or a descriptor before the change that let go of it is on
 * stable storage (fs/alloc.c, "pending frees"), so two reachable files never name one
 * block after a crash; the orphans are the only stale claimants.
 *
 * The file system's users see a file's contents as of its last write-back, so only
 * fsync'ed data is promised.
 */
#include "fs/internal.h"
#include "fs/fs.h"
#include "kernel/klib.h"
#include "fs/parray.h"
#include "fs/repair.h"

static struct parray claimed;       /* per block: some file uses it */
static struct parray refs;          /* per descriptor: uint16 count of entries naming it */
static struct parray seen;          /* per descriptor: directory reached */
static struct parray stack;         /* directories to walk: (dir, parent) pairs of uint32 */

static struct {
  uint32_t pointers, counts, entries, dots, orphans, links, sizes, bits;
} fixed;

static uint16_t refs_get(uint32_t inum)
{
  uint8_t *p = pa_at(&refs, 2 * inum);
  return p ? *(uint16_t *)p : 0;
}

static void refs_inc(uint32_t inum)
{
  uint8_t *p = pa_at(&refs, 2 * inum);
  if (p && *(uint16_t *)p < 0xFFFF)
    (*(uint16_t *)p)++;
}

/* --- A: blocks ---------------------------------------------------------------------------- */

static bool claim(uint32_t b)
{
  if (!fs_block_ok(&fs_sb, b) || bit_get(&claimed, b))
    return false;
  bit_set(&claimed, b, true);
  return true;
}

/* Claims what indirect block ind maps (level 1: data pointers; 2: indirect pointers), the
 * first of them being file block first; clears the pointers that may not stay. */
static uint32_t claim_tree(uint32_t ind, int level, uint32_t first, uint32_t limit)
{
  int err;
  struct cblock *b = cache_read_dev(ind, &err);
  if (!b)
    return 0;                 /* unreadable: what it maps stays unclaimed (freed) */
  uint32_t *slot = (uint32_t *)b->data, count = 0;
  bool changed = false;
  for (uint32_t i = 0; i < FS_NINDIRECT; i++) {
    uint32_t v = slot[i];
    if (!v)
      continue;
    uint32_t f = level == 1 ? first + i : first + i * FS_NINDIRECT;
    if (f >= limit || !claim(v)) {
      slot[i] = 0;
      changed = true;
      fixed.pointers++;
      continue;
    }
    count += 1 + (level == 2 ? claim_tree(v, 1, f, limit) : 0);
  }
  if (changed)
    cache_dirty(b);
  cache_release(b);
  return count;
}

/* Claims the blocks of descriptor d; true if d changed. */
static bool claim_file(struct fs_desc *d)
{
  uint32_t limit = fs_size_blocks(d->size), count = 0;
  bool changed = false;
  for (uint32_t i = 0; i < FS_NDIRECT; i++) {
    if (!d->direct[i])
      continue;
    if (i >= limit || !claim(d->direct[i])) {
      d->direct[i] = 0;
      changed = true;
      fixed.pointers++;
    } else {
      count++;
    }
  }
  uint32_t *top[2] = { &d->indirect, &d->dindirect };
  uint32_t firsts[2] = { FS_NDIRECT, FS_NDIRECT + FS_NINDIRECT };
  for (int l = 0; l < 2; l++) {
    if (!*top[l])
      continue;
    if (firsts[l] >= limit || !claim(*top[l])) {
      *top[l] = 0;
      changed = true;
      fixed.pointers++;
    } else {
      count += 1 + claim_tree(*top[l], l + 1, firsts[l], limit);
    }
  }
  if (d->blocks != count) {
    d->blocks = count;
    changed = true;
    fixed.counts++;
  }
  return changed;
}

/* Gives back the blocks claim_file left to d (all in range and claimed by d alone). */
static void release_tree(uint32_t ind, int level)
{
  int err;
  struct cblock *b = cache_read_dev(ind, &err);
  if (b) {
    uint32_t *slot = (uint32_t *)b->data;
    for (uint32_t i = 0; i < FS_NINDIRECT; i++)
      if (slot[i]) {
        if (level == 2)
          release_tree(slot[i], 1);
        bit_set(&claimed, slot[i], false);
      }
    cache_release(b);
  }
  bit_set(&claimed, ind, false);
}

static void release_file(const struct fs_desc *d)
{
  for (uint32_t i = 0; i < FS_NDIRECT; i++)
    if (d->direct[i])
      bit_set(&claimed, d->direct[i], false);
  if (d->indirect)
    release_tree(d->indirect, 1);
  if (d->dindirect)
    release_tree(d->dindirect, 2);
}

/* The first hole at or after file block base in what indirect block ind maps (level 1: data
 * blocks; 2: indirect blocks), an unreadable map counting as one; else the end of its range
 * (limit if that comes first). */
static uint32_t hole_in(uint32_t ind, int level, uint32_t base, uint32_t limit)
{
  int err;
  struct cblock *b = cache_read_dev(ind, &err);
  if (!b)
    return base;
  uint32_t *slot = (uint32_t *)b->data, per = level == 1 ? 1 : FS_NINDIRECT;
  uint32_t at = base + FS_NINDIRECT * per;
  for (uint32_t i = 0; i < FS_NINDIRECT; i++) {
    uint32_t lbn = base + i * per;
    if (lbn >= limit) {
      at = limit;
      break;
    }
    if (!slot[i]) {
      at = lbn;
      break;
    }
    if (level == 2) {
      uint32_t h = hole_in(slot[i], 1, lbn, limit);
      if (h < lbn + per) {
        at = h;
        break;
      }
    }
  }
  cache_release(b);
  return at;
}

/* The first of d's file blocks below limit that has no block, else limit. */
static uint32_t first_hole(const struct fs_desc *d, uint32_t limit)
{
  for (uint32_t i = 0; i < FS_NDIRECT && i < limit; i++)
    if (!d->direct[i])
      return i;
  uint32_t base = FS_NDIRECT, top[2] = { d->indirect, d->dindirect };
  uint32_t span[2] = { FS_NINDIRECT, FS_NINDIRECT * FS_NINDIRECT };
  for (int l = 0; l < 2; l++) {
    if (base >= limit)
      return limit;
    if (!top[l])
      return base;
    uint32_t h = hole_in(top[l], l + 1, base, limit);
    if (h < base + span[l])
      return MIN(h, limit);
    base += span[l];
  }
  return limit;
}

/* Claims directory inum's blocks when the walk first reaches it, so that a block two
 * directories name goes to the one reached first (the root before all) and the other
 * finds a hole there, and cuts its size at its first hole: the entries past a hole have no
 * block to live in, and the kernel reads a directory's blocks in order. */
static void claim_dir(uint32_t inum)
{
  int err;
  struct cblock *b = cache_read_dev(fs_desc_block(&fs_sb, inum), &err);
  if (!b)
    return;
  struct fs_desc *d = (struct fs_desc *)(b->data + fs_desc_offset(inum));
  bool changed = claim_file(d);
  uint32_t limit = fs_size_blocks(d->size), hole = first_hole(d, limit);
  if (hole < limit) {
    release_file(d);
    d->size = hole * FS_BSIZE;
    fixed.sizes++;
    claim_file(d);              /* the blocks past the new size go back to the free map */
    changed = true;
  }
  if (changed)
    cache_dirty(b);
  cache_release(b);
}

/* Runs fn on every allocated descriptor; writes back the ones it changed. */
static void each_desc(bool (*fn)(uint32_t inum, struct fs_desc *d))
{
  for (uint32_t i = 0; i < fs_sb.desc_blocks; i++) {
    int err;
    struct cblock *b = cache_read_dev(fs_sb.desc_start + i, &err);
    if (!b)
      continue;
    bool changed = false;
    for (uint32_t j = 0; j < FS_DESCS_PER_BLOCK; j++) {
      uint32_t inum = i * FS_DESCS_PER_BLOCK + j;
      struct fs_desc *d = (struct fs_desc *)(b->data + j * FS_DESC_SIZE);
      if (inum == 0 || d->type == FS_T_FREE)
        continue;
      if (fn(inum, d))
        changed = true;
    }
    if (changed)
      cache_dirty(b);
    cache_release(b);
  }
}

static bool pass_a(uint32_t inum, struct fs_desc *d)
{
  bool changed = false;
  if (d->size > FS_MAXFILE && (d->type == FS_T_FILE || d->type == FS_T_DIR)) {
    d->size = FS_MAXFILE;                   /* rounded below for a directory */
    changed = true;
    fixed.sizes++;
  }
  if (d->type == FS_T_DIR && d->size % FS_DIRENT_SIZE) {
    d->size -= d->size % FS_DIRENT_SIZE;    /* a torn last entry */
    changed = true;
    fixed.sizes++;
  }
  const char *why;
  if (d->blocks > fs_sb.nblocks - fs_sb.data_start)
    d->blocks = 0;                          /* recounted just below */
  if (fs_desc_check(&fs_sb, d, &why) < 0) {
    if (d->type != FS_T_FILE && d->type != FS_T_DIR)
      return false;                         /* not a file at all: pass C frees it */
    for (uint32_t i = 0; i < FS_NDIRECT; i++)
      if (d->direct[i] && !fs_block_ok(&fs_sb, d->direct[i]))
        d->direct[i] = 0;
    if (d->indirect && !fs_block_ok(&fs_sb, d->indirect))
      d->indirect = 0;
    if (d->dindirect && !fs_block_ok(&fs_sb, d->dindirect))
      d->dindirect = 0;
    fixed.pointers++;
    changed = true;
  }
  return changed;
}

/* --- C: blocks of the files the tree reaches (its directories claimed theirs in B) ------- */

static bool pass_claim(uint32_t inum, struct fs_desc *d)
{
  if (refs_get(inum) == 0 || d->type != FS_T_FILE)
    return false;
  return claim_file(d);
}

/* --- B: the tree -------------------------------------------------------------------------- */

static bool read_desc(uint32_t inum, struct fs_desc *out)
{
  int err;
  struct cblock *b = cache_read_dev(fs_desc_block(&fs_sb, inum), &err);
  if (!b)
    return false;
  memcpy(out, b->data + fs_desc_offset(inum), sizeof(*out));
  cache_release(b);
  return true;
}

/* The disk block of file block lbn (pointers already checked in pass A), or 0. */
uint32_t repair_map(const struct fs_desc *d, uint32_t lbn)
{
  struct fs_bpath p;
  if (fs_bmap_path(lbn, &p) < 0)
    return 0;
  if (p.level == 0)
    return d->direct[p.idx[0]];
  uint32_t ind = p.level == 1 ? d->indirect : d->dindirect;
  for (int l = 0; l < p.level && ind; l++) {
    int err;
    struct cblock *b = cache_read_dev(ind, &err);
    if (!b)
      return 0;
    ind = ((uint32_t *)b->data)[p.idx[l]];
    cache_release(b);
  }
  return ind;
}

/* A directory that can be walked: sound, with its first block (".", "..") in place. */
static bool sound_dir(const struct fs_desc *d)
{
  const char *why;
  return d->type == FS_T_DIR && fs_desc_check(&fs_sb, d, &why) == 0 &&
         d->size >= 2 * FS_DIRENT_SIZE && d->direct[0];
}

static uint32_t nstack;
static uint32_t swap_dir;           /* /swap, the backing files' directory, once reached */

static void push(uint32_t dir, uint32_t parent)
{
  uint8_t *p = pa_at(&stack, 8 * nstack);
  if (!p)
    return;
  ((uint32_t *)p)[0] = dir;
  ((uint32_t *)p)[1] = parent;
  nstack++;
}

static void walk_dir(uint32_t dir, uint32_t parent)
{
  struct fs_desc d;
  if (!read_desc(dir, &d))
    return;
  uint32_t nblk = fs_size_blocks(d.size);
  repair_names_start(d.size / FS_DIRENT_SIZE);
  for (uint32_t lbn = 0; lbn < nblk; lbn++) {
    uint32_t addr = repair_map(&d, lbn);
    if (!addr)
      continue;
    struct cblock *b = cache_get(dir, lbn);
    if (!(b->flags & CB_VALID) && cache_fill(b, addr) < 0) {
      cache_release(b);
      continue;
    }
    bool changed = false;
    uint32_t n = MIN(FS_DIRENTS_PER_BLOCK, (d.size - lbn * FS_BSIZE) / FS_DIRENT_SIZE);
    for (uint32_t k = 0; k < n; k++) {
      struct fs_dirent *e = (struct fs_dirent *)(b->data + k * FS_DIRENT_SIZE);
      uint32_t slot = lbn * FS_DIRENTS_PER_BLOCK + k;
      if (slot < 2) {
        /* Slot 0 is always ".", slot 1 "..": mkdir puts them there and nothing moves them. */
        const char *name = slot == 0 ? "." : "..";
        uint32_t want = slot == 0 ? dir : parent;
        if (e->ino != want || !fs_dirent_name_ok(e) || !fs_dirent_is(e, name)) {
          fs_dirent_set(e, want, name);
          changed = true;
          fixed.dots++;
        }
        refs_inc(want);
        continue;
      }
      if (e->ino == 0)
        continue;
      if (dir == swap_dir) {
        /* Backing files mean nothing after a crash, and may name blocks and descriptors
         * already reused (fs/alloc.c frees theirs at once): /swap starts empty. */
        memset(e, 0, sizeof(*e));
        changed = true;
        fixed.entries++;
        continue;
      }
      struct fs_desc c;
      bool ok = fs_dirent_name_ok(e) && !fs_dirent_is(e, ".") && !fs_dirent_is(e, "..") &&
                e->ino > FS_ROOT_DESC && e->ino < fs_sb.ndesc && read_desc(e->ino, &c) &&
                (c.type == FS_T_FILE || (c.type == FS_T_DIR && sound_dir(&c) &&
                                         !bit_get(&seen, e->ino) &&
                                         !bit_get(&claimed, c.direct[0])));
      /* The second of two equal names goes: a lookup could only ever find the first. */
      if (!ok || repair_seen_name(dir, &d, lbn, b, e, slot)) {
        memset(e, 0, sizeof(*e));
        changed = true;
        fixed.entries++;
        continue;
      }
      refs_inc(e->ino);
      if (c.type == FS_T_DIR) {
        if (dir == FS_ROOT_DESC && fs_dirent_is(e, "swap"))
          swap_dir = e->ino;
        bit_set(&seen, e->ino, true);
        claim_dir(e->ino);
        push(e->ino, dir);
      }
    }
    if (changed)
      cache_dirty(b);
    cache_release(b);
  }
  repair_names_end();
}

/* --- D: orphans and link counts ------------------------------------------------------------ */

static bool pass_c(uint32_t inum, struct fs_desc *d)
{
  uint16_t n = refs_get(inum);
  if (inum != FS_ROOT_DESC && (n == 0 || (d->type != FS_T_FILE && d->type != FS_T_DIR))) {
    /* It claimed nothing (only what the tree reaches does), so its blocks are free. */
    /* Its cached data (a directory walked before it lost its last entry) goes too. */
    for (uint32_t lbn = 0; lbn < FS_NDIRECT; lbn++)
      cache_invalidate(inum, lbn);
    memset(d, 0, sizeof(*d));
    fixed.orphans++;
    return true;
  }
  if (d->nlink != n) {
    d->nlink = n;
    fixed.links++;
    return true;
  }
  return false;
}

/* --- E: the bitmap ------------------------------------------------------------------------ */

static void pass_d(void)
{
  uint32_t free_blocks = 0;
  for (uint32_t i = 0; i < fs_sb.bitmap_blocks; i++) {
    int err;
    struct cblock *b = cache_read_dev(fs_sb.bitmap_start + i, &err);
    if (!b)
      continue;
    bool changed = false;
    for (uint32_t bit = 0; bit < FS_BITS_PER_BLOCK; bit++) {
      uint32_t blk = i * FS_BITS_PER_BLOCK + bit;
      bool used = blk < fs_sb.data_start || blk >= fs_sb.nblocks || bit_get(&claimed, blk);
      if (used != (fs_bit_get(b->data, bit) != 0)) {
        if (used)
          fs_bit_set(b->data, bit);
        else
          fs_bit_clear(b->data, bit);
        changed = true;
        fixed.bits++;
      }
      if (!used)
        free_blocks++;
    }
    if (changed)
      cache_dirty(b);
    cache_release(b);
  }
  fs_sb.free_blocks = free_blocks;
}

static uint32_t free_descs;
static bool count_desc(uint32_t inum, struct fs_desc *d)
{
  (void)inum;
  (void)d;
  free_descs--;
  return false;
}

void fs_repair(void)
{
  memset(&fixed, 0, sizeof(fixed));
  nstack = 0;
  swap_dir = 0;
  struct fs_desc root;
  if (!read_desc(FS_ROOT_DESC, &root) || !sound_dir(&root)) {
    kprintf("fs: repair: the root directory is damaged; not repairing\n");
    return;
  }
  each_desc(pass_a);
  bit_set(&seen, FS_ROOT_DESC, true);
  claim_dir(FS_ROOT_DESC);
  push(FS_ROOT_DESC, FS_ROOT_DESC);
  while (nstack > 0 && !stack.oom) {
    nstack--;
    uint32_t *p = (uint32_t *)pa_at(&stack, 8 * nstack);
    walk_dir(p[0], p[1]);
  }
  if (!(claimed.oom || refs.oom || seen.oom || stack.oom))
    each_desc(pass_claim);
  if (claimed.oom || refs.oom || seen.oom || stack.oom) {
    kprintf("fs: repair: out of memory; the disk is left as it is\n");
  } else {
    each_desc(pass_c);
    pass_d();
    free_descs = fs_sb.ndesc - 1;
    each_desc(count_desc);
    fs_sb.free_descs = free_descs;
    kprintf("fs: repaired after an unclean shutdown: %u entries removed, %u '.'/'..' set, "
            "%u orphans freed, %u link counts, %u pointers, %u block counts, %u sizes, "
            "%u bitmap bits fixed\n", fixed.entries, fixed.dots, fixed.orphans, fixed.links,
            fixed.pointers, fixed.counts, fixed.sizes, fixed.bits);
    if (cache_sync_all() < 0 || cache_flush_disk() < 0)
      kprintf("fs: repair: could not write everything back\n");
  }
  pa_free(&claimed);
  pa_free(&refs);
  pa_free(&seen);
  pa_free(&stack);
  claimed.oom = refs.oom = seen.oom = stack.oom = false;
}
