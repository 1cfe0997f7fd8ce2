/* sysctl NAME            prints a run-time setting
 * sysctl NAME VALUE      sets it (also NAME=VALUE) and prints the new value */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <sys.h>

int main(int argc, char **argv)
{
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: sysctl NAME [VALUE] | sysctl NAME=VALUE\n");
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
  if (sysctl(name, value, out, sizeof(out)) < 0) {
    fprintf(stderr, "sysctl: %s: %s\n", name, strerror(errno));
    return 1;
  }
  out[sizeof(out) - 1] = 0;
  int len = strlen(out);
  printf("%s = %s%s", name, out, len && out[len - 1] == '\n' ? "" : "\n");
  return 0;
}
