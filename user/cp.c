/* cp SRC DST: copies a file; DST may be an existing directory. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include <sys/stat.h>

static char buf[8192];

static const char *basename_of(const char *path)
{
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

int main(int argc, char **argv)
{
  if (argc != 3) {
    fprintf(stderr, "usage: cp SRC DST\n");
    return 1;
  }
  const char *src = argv[1];
  char dst[512];
  struct stat st;
  if (stat(argv[2], &st) == 0 && st.type == T_DIR)
    snprintf(dst, sizeof(dst), "%s/%s", argv[2], basename_of(src));
  else
    snprintf(dst, sizeof(dst), "%s", argv[2]);

  int in = open(src, O_RDONLY);
  if (in < 0) {
    fprintf(stderr, "cp: %s: %s\n", src, strerror(errno));
    return 1;
  }
  if (fstat(in, &st) < 0) {
    fprintf(stderr, "cp: %s: %s\n", src, strerror(errno));
    return 1;
  }
  if (st.type == T_DIR) {
    fprintf(stderr, "cp: %s: %s\n", src, strerror(EISDIR));
    return 1;
  }
  /* Truncating the destination would destroy the source if they are one file. */
  struct stat dst_st;
  if (stat(dst, &dst_st) == 0 && dst_st.dev == st.dev && dst_st.ino == st.ino) {
    fprintf(stderr, "cp: %s and %s are the same file\n", src, dst);
    return 1;
  }
  int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC);
  if (out < 0) {
    fprintf(stderr, "cp: %s: %s\n", dst, strerror(errno));
    return 1;
  }
  for (;;) {
    int n = read(in, buf, sizeof(buf));
    if (n == 0)
      break;
    if (n < 0) {
      fprintf(stderr, "cp: %s: %s\n", src, strerror(errno));
      return 1;
    }
    if (write_all(out, buf, n) < 0) {
      fprintf(stderr, "cp: %s: %s\n", dst, strerror(errno));
      return 1;
    }
  }
  close(in);
  if (close(out) < 0) {
    fprintf(stderr, "cp: %s: %s\n", dst, strerror(errno));
    return 1;
  }
  return 0;
}
