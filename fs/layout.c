/* The on-disk format: layout arithmetic and checks shared by the kernel and the host tools.
 * No library calls at all (not even memset), so that it links into the freestanding kernel
 * and into host programs alike. */
#include "fs/layout.h"

/* --- tiny string building for error messages (no snprintf here) -------------------------- */

struct sbuf {
  char *p;
  size_t len, used;
};

static void sb_putc(struct sbuf *s, char c)
{
  if (s->len == 0)
    return;
  if (s->used + 1 < s->len)
    s->p[s->used++] = c;
  s->p[s->used] = 0;
}

static void sb_puts(struct sbuf *s, const char *str)
{
  while (*str)
    sb_putc(s, *str++);
}

static void sb_putu(struct sbuf *s, uint64_t v)
{
  char tmp[24];
  int n = 0;
  do {
    tmp[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  while (n > 0)
    sb_putc(s, tmp[--n]);
}

static void sb_putx(struct sbuf *s, uint32_t v)
{
  sb_puts(s, "0x");
  for (int i = 28; i >= 0; i -= 4)
    sb_putc(s, "0123456789abcdef"[(v >> i) & 0xf]);
}

/* "what is X (expected Y)" */
static int bad(struct sbuf *s, const char *what, uint64_t got, const char *rel, uint64_t want)
{
  sb_puts(s, what);
  sb_puts(s, " is ");
  sb_putu(s, got);
  sb_puts(s, " (expected ");
  sb_puts(s, rel);
  sb_putu(s, want);
  sb_puts(s, ")");
  return -1;
}

/* --- layout ------------------------------------------------------------------------------ */

static uint32_t div_up(uint32_t a, uint32_t b) { return a / b + (a % b != 0); }

int fs_layout(struct fs_super *sb, uint32_t nblocks, uint32_t ndesc, const char **why)
{
  unsigned char *z = (unsigned char *)sb;
  for (size_t i = 0; i < sizeof(*sb); i++)
    z[i] = 0;
  if (nblocks < FS_MIN_BLOCKS) {
    *why = "file system too small (at least 64 blocks of 4 KB)";
    return -1;
  }
  if (nblocks > FS_MAX_BLOCKS) {
    *why = "file system too large (at most 4 GB)";
    return -1;
  }
  /* One descriptor per four blocks (an average file of 16 KB) is plenty for a teaching
   * system and costs under 1% of the disk. */
  if (ndesc == 0)
    ndesc = nblocks / 4;
  if (ndesc > FS_MAX_DESCS) {
    *why = "too many descriptors";
    return -1;
  }
  uint32_t desc_blocks = div_up(ndesc < 2 ? 2 : ndesc, FS_DESCS_PER_BLOCK);
  sb->magic = FS_MAGIC;
  sb->version = FS_VERSION;
  sb->block_size = FS_BSIZE;
  sb->nblocks = nblocks;
  sb->bitmap_start = FS_SUPER_BLOCK + 1;
  sb->bitmap_blocks = div_up(nblocks, FS_BITS_PER_BLOCK);
  sb->desc_start = sb->bitmap_start + sb->bitmap_blocks;
  sb->desc_blocks = desc_blocks;
  sb->ndesc = desc_blocks * FS_DESCS_PER_BLOCK;
  sb->data_start = sb->desc_start + desc_blocks;
  sb->root = FS_ROOT_DESC;
  if (sb->data_start + 16 > nblocks) {
    *why = "too many descriptors for so few blocks";
    return -1;
  }
  sb->clean = 1;
  sb->free_blocks = nblocks - sb->data_start;
  sb->free_descs = sb->ndesc - 2;     /* 0 is never used, 1 is the root */
  sb->mounts = 0;
  fs_super_seal(sb);
  return 0;
}

/* FNV-1a over every byte before the checksum field. */
uint32_t fs_super_checksum(const struct fs_super *sb)
{
  const unsigned char *p = (const unsigned char *)sb;
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < offsetof(struct fs_super, checksum); i++) {
    h ^= p[i];
    h *= 16777619u;
  }
  return h;
}

void fs_super_seal(struct fs_super *sb)
{
  sb->checksum = fs_super_checksum(sb);
}

int fs_super_check(const struct fs_super *sb, uint64_t disk_blocks, char *why, size_t whylen)
{
  struct sbuf s = { why, whylen, 0 };
  if (whylen)
    why[0] = 0;
  if (sb->magic != FS_MAGIC) {
    sb_puts(&s, "bad magic ");
    sb_putx(&s, sb->magic);
    sb_puts(&s, " (expected ");
    sb_putx(&s, FS_MAGIC);
    sb_puts(&s, ")");
    return -1;
  }
  if (sb->version != FS_VERSION)
    return bad(&s, "version", sb->version, "", FS_VERSION);
  if (sb->checksum != fs_super_checksum(sb)) {
    sb_puts(&s, "superblock checksum ");
    sb_putx(&s, sb->checksum);
    sb_puts(&s, " does not match its contents (");
    sb_putx(&s, fs_super_checksum(sb));
    sb_puts(&s, ")");
    return -1;
  }
  if (sb->block_size != FS_BSIZE)
    return bad(&s, "block size", sb->block_size, "", FS_BSIZE);
  if (sb->nblocks < FS_MIN_BLOCKS)
    return bad(&s, "block count", sb->nblocks, "at least ", FS_MIN_BLOCKS);
  if (sb->nblocks > FS_MAX_BLOCKS)
    return bad(&s, "block count", sb->nblocks, "at most ", FS_MAX_BLOCKS);
  if (disk_blocks && sb->nblocks > disk_blocks)
    return bad(&s, "block count", sb->nblocks, "no more than the disk's ", disk_blocks);
  if (sb->bitmap_start != FS_SUPER_BLOCK + 1)
    return bad(&s, "bitmap start", sb->bitmap_start, "", FS_SUPER_BLOCK + 1);
  if (sb->bitmap_blocks != div_up(sb->nblocks, FS_BITS_PER_BLOCK))
    return bad(&s, "bitmap block count", sb->bitmap_blocks, "", div_up(sb->nblocks, FS_BITS_PER_BLOCK));
  if (sb->desc_start != sb->bitmap_start + sb->bitmap_blocks)
    return bad(&s, "descriptor area start", sb->desc_start, "", sb->bitmap_start + sb->bitmap_blocks);
  if (sb->desc_blocks == 0 || sb->desc_blocks > FS_MAX_DESCS / FS_DESCS_PER_BLOCK)
    return bad(&s, "descriptor block count", sb->desc_blocks, "at most ", FS_MAX_DESCS / FS_DESCS_PER_BLOCK);
  if (sb->ndesc != sb->desc_blocks * FS_DESCS_PER_BLOCK)
    return bad(&s, "descriptor count", sb->ndesc, "", sb->desc_blocks * FS_DESCS_PER_BLOCK);
  if (sb->data_start != sb->desc_start + sb->desc_blocks)
    return bad(&s, "data start", sb->data_start, "", sb->desc_start + sb->desc_blocks);
  if (sb->data_start >= sb->nblocks)
    return bad(&s, "data start", sb->data_start, "below the block count ", sb->nblocks);
  if (sb->root != FS_ROOT_DESC)
    return bad(&s, "root descriptor", sb->root, "", FS_ROOT_DESC);
  if (sb->clean > 1)
    return bad(&s, "clean flag", sb->clean, "0 or ", 1);
  if (sb->free_blocks > sb->nblocks - sb->data_start)
    return bad(&s, "free block count", sb->free_blocks, "at most ", sb->nblocks - sb->data_start);
  if (sb->free_descs > sb->ndesc - 2)
    return bad(&s, "free descriptor count", sb->free_descs, "at most ", sb->ndesc - 2);
  return 0;
}

/* --- block mapping ----------------------------------------------------------------------- */

int fs_bmap_path(uint32_t lbn, struct fs_bpath *p)
{
  p->idx[0] = p->idx[1] = 0;
  if (lbn < FS_NDIRECT) {
    p->level = 0;
    p->idx[0] = lbn;
    return 0;
  }
  lbn -= FS_NDIRECT;
  if (lbn < FS_NINDIRECT) {
    p->level = 1;
    p->idx[0] = lbn;
    return 0;
  }
  lbn -= FS_NINDIRECT;
  if (lbn < FS_NINDIRECT * FS_NINDIRECT) {
    p->level = 2;
    p->idx[0] = lbn / FS_NINDIRECT;
    p->idx[1] = lbn % FS_NINDIRECT;
    return 0;
  }
  p->level = -1;
  return -1;
}

uint32_t fs_lbn_of(int level, uint32_t i0, uint32_t i1)
{
  if (level == 0)
    return i0;
  if (level == 1)
    return FS_NDIRECT + i0;
  return FS_NDIRECT + FS_NINDIRECT + i0 * FS_NINDIRECT + i1;
}

int fs_block_ok(const struct fs_super *sb, uint32_t b)
{
  return b >= sb->data_start && b < sb->nblocks;
}

/* --- the bitmap -------------------------------------------------------------------------- */

int fs_bit_get(const uint8_t *map, uint32_t bit) { return (map[bit / 8] >> (bit % 8)) & 1; }
void fs_bit_set(uint8_t *map, uint32_t bit) { map[bit / 8] |= (uint8_t)(1u << (bit % 8)); }
void fs_bit_clear(uint8_t *map, uint32_t bit) { map[bit / 8] &= (uint8_t)~(1u << (bit % 8)); }

int32_t fs_bit_find_clear(const uint8_t *map, uint32_t from, uint32_t limit)
{
  uint32_t b = from;
  while (b < limit) {
    if (b % 8 == 0 && map[b / 8] == 0xff) {
      b += 8;
      continue;
    }
    if (!fs_bit_get(map, b))
      return (int32_t)b;
    b++;
  }
  return -1;
}

uint32_t fs_bit_count(const uint8_t *map, uint32_t limit)
{
  uint32_t n = 0;
  for (uint32_t b = 0; b < limit; b++)
    n += (uint32_t)fs_bit_get(map, b);
  return n;
}

/* --- descriptors ------------------------------------------------------------------------- */

int fs_desc_check(const struct fs_super *sb, const struct fs_desc *d, const char **why)
{
  if (d->type != FS_T_FILE && d->type != FS_T_DIR) {
    *why = "bad type";
    return -1;
  }
  if (d->size > FS_MAXFILE) {
    *why = "size beyond 2 GiB";
    return -1;
  }
  if (d->type == FS_T_DIR && d->size % FS_DIRENT_SIZE != 0) {
    *why = "directory size not a multiple of 32";
    return -1;
  }
  for (uint32_t i = 0; i < FS_NDIRECT; i++) {
    if (d->direct[i] && !fs_block_ok(sb, d->direct[i])) {
      *why = "direct block pointer out of range";
      return -1;
    }
  }
  if (d->indirect && !fs_block_ok(sb, d->indirect)) {
    *why = "indirect block pointer out of range";
    return -1;
  }
  if (d->dindirect && !fs_block_ok(sb, d->dindirect)) {
    *why = "doubly-indirect block pointer out of range";
    return -1;
  }
  if (d->blocks > sb->nblocks - sb->data_start) {
    *why = "block count larger than the disk";
    return -1;
  }
  return 0;
}

/* --- directory entries ------------------------------------------------------------------- */

int fs_name_check(const char *name)
{
  size_t n = 0;
  if (name[0] == 0)
    return -1;
  for (; name[n]; n++) {
    if (name[n] == '/')
      return -1;
  }
  return n > FS_NAME_MAX ? -2 : 0;
}

int fs_dirent_set(struct fs_dirent *de, uint32_t ino, const char *name)
{
  int r = fs_name_check(name);
  if (r < 0)
    return r;
  de->ino = ino;
  size_t i = 0;
  for (; name[i]; i++)
    de->name[i] = name[i];
  for (; i < sizeof(de->name); i++)
    de->name[i] = 0;
  return 0;
}

int fs_dirent_is(const struct fs_dirent *de, const char *name)
{
  for (size_t i = 0; i < sizeof(de->name); i++) {
    if (de->name[i] != name[i])
      return 0;
    if (name[i] == 0)
      return 1;
  }
  return 0;     /* name is longer than any stored one */
}

int fs_dirent_name_ok(const struct fs_dirent *de)
{
  if (de->name[0] == 0)
    return 0;
  for (size_t i = 0; i < sizeof(de->name); i++) {
    if (de->name[i] == 0)
      return 1;
    if (de->name[i] == '/')
      return 0;
  }
  return 0;
}
