/* toucher: the interactive program of the IFS benchmark (WRL 90/4, section 3). It holds MB of
 * memory and, every SECONDS, wakes up and touches all of it, dirtying half the pages (Sprite's
 * workstations had 40-60 % of user memory dirty; -d PERCENT dirties another share, as the
 * thesis's Table 6-5 did with 10 %), the way a user's key stroke makes a program
 * touch its code, heap and stack. The time one round of touching takes is the response time
 * the user would see: instant when the pages are resident, seconds when the file cache has
 * taken them and they must be paged back in.
 *
 * With -i the user is real: each line read from standard input (a key press, Enter, at the
 * console) triggers one round, and end of input (Ctrl-D) ends the program. The time between
 * rounds is then however long the user waited.
 *
 * The dirtied pages are spread evenly: page p is written when p * PERCENT mod 100 < PERCENT,
 * so every run of 100 pages holds exactly PERCENT of them (50: every other page; 10: every
 * tenth), and the others are only read. A clean page the VM takes is dropped, a dirty one must
 * be written to backing store first: the page-outs of a round follow PERCENT.
 *
 * -f fills the memory first: round 0 writes every page once, so that all of it holds the
 * program's data on any kernel. Without it, a page that is only ever read was never written:
 * this kernel still gives it a frame of zeros of its own, as Sprite did, but Linux maps every
 * such page to its one shared zero page, and the toucher would hold half its size there (the
 * benchmarks that put Linux beside this kernel use -f on both).
 *
 * The page-ins of each round are the process's own (ps's PAGEIN column, counted by the kernel
 * for this process alone), so a round that had to bring pages back shows it even while other
 * programs page too.
 *
 *   toucher [-m MB] [-d PERCENT] [-f] [-s SECONDS] [-n ROUNDS] [-t] [-q]  every SECONDS, ROUNDS times
 *   toucher -i [-m MB] [-d PERCENT] [-f] [-q]                              one round per line of input
 *
 * -n 0 runs until killed (the README's experiment: it must still be touching when the user
 * types kill %N), so the summary lines of a run ended that way never come.
 *
 * MB and SECONDS may have decimals (-m 4.4: the IFS benchmark's "all but 1 MB" in an 8 MB
 * machine is not a whole number of MB). Prints "touch ROUND MS ms, PAGEINS page-ins" per
 * round (unless -q; -t adds ", at UPTIME ms", when the round began, so that a benchmark can
 * put the responses on the same time axis as other samples), then the summary
 * "toucher: N rounds, response min X max Y avg Z ms" and
 * "toucher: own page-ins I page-outs O" (the whole run, the first fill included). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <sys.h>

static void usage(FILE *f)
{
  fprintf(f, "usage: toucher [-m MB] [-d PERCENT] [-f] [-s SECONDS] [-n ROUNDS] [-t] [-q]\n"
             "       toucher -i [-m MB] [-d PERCENT] [-f] [-q]\n");
  if (f == stdout)
    fprintf(f, "Holds MB (4; fractions allowed, 4.4) of memory and touches all of it every SECONDS\n"
               "(1, fractions allowed),\n"
               "ROUNDS (10; 0: until killed) times, dirtying PERCENT (0-100; 50) of the pages, spread evenly, and\n"
               "only reading the others; prints each round's time and page-ins.\n"
               "-f: fill first: write every page once before the rounds (else a page only\n"
               "read was never written: Linux maps it to its shared zero page).\n"
               "-i: one round per line read from standard input, until its end.\n"
               "-t: each round's line ends with when it began: \", at UPTIME ms\".\n"
               "-q: only the summary: response min/max/avg and this process's page-ins and\n"
               "page-outs.\n");
}

/* "1.5" -> 1500: a number with up to three decimals, in thousandths. */
static unsigned long long thousandths(const char *s)
{
  unsigned long long whole = strtoul(s, 0, 10);
  unsigned frac = 0, scale = 1000;
  const char *dot = strchr(s, '.');
  if (dot)
    for (dot++; *dot >= '0' && *dot <= '9' && scale > 1; dot++)
      scale /= 10, frac += (*dot - '0') * scale;
  return whole * 1000 + frac;
}

/* KB as MB with up to three decimals and no trailing zeros: 512 -> "0.5", 4096 -> "4". */
static const char *mbtext(unsigned kb)
{
  static char out[32];
  unsigned frac = (kb % 1024) * 1000 / 1024;
  int n = snprintf(out, sizeof out, "%u.%03u", kb / 1024, frac);
  while (out[n - 1] == '0')
    out[--n] = 0;
  if (out[n - 1] == '.')
    out[--n] = 0;
  return out;
}

/* This process's page-ins and page-outs so far (0 if the kernel cannot say). */
static void own_paging(unsigned *ins, unsigned *outs)
{
  struct procinfo me;
  if (getprocinfo(getpid(), &me) < 0)
    me.pageins = me.pageouts = 0;
  *ins = me.pageins;
  *outs = me.pageouts;
}

int main(int argc, char **argv)
{
  unsigned kb = 4096, rounds = 10, quiet = 0, interactive = 0, stamp = 0, dirty = 50, fill = 0;
  unsigned interval_ms = 1000;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-m") == 0 && i + 1 < argc)
      kb = thousandths(argv[++i]) > 2000000000ull ? ~0u : thousandths(argv[i]) * 1024 / 1000;
    else if (strcmp(argv[i], "-s") == 0 && i + 1 < argc)
      interval_ms = thousandths(argv[++i]) > 1000000000ull ? 1000000000u : thousandths(argv[i]);
    else if (strcmp(argv[i], "-d") == 0 && i + 1 < argc) {
      char *end;
      long d = strtol(argv[++i], &end, 10);
      if (*argv[i] == 0 || *end != 0 || d < 0 || d > 100) {
        fprintf(stderr, "toucher: -d takes a whole percentage, 0 to 100\n");
        return 1;
      }
      dirty = d;
    } else if (strcmp(argv[i], "-t") == 0)
      stamp = 1;
    else if (strcmp(argv[i], "-f") == 0)
      fill = 1;
    else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
      char *end;
      long n = strtol(argv[++i], &end, 10);
      if (*argv[i] == 0 || *end != 0 || n < 0) {
        fprintf(stderr, "toucher: -n takes a number of rounds, 0 for until killed\n");
        return 1;
      }
      rounds = n;
    }
    else if (strcmp(argv[i], "-q") == 0)
      quiet = 1;
    else if (strcmp(argv[i], "-i") == 0)
      interactive = 1;
    else if (strcmp(argv[i], "-h") == 0) {
      usage(stdout);
      return 0;
    } else {
      usage(stderr);
      return 1;
    }
  }
  if (kb < 4 || kb > 1024 * 1024) {
    fprintf(stderr, "toucher: -m takes 0.004 to 1024 MB\n");
    return 1;
  }
  unsigned bytes = kb / 4 * 4096;
  char *mem = sbrk(bytes);
  if (mem == (char *)-1) {
    fprintf(stderr, "toucher: cannot get %u KB: %s\n", kb, strerror(errno));
    return 1;
  }
  unsigned pages = bytes / 4096;
  unsigned min = ~0u, max = 0, sum = 0, done = 0;
  volatile char sink = 0;
  for (unsigned r = 0;; r++) {
    if (r > 0) {
      if (interactive) {
        char line[128];
        if (getline_fd(0, line, sizeof line) <= 0)
          break;
      } else {
        if (rounds > 0 && r > rounds)
          break;
        sleep_ms(interval_ms);
      }
    }
    unsigned in0, in1, out;
    own_paging(&in0, &out);
    unsigned t0 = uptime_ms();
    for (unsigned p = 0; p < pages; p++) {
      if ((r == 0 && fill) || (p % 100) * dirty % 100 < dirty)
        mem[p * 4096 + (r % 64)] = (char)(p + r);
      else
        sink = mem[p * 4096];
    }
    unsigned t = uptime_ms() - t0;
    own_paging(&in1, &out);
    /* Round 0 brings the memory in for the first time: it is not a response. */
    if (r > 0) {
      if (t < min) min = t;
      if (t > max) max = t;
      sum += t;
      done++;
      if (!quiet && stamp)
        printf("touch %u %u ms, %u page-ins, at %u ms\n", r, t, in1 - in0, t0);
      else if (!quiet)
        printf("touch %u %u ms, %u page-ins\n", r, t, in1 - in0);
    } else if (interactive && !quiet)
      printf("toucher: %s MB ready: each line of input touches it all; end of input ends\n", mbtext(bytes / 1024));
  }
  (void)sink;
  if (done > 0)
    printf("toucher: %u rounds, response min %u max %u avg %u ms\n", done, min, max, sum / done);
  else
    printf("toucher: 0 rounds\n");
  unsigned ins, outs;
  own_paging(&ins, &outs);
  printf("toucher: own page-ins %u page-outs %u\n", ins, outs);
  return 0;
}
