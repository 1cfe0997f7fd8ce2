/* mkdir [-p] DIR...: makes directories; -p makes missing parents and accepts existing ones. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <sys/stat.h>

static int is_dir(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0 && st.type == T_DIR;
}

/* Makes every prefix of path in turn. */
static int make_parents(const char *path)
{
  char buf[512];
  if (strlen(path) >= sizeof(buf)) {
    errno = ENAMETOOLONG;
    return -1;
  }
  strcpy(buf, path);
  for (char *p = buf + 1;; p++) {
    if (*p != '/' && *p != 0)
      continue;
    char saved = *p;
    *p = 0;
    if (mkdir(buf) < 0 && !(errno == EEXIST && is_dir(buf)))
      return -1;
    if (saved == 0)
      return 0;
    *p = saved;
    while (p[1] == '/')   /* a//b */
      p++;
    if (p[1] == 0)        /* trailing slash */
      return 0;
  }
}

int main(int argc, char **argv)
{
  int parents = 0, i = 1;
  if (i < argc && strcmp(argv[i], "-p") == 0) {
    parents = 1;
    i++;
  }
  if (i == argc) {
    fprintf(stderr, "usage: mkdir [-p] DIR...\n");
    return 1;
  }
  int status = 0;
  for (; i < argc; i++) {
    int r = parents ? make_parents(argv[i]) : mkdir(argv[i]);
    if (r < 0) {
      fprintf(stderr, "mkdir: %s: %s\n", argv[i], strerror(errno));
      status = 1;
    }
  }
  return status;
}
