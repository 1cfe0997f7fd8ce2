/* echo [-n] ARGS...: prints the arguments separated by spaces. */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
  int newline = 1, i = 1;
  if (i < argc && strcmp(argv[i], "-n") == 0) {
    newline = 0;
    i++;
  }
  for (int first = i; i < argc; i++)
    printf(i > first ? " %s" : "%s", argv[i]);
  if (newline)
    printf("\n");
  return 0;
}
