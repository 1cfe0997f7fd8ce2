/* mkfs: builds a Sprite file-system image on the host.
 *
 *   mkfs -o IMAGE -s SIZE_MB [-b BINDIR] [PATH...]
 *
 * The image is sparse: only the blocks in use are written. It holds /bin (every regular file
 * of BINDIR, the user programs), an empty /tmp and /swap (backing files), and each PATH (a file, or a folder copied
 * recursively) at the root under its own name. Any problem is one line on stderr and a
 * non-zero exit, and no half-made image is left behind.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "mkfs/image.h"

#define MIN_MB 1
#define MAX_MB (FS_MAX_BLOCKS / (1024 * 1024 / FS_BSIZE))    /* 4096 */
#define MAX_DEPTH 64

static const char *image_path;
static struct image im;
static int image_made;

static void usage(FILE *f)
{
  fprintf(f,
    "usage: mkfs -o IMAGE -s SIZE_MB [-b BINDIR] [PATH...]\n"
    "Makes a Sprite file-system image (sparse file) of SIZE_MB megabytes (%d to %d).\n"
    "  -o IMAGE   the image file to create (overwritten if it exists)\n"
    "  -s SIZE_MB size of the file system in MB\n"
    "  -b BINDIR  copy every regular file of BINDIR into /bin (the user programs)\n"
    "  -h         this help\n"
    "Each PATH (a file or a folder, copied recursively) goes at the root under its own name.\n"
    "Names are at most %d bytes. /bin, /tmp and /swap always exist.\n", MIN_MB, MAX_MB, FS_NAME_MAX);
}

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void die(const char *fmt, ...)
{
  va_list ap;
  fprintf(stderr, "mkfs: ");
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\n");
  if (image_made && im.fd >= 0) {
    close(im.fd);
    unlink(image_path);
  }
  exit(1);
}

/* The last component of a host path, ignoring trailing slashes. */
static char *base_name(const char *path)
{
  size_t n = strlen(path);
  while (n > 1 && path[n - 1] == '/')
    n--;
  size_t s = n;
  while (s > 0 && path[s - 1] != '/')
    s--;
  char *b = malloc(n - s + 1);
  if (!b)
    die("out of memory");
  memcpy(b, path + s, n - s);
  b[n - s] = 0;
  return b;
}

static void check_name(const char *name, const char *hostpath)
{
  int r = fs_name_check(name);
  if (r == -2)
    die("name too long (at most %d bytes): '%s' (%s)", FS_NAME_MAX, name, hostpath);
  if (r < 0 || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
    die("cannot use '%s' as a name in the image (%s)", name, hostpath);
}

static void copy_file(uint32_t dir, const char *name, const char *hostpath)
{
  FILE *f = fopen(hostpath, "rb");
  if (!f)
    die("%s: %s", hostpath, strerror(errno));
  uint32_t ino = img_ialloc(&im, FS_T_FILE);
  if (!ino || img_link(&im, dir, name, ino) < 0)
    die("%s: %s", hostpath, im.err);
  char buf[64 * 1024];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
    if (img_append(&im, ino, buf, (uint32_t)n) < 0)
      die("%s: %s", hostpath, im.err);
  if (ferror(f))
    die("%s: read error", hostpath);
  fclose(f);
}

static int cmp_str(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of a host folder but "." and "..", sorted by name so that images are
 * reproducible; *n gets their number. The caller frees each name and the array. */
static char **sorted_names(const char *hostpath, size_t *n)
{
  DIR *d = opendir(hostpath);
  if (!d)
    die("%s: %s", hostpath, strerror(errno));
  char **names = 0;
  size_t cap = 0;
  struct dirent *e;
  *n = 0;
  while ((e = readdir(d)) != 0) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    if (*n == cap) {
      cap = cap ? cap * 2 : 16;
      names = realloc(names, cap * sizeof(*names));
      if (!names)
        die("out of memory");
    }
    if (!(names[(*n)++] = strdup(e->d_name)))
      die("out of memory");
  }
  closedir(d);
  qsort(names, *n, sizeof(*names), cmp_str);
  return names;
}

static void copy_path(uint32_t dir, const char *name, const char *hostpath, int depth);

/* Copies the folder's entries in name order. */
static void copy_folder(uint32_t dir, const char *hostpath, int depth)
{
  size_t n;
  char **names = sorted_names(hostpath, &n);
  for (size_t i = 0; i < n; i++) {
    size_t len = strlen(hostpath) + strlen(names[i]) + 2;
    char *child = malloc(len);
    if (!child)
      die("out of memory");
    snprintf(child, len, "%s/%s", hostpath, names[i]);
    copy_path(dir, names[i], child, depth + 1);
    free(child);
    free(names[i]);
  }
  free(names);
}

static void copy_path(uint32_t dir, const char *name, const char *hostpath, int depth)
{
  struct stat st;
  if (depth > MAX_DEPTH)
    die("%s: folders nested too deeply (a symbolic-link loop?)", hostpath);
  check_name(name, hostpath);
  if (stat(hostpath, &st) < 0)
    die("%s: %s", hostpath, strerror(errno));
  if (S_ISREG(st.st_mode)) {
    copy_file(dir, name, hostpath);
  } else if (S_ISDIR(st.st_mode)) {
    uint32_t sub = img_mkdir(&im, dir, name);
    if (!sub)
      die("%s: %s", hostpath, im.err);
    copy_folder(sub, hostpath, depth);
  } else {
    die("%s: not a regular file or folder", hostpath);
  }
}

static void copy_bindir(uint32_t bin, const char *bindir)
{
  size_t n;
  char **names = sorted_names(bindir, &n);
  for (size_t i = 0; i < n; i++) {
    size_t len = strlen(bindir) + strlen(names[i]) + 2;
    char *p = malloc(len);
    struct stat st;
    if (!p)
      die("out of memory");
    snprintf(p, len, "%s/%s", bindir, names[i]);
    /* Only the programs: object files, folders and the like are skipped. */
    if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
      check_name(names[i], p);
      copy_file(bin, names[i], p);
    }
    free(p);
    free(names[i]);
  }
  free(names);
}

int main(int argc, char **argv)
{
  const char *size_arg = 0, *bindir = 0;
  const char **paths = calloc((size_t)argc, sizeof(char *));
  int npaths = 0, only_paths = 0;
  if (!paths)
    die("out of memory");

  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (only_paths || a[0] != '-' || a[1] == 0) {
      paths[npaths++] = a;
    } else if (strcmp(a, "--") == 0) {
      only_paths = 1;
    } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      usage(stdout);
      return 0;
    } else if (strcmp(a, "-o") == 0 || strcmp(a, "-s") == 0 || strcmp(a, "-b") == 0) {
      if (i + 1 >= argc)
        die("option %s needs a value (mkfs -h for help)", a);
      const char *v = argv[++i];
      if (a[1] == 'o')
        image_path = v;
      else if (a[1] == 's')
        size_arg = v;
      else
        bindir = v;
    } else {
      die("unknown option %s (mkfs -h for help)", a);
    }
  }
  if (!image_path || !image_path[0])
    die("no image given: -o IMAGE is required (mkfs -h for help)");
  if (!size_arg)
    die("no size given: -s SIZE_MB is required (mkfs -h for help)");

  char *end;
  errno = 0;
  unsigned long mb = strtoul(size_arg, &end, 10);
  if (size_arg[0] < '0' || size_arg[0] > '9' || *end || errno)
    die("size '%s' is not a number of megabytes", size_arg);
  if (mb < MIN_MB)
    die("size %lu MB is too small (at least %d MB)", mb, MIN_MB);
  if (mb > MAX_MB)
    die("size %lu MB is too big (at most %d MB)", mb, MAX_MB);

  /* Check everything that can be checked before the image file is touched. */
  struct stat st;
  if (bindir && (stat(bindir, &st) < 0 || !S_ISDIR(st.st_mode)))
    die("%s: %s", bindir, stat(bindir, &st) < 0 ? strerror(errno) : "not a folder");
  char **names = calloc((size_t)npaths + 1, sizeof(char *));
  if (!names)
    die("out of memory");
  for (int i = 0; i < npaths; i++) {
    if (stat(paths[i], &st) < 0)
      die("%s: %s", paths[i], strerror(errno));
    if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
      die("%s: not a regular file or folder", paths[i]);
    names[i] = base_name(paths[i]);
    check_name(names[i], paths[i]);
    if (strcmp(names[i], "bin") == 0 || strcmp(names[i], "tmp") == 0 || strcmp(names[i], "swap") == 0)
      die("name collision: %s would replace /%s", paths[i], names[i]);
    for (int j = 0; j < i; j++)
      if (strcmp(names[i], names[j]) == 0)
        die("name collision: %s and %s are both '%s' at the root", paths[j], paths[i], names[i]);
  }

  image_made = 1;
  if (img_create(&im, image_path, (uint32_t)(mb * (1024 * 1024 / FS_BSIZE))) < 0)
    die("%s", im.err);
  uint32_t bin = img_mkdir(&im, FS_ROOT_DESC, "bin");
  /* /swap holds the VM's backing files; made here so the first process does not have to. */
  if (!bin || !img_mkdir(&im, FS_ROOT_DESC, "tmp") || !img_mkdir(&im, FS_ROOT_DESC, "swap"))
    die("%s", im.err);
  if (bindir)
    copy_bindir(bin, bindir);
  for (int i = 0; i < npaths; i++)
    copy_path(FS_ROOT_DESC, names[i], paths[i], 0);
  if (img_close(&im) < 0) {
    fprintf(stderr, "mkfs: %s\n", im.err);
    unlink(image_path);
    return 1;
  }
  return 0;
}
