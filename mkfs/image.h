/* Host-side access to a file-system image, shared by mkfs and fsck.
 *
 * The superblock, the bitmap and the whole descriptor area are held in memory (a few MB at
 * most); data and indirect blocks are read and written in place in the image file. mkfs
 * builds a file system through this and img_close() writes the metadata back; fsck only
 * reads. Functions that fail return -1 (or 0 for a block/descriptor number) and leave a
 * one-line reason in im->err.
 */
#ifndef MKFS_IMAGE_H
#define MKFS_IMAGE_H
#include <stdint.h>
#include "fs/layout.h"

struct image {
  int fd;
  int writable;
  const char *path;
  struct fs_super sb;
  uint8_t *bitmap;            /* bitmap_blocks * FS_BSIZE bytes */
  struct fs_desc *descs;      /* ndesc entries */
  uint64_t file_blocks;       /* the image file's length in blocks */
  uint32_t brotor;            /* next block to try when allocating */
  char err[512];
};

/* Creates (or truncates) path as a sparse image of nblocks blocks holding an empty file
 * system with only the root directory. Nothing but the root's block is written until
 * img_close. */
int img_create(struct image *im, const char *path, uint32_t nblocks);
/* Opens an existing image; the superblock must pass fs_super_check. */
int img_open(struct image *im, const char *path, int writable);
/* Writes the metadata back (when writable), and closes. Returns 0 or -1. */
int img_close(struct image *im);

int img_read_block(struct image *im, uint32_t b, void *buf);
int img_write_block(struct image *im, uint32_t b, const void *buf);

/* --- reading files ----------------------------------------------------------------------- */

/* The disk block holding logical block lbn of descriptor inum: 0 for a hole. -1 when a
 * pointer on the way is out of range or unreadable. */
int64_t img_bmap(struct image *im, uint32_t inum, uint32_t lbn);
/* Reads up to n bytes of file inum at off; returns bytes read, or -1. */
int64_t img_pread(struct image *im, uint32_t inum, uint64_t off, void *buf, uint32_t n);
/* The descriptor number named by name in directory dir; 0 when absent, -1 on error. */
int64_t img_lookup(struct image *im, uint32_t dir, const char *name);
/* Resolves an absolute path ("/" is the root); 0 when absent, -1 on error. */
int64_t img_namei(struct image *im, const char *path);
/* A descriptor, or 0 when inum is out of range. */
struct fs_desc *img_desc(struct image *im, uint32_t inum);

/* --- building (mkfs) --------------------------------------------------------------------- */

/* A free block, marked in use; 0 when the image is full. */
uint32_t img_balloc(struct image *im);
/* A free descriptor of the given type with nlink 0; 0 when none is left. */
uint32_t img_ialloc(struct image *im, int type);
/* Appends n bytes to file (or directory) inum. */
int img_append(struct image *im, uint32_t inum, const void *data, uint32_t n);
/* Adds an entry to directory dir; fails when the name exists or is not storable.
 * Counts the link in the target's nlink. */
int img_link(struct image *im, uint32_t dir, const char *name, uint32_t inum);
/* Makes a subdirectory (with "." and "..") and returns its descriptor number, or 0. */
uint32_t img_mkdir(struct image *im, uint32_t parent, const char *name);
#endif
