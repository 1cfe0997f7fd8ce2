/* memhog MB [SEED]     fills MB of heap with a pattern, reads it all back twice (by then most
 *                      of it has been paged out and in when MB exceeds memory), checks every
 *                      word, prints "memhog: MB MB ok" or the first bad words; exit 0 or 1.
 * memhog -p P1,P2.. MB switches the replacement policy (sysctl vm.policy) to each of the
 *                      listed ones in turn while it works, then does as memhog MB.
 * memhog -z MB         checks that MB of fresh heap reads as zeros.
 * memhog -s MB         recurses until MB of stack are in use (a stack that cannot grow is
 *                      the kernel's to refuse: the process is killed with a message). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys.h>

static char *policies[8];
static int npolicies, nextpolicy;

/* Under load: the next policy of the list, at each eighth of the work. */
static void maybe_switch(unsigned i, unsigned n)
{
  if (npolicies && i % (n / 8 + 1) == 0) {
    char out[64];
    char *p = policies[nextpolicy++ % npolicies];
    if (sysctl("vm.policy", p, out, sizeof out) < 0)
      printf("memhog: cannot switch to policy %s\n", p);
  }
}

static unsigned pattern(unsigned i, unsigned seed)
{
  unsigned x = i * 2654435761u ^ seed;
  return x ^ (x >> 13);
}

static int depth_left;
static int recurse(void)
{
  volatile char buf[4000];
  buf[0] = (char)depth_left;
  if (--depth_left <= 0)
    return buf[0];
  return recurse() + buf[0];
}

int main(int argc, char **argv)
{
  if (argc >= 3 && strcmp(argv[1], "-s") == 0) {
    depth_left = atoi(argv[2]) * 256;
    recurse();
    printf("memhog: %s MB of stack ok\n", argv[2]);
    return 0;
  }
  if (argc >= 4 && strcmp(argv[1], "-p") == 0) {
    for (char *p = argv[2]; p && npolicies < 8;) {
      policies[npolicies++] = p;
      p = strchr(p, ',');
      if (p)
        *p++ = 0;
    }
    argv += 2;
    argc -= 2;
  }
  int zero = argc >= 3 && strcmp(argv[1], "-z") == 0;
  if (argc < 2 + zero) {
    fprintf(stderr, "usage: memhog MB [SEED] | memhog -z MB | memhog -s MB\n");
    return 2;
  }
  unsigned mb = atoi(argv[1 + zero]);
  unsigned seed = argc > 2 + zero ? (unsigned)atoi(argv[2 + zero]) : 1;
  unsigned n = mb * (1u << 20) / 4;
  unsigned *a = sbrk(mb << 20);
  if (a == (void *)-1) {
    printf("memhog: cannot get %u MB: out of memory\n", mb);
    return 1;
  }
  if (zero) {
    for (unsigned i = 0; i < n; i++)
      if (a[i] != 0) {
        printf("memhog: word %u of fresh memory is 0x%x, not zero\n", i, a[i]);
        return 1;
      }
    printf("memhog: %u MB of zeros ok\n", mb);
    return 0;
  }
  for (unsigned i = 0; i < n; i++) {
    maybe_switch(i, n);
    a[i] = pattern(i, seed);
  }
  int bad = 0;
  for (int pass = 0; pass < 2; pass++)
    for (unsigned i = 0; i < n; i++)
      if ((maybe_switch(i, n), a[i] != pattern(i, seed)) && bad++ < 5)
        printf("memhog: word %u is 0x%x, expected 0x%x\n", i, a[i], pattern(i, seed));
  if (bad) {
    printf("memhog: %d bad words\n", bad);
    return 1;
  }
  printf("memhog: %u MB ok\n", mb);
  return 0;
}
