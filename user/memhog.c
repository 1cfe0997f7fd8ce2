/* memhog MB [SEED]     fills MB of heap with a pattern, reads it all back twice (by then most
 *                      of it has been paged out and in when MB exceeds memory), checks every
 *                      word, prints "memhog: MB MB ok" or the first bad words; exit 0 or 1.
 * memhog -p P1,P2.. MB switches the replacement policy (sysctl vm.policy) to each of the
 *                      listed ones in turn while it works, then does as memhog MB.
 * memhog -z MB         checks that MB of fresh heap reads as zeros.
 * memhog -s MB         recurses until MB of stack are in use (a stack that cannot grow is
 *                      the kernel's to refuse: the process is killed with a message).
 * memhog -k KB MB      a working set the replacement policy should keep: writes KB of heap,
 *                      then reads MB of fresh heap a page at a time, three passes, reading
 *                      the KB again after every page; prints "memhog: kept KB KB: P page-ins,
 *                      E evictions in passes 2-3". A fresh page only read is clean: evicting
 *                      it writes nothing and reading it again is a zero fill. So every page-in
 *                      is a page of the working set (or memhog's own) coming back, which a
 *                      clock that spares pages referenced since its last visit never lets go
 *                      once it has gone round (pass 1 leaves it time to). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <sys.h>

#define PAGE 4096
extern const char _start[], etext[];     /* the program's code (user/user.ld) */

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

/* The value of counter name in kstat text, or -1. */
/* vm.pageins and vm.evictions, read into text (two pages of the working set). */
static void sample(char *text, long v[2])
{
  int n = kstat(text, 2 * PAGE - 1);
  text[n > 0 ? n : 0] = 0;
  static const char *const names[2] = { "vm.pageins", "vm.evictions" };
  for (int k = 0; k < 2; k++) {
    v[k] = -1;
    int len = strlen(names[k]);
    for (const char *line = text; line && v[k] < 0;) {
      if (strncmp(line, names[k], len) == 0 && line[len] == ' ')
        v[k] = strtol(line + len + 1, 0, 10);
      if ((line = strchr(line, '\n')))
        line++;
    }
  }
}

static int keep(unsigned kb, unsigned mb)
{
  /* The counters are read into two more pages of the working set, and the passes touch
   * their own stack page and every page of the program's code: nothing the program itself
   * uses between the two readings lies idle meanwhile (the code that reads them runs only
   * at the ends). */
  unsigned hot = (kb * 1024 + PAGE - 1) / PAGE + 2, cold = mb * (1u << 20) / PAGE;
  char *h = sbrk(hot * PAGE);
  volatile char *c = sbrk(cold * PAGE);
  if (h == (void *)-1 || c == (void *)-1) {
    printf("memhog: cannot get %u KB and %u MB: out of memory\n", kb, mb);
    return 1;
  }
  char *text = h + (hot - 2) * PAGE;
  for (unsigned i = 0; i < hot; i++)
    h[i * PAGE] = (char)i;        /* dirty: an eviction writes it, its return is a page-in */
  long before[2] = { 0, 0 }, after[2];
  volatile unsigned onstack = 0;
  for (int pass = 1; pass <= 3; pass++) {
    if (pass == 2)
      sample(text, before);
    for (unsigned p = 0; p < cold; p++) {
      onstack += c[p * PAGE];
      for (unsigned i = 0; i < hot; i++)
        onstack += ((volatile char *)h)[i * PAGE];
      for (const volatile char *t = _start; t < etext; t += PAGE)
        onstack += *t;
    }
  }
  sample(text, after);
  printf("memhog: kept %u KB: %ld page-ins, %ld evictions in passes 2-3\n", kb,
         after[0] - before[0], after[1] - before[1]);
  return 0;
}

static void usage(FILE *f)
{
  fprintf(f, "usage: memhog MB [SEED] | memhog -p P1,P2.. MB | memhog -z MB | memhog -s MB | memhog -k KB MB\n");
  if (f == stdout)
    fprintf(f, "MB [SEED]: fills MB of heap with a pattern, reads it back twice, checks every word.\n"
               "-p P1,P2..: switches vm.policy to each in turn meanwhile.\n"
               "-z: checks that MB of fresh heap reads as zeros.\n"
               "-s: recurses until MB of stack are in use.\n"
               "-k KB MB: keeps a KB working set while reading MB of fresh heap, three passes;\n"
               "prints the page-ins and evictions of passes 2-3.\n");
}

int main(int argc, char **argv)
{
  if (argc > 1 && strcmp(argv[1], "-h") == 0) {
    usage(stdout);
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "-k") == 0) {
    if (argc != 4 || atoi(argv[3]) <= 0) {
      usage(stderr);
      return 2;
    }
    return keep(atoi(argv[2]), atoi(argv[3]));
  }
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
  if (argc < 2 + zero || atoi(argv[1 + zero]) <= 0) {
    usage(stderr);
    return 2;
  }
  unsigned mb = atoi(argv[1 + zero]);
  unsigned seed = argc > 2 + zero ? (unsigned)atoi(argv[2 + zero]) : 1;
  unsigned n = mb * (1u << 20) / 4;
  unsigned *a = sbrk(mb << 20);
  if (a == (void *)-1) {
    printf("memhog: cannot get %u MB: %s\n", mb, strerror(errno));
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
