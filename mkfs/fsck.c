/* fsck: checks a Sprite file-system image, and reads files out of it for tests.
 *
 *   fsck IMAGE                 check; one line per problem; exit 1 if any
 *   fsck IMAGE --cat PATH      the file's bytes on stdout
 *   fsck IMAGE --ls DIR        "TYPE SIZE NAME" per entry ("." and ".." left out)
 *   fsck IMAGE --stat [PATH]   "key value" lines about the file system (or about PATH)
 *   fsck IMAGE --get PATH DEST copies a file, or a directory tree, out of the image to DEST
 *   fsck IMAGE --dump PATH     the same tree as one stream on stdout, nothing written to disk:
 *                              "d NAME\n" for a directory, "f NAME SIZE\n" and SIZE bytes for a
 *                              file, NAME relative to PATH ("." for PATH itself); a crash
 *                              checker reads thousands of states this way
 *
 * The check: the superblock; every allocated descriptor (type, size, pointers in range);
 * every block used by exactly one file and marked in the bitmap, and no block marked but
 * unused; the block count and size of each file agree with its blocks; the tree from the
 * root ("." and ".." right, no directory reached twice, every entry naming a live
 * descriptor); link counts equal the entries naming each descriptor; a directory maps every
 * block of its size (no holes: the kernel never makes one); and, on a cleanly unmounted disk,
 * the superblock's free counts.
 *
 * A regular file with two names is legal on disk (a rename cut short by a crash leaves one,
 * with its link count 2) but nothing else makes one (there is no link()), so it is printed as
 * a note naming both paths: a crash checker can then tell a rename in flight (one file, two
 * directories) from a name left on another file's descriptor.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include "mkfs/image.h"

static struct image im;
static int problems;
static uint32_t *owner;        /* per block: the descriptor using it, 0 = none */
static uint32_t *refs;         /* per descriptor: directory entries naming it */
static uint8_t *bad;           /* per descriptor: damaged, its blocks are not walked */
static uint8_t *seen_dir;      /* per descriptor: directory already walked */
static char **first_name;      /* per regular file: the path of its first entry */
static uint32_t nfiles, ndirs;

static void problem(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void problem(const char *fmt, ...)
{
  va_list ap;
  problems++;
  if (problems > 200)
    return;             /* a wrecked image would print forever */
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
}

static void usage(FILE *f)
{
  fprintf(f,
    "usage: fsck IMAGE                check the file system; exit 1 on any problem\n"
    "       fsck IMAGE --cat PATH     print a file's bytes\n"
    "       fsck IMAGE --ls DIR       list a directory: TYPE SIZE NAME per entry\n"
    "       fsck IMAGE --stat [PATH]  file-system counts, or one file's descriptor\n"
    "       fsck IMAGE --get PATH DEST copy a file or directory tree out to DEST\n"
    "       fsck IMAGE --dump PATH     the same tree as one stream on stdout (\"d NAME\", \"f NAME SIZE\" + bytes)\n");
}

static const char *type_name(int t)
{
  return t == FS_T_FILE ? "file" : t == FS_T_DIR ? "dir" : "?";
}

/* --- block walk -------------------------------------------------------------------------- */

static void claim(uint32_t b, uint32_t inum, uint32_t *count)
{
  (*count)++;
  if (owner[b])
    problem("block %u is used by descriptor %u and by descriptor %u", b, owner[b], inum);
  else
    owner[b] = inum;
}

/* Walks one indirect block (level 1: it holds data pointers; level 2: pointers to indirect
 * blocks). first is the logical block number of its first data block. */
static void walk_ind(uint32_t inum, uint32_t ind, int level, uint32_t first, uint32_t limit,
                     uint32_t *count, uint32_t *data)
{
  uint32_t buf[FS_NINDIRECT];
  claim(ind, inum, count);
  if (img_read_block(&im, ind, buf) < 0) {
    problem("descriptor %u: %s", inum, im.err);
    return;
  }
  for (uint32_t i = 0; i < FS_NINDIRECT; i++) {
    uint32_t b = buf[i];
    if (!b)
      continue;
    if (!fs_block_ok(&im.sb, b)) {
      problem("descriptor %u: pointer %u in block %u is out of range", inum, b, ind);
      continue;
    }
    if (level == 2) {
      walk_ind(inum, b, 1, first + i * FS_NINDIRECT, limit, count, data);
    } else {
      if (first + i >= limit)
        problem("descriptor %u: block %u at file block %u lies beyond its size", inum, b, first + i);
      claim(b, inum, count);
      (*data)++;
    }
  }
}

static void walk_desc(uint32_t inum)
{
  struct fs_desc *d = &im.descs[inum];
  uint32_t count = 0, data = 0, limit = fs_size_blocks(d->size);
  for (uint32_t i = 0; i < FS_NDIRECT; i++) {
    if (!d->direct[i])
      continue;
    if (i >= limit)
      problem("descriptor %u: block %u at file block %u lies beyond its size", inum, d->direct[i], i);
    claim(d->direct[i], inum, &count);
    data++;
  }
  if (d->indirect)
    walk_ind(inum, d->indirect, 1, FS_NDIRECT, limit, &count, &data);
  if (d->dindirect)
    walk_ind(inum, d->dindirect, 2, FS_NDIRECT + FS_NINDIRECT, limit, &count, &data);
  if (count != d->blocks)
    problem("descriptor %u: block count %u, but it uses %u blocks", inum, d->blocks, count);
  if (d->type == FS_T_DIR && data < limit)
    problem("directory %u: its size (%u bytes) needs %u blocks, but only %u are mapped", inum,
            d->size, limit, data);
}

/* --- the tree ---------------------------------------------------------------------------- */

static void walk_dir(uint32_t inum, uint32_t parent, const char *path, int depth)
{
  struct fs_desc *d = &im.descs[inum];
  seen_dir[inum] = 1;
  if (depth > 1000) {
    problem("%s: directories nested too deeply", path);
    return;
  }
  uint32_t n = d->size / FS_DIRENT_SIZE;
  struct fs_dirent *des = malloc((size_t)d->size + 1);
  if (!des) {
    problem("%s: out of memory", path);
    return;
  }
  if (img_pread(&im, inum, 0, des, d->size) != (int64_t)d->size) {
    problem("%s: cannot read directory: %s", path, im.err);
    free(des);
    return;
  }
  int dots = 0, dotdots = 0;
  for (uint32_t i = 0; i < n; i++) {
    struct fs_dirent *e = &des[i];
    if (e->ino == 0)
      continue;
    if (!fs_dirent_name_ok(e)) {
      problem("%s: entry %u has a bad name", path, i);
      continue;
    }
    if (e->ino >= im.sb.ndesc) {
      problem("%s: entry '%s' names descriptor %u, out of range", path, e->name, e->ino);
      continue;
    }
    struct fs_desc *c = &im.descs[e->ino];
    if (c->type == FS_T_FREE) {
      problem("%s: entry '%s' names free descriptor %u", path, e->name, e->ino);
      continue;
    }
    refs[e->ino]++;
    for (uint32_t j = 0; j < i; j++)
      if (des[j].ino && fs_dirent_name_ok(&des[j]) && strcmp(des[j].name, e->name) == 0) {
        problem("%s: name '%s' appears twice", path, e->name);
        break;
      }
    if (strcmp(e->name, ".") == 0) {
      dots++;
      if (e->ino != inum)
        problem("%s: '.' names descriptor %u, not itself (%u)", path, e->ino, inum);
      continue;
    }
    if (strcmp(e->name, "..") == 0) {
      dotdots++;
      if (e->ino != parent)
        problem("%s: '..' names descriptor %u, not its parent (%u)", path, e->ino, parent);
      continue;
    }
    if (bad[e->ino])
      continue;
    if (c->type != FS_T_FILE && c->type != FS_T_DIR)
      continue;
    size_t len = strlen(path) + strlen(e->name) + 2;
    char *full = malloc(len);
    if (!full)
      continue;
    snprintf(full, len, "%s%s%s", path, strcmp(path, "/") ? "/" : "", e->name);
    if (c->type == FS_T_FILE) {
      if (first_name[e->ino]) {
        printf("fsck: note: file %u has two names: %s and %s\n", e->ino, first_name[e->ino], full);
        free(full);
      } else {
        first_name[e->ino] = full;        /* kept for a second name's note */
      }
      continue;
    }
    if (seen_dir[e->ino])
      problem("%s: directory %u is reached by a second path", full, e->ino);
    else
      walk_dir(e->ino, inum, full, depth + 1);
    free(full);
  }
  if (dots != 1)
    problem("%s: %d '.' entries (expected 1)", path, dots);
  if (dotdots != 1)
    problem("%s: %d '..' entries (expected 1)", path, dotdots);
  free(des);
}

/* --- the whole check --------------------------------------------------------------------- */

static int check(const char *path)
{
  struct fs_super *sb = &im.sb;
  owner = calloc(sb->nblocks, sizeof(*owner));
  refs = calloc(sb->ndesc, sizeof(*refs));
  bad = calloc(sb->ndesc, 1);
  seen_dir = calloc(sb->ndesc, 1);
  first_name = calloc(sb->ndesc, sizeof(*first_name));
  if (!owner || !refs || !bad || !seen_dir || !first_name) {
    fprintf(stderr, "fsck: out of memory\n");
    return 2;
  }
  if (im.file_blocks < sb->nblocks)
    problem("image is %llu blocks long, shorter than the file system's %u",
            (unsigned long long)im.file_blocks, sb->nblocks);

  for (uint32_t b = 0; b < sb->data_start; b++)
    if (!fs_bit_get(im.bitmap, b)) {
      problem("metadata block %u is marked free in the bitmap", b);
      break;
    }
  for (uint32_t b = sb->nblocks; b < sb->bitmap_blocks * FS_BITS_PER_BLOCK; b++)
    if (!fs_bit_get(im.bitmap, b)) {
      problem("bitmap bit %u (past the end of the disk) is clear", b);
      break;
    }

  /* Descriptors: sanity, then their blocks. */
  static const struct fs_desc zero;
  if (memcmp(&im.descs[0], &zero, sizeof(zero)) != 0)
    problem("descriptor 0 (never used) is not zero");
  uint32_t free_descs = 0;
  for (uint32_t i = 1; i < sb->ndesc; i++) {
    struct fs_desc *d = &im.descs[i];
    const char *why;
    if (d->type == FS_T_FREE) {
      free_descs++;
      continue;
    }
    if (fs_desc_check(sb, d, &why) < 0) {
      problem("descriptor %u: %s (type %u, size %u)", i, why, d->type, d->size);
      bad[i] = 1;
      continue;
    }
    if (d->type == FS_T_DIR)
      ndirs++;
    else
      nfiles++;
    walk_desc(i);
  }

  /* The tree. */
  struct fs_desc *root = &im.descs[FS_ROOT_DESC];
  if (root->type != FS_T_DIR || bad[FS_ROOT_DESC])
    problem("the root (descriptor 1) is not a sound directory");
  else
    walk_dir(FS_ROOT_DESC, FS_ROOT_DESC, "/", 0);

  for (uint32_t i = 1; i < sb->ndesc; i++) {
    struct fs_desc *d = &im.descs[i];
    if (d->type == FS_T_FREE)
      continue;
    if (refs[i] == 0)
      problem("descriptor %u (%s, %u bytes) is allocated but in no directory", i,
              type_name(d->type), d->size);
    else if (d->nlink != refs[i])
      problem("descriptor %u: link count %u, but %u directory entries name it", i, d->nlink, refs[i]);
    if (d->type == FS_T_DIR && refs[i] && !seen_dir[i])
      problem("directory %u is named only by entries of unreachable directories", i);
  }

  /* Bitmap against the blocks actually in use. */
  uint32_t leaked = 0, lost = 0, free_blocks = 0;
  for (uint32_t b = sb->data_start; b < sb->nblocks; b++) {
    int used = fs_bit_get(im.bitmap, b);
    free_blocks += !used;
    if (used && !owner[b]) {
      if (leaked++ < 10)
        problem("block %u is marked in use but no file uses it", b);
    } else if (!used && owner[b]) {
      if (lost++ < 10)
        problem("block %u is used by descriptor %u but marked free", b, owner[b]);
    }
  }
  if (leaked > 10)
    problem("... %u blocks in all are marked in use but unused", leaked);
  if (lost > 10)
    problem("... %u blocks in all are used but marked free", lost);

  if (sb->clean) {
    if (sb->free_blocks != free_blocks)
      problem("superblock says %u free blocks, the bitmap %u", sb->free_blocks, free_blocks);
    if (sb->free_descs != free_descs)
      problem("superblock says %u free descriptors, there are %u", sb->free_descs, free_descs);
  } else {
    printf("fsck: note: %s was not cleanly unmounted; free counts not checked\n", path);
  }

  if (problems) {
    printf("fsck: %s: %d problem%s\n", path, problems, problems == 1 ? "" : "s");
    return 1;
  }
  printf("fsck: %s: ok: %u files, %u directories, %u of %u blocks free\n", path, nfiles, ndirs,
         free_blocks, sb->nblocks - sb->data_start);
  return 0;
}

/* --- reading out ------------------------------------------------------------------------- */

static uint32_t resolve(const char *path)
{
  int64_t ino = img_namei(&im, path);
  if (ino < 0) {
    fprintf(stderr, "fsck: %s\n", im.err);
    exit(1);
  }
  if (ino == 0) {
    fprintf(stderr, "fsck: %s: no such file or directory\n", path);
    exit(1);
  }
  return (uint32_t)ino;
}

static int do_cat(const char *path)
{
  uint32_t ino = resolve(path);
  struct fs_desc *d = img_desc(&im, ino);
  if (d->type != FS_T_FILE) {
    fprintf(stderr, "fsck: %s: not a regular file\n", path);
    return 1;
  }
  static char buf[1 << 20];
  for (uint64_t off = 0; off < d->size;) {
    int64_t n = img_pread(&im, ino, off, buf, sizeof(buf));
    if (n <= 0) {
      fprintf(stderr, "fsck: %s: %s\n", path, n < 0 ? im.err : "short file");
      return 1;
    }
    fwrite(buf, 1, (size_t)n, stdout);
    off += (uint64_t)n;
  }
  return fflush(stdout) == 0 ? 0 : 1;
}

/* Copies descriptor ino to the host path dest (directories recursively). Damage is reported,
 * never followed: a directory met twice is not entered again. */
/* Copies the tree at ino to the folder dest, or, with dump, onto stdout (dest then names the
 * entry relative to the tree's root). */
static int get_tree(uint32_t ino, const char *dest, int depth, bool dump)
{
  struct fs_desc *d = img_desc(&im, ino);
  if (!d || depth > 64) {
    fprintf(stderr, "fsck: %s: damaged or too deep\n", dest);
    return 1;
  }
  if (d->type == FS_T_FILE) {
    FILE *f = dump ? stdout : fopen(dest, "wb");
    if (!f) {
      perror(dest);
      return 1;
    }
    static char buf[1 << 16];
    int r = 0;
    if (dump)
      printf("f %s %u\n", dest, d->size);
    for (uint64_t off = 0; off < d->size;) {
      int64_t n = img_pread(&im, ino, off, buf, sizeof(buf));
      if (n <= 0) {
        fprintf(stderr, "fsck: %s: %s\n", dest, n < 0 ? im.err : "short file");
        if (dump)           /* the stream promised size bytes: keep it readable */
          for (; off < d->size; off++)
            putchar(0);
        r = 1;
        break;
      }
      fwrite(buf, 1, (size_t)n, f);
      off += (uint64_t)n;
    }
    return dump ? r : fclose(f) == 0 ? r : 1;
  }
  if (d->type != FS_T_DIR) {
    fprintf(stderr, "fsck: %s: not a file or directory\n", dest);
    return 1;
  }
  if (dump)
    printf("d %s\n", dest);
  else if (mkdir(dest, 0777) < 0 && errno != EEXIST) {
    perror(dest);
    return 1;
  }
  int r = 0;
  uint32_t size = d->size;
  struct fs_dirent e;
  for (uint64_t off = 0; off < size; off += sizeof(e)) {
    if (img_pread(&im, ino, off, &e, sizeof(e)) != sizeof(e))
      return 1;
    if (e.ino == 0 || !fs_dirent_name_ok(&e) || fs_dirent_is(&e, ".") || fs_dirent_is(&e, "..") ||
        e.ino == ino || !img_desc(&im, e.ino))
      continue;
    size_t len = strlen(dest) + strlen(e.name) + 2;
    char *sub = malloc(len);
    if (!sub)
      return 1;
    snprintf(sub, len, "%s/%s", dest, e.name);
    r |= get_tree(e.ino, dump && strcmp(dest, ".") == 0 ? sub + 2 : sub, depth + 1, dump);
    free(sub);
  }
  return r;
}

static int do_ls(const char *path)
{
  uint32_t ino = resolve(path);
  struct fs_desc *d = img_desc(&im, ino);
  if (d->type != FS_T_DIR) {
    printf("%-4s %10u %s\n", type_name(d->type), d->size, path);
    return 0;
  }
  struct fs_dirent e;
  for (uint64_t off = 0; off < d->size; off += sizeof(e)) {
    if (img_pread(&im, ino, off, &e, sizeof(e)) != sizeof(e)) {
      fprintf(stderr, "fsck: %s: %s\n", path, im.err);
      return 1;
    }
    if (e.ino == 0 || !fs_dirent_name_ok(&e) || fs_dirent_is(&e, ".") || fs_dirent_is(&e, ".."))
      continue;
    struct fs_desc *c = img_desc(&im, e.ino);
    if (!c) {
      printf("%-4s %10u %s\n", "?", 0u, e.name);
      continue;
    }
    printf("%-4s %10u %s\n", type_name(c->type), c->size, e.name);
  }
  return 0;
}

static int do_stat(const char *path)
{
  struct fs_super *sb = &im.sb;
  if (path) {
    uint32_t ino = resolve(path);
    struct fs_desc *d = img_desc(&im, ino);
    printf("ino %u\ntype %s\nnlink %u\nsize %u\nblocks %u\nmtime %u\n", ino, type_name(d->type),
           d->nlink, d->size, d->blocks, d->mtime);
    return 0;
  }
  uint32_t free_blocks = 0, free_descs = 0;
  for (uint32_t b = sb->data_start; b < sb->nblocks; b++)
    free_blocks += !fs_bit_get(im.bitmap, b);
  for (uint32_t i = 1; i < sb->ndesc; i++)
    free_descs += im.descs[i].type == FS_T_FREE;
  printf("blocks_total %u\n", sb->nblocks);
  printf("blocks_data %u\n", sb->nblocks - sb->data_start);
  printf("free_blocks %u\n", free_blocks);
  printf("used_blocks %u\n", sb->nblocks - sb->data_start - free_blocks);
  printf("descriptors_total %u\n", sb->ndesc - 1);
  printf("free_descriptors %u\n", free_descs);
  printf("data_start %u\n", sb->data_start);
  printf("clean %u\n", sb->clean);
  printf("mounts %u\n", sb->mounts);
  printf("sb_free_blocks %u\n", sb->free_blocks);
  printf("sb_free_descriptors %u\n", sb->free_descs);
  return 0;
}

int main(int argc, char **argv)
{
  if (argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
    usage(stdout);
    return 0;
  }
  if (argc < 2 || argv[1][0] == '-') {
    usage(stderr);
    return 2;
  }
  const char *path = argv[1];
  const char *op = argc > 2 ? argv[2] : 0;
  const char *arg = argc > 3 ? argv[3] : 0;
  int get = op && strcmp(op, "--get") == 0;
  int dump = op && strcmp(op, "--dump") == 0;
  int need_arg = op && (strcmp(op, "--cat") == 0 || strcmp(op, "--ls") == 0 || get || dump);
  if (op && !need_arg && strcmp(op, "--stat") != 0) {
    fprintf(stderr, "fsck: unknown option %s\n", op);
    usage(stderr);
    return 2;
  }
  if ((need_arg && !arg) || argc > (get ? 5 : 4) || (get && argc != 5)) {
    usage(stderr);
    return 2;
  }
  if (img_open(&im, path, 0) < 0) {
    printf("fsck: %s\n", im.err);
    return 1;
  }
  int r;
  if (!op)
    r = check(path);
  else if (strcmp(op, "--cat") == 0)
    r = do_cat(arg);
  else if (strcmp(op, "--ls") == 0)
    r = do_ls(arg);
  else if (get)
    r = get_tree(resolve(arg), argv[4], 0, false);
  else if (dump)
    r = get_tree(resolve(arg), ".", 0, true);
  else
    r = do_stat(arg);
  img_close(&im);
  return r;
}
