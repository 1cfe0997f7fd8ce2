/* Unit tests for fs/layout.c: block-map arithmetic, layout computation, superblock checks,
 * bitmap and directory-entry helpers; exits non-zero on any failure (tests/host/test_mkfs.py).
 *
 * host-test: fs/layout.c */
#include <stdio.h>
#include <string.h>
#include "fs/layout.h"

static int failures, checks;

#define CHECK(c) do { checks++; if (!(c)) { failures++; \
  printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); } } while (0)
#define CHECK_EQ(a, b) do { checks++; long long _a = (long long)(a), _b = (long long)(b); \
  if (_a != _b) { failures++; printf("FAIL %s:%d: %s == %lld, expected %lld\n", \
  __FILE__, __LINE__, #a, _a, _b); } } while (0)

static void path_is(uint32_t lbn, int level, uint32_t i0, uint32_t i1)
{
  struct fs_bpath p;
  int r = fs_bmap_path(lbn, &p);
  if (level < 0) {
    CHECK_EQ(r, -1);
    return;
  }
  CHECK_EQ(r, 0);
  CHECK_EQ(p.level, level);
  CHECK_EQ(p.idx[0], i0);
  if (level == 2)
    CHECK_EQ(p.idx[1], i1);
  CHECK_EQ(fs_lbn_of(p.level, p.idx[0], p.idx[1]), lbn);
}

static void test_bmap(void)
{
  path_is(0, 0, 0, 0);
  path_is(9, 0, 9, 0);
  path_is(10, 1, 0, 0);          /* first block through the indirect block */
  path_is(11, 1, 1, 0);
  path_is(1033, 1, 1023, 0);     /* last one there */
  path_is(1034, 2, 0, 0);        /* first through the doubly-indirect block */
  path_is(1034 + 1023, 2, 0, 1023);
  path_is(1034 + 1024, 2, 1, 0);
  path_is(1034 + 1024 * 1024 - 1, 2, 1023, 1023);
  path_is(1034 + 1024 * 1024, -1, 0, 0);
  path_is(0xFFFFFFFFu, -1, 0, 0);
  /* Every block of the largest file maps, and the mapping round-trips. */
  CHECK_EQ(FS_MAXFILE_BLOCKS, 524288);
  path_is(FS_MAXFILE_BLOCKS - 1, 2, (FS_MAXFILE_BLOCKS - 1 - 1034) / 1024, (FS_MAXFILE_BLOCKS - 1 - 1034) % 1024);
  for (uint32_t lbn = 0; lbn < 3000; lbn++) {
    struct fs_bpath p;
    fs_bmap_path(lbn, &p);
    if (fs_lbn_of(p.level, p.idx[0], p.idx[1]) != lbn) {
      CHECK(!"lbn round trip");
      break;
    }
  }
  CHECK_EQ(fs_size_blocks(0), 0);
  CHECK_EQ(fs_size_blocks(1), 1);
  CHECK_EQ(fs_size_blocks(4096), 1);
  CHECK_EQ(fs_size_blocks(4097), 2);
  CHECK_EQ(fs_size_blocks(FS_MAXFILE), 524288);
}

static void test_layout(void)
{
  struct fs_super sb;
  const char *why;
  char msg[200];

  /* 1 MB: 256 blocks, 64 descriptors in 2 blocks. */
  CHECK_EQ(fs_layout(&sb, 256, 0, &why), 0);
  CHECK_EQ(sb.magic, FS_MAGIC);
  CHECK_EQ(sb.block_size, 4096);
  CHECK_EQ(sb.bitmap_start, 2);
  CHECK_EQ(sb.bitmap_blocks, 1);
  CHECK_EQ(sb.desc_start, 3);
  CHECK_EQ(sb.desc_blocks, 2);
  CHECK_EQ(sb.ndesc, 64);
  CHECK_EQ(sb.data_start, 5);
  CHECK_EQ(sb.root, 1);
  CHECK_EQ(sb.free_blocks, 256 - 5);
  CHECK_EQ(sb.free_descs, 62);
  CHECK_EQ(sb.clean, 1);
  CHECK_EQ(fs_super_check(&sb, 256, msg, sizeof(msg)), 0);
  CHECK_EQ(fs_super_check(&sb, 0, msg, sizeof(msg)), 0);

  /* Bitmap block counts at the 32768-block boundaries. */
  CHECK_EQ(fs_layout(&sb, 32768, 0, &why), 0);
  CHECK_EQ(sb.bitmap_blocks, 1);
  CHECK_EQ(fs_layout(&sb, 32769, 0, &why), 0);
  CHECK_EQ(sb.bitmap_blocks, 2);
  CHECK_EQ(sb.desc_start, 4);
  CHECK_EQ(fs_super_check(&sb, 32769, msg, sizeof(msg)), 0);
  /* The largest: 4 GB. */
  CHECK_EQ(fs_layout(&sb, FS_MAX_BLOCKS, 0, &why), 0);
  CHECK_EQ(sb.bitmap_blocks, 32);
  CHECK_EQ(sb.ndesc, FS_MAX_BLOCKS / 4);
  CHECK_EQ(fs_super_check(&sb, FS_MAX_BLOCKS, msg, sizeof(msg)), 0);
  /* Explicit descriptor count, rounded up to whole blocks. */
  CHECK_EQ(fs_layout(&sb, 1000, 33, &why), 0);
  CHECK_EQ(sb.ndesc, 64);
  /* Refusals. */
  CHECK_EQ(fs_layout(&sb, 63, 0, &why), -1);
  CHECK(strstr(why, "small") != 0);
  CHECK_EQ(fs_layout(&sb, FS_MAX_BLOCKS + 1, 0, &why), -1);
  CHECK(strstr(why, "large") != 0);
  CHECK_EQ(fs_layout(&sb, 64, 10000, &why), -1);
}

/* Applies a change to a good superblock and expects the check to fail mentioning word. */
static void corrupt(void (*change)(struct fs_super *), int reseal, const char *word)
{
  struct fs_super sb;
  const char *why;
  char msg[200];
  fs_layout(&sb, 16384, 0, &why);
  change(&sb);
  if (reseal)
    fs_super_seal(&sb);
  int r = fs_super_check(&sb, 16384, msg, sizeof(msg));
  CHECK_EQ(r, -1);
  if (r == -1 && !strstr(msg, word)) {
    failures++;
    printf("FAIL: corruption message '%s' does not mention '%s'\n", msg, word);
  }
}

static void c_magic(struct fs_super *s) { s->magic = 0x12345678; }
static void c_zero(struct fs_super *s) { memset(s, 0, sizeof(*s)); }
static void c_version(struct fs_super *s) { s->version = 7; }
static void c_bsize(struct fs_super *s) { s->block_size = 1024; }
static void c_nblocks(struct fs_super *s) { s->nblocks = 20000; }
static void c_bitmap(struct fs_super *s) { s->bitmap_blocks = 3; }
static void c_bitmap_start(struct fs_super *s) { s->bitmap_start = 5; }
static void c_desc_start(struct fs_super *s) { s->desc_start++; }
static void c_ndesc(struct fs_super *s) { s->ndesc++; }
static void c_data(struct fs_super *s) { s->data_start++; }
static void c_root(struct fs_super *s) { s->root = 2; }
static void c_clean(struct fs_super *s) { s->clean = 2; }
static void c_free(struct fs_super *s) { s->free_blocks = s->nblocks; }
static void c_freed(struct fs_super *s) { s->free_descs = s->ndesc; }
static void c_small(struct fs_super *s) { s->nblocks = 10; }
static void c_desc0(struct fs_super *s) { s->desc_blocks = 0; s->ndesc = 0; }

static void test_super_check(void)
{
  corrupt(c_magic, 1, "bad magic 0x12345678");
  corrupt(c_zero, 0, "bad magic 0x00000000");
  corrupt(c_version, 1, "version");
  corrupt(c_nblocks, 0, "checksum");        /* changed without resealing */
  corrupt(c_bsize, 1, "block size");
  corrupt(c_nblocks, 1, "disk");            /* larger than the disk */
  corrupt(c_bitmap, 1, "bitmap block count");
  corrupt(c_bitmap_start, 1, "bitmap start");
  corrupt(c_desc_start, 1, "descriptor area start");
  corrupt(c_ndesc, 1, "descriptor count");
  corrupt(c_data, 1, "data start");
  corrupt(c_root, 1, "root");
  corrupt(c_clean, 1, "clean");
  corrupt(c_free, 1, "free block count");
  corrupt(c_freed, 1, "free descriptor count");
  corrupt(c_small, 1, "block count");
  corrupt(c_desc0, 1, "descriptor block count");
  /* A short message buffer is truncated, never overrun. */
  struct fs_super sb;
  char small[8];
  memset(&sb, 0, sizeof(sb));
  small[7] = 'X';
  CHECK_EQ(fs_super_check(&sb, 0, small, 7), -1);
  CHECK_EQ(strlen(small), 6);
  CHECK_EQ(small[7], 'X');
}

static void test_bits(void)
{
  uint8_t map[16];
  memset(map, 0, sizeof(map));
  fs_bit_set(map, 0);
  fs_bit_set(map, 9);
  fs_bit_set(map, 127);
  CHECK(fs_bit_get(map, 0) && fs_bit_get(map, 9) && fs_bit_get(map, 127));
  CHECK(!fs_bit_get(map, 1) && !fs_bit_get(map, 8) && !fs_bit_get(map, 126));
  CHECK_EQ(map[1], 0x02);
  CHECK_EQ(fs_bit_count(map, 128), 3);
  CHECK_EQ(fs_bit_count(map, 9), 1);
  fs_bit_clear(map, 9);
  CHECK(!fs_bit_get(map, 9));
  CHECK_EQ(fs_bit_find_clear(map, 0, 128), 1);
  memset(map, 0xff, 8);
  CHECK_EQ(fs_bit_find_clear(map, 0, 128), 64);
  CHECK_EQ(fs_bit_find_clear(map, 3, 64), -1);
  CHECK_EQ(fs_bit_find_clear(map, 70, 128), 70);
  memset(map, 0xff, 16);
  CHECK_EQ(fs_bit_find_clear(map, 0, 128), -1);
  fs_bit_clear(map, 100);
  CHECK_EQ(fs_bit_find_clear(map, 0, 128), 100);
  CHECK_EQ(fs_bit_find_clear(map, 0, 100), -1);

  struct fs_super sb;
  const char *why;
  fs_layout(&sb, 100000, 0, &why);
  CHECK_EQ(fs_bitmap_block(&sb, 0), 2);
  CHECK_EQ(fs_bitmap_block(&sb, 32767), 2);
  CHECK_EQ(fs_bitmap_block(&sb, 32768), 3);
  CHECK_EQ(fs_bitmap_bit(32769), 1);
  CHECK_EQ(fs_desc_block(&sb, 31), sb.desc_start);
  CHECK_EQ(fs_desc_offset(31), 31 * 128);
  CHECK_EQ(fs_desc_block(&sb, 32), sb.desc_start + 1);
  CHECK_EQ(fs_desc_offset(32), 0);
}

static void test_desc(void)
{
  struct fs_super sb;
  const char *why;
  fs_layout(&sb, 1000, 0, &why);
  struct fs_desc d;
  memset(&d, 0, sizeof(d));
  d.type = FS_T_FILE;
  d.nlink = 1;
  d.size = 5000;
  d.direct[0] = sb.data_start;
  d.direct[1] = 999;
  d.blocks = 2;
  CHECK_EQ(fs_desc_check(&sb, &d, &why), 0);
  d.direct[1] = 1000;
  CHECK_EQ(fs_desc_check(&sb, &d, &why), -1);
  d.direct[1] = sb.data_start - 1;        /* a metadata block */
  CHECK_EQ(fs_desc_check(&sb, &d, &why), -1);
  d.direct[1] = 0;
  d.indirect = 5000;
  CHECK_EQ(fs_desc_check(&sb, &d, &why), -1);
  d.indirect = 0;
  d.dindirect = 1;
  CHECK_EQ(fs_desc_check(&sb, &d, &why), -1);
  d.dindirect = 0;
  d.type = 7;
  CHECK_EQ(fs_desc_check(&sb, &d, &why), -1);
  d.type = FS_T_FREE;
  CHECK_EQ(fs_desc_check(&sb, &d, &why), -1);
  d.type = FS_T_DIR;
  d.size = 33;
  CHECK_EQ(fs_desc_check(&sb, &d, &why), -1);
  d.size = 64;
  CHECK_EQ(fs_desc_check(&sb, &d, &why), 0);
  d.type = FS_T_FILE;
  d.size = 0x80000000u;
  CHECK_EQ(fs_desc_check(&sb, &d, &why), -1);
}

static void test_dirent(void)
{
  struct fs_dirent de;
  CHECK_EQ(fs_name_check("a"), 0);
  CHECK_EQ(fs_name_check(""), -1);
  CHECK_EQ(fs_name_check("a/b"), -1);
  CHECK_EQ(fs_name_check("123456789012345678901234567"), 0);     /* 27 */
  CHECK_EQ(fs_name_check("1234567890123456789012345678"), -2);   /* 28 */
  CHECK_EQ(fs_dirent_set(&de, 5, "1234567890123456789012345678"), -2);
  CHECK_EQ(fs_dirent_set(&de, 5, "hello"), 0);
  CHECK_EQ(de.ino, 5);
  CHECK(fs_dirent_is(&de, "hello"));
  CHECK(!fs_dirent_is(&de, "hell"));
  CHECK(!fs_dirent_is(&de, "hello!"));
  CHECK(fs_dirent_name_ok(&de));
  CHECK_EQ(de.name[5], 0);
  CHECK_EQ(de.name[27], 0);
  CHECK_EQ(fs_dirent_set(&de, 9, "123456789012345678901234567"), 0);
  CHECK(fs_dirent_is(&de, "123456789012345678901234567"));
  CHECK(!fs_dirent_is(&de, "1234567890123456789012345678"));
  CHECK(fs_dirent_name_ok(&de));
  memset(de.name, 'x', sizeof(de.name));   /* no terminator */
  CHECK(!fs_dirent_name_ok(&de));
  memset(de.name, 0, sizeof(de.name));
  CHECK(!fs_dirent_name_ok(&de));          /* empty */
  CHECK_EQ(sizeof(struct fs_desc), 128);
  CHECK_EQ(sizeof(struct fs_dirent), 32);
}

int main(void)
{
  test_bmap();
  test_layout();
  test_super_check();
  test_bits();
  test_desc();
  test_dirent();
  printf("test_layout: %d checks, %d failures\n", checks, failures);
  return failures != 0;
}
