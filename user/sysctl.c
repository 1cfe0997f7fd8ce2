/* sysctl NAME            prints a run-time setting
 * sysctl NAME=VALUE      sets it (also: sysctl NAME VALUE) and prints the new value
 * sysctl -a              every setting, its value and a one-line description */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <sys.h>

static int list_all(void)
{
  char name[8], out[256];
  for (int i = 0;; i++) {
    snprintf(name, sizeof(name), "#%d", i);
    out[0] = 0;
    if (sysctl(name, 0, out, sizeof(out)) < 0)
      return i > 0 ? 0 : 1;
    out[sizeof(out) - 1] = 0;
    /* "name=value description" */
    char *sp = strchr(out, ' ');
    if (sp)
      *sp++ = 0;
    printf("%-24s %s\n", out, sp ? sp : "");
  }
}

int main(int argc, char **argv)
{
  if (argc == 2 && strcmp(argv[1], "-a") == 0)
    return list_all();
  if (argc < 2 || argc > 3 || argv[1][0] == '-') {
    fprintf(stderr, "usage: sysctl NAME | sysctl NAME=VALUE | sysctl -a\n");
    return 1;
  }
  char name[128];
  const char *value = argc == 3 ? argv[2] : 0;
  snprintf(name, sizeof(name), "%s", argv[1]);
  char *eq = strchr(name, '=');
  if (eq && !value) {
    *eq = 0;
    value = argv[1] + (eq - name) + 1;
  }
  char out[256];
  out[0] = 0;
  out[sizeof(out) - 1] = 0;
  if (sysctl(name, value, out, sizeof(out)) < 0) {
    if (errno == ENOENT)
      fprintf(stderr, "sysctl: %s: no such setting (sysctl -a lists them)\n", name);
    else if (value && out[0])
      fprintf(stderr, "sysctl: %s\n", out);     /* what the kernel says at boot too */
    else
      fprintf(stderr, "sysctl: %s: %s\n", name, strerror(errno));
    return 1;
  }
  out[sizeof(out) - 1] = 0;
  int len = strlen(out);
  printf("%s = %s%s", name, out, len && out[len - 1] == '\n' ? "" : "\n");
  return 0;
}
