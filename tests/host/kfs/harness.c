/* Runs the kernel's own file-system code (fs/ and kernel/pipe.c) on the host against an
 * image made by mkfs, through the system-call entry points, as one process.
 *
 *   kfs IMAGE SCENARIO...      mounts IMAGE, runs the scenarios, syncs (unless "nosync")
 *
 * Prints "FAIL file:line: ..." for each failed expectation and exits 1 if any; tests then
 * check the image with fsck. See tests/host/test_kfs.py.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernel/uapi/stat.h"
#include "kernel/uapi/fcntl.h"
#include "kernel/uapi/errno.h"
#include "kernel/proc.h"
#include "kernel/cmdline.h"
#include "fs/fs.h"
#include "fs/file.h"
#include "fs/internal.h"
#include "fs/layout.h"
#include "kfs.h"

static int failures, checks;

#define EQ(a, b) do { checks++; long long _a = (long long)(a), _b = (long long)(b); \
  if (_a != _b) { failures++; printf("FAIL %s:%d: %s is %lld, expected %lld\n", \
  __FILE__, __LINE__, #a, _a, _b); } } while (0)
#define OK(c) do { checks++; if (!(c)) { failures++; \
  printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); } } while (0)

/* --- system calls ------------------------------------------------------------------------ */

static int sc(int (*fn)(void), uint32_t a, uint32_t b, uint32_t c)
{
  kfs_args[0] = a;
  kfs_args[1] = b;
  kfs_args[2] = c;
  return fn();
}

#define BADPTR 0x10u    /* below user memory: -EFAULT */

static int OPEN(const char *p, int flags) { return sc(sys_open, ustr(p), (uint32_t)flags, 0); }
static int CLOSE(int fd) { return sc(sys_close, (uint32_t)fd, 0, 0); }
static int READ(int fd, uint32_t buf, uint32_t n) { return sc(sys_read, (uint32_t)fd, buf, n); }
static int WRITE(int fd, uint32_t buf, uint32_t n) { return sc(sys_write, (uint32_t)fd, buf, n); }
static int LSEEK(int fd, int off, int wh) { return sc(sys_lseek, (uint32_t)fd, (uint32_t)off, (uint32_t)wh); }
static int MKDIR(const char *p) { return sc(sys_mkdir, ustr(p), 0, 0); }
static int RMDIR(const char *p) { return sc(sys_rmdir, ustr(p), 0, 0); }
static int UNLINK(const char *p) { return sc(sys_unlink, ustr(p), 0, 0); }
static int RENAME(const char *a, const char *b) { return sc(sys_rename, ustr(a), ustr(b), 0); }
static int CHDIR(const char *p) { return sc(sys_chdir, ustr(p), 0, 0); }
static int DUP(int fd) { return sc(sys_dup, (uint32_t)fd, 0, 0); }
static int DUP2(int fd, int nfd) { return sc(sys_dup2, (uint32_t)fd, (uint32_t)nfd, 0); }
static int FSYNC(int fd) { return sc(sys_fsync, (uint32_t)fd, 0, 0); }

static struct stat *STAT(const char *p, int *err)
{
  uint32_t st = ualloc(sizeof(struct stat));
  *err = sc(sys_stat, ustr(p), st, 0);
  return (struct stat *)st;
}
static int stat_err(const char *p)
{
  int err;
  STAT(p, &err);
  return err;
}
static struct stat *FSTAT(int fd, int *err)
{
  uint32_t st = ualloc(sizeof(struct stat));
  *err = sc(sys_fstat, (uint32_t)fd, st, 0);
  return (struct stat *)st;
}
static const char *GETCWD(int *ret)
{
  uint32_t buf = ualloc(256);
  *ret = sc(sys_getcwd, buf, 256, 0);
  return (const char *)buf;
}

/* --- files with known contents ----------------------------------------------------------- */

/* The same bytes as pattern() in tests/host/test_mkfs.py: (seed, i) as little-endian words. */
static void pattern(uint8_t *buf, uint32_t off, uint32_t n, uint32_t seed)
{
  for (uint32_t k = 0; k < n; k++) {
    uint32_t p = off + k, w = (p % 8) < 4 ? seed : p / 8;
    buf[k] = (uint8_t)(w >> (8 * (p % 4)));
  }
}

static uint32_t blocks_for(uint32_t size)
{
  uint32_t data = (size + 4095) / 4096, n = data;
  if (data > 10)
    n++;
  if (data > 1034)
    n += 1 + (data - 1034 + 1023) / 1024;
  return n;
}

static uint32_t fs_free(void) { return kfs_stat("fs.disk.blocks.free"); }
static uint32_t fs_free_descs(void) { return kfs_stat("fs.disk.descriptors.free"); }

static int write_pattern(const char *path, uint32_t size, uint32_t seed, uint32_t chunk)
{
  int fd = OPEN(path, O_CREAT | O_WRONLY | O_TRUNC);
  if (fd < 0)
    return fd;
  uint32_t buf = ualloc(chunk);
  for (uint32_t off = 0; off < size;) {
    uint32_t m = size - off < chunk ? size - off : chunk;
    pattern((uint8_t *)buf, off, m, seed);
    int r = WRITE(fd, buf, m);
    if (r != (int)m) {
      CLOSE(fd);
      return r < 0 ? r : -1;
    }
    off += m;
  }
  return CLOSE(fd);
}

static int check_pattern(const char *path, uint32_t size, uint32_t seed, uint32_t chunk)
{
  int fd = OPEN(path, O_RDONLY);
  if (fd < 0)
    return fd;
  uint32_t buf = ualloc(chunk);
  uint8_t *want = malloc(chunk);
  int bad = 0;
  for (uint32_t off = 0; off < size && !bad;) {
    int r = READ(fd, buf, chunk);
    uint32_t m = size - off < chunk ? size - off : chunk;
    if (r != (int)m) {
      printf("check %s: read at %u gave %d, expected %u\n", path, off, r, m);
      bad = 1;
      break;
    }
    pattern(want, off, m, seed);
    if (memcmp(want, (void *)buf, m) != 0) {
      printf("check %s: bytes differ in [%u, %u)\n", path, off, off + m);
      bad = 1;
    }
    off += m;
  }
  if (!bad && READ(fd, buf, chunk) != 0)
    bad = 1;
  free(want);
  CLOSE(fd);
  return bad ? -1 : 0;
}

static int put(const char *path, const char *s)
{
  int fd = OPEN(path, O_CREAT | O_WRONLY | O_TRUNC);
  if (fd < 0)
    return fd;
  int r = WRITE(fd, ustr(s), (uint32_t)strlen(s));
  CLOSE(fd);
  return r;
}

/* The file's contents as a C string (small files), or "<errno>". */
static const char *get(const char *path)
{
  static char out[4096];
  int fd = OPEN(path, O_RDONLY);
  if (fd < 0) {
    snprintf(out, sizeof(out), "<%d>", fd);
    return out;
  }
  uint32_t buf = ualloc(sizeof(out));
  int n = READ(fd, buf, sizeof(out) - 1);
  CLOSE(fd);
  if (n < 0) {
    snprintf(out, sizeof(out), "<%d>", n);
    return out;
  }
  memcpy(out, (void *)buf, (size_t)n);
  out[n] = 0;
  return out;
}

#define EQS(a, b) do { checks++; const char *_a = (a), *_b = (b); if (strcmp(_a, _b) != 0) { \
  failures++; printf("FAIL %s:%d: %s is \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #a, _a, _b); } } while (0)

/* --- scenarios --------------------------------------------------------------------------- */

static void s_basic(void)
{
  int err;
  int fd = OPEN("/tmp/hello", O_CREAT | O_RDWR);
  OK(fd >= 3);
  EQ(WRITE(fd, ustr("hello world"), 11), 11);
  EQ(LSEEK(fd, 0, SEEK_CUR), 11);
  EQ(LSEEK(fd, 0, SEEK_SET), 0);
  uint32_t rb = ualloc(64);
  EQ(READ(fd, rb, 64), 11);
  OK(memcmp((void *)rb, "hello world", 11) == 0);
  EQ(READ(fd, rb, 64), 0);
  struct stat *st = FSTAT(fd, &err);
  EQ(err, 0);
  EQ(st->type, T_FILE);
  EQ(st->size, 11);
  EQ(st->nlink, 1);
  EQ(st->blocks, 1);
  EQ(CLOSE(fd), 0);
  EQ(CLOSE(fd), -EBADF);

  st = STAT("/tmp/hello", &err);
  EQ(err, 0);
  EQ(st->size, 11);
  EQ(stat_err("/tmp/nope"), -ENOENT);
  EQ(stat_err("/tmp/hello/x"), -ENOTDIR);
  EQ(stat_err("/tmp/hello/"), 0);
  EQ(stat_err("//tmp///hello"), 0);
  EQ(OPEN("/nope/x", O_CREAT | O_WRONLY), -ENOENT);
  EQ(OPEN("", O_RDONLY), -ENOENT);
  EQ(OPEN("/tmp", O_RDWR), -EISDIR);
  EQ(OPEN("/tmp", O_WRONLY), -EISDIR);
  EQ(OPEN("/tmp", O_CREAT | O_RDONLY), -EISDIR);
  fd = OPEN("/tmp", O_RDONLY);
  OK(fd >= 0);
  EQ(READ(fd, rb, 10), -EISDIR);
  EQ(WRITE(fd, rb, 10), -EBADF);
  CLOSE(fd);
  EQ(OPEN("/tmp/hello", O_CREAT | O_EXCL | O_WRONLY), -EEXIST);
  EQ(OPEN("/tmp/hello", 3), -EINVAL);

  /* Access modes and bad descriptors. */
  fd = OPEN("/tmp/hello", O_RDONLY);
  EQ(WRITE(fd, ustr("x"), 1), -EBADF);
  CLOSE(fd);
  fd = OPEN("/tmp/hello", O_WRONLY);
  EQ(READ(fd, rb, 1), -EBADF);
  CLOSE(fd);
  EQ(READ(-1, rb, 1), -EBADF);
  EQ(READ(NOFILE, rb, 1), -EBADF);
  EQ(READ(9, rb, 1), -EBADF);
  EQ(WRITE(12, rb, 1), -EBADF);
  FSTAT(99, &err);
  EQ(err, -EBADF);
  EQ(LSEEK(50, 0, SEEK_SET), -EBADF);
  EQ(CLOSE(-3), -EBADF);
  EQ(DUP(13), -EBADF);
  EQ(FSYNC(13), -EBADF);

  /* Bad user pointers. */
  EQ(sc(sys_open, BADPTR, O_RDONLY, 0), -EFAULT);
  EQ(sc(sys_mkdir, BADPTR, 0, 0), -EFAULT);
  EQ(sc(sys_stat, ustr("/tmp/hello"), BADPTR, 0), -EFAULT);
  fd = OPEN("/tmp/hello", O_RDWR);
  EQ(READ(fd, BADPTR, 5), -EFAULT);
  EQ(WRITE(fd, BADPTR, 5), -EFAULT);
  EQ(sc(sys_fstat, (uint32_t)fd, BADPTR, 0), -EFAULT);
  EQ(READ(fd, rb, 100), 11);          /* the failed calls moved nothing */
  EQ(READ(fd, rb, -1), -EINVAL);
  CLOSE(fd);
  EQ(STAT("/tmp/hello", &err)->size, 11);

  /* Names and paths. */
  EQ(OPEN("/tmp/1234567890123456789012345678", O_CREAT | O_WRONLY), -ENAMETOOLONG);
  EQ(MKDIR("/tmp/1234567890123456789012345678"), -ENAMETOOLONG);
  EQ(stat_err("/1234567890123456789012345678/x"), -ENAMETOOLONG);
  fd = OPEN("/tmp/123456789012345678901234567", O_CREAT | O_WRONLY);
  OK(fd >= 0);
  CLOSE(fd);
  EQ(UNLINK("/tmp/123456789012345678901234567"), 0);
  char longpath[400];
  memset(longpath, 'a', sizeof(longpath));
  for (int i = 0; i < 399; i += 10)
    longpath[i] = '/';
  longpath[399] = 0;
  EQ(OPEN(longpath, O_RDONLY), -ENAMETOOLONG);

  /* lseek */
  fd = OPEN("/tmp/hello", O_RDWR);
  EQ(LSEEK(fd, -1, SEEK_END), 10);
  EQ(READ(fd, rb, 10), 1);
  EQ(LSEEK(fd, -1, SEEK_SET), -EINVAL);
  EQ(LSEEK(fd, 0, 7), -EINVAL);
  EQ(LSEEK(fd, 1000, SEEK_SET), 1000);
  EQ(READ(fd, rb, 10), 0);
  EQ(LSEEK(fd, -2000, SEEK_CUR), -EINVAL);
  EQ(LSEEK(fd, 0, SEEK_CUR), 1000);
  CLOSE(fd);

  /* O_APPEND, O_TRUNC */
  fd = OPEN("/tmp/hello", O_WRONLY | O_APPEND);
  EQ(WRITE(fd, ustr("!!"), 2), 2);
  EQ(LSEEK(fd, 0, SEEK_SET), 0);
  EQ(WRITE(fd, ustr("?"), 1), 1);      /* still at the end */
  CLOSE(fd);
  EQS(get("/tmp/hello"), "hello world!!?");
  uint32_t free0 = fs_free();
  fd = OPEN("/tmp/hello", O_WRONLY | O_TRUNC);
  st = FSTAT(fd, &err);
  EQ(st->size, 0);
  EQ(st->blocks, 0);
  EQ(fs_free(), free0 + 1);
  /* dup shares the offset */
  int fd2 = DUP(fd);
  OK(fd2 >= 0 && fd2 != fd);
  EQ(WRITE(fd, ustr("ab"), 2), 2);
  EQ(WRITE(fd2, ustr("cd"), 2), 2);
  EQ(DUP2(fd, 9), 9);
  EQ(DUP2(fd, fd), fd);
  EQ(DUP2(fd, NOFILE), -EBADF);
  EQ(DUP2(-1, 3), -EBADF);
  CLOSE(fd);
  CLOSE(fd2);
  EQ(WRITE(9, ustr("ef"), 2), 2);
  EQ(DUP2(9, 10), 10);
  EQ(DUP2(10, 9), 9);                  /* replaces (closes) the old 9 */
  EQ(FSYNC(9), 0);
  CLOSE(9);
  CLOSE(10);
  EQS(get("/tmp/hello"), "abcdef");

  /* Directories. */
  struct stat *rst = STAT("/", &err);
  int rootlinks = rst->nlink;
  EQ(MKDIR("/d"), 0);
  EQ(MKDIR("/d"), -EEXIST);
  EQ(MKDIR("/"), -EEXIST);
  EQ(MKDIR("/d/e/f"), -ENOENT);
  EQ(MKDIR("/tmp/hello/x"), -ENOTDIR);
  EQ(STAT("/", &err)->nlink, rootlinks + 1);
  st = STAT("/d", &err);
  EQ(st->type, T_DIR);
  EQ(st->nlink, 2);
  EQ(st->size, 64);
  EQ(put("/d/f", "F"), 1);
  EQ(RMDIR("/d"), -ENOTEMPTY);
  EQ(RMDIR("/d/f"), -ENOTDIR);
  EQ(UNLINK("/d"), -EISDIR);
  EQ(RMDIR("/d/."), -EINVAL);
  EQ(RMDIR("/d/.."), -ENOTEMPTY);
  EQ(RMDIR("/"), -EBUSY);
  EQ(UNLINK("/"), -EISDIR);
  EQ(UNLINK("/d/."), -EISDIR);
  EQ(UNLINK("/d/f"), 0);
  EQ(UNLINK("/d/f"), -ENOENT);
  EQ(RMDIR("/d/nope"), -ENOENT);
  EQ(RMDIR("/d"), 0);
  EQ(stat_err("/d"), -ENOENT);
  EQ(STAT("/", &err)->nlink, rootlinks);
  EQ(STAT("/tmp/..", &err)->ino, 1);
  EQ(STAT("/..", &err)->ino, 1);
  EQ(sc(sys_sync, 0, 0, 0), 0);
  EQ(put("/tmp/hello", "hello world\n"), 12);
}

static void s_readdir(void)
{
  EQ(MKDIR("/r"), 0);
  EQ(put("/r/a", "a"), 1);
  EQ(put("/r/b", "b"), 1);
  EQ(put("/r/c", "c"), 1);
  EQ(UNLINK("/r/b"), 0);
  int fd = OPEN("/r", O_RDONLY);
  uint32_t de = ualloc(sizeof(struct dirent));
  char names[8][32];
  int n = 0, r;
  while ((r = sc(sys_readdir, (uint32_t)fd, de, 0)) == 1 && n < 8)
    strcpy(names[n++], ((struct dirent *)de)->name);
  EQ(r, 0);
  EQ(n, 4);
  EQS(names[0], ".");
  EQS(names[1], "..");
  EQS(names[2], "a");
  EQS(names[3], "c");
  EQ(sc(sys_readdir, (uint32_t)fd, de, 0), 0);
  /* A new entry takes the empty slot; a failed copy does not lose an entry. */
  EQ(put("/r/d", "d"), 1);
  EQ(LSEEK(fd, 0, SEEK_SET), 0);
  EQ(sc(sys_readdir, (uint32_t)fd, de, 0), 1);
  EQ(sc(sys_readdir, (uint32_t)fd, de, 0), 1);
  EQ(sc(sys_readdir, (uint32_t)fd, de, 0), 1);
  EQS(((struct dirent *)de)->name, "a");
  EQ(sc(sys_readdir, (uint32_t)fd, BADPTR, 0), -EFAULT);
  EQ(sc(sys_readdir, (uint32_t)fd, de, 0), 1);
  EQS(((struct dirent *)de)->name, "d");
  EQ(((struct dirent *)de)->ino, STAT("/r/d", &r)->ino);
  CLOSE(fd);
  EQ(STAT("/r", &r)->size, 5 * 32);
  fd = OPEN("/r/a", O_RDONLY);
  EQ(sc(sys_readdir, (uint32_t)fd, de, 0), -ENOTDIR);
  CLOSE(fd);
  /* Every program in /bin is listed. */
  fd = OPEN("/bin", O_RDONLY);
  n = 0;
  while (sc(sys_readdir, (uint32_t)fd, de, 0) == 1)
    n++;
  CLOSE(fd);
  printf("bin_entries %d\n", n - 2);
}

static void s_big(void)
{
  uint32_t size = 5 * 1024 * 1024 + 123;
  uint32_t free0 = fs_free();
  EQ(write_pattern("/tmp/big", size, 77, 7000), 0);
  EQ(check_pattern("/tmp/big", size, 77, 3333), 0);
  int err;
  struct stat *st = STAT("/tmp/big", &err);
  EQ(st->size, size);
  EQ(st->blocks, blocks_for(size));
  EQ(free0 - fs_free(), blocks_for(size));
  /* Rewrite across the direct/indirect and indirect/doubly-indirect seams. */
  int fd = OPEN("/tmp/big", O_RDWR);
  uint32_t buf = ualloc(16);
  uint32_t seams[] = { 10 * 4096 - 3, 1034 * 4096 - 3 };
  for (int i = 0; i < 2; i++) {
    EQ(LSEEK(fd, (int)seams[i], SEEK_SET), (int)seams[i]);
    EQ(WRITE(fd, ustr("XXXXXX"), 6), 6);
    EQ(LSEEK(fd, (int)seams[i] - 1, SEEK_SET), (int)seams[i] - 1);
    EQ(READ(fd, buf, 8), 8);
    OK(memcmp((char *)buf + 1, "XXXXXX", 6) == 0);
    pattern((uint8_t *)buf, seams[i], 6, 77);
    EQ(LSEEK(fd, (int)seams[i], SEEK_SET), (int)seams[i]);
    EQ(WRITE(fd, buf, 6), 6);
  }
  CLOSE(fd);
  EQ(check_pattern("/tmp/big", size, 77, 65536), 0);
  EQ(STAT("/tmp/big", &err)->blocks, blocks_for(size));
  /* Another, deleted: every block comes back. */
  uint32_t free1 = fs_free(), descs1 = fs_free_descs();
  EQ(write_pattern("/tmp/big2", 1100 * 4096, 5, 4096), 0);
  EQ(free1 - fs_free(), blocks_for(1100 * 4096));
  EQ(descs1 - fs_free_descs(), 1);
  EQ(UNLINK("/tmp/big2"), 0);
  EQ(fs_free(), free1);
  EQ(fs_free_descs(), descs1);
}

static void s_sparse(void)
{
  int err;
  int fd = OPEN("/tmp/sparse", O_CREAT | O_RDWR);
  EQ(LSEEK(fd, 0x7FFFFFF6, SEEK_SET), 0x7FFFFFF6);
  EQ(WRITE(fd, ustr("0123456789ABCDEFGHIJ"), 20), 9);   /* up to 2 GiB - 1 */
  EQ(WRITE(fd, ustr("x"), 1), -EFBIG);
  struct stat *st = FSTAT(fd, &err);
  EQ(st->size, 0x7FFFFFFF);
  EQ(st->blocks, 3);                  /* data, doubly-indirect, its indirect */
  EQ(LSEEK(fd, 1, SEEK_CUR), -EINVAL);
  EQ(LSEEK(fd, 0x7FFFFFFF, SEEK_SET), 0x7FFFFFFF);
  EQ(WRITE(fd, ustr("x"), 1), -EFBIG);
  EQ(LSEEK(fd, 100000, SEEK_SET), 100000);
  uint32_t buf = ualloc(16);
  memset((void *)buf, 0x55, 16);
  EQ(READ(fd, buf, 16), 16);
  OK(memcmp((void *)buf, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16) == 0);   /* a hole */
  EQ(LSEEK(fd, 50000, SEEK_SET), 50000);
  EQ(WRITE(fd, ustr("y"), 1), 1);     /* block 12: through a new indirect block */
  EQ(FSTAT(fd, &err)->blocks, 5);
  EQ(LSEEK(fd, -9, SEEK_END), 0x7FFFFFF6);
  EQ(READ(fd, buf, 16), 9);
  OK(memcmp((void *)buf, "012345678", 9) == 0);
  CLOSE(fd);
}

static void s_rename(void)
{
  int err;
  EQ(MKDIR("/m"), 0);
  EQ(put("/m/a", "A"), 1);
  EQ(put("/m/b", "B"), 1);
  EQ(MKDIR("/m/d1"), 0);
  EQ(MKDIR("/m/d2"), 0);
  EQ(put("/m/d2/x", "X"), 1);
  EQ(MKDIR("/m/e"), 0);
  EQ(STAT("/m", &err)->nlink, 5);

  EQ(RENAME("/m/a", "/m/a2"), 0);
  EQ(stat_err("/m/a"), -ENOENT);
  EQS(get("/m/a2"), "A");
  uint32_t free0 = fs_free(), descs0 = fs_free_descs();
  EQ(RENAME("/m/a2", "/m/b"), 0);      /* replaces b, whose block and descriptor go */
  EQS(get("/m/b"), "A");
  EQ(stat_err("/m/a2"), -ENOENT);
  EQ(fs_free(), free0 + 1);
  EQ(fs_free_descs(), descs0 + 1);
  EQ(STAT("/m/b", &err)->nlink, 1);
  EQ(RENAME("/m/b", "/m/d1/b"), 0);    /* across directories */
  EQ(stat_err("/m/b"), -ENOENT);
  EQS(get("/m/d1/b"), "A");

  uint32_t d2 = STAT("/m/d2", &err)->ino;
  EQ(RENAME("/m/d1", "/m/d2/d1"), 0);  /* a directory moves: its ".." follows */
  EQ(STAT("/m/d2/d1/..", &err)->ino, d2);
  EQ(STAT("/m", &err)->nlink, 4);
  EQ(STAT("/m/d2", &err)->nlink, 3);
  EQS(get("/m/d2/d1/b"), "A");
  EQ(RENAME("/m/d2", "/m/d2/d1/z"), -EINVAL);   /* into its own subtree */
  EQ(RENAME("/m/d2", "/m/d2/z"), -EINVAL);
  EQ(RENAME("/m/d2", "/m/d2"), 0);
  EQ(RENAME("/m/e", "/m/d2"), -ENOTEMPTY);
  EQ(MKDIR("/m/e2"), 0);
  EQ(put("/m/e2/inside", "I"), 1);
  EQ(RENAME("/m/e2", "/m/e"), 0);      /* onto an empty directory */
  EQS(get("/m/e/inside"), "I");
  EQ(STAT("/m", &err)->nlink, 4);
  EQ(RENAME("/m/d2/x", "/m/e"), -EISDIR);
  EQ(RENAME("/m/e", "/m/d2/x"), -ENOTDIR);
  EQ(RENAME("/m/nope", "/m/zz"), -ENOENT);
  EQ(RENAME("/m/.", "/m/zz"), -EINVAL);
  EQ(RENAME("/m/d2/x", "/m/.."), -EINVAL);
  EQ(RENAME("/m/d2/x", "/nope/dir/x"), -ENOENT);
  EQ(RENAME("/m/d2/x", "/m/1234567890123456789012345678"), -ENAMETOOLONG);
  EQ(RENAME("/", "/m/q"), -EBUSY);
  /* An open file keeps working under its new name. */
  int fd = OPEN("/m/d2/x", O_RDWR);
  EQ(RENAME("/m/d2/x", "/m/x"), 0);
  EQ(WRITE(fd, ustr("Y"), 1), 1);
  CLOSE(fd);
  EQS(get("/m/x"), "Y");
  EQ(RENAME("/m/x", "/m/d2/d1/b"), 0);
  EQS(get("/m/d2/d1/b"), "Y");
}

static void s_cwd(void)
{
  int r;
  EQ(MKDIR("/w"), 0);
  EQ(MKDIR("/w/a"), 0);
  EQ(MKDIR("/w/a/b"), 0);
  EQ(CHDIR("/w/a/b"), 0);
  EQS(GETCWD(&r), "/w/a/b");
  EQ(r, 6);
  EQ(put("f", "rel"), 3);
  EQS(get("/w/a/b/f"), "rel");
  EQ(CHDIR(".."), 0);
  EQS(GETCWD(&r), "/w/a");
  EQS(get("b/f"), "rel");
  EQS(get("./b/../b/f"), "rel");
  EQ(CHDIR("../.."), 0);
  EQS(GETCWD(&r), "/");
  EQ(r, 1);
  EQ(CHDIR("/w/a/b/f"), -ENOTDIR);
  EQ(CHDIR("/nope"), -ENOENT);
  EQ(CHDIR("/w/a"), 0);
  uint32_t small = ualloc(4);
  EQ(sc(sys_getcwd, small, 4, 0), -ERANGE);
  uint32_t exact = ualloc(5);
  EQ(sc(sys_getcwd, exact, 5, 0), 4);
  EQS((const char *)exact, "/w/a");
  EQ(sc(sys_getcwd, BADPTR, 100, 0), -EFAULT);
  /* Renamed while we are inside. */
  EQ(RENAME("/w/a", "/w/c"), 0);
  EQS(GETCWD(&r), "/w/c");
  /* Removed while we are inside. */
  EQ(CHDIR("/w/c/b"), 0);
  EQ(UNLINK("f"), 0);
  EQ(RMDIR("/w/c/b"), 0);
  EQ(sc(sys_getcwd, ualloc(64), 64, 0), -ENOENT);
  EQ(OPEN("g", O_CREAT | O_WRONLY), -ENOENT);
  EQ(MKDIR("x"), -ENOENT);
  EQ(stat_err("."), 0);
  EQ(stat_err(".."), -ENOENT);
  EQ(CHDIR("/"), 0);
  EQ(stat_err("/w/c/b"), -ENOENT);
}

static void s_unlink_open(void)
{
  int err;
  uint32_t free0 = fs_free(), descs0 = fs_free_descs();
  int fd = OPEN("/tmp/u", O_CREAT | O_RDWR);
  uint32_t buf = ualloc(10000);
  pattern((uint8_t *)buf, 0, 10000, 3);
  EQ(WRITE(fd, buf, 10000), 10000);
  EQ(free0 - fs_free(), 3);
  EQ(UNLINK("/tmp/u"), 0);
  EQ(stat_err("/tmp/u"), -ENOENT);
  EQ(FSTAT(fd, &err)->nlink, 0);
  EQ(fs_free(), free0 - 3);           /* still open: still there */
  EQ(LSEEK(fd, 0, SEEK_SET), 0);
  memset((void *)buf, 0, 10000);
  EQ(READ(fd, buf, 10000), 10000);
  uint8_t want[100];
  pattern(want, 9900, 100, 3);
  OK(memcmp((uint8_t *)buf + 9900, want, 100) == 0);
  CLOSE(fd);
  EQ(fs_free(), free0);
  EQ(fs_free_descs(), descs0);
}

static void s_full(void)
{
  uint32_t free0 = fs_free(), descs0 = fs_free_descs();
  int fd = OPEN("/tmp/fill", O_CREAT | O_WRONLY);
  uint32_t chunk = 65536, buf = ualloc(chunk), total = 0;
  memset((void *)buf, 'f', chunk);
  int r;
  while ((r = WRITE(fd, buf, chunk)) == (int)chunk)
    total += chunk;
  OK((r >= 0 && r < (int)chunk) || r == -ENOSPC);   /* ENOSPC when the disk ends on a chunk */
  total += (uint32_t)(r > 0 ? r : 0);
  EQ(WRITE(fd, buf, chunk), -ENOSPC);
  EQ(fs_free(), 0);
  int err;
  EQ(FSTAT(fd, &err)->size, total);
  printf("filled %u bytes\n", total);
  /* Creating still works while descriptors and directory room last; writing does not. */
  int fd2 = OPEN("/tmp/small", O_CREAT | O_WRONLY);
  OK(fd2 >= 0);
  EQ(WRITE(fd2, ustr("x"), 1), -ENOSPC);
  EQ(FSTAT(fd2, &err)->blocks, 0);
  CLOSE(fd2);
  EQ(MKDIR("/tmp/newdir"), -ENOSPC);   /* needs a block for "." and ".." */
  EQ(stat_err("/tmp/newdir"), -ENOENT);
  EQ(fs_free_descs(), descs0 - 2);     /* fill and small; the failed mkdir gave its back */
  CLOSE(fd);
  EQ(UNLINK("/tmp/fill"), 0);
  EQ(UNLINK("/tmp/small"), 0);
  EQ(fs_free(), free0);
  EQ(fs_free_descs(), descs0);
  /* Descriptors run out too. */
  EQ(MKDIR("/many"), 0);
  int n = 0;
  char name[40];
  for (;;) {
    snprintf(name, sizeof(name), "/many/f%d", n);
    fd = OPEN(name, O_CREAT | O_WRONLY);
    if (fd < 0)
      break;
    CLOSE(fd);
    n++;
  }
  EQ(fd, -ENOSPC);
  EQ(fs_free_descs(), 0);
  printf("created %d files\n", n);
  for (int i = 0; i < n; i++) {
    snprintf(name, sizeof(name), "/many/f%d", i);
    EQ(UNLINK(name), 0);
  }
  EQ(fs_free_descs(), descs0 - 1);
  EQ(RMDIR("/many"), 0);
  EQ(fs_free_descs(), descs0);
  EQ(fs_free(), free0);
}

static void s_txtbsy(void)
{
  int err;
  int fd = OPEN("/tmp/prog", O_CREAT | O_WRONLY);
  struct inode *ip = namei("/tmp/prog", &err);
  OK(ip != 0);
  EQ(inode_text_get(ip), -ETXTBSY);    /* open for writing: cannot be run */
  CLOSE(fd);
  EQ(inode_text_get(ip), 0);
  EQ(OPEN("/tmp/prog", O_WRONLY), -ETXTBSY);
  EQ(OPEN("/tmp/prog", O_RDWR), -ETXTBSY);
  EQ(OPEN("/tmp/prog", O_CREAT | O_TRUNC | O_WRONLY), -ETXTBSY);
  fd = OPEN("/tmp/prog", O_RDONLY);
  OK(fd >= 0);
  CLOSE(fd);
  inode_text_put(ip);
  fd = OPEN("/tmp/prog", O_WRONLY);
  OK(fd >= 0);
  CLOSE(fd);
  iput(ip);
}

static void s_pipe(void)
{
  uint32_t fds = ualloc(8), buf = ualloc(8192);
  uint32_t frames0 = kfs_frames_used;
  EQ(sc(sys_pipe, fds, 0, 0), 0);
  int rfd = ((int *)fds)[0], wfd = ((int *)fds)[1];
  OK(rfd >= 0 && wfd >= 0 && rfd != wfd);
  EQ(WRITE(wfd, ustr("abc"), 3), 3);
  EQ(READ(rfd, buf, 10), 3);
  OK(memcmp((void *)buf, "abc", 3) == 0);
  EQ(READ(wfd, buf, 1), -EBADF);
  EQ(WRITE(rfd, buf, 1), -EBADF);
  /* Round the ring several times. */
  uint8_t want[3000];
  for (uint32_t i = 0; i < 10; i++) {
    pattern((uint8_t *)buf, i * 3000, 3000, 11);
    EQ(WRITE(wfd, buf, 3000), 3000);
    memset((void *)buf, 0, 3000);
    EQ(READ(rfd, buf, 1000), 1000);
    EQ(READ(rfd, buf + 1000, 3000), 2000);
    pattern(want, i * 3000, 3000, 11);
    OK(memcmp((void *)buf, want, 3000) == 0);
  }
  EQ(LSEEK(rfd, 0, SEEK_SET), -ESPIPE);
  int err;
  EQ(FSTAT(rfd, &err)->type, T_DEV);
  EQ(FSYNC(wfd), -EINVAL);
  EQ(WRITE(wfd, ustr("hello"), 5), 5);
  EQ(READ(rfd, BADPTR, 5), -EFAULT);
  EQ(READ(rfd, buf, 10), 5);           /* the failed read consumed nothing */
  EQ(WRITE(wfd, BADPTR, 5), -EFAULT);
  /* A killed process does not wait. */
  myproc()->killed = 1;
  EQ(READ(rfd, buf, 10), -EINTR);
  myproc()->killed = 0;
  /* End of file once every write end is closed. */
  int w2 = DUP(wfd);
  CLOSE(wfd);
  EQ(WRITE(w2, ustr("z"), 1), 1);
  EQ(READ(rfd, buf, 10), 1);
  CLOSE(w2);
  EQ(READ(rfd, buf, 10), 0);
  CLOSE(rfd);
  /* No reader: EPIPE. */
  EQ(sc(sys_pipe, fds, 0, 0), 0);
  CLOSE(((int *)fds)[0]);
  EQ(WRITE(((int *)fds)[1], ustr("x"), 1), -EPIPE);
  CLOSE(((int *)fds)[1]);
  EQ(kfs_frames_used, frames0);        /* both pages came back */
  /* A bad pointer for the fds leaves nothing open. */
  EQ(sc(sys_pipe, BADPTR, 0, 0), -EFAULT);
  EQ(kfs_frames_used, frames0);
  int fd = DUP(0);
  EQ(fd, 3);
  CLOSE(fd);
}

/* Damage prepared by tests/host/test_kfs.py: each file fails alone, nothing crashes. */
static void s_damaged(void)
{
  uint32_t buf = ualloc(8192);
  EQ(OPEN("/data/bad_type", O_RDONLY), -EIO);
  EQ(stat_err("/data/bad_type"), -EIO);
  EQ(OPEN("/data/bad_ptr", O_RDONLY), -EIO);
  EQ(UNLINK("/data/bad_ptr"), -EIO);
  int fd = OPEN("/data/big", O_RDONLY);
  OK(fd >= 0);
  EQ(READ(fd, buf, 4096), 4096);       /* a direct block: fine */
  EQ(LSEEK(fd, 15 * 4096, SEEK_SET), 15 * 4096);
  EQ(READ(fd, buf, 4096), -EIO);       /* its indirect slot names a metadata block */
  EQ(LSEEK(fd, 16 * 4096, SEEK_SET), 16 * 4096);
  EQ(READ(fd, buf, 4096), 4096);
  CLOSE(fd);
  fd = OPEN("/data/big", O_WRONLY);
  EQ(LSEEK(fd, 15 * 4096, SEEK_SET), 15 * 4096);
  EQ(WRITE(fd, buf, 10), -EIO);
  CLOSE(fd);
  EQ(OPEN("/data/sub/ghost", O_RDONLY), -EIO);   /* its entry names descriptor 99999 */
  EQS(get("/data/ok"), "fine\n");
  EQS(get("/data/sub/fine"), "also fine\n");
  OK(strstr(kfs_log, "damaged") != 0);
  OK(strstr(kfs_log, "out of range") != 0);
}

/* Reads go to the disk once; writes go through at once. */
static void s_cache(void)
{
  EQ(write_pattern("/tmp/c", 100 * 1024, 4, 8192), 0);
  uint32_t reads = kfs_disk_reads, hits = kfs_stat("fs.cache.hits");
  EQ(check_pattern("/tmp/c", 100 * 1024, 4, 8192), 0);
  EQ(kfs_disk_reads, reads);          /* all in the cache since the write */
  OK(kfs_stat("fs.cache.hits") >= hits + 25);
  /* Delayed write: the write stays in the cache until fsync, which also flushes. */
  EQ(sc(sys_sync, 0, 0, 0), 0);
  uint32_t writes = kfs_disk_writes, flushes = kfs_disk_flushes;
  int fd = OPEN("/tmp/c", O_WRONLY);
  EQ(WRITE(fd, ustr("W"), 1), 1);
  EQ(kfs_disk_writes, writes);        /* nothing: even the "not clean" mark waits for a write */
  OK(kfs_stat("fs.cache.dirty") >= 2);          /* the data block and the descriptor */
  EQ(FSYNC(fd), 0);
  OK(kfs_disk_writes >= writes + 2);
  OK(kfs_disk_flushes > flushes);
  EQ(kfs_stat("fs.cache.dirty"), 0);
  OK(kfs_stat("fs.writebacks.fsync") >= 2);
  /* Write-through: on disk before write() returns. */
  EQ(kfs_setting("fs.write_policy", "through"), 0);
  writes = kfs_disk_writes;
  EQ(WRITE(fd, ustr("V"), 1), 1);
  OK(kfs_disk_writes >= writes + 2);
  EQ(kfs_stat("fs.cache.dirty"), 0);
  EQ(kfs_setting("fs.write_policy", "later"), -EINVAL);
  EQ(kfs_setting("fs.write_policy", "delay"), 0);
  CLOSE(fd);
  OK(kfs_setting_value("fs.cache_max_kb") == 0 ||
     kfs_stat("fs.cache.blocks") * 4 <= kfs_setting_value("fs.cache_max_kb"));
  printf("cache_blocks %u max_kb %u hits %u misses %u reads %u writes %u\n",
         kfs_stat("fs.cache.blocks"), kfs_setting_value("fs.cache_max_kb"), kfs_stat("fs.cache.hits"),
         kfs_stat("fs.cache.misses"), kfs_stat("fs.disk.reads"), kfs_stat("fs.disk.writes"));
}

/* With a 16-block cache a 1 MB file cannot stay: the second pass reads it all again. */
static void s_smallcache(void)
{
  EQ(kfs_setting_value("fs.cache_max_kb"), 64);
  EQ(write_pattern("/tmp/sc", 1024 * 1024, 6, 10000), 0);
  uint32_t reads = kfs_disk_reads;
  EQ(check_pattern("/tmp/sc", 1024 * 1024, 6, 10000), 0);
  printf("smallcache: %u reads for 256 blocks\n", kfs_disk_reads - reads);
  OK(kfs_disk_reads >= reads + 256 - 16);   /* at most the cache's worth stays */
  EQ(kfs_stat("fs.cache.blocks"), 16);
}

static void s_persist_write(void) { EQ(write_pattern("/tmp/persist", 300000, 8, 5000), 0); }
static void s_persist_read(void)
{
  uint32_t reads = kfs_disk_reads;
  EQ(check_pattern("/tmp/persist", 300000, 8, 5000), 0);
  OK(kfs_disk_reads >= reads + 74);
}

static void s_counts(void)
{
  printf("free_blocks %u\nfree_descriptors %u\ncache_max_kb %u\n", fs_free(), fs_free_descs(),
         kfs_setting_value("fs.cache_max_kb"));
}

/* Writes fail from now on: the calls say EIO and nothing crashes. */
static void s_ioerror(void)
{
  EQ(kfs_setting("fs.write_policy", "through"), 0);
  kfs_fail_writes_after = (long)kfs_disk_writes;
  int fd = OPEN("/tmp/ioerr", O_CREAT | O_WRONLY);
  EQ(fd, -EIO);
  EQ(MKDIR("/ioerrdir"), -EIO);
  fd = OPEN("/tmp/hello", O_WRONLY);
  if (fd >= 0) {
    EQ(WRITE(fd, ustr("x"), 1), -EIO);
    CLOSE(fd);
  }
  kfs_fail_writes_after = -1;
  OK(strstr(kfs_log, "failed") != 0);
  EQ(kfs_setting("fs.write_policy", "delay"), 0);
}

/* A delayed write that cannot be written back: the file is named on the console, the data
 * stays in memory, fsync and close report it, and a later write-back succeeds. */
static void s_wberror(void)
{
  int fd = OPEN("/tmp/wberr", O_CREAT | O_RDWR);
  OK(fd >= 0);
  uint32_t buf = ualloc(10000);
  pattern((uint8_t *)buf, 0, 10000, 21);
  EQ(WRITE(fd, buf, 10000), 10000);
  kfs_log_clear();
  kfs_fail_writes_after = (long)kfs_disk_writes;
  EQ(FSYNC(fd), -EIO);
  OK(strstr(kfs_log, "/tmp/wberr") != 0);
  OK(strstr(kfs_log, "kept in memory") != 0);
  OK(kfs_stat("fs.cache.dirty") >= 3);
  EQ(FSYNC(fd), -EIO);                 /* still failing */
  EQ(sc(sys_sync, 0, 0, 0), 0);
  EQ(CLOSE(fd), -EIO);                 /* the sync's failure, reported to the writer */
  EQ(check_pattern("/tmp/wberr", 10000, 21, 4096), 0);   /* from the cache */
  kfs_fail_writes_after = -1;
  fd = OPEN("/tmp/wberr", O_RDWR);
  EQ(FSYNC(fd), 0);
  EQ(CLOSE(fd), 0);
  EQ(sc(sys_sync, 0, 0, 0), 0);
  EQ(kfs_stat("fs.cache.dirty"), 0);
}

/* A file created and deleted before any write-back costs no data-block write. */
static void s_shortlived(void)
{
  EQ(sc(sys_sync, 0, 0, 0), 0);
  uint32_t data = kfs_stat("fs.disk.writes.data"), free0 = fs_free();
  for (int i = 0; i < 20; i++) {
    char name[32];
    snprintf(name, sizeof(name), "/tmp/short%d", i);
    EQ(write_pattern(name, 3 * 4096 + 100, (uint32_t)i, 4096), 0);
    EQ(UNLINK(name), 0);
  }
  EQ(sc(sys_sync, 0, 0, 0), 0);
  OK(kfs_stat("fs.disk.writes.data") <= data + 1);     /* /tmp's own block, at most */
  EQ(fs_free(), free0);
}

/* A busy workload, an fsync'ed file, more work, then a sync during which the disk stops
 * taking writes after KFS_CRASH_AFTER of them (a power cut in the middle of write-back). */
static void s_crashmix(void)
{
  EQ(MKDIR("/cm"), 0);
  EQ(write_pattern("/cm/synced", 50000, 3, 4096), 0);
  int fd = OPEN("/cm/synced", O_RDONLY);
  EQ(FSYNC(fd), 0);
  CLOSE(fd);
  fd = OPEN("/cm", O_RDONLY);          /* a new directory's own entry, in "/" */
  EQ(FSYNC(fd), 0);
  CLOSE(fd);
  EQ(MKDIR("/cm/d"), 0);
  EQ(MKDIR("/cm/d/e"), 0);
  for (int i = 0; i < 12; i++) {
    char name[32];
    snprintf(name, sizeof(name), "/cm/d/f%d", i);
    EQ(write_pattern(name, (uint32_t)(i * 3000 + 10), (uint32_t)i, 4096), 0);
  }
  EQ(write_pattern("/cm/big", 60 * 4096, 9, 8192), 0);
  EQ(UNLINK("/cm/d/f3"), 0);
  EQ(RENAME("/cm/d/f4", "/cm/d/e/f4"), 0);
  EQ(RENAME("/cm/d/f5", "/cm/d/f6"), 0);
  EQ(RENAME("/cm/d/e", "/cm/e"), 0);
  EQ(write_pattern("/cm/big", 20 * 4096, 10, 8192), 0);     /* truncated, rewritten */
  fd = OPEN("/cm/d/f7", O_RDWR);                             /* unlinked while open */
  EQ(UNLINK("/cm/d/f7"), 0);
  const char *after = getenv("KFS_CRASH_AFTER");
  kfs_fail_writes_after = (long)kfs_disk_writes + (after ? atol(after) : 0);
  kfs_quiet = 1;
  sc(sys_sync, 0, 0, 0);
  kfs_quiet = 0;
  CLOSE(fd);
}

/* Blocks of one file are allocated one after another; a new file's descriptor goes near
 * its directory's. */
/* The disk address of block lbn of path (0: none). */
static uint32_t block_of(const char *path, uint32_t lbn)
{
  int err;
  uint32_t addr = 0;
  struct inode *ip = namei(path, &err);
  if (!ip)
    return 0;
  ilock(ip);
  if (inode_bmap(ip, lbn, false, &addr) < 0)
    addr = 0;
  iunlockput(ip);
  return addr;
}

static void s_placement(void)
{
  int err;
  EQ(MKDIR("/near"), 0);
  uint32_t dino = STAT("/near", &err)->ino;
  EQ(write_pattern("/near/a", 20 * 4096, 1, 4096), 0);
  EQ(write_pattern("/near/b", 5 * 4096, 2, 4096), 0);
  uint32_t a = STAT("/near/a", &err)->ino, b = STAT("/near/b", &err)->ino;
  OK(a / 32 == dino / 32 || a - dino < 32);
  OK(b / 32 == dino / 32 || b - dino < 32);
  printf("placement dir %u a %u b %u\n", dino, a, b);

  /* A file's next block goes right after its last one when that is free, wherever the last
   * search ended: c, then a gap file, then d; the gap removed (and its blocks made reusable
   * by a sync); c grows into the gap, not after d. */
  EQ(write_pattern("/near/c", 8 * 4096, 3, 4096), 0);
  EQ(write_pattern("/near/gap", 8 * 4096, 4, 4096), 0);
  EQ(write_pattern("/near/d", 8 * 4096, 5, 4096), 0);
  EQ(block_of("/near/gap", 0), block_of("/near/c", 7) + 1);    /* the layout assumed */
  EQ(UNLINK("/near/gap"), 0);
  EQ(sc(sys_sync, 0, 0, 0), 0);
  int fd = OPEN("/near/c", O_WRONLY | O_APPEND);
  uint32_t buf = ualloc(4096);
  pattern((uint8_t *)buf, 8 * 4096, 4096, 3);
  EQ(WRITE(fd, buf, 4096), 4096);
  EQ(CLOSE(fd), 0);
  uint32_t last = block_of("/near/c", 7), next = block_of("/near/c", 8);
  EQ(next, last + 1);
  EQ(check_pattern("/near/c", 9 * 4096, 3, 4096), 0);
  printf("placement c's block 7 at %u, block 8 at %u (d ends at %u)\n", last, next, block_of("/near/d", 7));
}

static struct {
  const char *name;
  void (*fn)(void);
} scenarios[] = {
  { "basic", s_basic }, { "readdir", s_readdir }, { "big", s_big }, { "sparse", s_sparse },
  { "rename", s_rename }, { "cwd", s_cwd }, { "unlink_open", s_unlink_open },
  { "full", s_full }, { "txtbsy", s_txtbsy }, { "pipe", s_pipe }, { "damaged", s_damaged },
  { "cache", s_cache }, { "smallcache", s_smallcache }, { "persist_write", s_persist_write },
  { "persist_read", s_persist_read }, { "counts", s_counts }, { "ioerror", s_ioerror },
  { "wberror", s_wberror }, { "crashmix", s_crashmix }, { "shortlived", s_shortlived }, { "placement", s_placement },
};

int main(int argc, char **argv)
{
  setvbuf(stdout, 0, _IONBF, 0);
  if (argc < 2) {
    printf("usage: kfs IMAGE|--nodisk SCENARIO... [nosync]\n");
    return 2;
  }
  kfs_memory_init();
  cmdline_init(getenv("KFS_CMDLINE"));
  if (strcmp(argv[1], "--nodisk") != 0)
    kfs_disk_open(argv[1]);
  fs_init();                          /* powers off (exit 3) on a bad disk */
  struct proc *p = myproc();
  p->pid = 1;
  int err;
  p->cwd = namei("/", &err);
  p->ofile[0] = file_console_open();
  p->ofile[1] = filedup(p->ofile[0]);
  p->ofile[2] = filedup(p->ofile[0]);
  bool sync = true;
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "nosync") == 0) {
      sync = false;
      continue;
    }
    size_t k = 0;
    while (k < sizeof(scenarios) / sizeof(scenarios[0]) && strcmp(scenarios[k].name, argv[i]))
      k++;
    if (k == sizeof(scenarios) / sizeof(scenarios[0])) {
      printf("no scenario %s\n", argv[i]);
      return 2;
    }
    int before = failures;
    ureset();
    scenarios[k].fn();
    printf("scenario %s: %s\n", argv[i], failures == before ? "ok" : "FAILED");
  }
  if (sync) {
    for (int fd = 0; fd < NOFILE; fd++)
      if (p->ofile[fd]) {
        fileclose(p->ofile[fd]);
        p->ofile[fd] = 0;
      }
    iput(p->cwd);
    fs_sync();
  }
  printf("kfs: %d checks, %d failures\n", checks, failures);
  return failures != 0;
}
