/* The on-disk format of the Sprite-like file system, shared by the kernel, mkfs, fsck and the
 * host unit tests. Pure C: only compiler headers, so every one of them compiles this very file.
 *
 *   block 0                  unused (zero), so that 0 can mean "no block"
 *   block 1                  superblock
 *   bitmap_start ..          free-block bitmap, one bit per block, set = in use
 *   desc_start ..            file descriptors, 128 bytes each, 32 per block
 *   data_start .. nblocks-1  data, indirect and doubly-indirect blocks
 *
 * Everything is little-endian (the only machines that read it are x86 ones).
 * A file's block n lives in direct[n] for n < 10, in slot n-10 of the indirect block for the
 * next 1024 blocks, and beyond that in the doubly-indirect tree. Files stop at 2 GiB - 1 bytes
 * (offsets are signed 32-bit in the system-call interface), well inside what the tree maps.
 * A directory is a file of 32-byte entries (descriptor number, name); descriptor 0 marks an
 * empty slot. A descriptor's nlink counts the directory entries that name it, "." and ".."
 * included, so a directory has 2 + (number of subdirectories).
 */
#ifndef FS_LAYOUT_H
#define FS_LAYOUT_H
#include <stdint.h>
#include <stddef.h>

#define FS_MAGIC        0x53505246u     /* "SPRF" read as a little-endian word */
#define FS_VERSION      1u
#define FS_BSIZE        4096u
#define FS_SECTORS_PER_BLOCK (FS_BSIZE / 512u)
#define FS_SUPER_BLOCK  1u
#define FS_ROOT_DESC    1u

/* Same values as T_FILE / T_DIR in kernel/uapi/stat.h (not included here: on the host it
 * would clash with <sys/stat.h>). The kernel checks they agree. */
#define FS_T_FREE       0
#define FS_T_FILE       1
#define FS_T_DIR        2

#define FS_NDIRECT      10u
#define FS_NINDIRECT    (FS_BSIZE / 4u)                 /* pointers per indirect block: 1024 */
#define FS_MAXFILE      0x7FFFFFFFu                     /* 2 GiB - 1 bytes */
#define FS_MAXFILE_BLOCKS ((FS_MAXFILE + FS_BSIZE - 1) / FS_BSIZE)   /* 524288 */

#define FS_DESC_SIZE    128u
#define FS_DESCS_PER_BLOCK (FS_BSIZE / FS_DESC_SIZE)     /* 32 */
#define FS_BITS_PER_BLOCK (FS_BSIZE * 8u)                /* 32768 */

#define FS_NAME_MAX     27                               /* = DIRNAME_MAX in uapi/stat.h */
#define FS_DIRENT_SIZE  32u
#define FS_DIRENTS_PER_BLOCK (FS_BSIZE / FS_DIRENT_SIZE) /* 128 */

/* Limits on the size of a file system, so that every count fits comfortably in 32 bits and a
 * test image stays small. */
#define FS_MIN_BLOCKS   64u                              /* 256 KB */
#define FS_MAX_BLOCKS   (1u << 20)                       /* 4 GB */
#define FS_MAX_DESCS    (1u << 20)

struct fs_super {
  uint32_t magic;          /* FS_MAGIC */
  uint32_t version;        /* FS_VERSION */
  uint32_t block_size;     /* FS_BSIZE */
  uint32_t nblocks;        /* blocks in the file system, metadata included */
  uint32_t bitmap_start;
  uint32_t bitmap_blocks;
  uint32_t desc_start;
  uint32_t desc_blocks;
  uint32_t ndesc;          /* descriptors, = desc_blocks * 32; 0 is never used */
  uint32_t data_start;
  uint32_t root;           /* FS_ROOT_DESC */
  uint32_t clean;          /* 1 when the disk was cleanly unmounted (free counts exact) */
  uint32_t free_blocks;    /* exact only when clean */
  uint32_t free_descs;     /* exact only when clean */
  uint32_t mounts;         /* times mounted, for the curious */
  uint32_t checksum;       /* fs_super_checksum() of everything above */
};

/* One file descriptor (an inode), 128 bytes on disk. */
struct fs_desc {
  uint16_t type;           /* FS_T_FREE, FS_T_FILE, FS_T_DIR */
  uint16_t nlink;          /* directory entries naming it */
  uint32_t size;           /* bytes */
  uint32_t blocks;         /* blocks allocated: data, indirect and doubly-indirect */
  uint32_t mtime;          /* seconds since boot of the last change (no wall clock) */
  uint32_t direct[FS_NDIRECT];
  uint32_t indirect;
  uint32_t dindirect;
  uint8_t pad[FS_DESC_SIZE - 64];
};

struct fs_dirent {
  uint32_t ino;            /* 0 = empty slot */
  char name[FS_NAME_MAX + 1];   /* NUL-terminated */
};

_Static_assert(sizeof(struct fs_super) <= FS_BSIZE, "superblock fits a block");
_Static_assert(sizeof(struct fs_desc) == FS_DESC_SIZE, "descriptor is 128 bytes");
_Static_assert(sizeof(struct fs_dirent) == FS_DIRENT_SIZE, "dirent is 32 bytes");

/* --- layout ------------------------------------------------------------------------------ */

/* Fills in *sb for a file system of nblocks blocks with ndesc descriptors (0 = choose: one
 * per four blocks). Free counts describe an empty file system whose only used descriptor is
 * the root. Returns 0, or -1 (with *why set) when nblocks or ndesc is out of range. */
int fs_layout(struct fs_super *sb, uint32_t nblocks, uint32_t ndesc, const char **why);

uint32_t fs_super_checksum(const struct fs_super *sb);
/* Recomputes sb->checksum; call after changing any field. */
void fs_super_seal(struct fs_super *sb);

/* Checks a superblock read from a disk of disk_blocks blocks (0 = unknown). Returns 0 when it
 * is a sound Sprite file system; otherwise -1 with a one-line reason in why (e.g. "bad magic
 * 0x00000000 (expected 0x53505246)"). */
int fs_super_check(const struct fs_super *sb, uint64_t disk_blocks, char *why, size_t whylen);

/* --- block mapping ----------------------------------------------------------------------- */

/* Where a file's logical block lives. level 0: direct[idx[0]]; level 1: slot idx[0] of the
 * indirect block; level 2: slot idx[0] of the doubly-indirect block names an indirect block
 * whose slot idx[1] holds the data block. */
struct fs_bpath {
  int level;
  uint32_t idx[2];
};
/* Returns 0, or -1 when lbn is beyond the largest file. */
int fs_bmap_path(uint32_t lbn, struct fs_bpath *p);
/* The inverse, for code that walks the tree (truncate, fsck). */
uint32_t fs_lbn_of(int level, uint32_t i0, uint32_t i1);

/* True when a block pointer read from disk may legally name a data/indirect block. */
int fs_block_ok(const struct fs_super *sb, uint32_t b);

/* --- the bitmap -------------------------------------------------------------------------- */

static inline uint32_t fs_bitmap_block(const struct fs_super *sb, uint32_t b)
{ return sb->bitmap_start + b / FS_BITS_PER_BLOCK; }
static inline uint32_t fs_bitmap_bit(uint32_t b) { return b % FS_BITS_PER_BLOCK; }
int fs_bit_get(const uint8_t *map, uint32_t bit);
void fs_bit_set(uint8_t *map, uint32_t bit);
void fs_bit_clear(uint8_t *map, uint32_t bit);
/* First clear bit at or after from and below limit, or -1. Skips full bytes quickly. */
int32_t fs_bit_find_clear(const uint8_t *map, uint32_t from, uint32_t limit);
/* Number of set bits below limit. */
uint32_t fs_bit_count(const uint8_t *map, uint32_t limit);

/* --- descriptors ------------------------------------------------------------------------- */

static inline uint32_t fs_desc_block(const struct fs_super *sb, uint32_t inum)
{ return sb->desc_start + inum / FS_DESCS_PER_BLOCK; }
static inline uint32_t fs_desc_offset(uint32_t inum)
{ return (inum % FS_DESCS_PER_BLOCK) * FS_DESC_SIZE; }
/* Checks an allocated descriptor read from disk: type, size, pointers in range. Returns 0,
 * or -1 with a short reason in *why. */
int fs_desc_check(const struct fs_super *sb, const struct fs_desc *d, const char **why);
/* Data blocks a file of this size maps at most (not counting indirect blocks). */
static inline uint32_t fs_size_blocks(uint32_t size)
{ return (uint32_t)(((uint64_t)size + FS_BSIZE - 1) / FS_BSIZE); }

/* --- directory entries ------------------------------------------------------------------- */

/* 0 when name can be stored in a directory: non-empty, at most 27 bytes, no '/'.
 * Otherwise -1 (empty or contains '/') or -2 (too long). */
int fs_name_check(const char *name);
/* Fills an entry; the name is NUL-padded. Returns 0, or fs_name_check's error. */
int fs_dirent_set(struct fs_dirent *de, uint32_t ino, const char *name);
/* Compares an entry's name with a NUL-terminated name. */
int fs_dirent_is(const struct fs_dirent *de, const char *name);
/* True when the stored name is terminated within its 28 bytes. */
int fs_dirent_name_ok(const struct fs_dirent *de);

#endif
