/* toucher: the interactive program of the IFS benchmark (WRL 90/4, section 3). It holds MB of
 * memory and, every SECONDS, wakes up and touches all of it, dirtying half the pages (Sprite's
 * workstations had 40-60 % of user memory dirty), the way a user's key stroke makes a program
 * touch its code, heap and stack. The time one round of touching takes is the response time
 * the user would see: instant when the pages are resident, seconds when the file cache has
 * taken them and they must be paged back in.
 *
 *   toucher [-m MB] [-s SECONDS] [-n ROUNDS] [-q]
 *
 * Prints "touch ROUND MS" per round (unless -q) and a summary line
 * "toucher: N rounds, response min X max Y avg Z ms". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <sys.h>

int main(int argc, char **argv)
{
  unsigned mb = 4, rounds = 10, quiet = 0;
  unsigned interval_ms = 1000;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-m") == 0 && i + 1 < argc)
      mb = atoi(argv[++i]);
    else if (strcmp(argv[i], "-s") == 0 && i + 1 < argc) {
      /* seconds, with an optional fraction: 0.5 */
      const char *s = argv[++i];
      unsigned whole = atoi(s), frac = 0, scale = 1000;
      const char *dot = strchr(s, '.');
      if (dot)
        for (dot++; *dot >= '0' && *dot <= '9' && scale > 1; dot++)
          scale /= 10, frac += (*dot - '0') * scale;
      interval_ms = whole * 1000 + frac;
    } else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
      rounds = atoi(argv[++i]);
    else if (strcmp(argv[i], "-q") == 0)
      quiet = 1;
    else {
      fprintf(stderr, "usage: toucher [-m MB] [-s SECONDS] [-n ROUNDS] [-q]\n");
      return 1;
    }
  }
  unsigned bytes = mb * 1024 * 1024;
  char *mem = sbrk(bytes);
  if (mem == (char *)-1) {
    fprintf(stderr, "toucher: cannot get %u MB: %s\n", mb, strerror(errno));
    return 1;
  }
  unsigned pages = bytes / 4096;
  unsigned min = ~0u, max = 0, sum = 0;
  volatile char sink = 0;
  for (unsigned r = 0; r <= rounds; r++) {
    unsigned t0 = uptime_ms();
    for (unsigned p = 0; p < pages; p++) {
      if (p % 2 == 0)
        mem[p * 4096 + (r % 64)] = (char)(p + r);     /* dirty half the pages */
      else
        sink = mem[p * 4096];
    }
    unsigned t = uptime_ms() - t0;
    /* Round 0 brings the memory in for the first time: it is not a response. */
    if (r > 0) {
      if (t < min) min = t;
      if (t > max) max = t;
      sum += t;
      if (!quiet)
        printf("touch %u %u\n", r, t);
    }
    if (r < rounds)
      sleep_ms(interval_ms);
  }
  (void)sink;
  if (rounds > 0)
    printf("toucher: %u rounds, response min %u max %u avg %u ms\n", rounds, min, max, sum / rounds);
  return 0;
}
