/* Host-side image access for mkfs and fsck (see image.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "mkfs/image.h"

static int fail(struct image *im, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct image *im, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(im->err, sizeof(im->err), fmt, ap);
  va_end(ap);
  return -1;
}

int img_read_block(struct image *im, uint32_t b, void *buf)
{
  if (b >= im->sb.nblocks)
    return fail(im, "block %u is beyond the file system (%u blocks)", b, im->sb.nblocks);
  ssize_t n = pread(im->fd, buf, FS_BSIZE, (off_t)b * FS_BSIZE);
  if (n < 0)
    return fail(im, "%s: read of block %u: %s", im->path, b, strerror(errno));
  /* Past the end of a short image reads as zeros, like a hole; fsck reports the length. */
  memset((char *)buf + n, 0, FS_BSIZE - (size_t)n);
  return 0;
}

int img_write_block(struct image *im, uint32_t b, const void *buf)
{
  if (b >= im->sb.nblocks)
    return fail(im, "block %u is beyond the file system (%u blocks)", b, im->sb.nblocks);
  ssize_t n = pwrite(im->fd, buf, FS_BSIZE, (off_t)b * FS_BSIZE);
  if (n != FS_BSIZE)
    return fail(im, "%s: write of block %u: %s", im->path, b, n < 0 ? strerror(errno) : "short write");
  return 0;
}

struct fs_desc *img_desc(struct image *im, uint32_t inum)
{
  if (inum == 0 || inum >= im->sb.ndesc)
    return 0;
  return &im->descs[inum];
}

static int load_metadata(struct image *im)
{
  struct fs_super *sb = &im->sb;
  im->bitmap = calloc(sb->bitmap_blocks, FS_BSIZE);
  im->descs = calloc(sb->desc_blocks, FS_BSIZE);
  if (!im->bitmap || !im->descs)
    return fail(im, "out of memory");
  for (uint32_t i = 0; i < sb->bitmap_blocks; i++)
    if (img_read_block(im, sb->bitmap_start + i, im->bitmap + (size_t)i * FS_BSIZE) < 0)
      return -1;
  for (uint32_t i = 0; i < sb->desc_blocks; i++)
    if (img_read_block(im, sb->desc_start + i, (char *)im->descs + (size_t)i * FS_BSIZE) < 0)
      return -1;
  return 0;
}

int img_open(struct image *im, const char *path, int writable)
{
  memset(im, 0, sizeof(*im));
  im->fd = -1;
  im->path = path;
  im->writable = writable;
  im->fd = open(path, writable ? O_RDWR : O_RDONLY);
  if (im->fd < 0)
    return fail(im, "%s: %s", path, strerror(errno));
  struct stat st;
  if (fstat(im->fd, &st) < 0)
    return fail(im, "%s: %s", path, strerror(errno));
  if (!S_ISREG(st.st_mode))
    return fail(im, "%s: not a regular file", path);
  im->file_blocks = (uint64_t)st.st_size / FS_BSIZE;
  char buf[FS_BSIZE];
  if (pread(im->fd, buf, FS_BSIZE, FS_SUPER_BLOCK * FS_BSIZE) != FS_BSIZE)
    return fail(im, "%s: not a Sprite file system: too short for a superblock", path);
  memcpy(&im->sb, buf, sizeof(im->sb));
  char why[200];
  if (fs_super_check(&im->sb, 0, why, sizeof(why)) < 0)
    return fail(im, "%s: not a Sprite file system: %s", path, why);
  im->brotor = im->sb.data_start;
  return load_metadata(im);
}

int img_create(struct image *im, const char *path, uint32_t nblocks)
{
  memset(im, 0, sizeof(*im));
  im->fd = -1;
  im->path = path;
  im->writable = 1;
  const char *why;
  if (fs_layout(&im->sb, nblocks, 0, &why) < 0)
    return fail(im, "%s", why);
  im->fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (im->fd < 0)
    return fail(im, "%s: %s", path, strerror(errno));
  /* Sparse: the blocks never written read as zeros and take no space on the host. */
  if (ftruncate(im->fd, (off_t)nblocks * FS_BSIZE) < 0)
    return fail(im, "%s: %s", path, strerror(errno));
  im->file_blocks = nblocks;
  struct fs_super *sb = &im->sb;
  im->bitmap = calloc(sb->bitmap_blocks, FS_BSIZE);
  im->descs = calloc(sb->desc_blocks, FS_BSIZE);
  if (!im->bitmap || !im->descs)
    return fail(im, "out of memory");
  /* Metadata blocks, and the bits past the end of the disk, are never free. */
  for (uint32_t b = 0; b < sb->data_start; b++)
    fs_bit_set(im->bitmap, b);
  for (uint32_t b = nblocks; b < sb->bitmap_blocks * FS_BITS_PER_BLOCK; b++)
    fs_bit_set(im->bitmap, b);
  im->brotor = sb->data_start;
  /* fs_layout already counted the root as used. */
  struct fs_desc *root = &im->descs[FS_ROOT_DESC];
  root->type = FS_T_DIR;
  if (img_link(im, FS_ROOT_DESC, ".", FS_ROOT_DESC) < 0 ||
      img_link(im, FS_ROOT_DESC, "..", FS_ROOT_DESC) < 0)
    return -1;
  return 0;
}

int img_close(struct image *im)
{
  int r = 0;
  if (im->writable && im->fd >= 0 && im->bitmap && im->descs) {
    struct fs_super *sb = &im->sb;
    char buf[FS_BSIZE];
    sb->clean = 1;
    fs_super_seal(sb);
    memset(buf, 0, sizeof(buf));
    memcpy(buf, sb, sizeof(*sb));
    if (img_write_block(im, FS_SUPER_BLOCK, buf) < 0)
      r = -1;
    for (uint32_t i = 0; r == 0 && i < sb->bitmap_blocks; i++)
      r = img_write_block(im, sb->bitmap_start + i, im->bitmap + (size_t)i * FS_BSIZE);
    /* Descriptor blocks that are all zero stay holes. */
    static const char zero[FS_BSIZE];
    for (uint32_t i = 0; r == 0 && i < sb->desc_blocks; i++) {
      const char *p = (const char *)im->descs + (size_t)i * FS_BSIZE;
      if (memcmp(p, zero, FS_BSIZE) != 0)
        r = img_write_block(im, sb->desc_start + i, p);
    }
    if (r == 0 && fsync(im->fd) < 0)
      r = fail(im, "%s: %s", im->path, strerror(errno));
  }
  if (im->fd >= 0 && close(im->fd) < 0 && r == 0)
    r = fail(im, "%s: %s", im->path, strerror(errno));
  im->fd = -1;
  free(im->bitmap);
  free(im->descs);
  im->bitmap = 0;
  im->descs = 0;
  return r;
}

/* --- reading ----------------------------------------------------------------------------- */

/* Reads slot i of indirect block ind, checking both the block and what it holds. */
static int64_t slot(struct image *im, uint32_t ind, uint32_t i)
{
  uint32_t buf[FS_NINDIRECT];
  if (!fs_block_ok(&im->sb, ind))
    return fail(im, "indirect block pointer %u out of range", ind);
  if (img_read_block(im, ind, buf) < 0)
    return -1;
  if (buf[i] && !fs_block_ok(&im->sb, buf[i]))
    return fail(im, "block pointer %u out of range (in block %u)", buf[i], ind);
  return buf[i];
}

int64_t img_bmap(struct image *im, uint32_t inum, uint32_t lbn)
{
  struct fs_desc *d = img_desc(im, inum);
  struct fs_bpath p;
  if (!d)
    return fail(im, "descriptor %u out of range", inum);
  if (fs_bmap_path(lbn, &p) < 0)
    return fail(im, "block %u beyond the largest file", lbn);
  uint32_t b;
  switch (p.level) {
  case 0:
    b = d->direct[p.idx[0]];
    if (b && !fs_block_ok(&im->sb, b))
      return fail(im, "descriptor %u: direct pointer %u out of range", inum, b);
    return b;
  case 1:
    return d->indirect ? slot(im, d->indirect, p.idx[0]) : 0;
  default: {
    if (!d->dindirect)
      return 0;
    int64_t mid = slot(im, d->dindirect, p.idx[0]);
    if (mid <= 0)
      return mid;
    return slot(im, (uint32_t)mid, p.idx[1]);
  }
  }
}

int64_t img_pread(struct image *im, uint32_t inum, uint64_t off, void *buf, uint32_t n)
{
  struct fs_desc *d = img_desc(im, inum);
  if (!d)
    return fail(im, "descriptor %u out of range", inum);
  if (off >= d->size)
    return 0;
  if (off + n > d->size)
    n = (uint32_t)(d->size - off);
  char blk[FS_BSIZE];
  uint32_t done = 0;
  while (done < n) {
    uint32_t lbn = (uint32_t)(off / FS_BSIZE), boff = (uint32_t)(off % FS_BSIZE);
    uint32_t m = FS_BSIZE - boff;
    if (m > n - done)
      m = n - done;
    int64_t b = img_bmap(im, inum, lbn);
    if (b < 0)
      return -1;
    if (b == 0)
      memset(blk, 0, sizeof(blk));
    else if (img_read_block(im, (uint32_t)b, blk) < 0)
      return -1;
    memcpy((char *)buf + done, blk + boff, m);
    done += m;
    off += m;
  }
  return done;
}

int64_t img_lookup(struct image *im, uint32_t dir, const char *name)
{
  struct fs_desc *d = img_desc(im, dir);
  if (!d || d->type != FS_T_DIR)
    return fail(im, "descriptor %u is not a directory", dir);
  struct fs_dirent des[FS_DIRENTS_PER_BLOCK];
  for (uint64_t off = 0; off < d->size; off += sizeof(des)) {
    int64_t n = img_pread(im, dir, off, des, sizeof(des));
    if (n < 0)
      return -1;
    for (int64_t i = 0; i < n / (int64_t)FS_DIRENT_SIZE; i++)
      if (des[i].ino && fs_dirent_is(&des[i], name))
        return des[i].ino;
  }
  return 0;
}

int64_t img_namei(struct image *im, const char *path)
{
  uint32_t cur = FS_ROOT_DESC;
  char name[FS_NAME_MAX + 2];
  const char *p = path;
  for (;;) {
    while (*p == '/')
      p++;
    if (*p == 0)
      return cur;
    size_t n = 0;
    while (p[n] && p[n] != '/')
      n++;
    if (n > FS_NAME_MAX)
      return fail(im, "%s: name too long", path);
    memcpy(name, p, n);
    name[n] = 0;
    p += n;
    struct fs_desc *d = img_desc(im, cur);
    if (!d || d->type != FS_T_DIR)
      return fail(im, "%s: not a directory", path);
    int64_t next = img_lookup(im, cur, name);
    if (next <= 0)
      return next;
    if (!img_desc(im, (uint32_t)next))
      return fail(im, "%s: entry names descriptor %lld, out of range", path, (long long)next);
    cur = (uint32_t)next;
  }
}

/* --- building ---------------------------------------------------------------------------- */

uint32_t img_balloc(struct image *im)
{
  struct fs_super *sb = &im->sb;
  int32_t b = fs_bit_find_clear(im->bitmap, im->brotor, sb->nblocks);
  if (b < 0)
    b = fs_bit_find_clear(im->bitmap, sb->data_start, sb->nblocks);
  if (b < 0) {
    fail(im, "image full: no free block left in %u blocks", sb->nblocks);
    return 0;
  }
  fs_bit_set(im->bitmap, (uint32_t)b);
  sb->free_blocks--;
  im->brotor = (uint32_t)b + 1;
  return (uint32_t)b;
}

uint32_t img_ialloc(struct image *im, int type)
{
  for (uint32_t i = FS_ROOT_DESC + 1; i < im->sb.ndesc; i++) {
    if (im->descs[i].type == FS_T_FREE) {
      memset(&im->descs[i], 0, sizeof(im->descs[i]));
      im->descs[i].type = (uint16_t)type;
      im->sb.free_descs--;
      return i;
    }
  }
  fail(im, "image full: all %u descriptors in use", im->sb.ndesc - 1);
  return 0;
}

/* A new zeroed block for an indirect level. */
static uint32_t new_zero_block(struct image *im, struct fs_desc *d)
{
  static const char zero[FS_BSIZE];
  uint32_t b = img_balloc(im);
  if (b == 0 || img_write_block(im, b, zero) < 0)
    return 0;
  d->blocks++;
  return b;
}

/* Slot i of indirect block ind, allocating (a zeroed indirect block when zero_fill, else a
 * plain data block) when empty. */
static uint32_t slot_alloc(struct image *im, struct fs_desc *d, uint32_t ind, uint32_t i,
                           int zero_fill, int *fresh)
{
  uint32_t buf[FS_NINDIRECT];
  if (img_read_block(im, ind, buf) < 0)
    return 0;
  if (buf[i])
    return buf[i];
  uint32_t b = zero_fill ? new_zero_block(im, d) : img_balloc(im);
  if (b == 0)
    return 0;
  if (!zero_fill) {
    d->blocks++;
    *fresh = 1;
  }
  buf[i] = b;
  if (img_write_block(im, ind, buf) < 0)
    return 0;
  return b;
}

/* The disk block for lbn of d, allocated if missing; *fresh says it was just allocated. */
static uint32_t bmap_alloc(struct image *im, struct fs_desc *d, uint32_t lbn, int *fresh)
{
  struct fs_bpath p;
  *fresh = 0;
  if (fs_bmap_path(lbn, &p) < 0) {
    fail(im, "file too large");
    return 0;
  }
  if (p.level == 0) {
    if (!d->direct[p.idx[0]]) {
      uint32_t b = img_balloc(im);
      if (!b)
        return 0;
      d->direct[p.idx[0]] = b;
      d->blocks++;
      *fresh = 1;
    }
    return d->direct[p.idx[0]];
  }
  if (p.level == 1) {
    if (!d->indirect && !(d->indirect = new_zero_block(im, d)))
      return 0;
    return slot_alloc(im, d, d->indirect, p.idx[0], 0, fresh);
  }
  if (!d->dindirect && !(d->dindirect = new_zero_block(im, d)))
    return 0;
  uint32_t mid = slot_alloc(im, d, d->dindirect, p.idx[0], 1, fresh);
  if (!mid)
    return 0;
  return slot_alloc(im, d, mid, p.idx[1], 0, fresh);
}

int img_append(struct image *im, uint32_t inum, const void *data, uint32_t n)
{
  struct fs_desc *d = img_desc(im, inum);
  if (!d)
    return fail(im, "descriptor %u out of range", inum);
  if ((uint64_t)d->size + n > FS_MAXFILE)
    return fail(im, "file too large (the limit is 2 GiB - 1 bytes)");
  char blk[FS_BSIZE];
  const char *src = data;
  while (n > 0) {
    uint32_t off = d->size, boff = off % FS_BSIZE;
    uint32_t m = FS_BSIZE - boff;
    if (m > n)
      m = n;
    int fresh;
    uint32_t b = bmap_alloc(im, d, off / FS_BSIZE, &fresh);
    if (!b)
      return -1;
    if (fresh)
      memset(blk, 0, sizeof(blk));
    else if (img_read_block(im, b, blk) < 0)
      return -1;
    memcpy(blk + boff, src, m);
    if (img_write_block(im, b, blk) < 0)
      return -1;
    d->size += m;
    src += m;
    n -= m;
  }
  return 0;
}

int img_link(struct image *im, uint32_t dir, const char *name, uint32_t inum)
{
  struct fs_dirent de;
  int r = fs_dirent_set(&de, inum, name);
  if (r == -2)
    return fail(im, "name too long (at most %d bytes): %s", FS_NAME_MAX, name);
  if (r < 0)
    return fail(im, "bad name '%s'", name);
  int64_t old = img_lookup(im, dir, name);
  if (old < 0)
    return -1;
  if (old > 0)
    return fail(im, "name collision: '%s' already exists", name);
  struct fs_desc *t = img_desc(im, inum);
  if (!t)
    return fail(im, "descriptor %u out of range", inum);
  /* mkfs never removes entries, so there are no empty slots to reuse: append. */
  if (img_append(im, dir, &de, sizeof(de)) < 0)
    return -1;
  t->nlink++;
  return 0;
}

uint32_t img_mkdir(struct image *im, uint32_t parent, const char *name)
{
  if (fs_name_check(name) == -2) {
    fail(im, "name too long (at most %d bytes): %s", FS_NAME_MAX, name);
    return 0;
  }
  int64_t old = img_lookup(im, parent, name);
  if (old != 0) {
    if (old > 0)
      fail(im, "name collision: '%s' already exists", name);
    return 0;
  }
  uint32_t ino = img_ialloc(im, FS_T_DIR);
  if (!ino)
    return 0;
  if (img_link(im, ino, ".", ino) < 0 || img_link(im, ino, "..", parent) < 0 ||
      img_link(im, parent, name, ino) < 0)
    return 0;
  return ino;
}
