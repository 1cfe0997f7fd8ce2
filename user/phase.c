/* phase: the programs of WRL 90/4's edit-compile-debug (ECD) benchmark (Table 1), one at a
 * time, and the window system they run under.
 *
 * Sprite's ECD benchmark ran a window-based editor, the C compiler on the VM module, the
 * linker on the kernel and the kernel debugger, twice in a row, under X11. Each phase needs a
 * virtual-memory image of its own size and reads and writes files; none runs beside another,
 * so memory moves between the VM and the file cache at every change of phase. This program
 * stands for each phase by what it does to memory and to files, not by what it computes:
 *
 *   1. Its heap grows to the phase's VM image (Table 1's last column) as it works: a page is
 *      first touched when the working set (3, below) reaches it, and written then, so the
 *      image is whole, and every page of it written, by the phase's end. Later touches write
 *      half the pages again (the even-numbered ones), so a page read back from swap is dirty
 *      again half the time: Sprite measured 40-60 % of user memory dirty. But no page is left
 *      unwritten: such a page is free to evict here (nothing to save, a zero fill when next
 *      touched) and is Linux's shared zero page there, so an image half unwritten would press
 *      the VM half as hard as Sprite's programs did, whose memory held what they had computed
 *      (a compiler's symbol table, a linker's relocations, a debugger's symbols).
 *   2. It does the phase's file I/O in 4 KB calls, in the order a compiler or linker would:
 *      its inputs read from the start (a read past an input's end goes round to its start
 *      again: a linker's second pass, a debugger looking a symbol up twice), then its
 *      output written. Outputs are the next phase's inputs (edit saves the source, compile
 *      writes the object the link reads, the link writes the kernel the debugger reads), so
 *      a cache big enough can hit.
 *   3. Between I/O calls it computes: a number of "touches", each adding up 256 bytes of a page
 *      of its image and writing one word of the even-numbered pages. A touch goes, 31 times in
 *      32, to a page of a working set a quarter of the image wide which slides from the
 *      image's start to its end as the phase's I/O progresses, and then once more from the
 *      start (a second pass: CALIBRATION, VM, below), and otherwise to any page the working
 *      set has reached: the locality of a real program, whose older pages are wanted now and
 *      then. Touches are spread evenly between the I/O calls. How many a phase makes
 *      stands for its computing: Table 1 gives no times, so edit is short, compile and link
 *      are alike and debug is the longest (Sprite's thesis: "most of the time is spent in
 *      debugger initialization and in the compiler and linker"), and the whole, at the 3.9
 *      MIPS of `make bench-ecd`, is about half a minute of CPU a loop.
 *
 * The environment (`phase env`) is the X server, the terminal windows and the tools, 5 MB
 * (which a phase needing the memory pushes out, as debug does at 10 MB, and the environment's
 * rounds bring back): every page written as it starts (1, above), then a quarter of its pages
 * touched every few seconds (a different quarter each time, so all of it within four rounds),
 * half of them written again, until it is killed.
 *
 * CALIBRATION. Table 1 gives each phase's bytes read and written together: edit 70 KB,
 * compile 800 KB, link 8 MB, debug 4 MB, 12.87 MB a loop. Splitting each into what it reads
 * and writes (edit reads a 35 KB source and saves it; compile reads it and 565 KB of headers,
 * writes a 200 KB object; link reads the object and a 4.8 MB library, writes a 3 MB kernel;
 * debug reads the kernel, the source, the headers and 400 KB of the library) gives 9,635 KB
 * read and 3,235 KB written a loop. Appendix C's no-cache rows ("nocc", every byte over the
 * network) moved 33,948 KB read and 9,810 KB written in the two loops (the same at every memory
 * size): 1.762 times Table 1's reads and 1.516 times its writes, the rest being programs'
 * code read from the server, second passes and temporary files. Each read and write below is
 * Table 1's times that factor (rounded to 4 KB), with the files' sizes those of the writes:
 * the outputs are bigger than Table 1's split and the extra reads go round an input again.
 * Two loops then read 33,936 KB and write 9,808 KB, which `phase plan` prints
 * (tests/host/test_bench_ecd.py holds a recorded run to Appendix C's figures, and
 * tests/qemu/test_ecd.py a tiny run with the least cache to the disk's counters).
 *
 * CALIBRATION, VM. Table 1 gives each phase's image but not how often the phase goes over it.
 * Appendix C's run at 10 MB with no cache (the paper's most VM-bound) sets that, as its file
 * bytes set the reads and writes above: Sprite's VM moved (4,569 faults + 3,098 page-outs) x
 * 8 KB = 59.9 MB in two loops (every fault a page: the network's bytes that were not the
 * file system's are 11 % more than the faults' pages, its headers; tools/bench/ecd_paper.py,
 * paper_vm_kb). Of those faults 1,739 were not from swap but programs' code, which phase,
 * one small program, does not have: as the file side folds code, second passes and temporary
 * files into the reads it does, the images' passes stand for all of it. With the working set
 * going over each image once, bench_ecd's run standing for that row (a 12 MB guest, the
 * 64 KB cache) paged in and out 19.1 MB (every page written, 1 above; 11.6 MB with half the
 * pages never written); going over it twice, as the reads go round their inputs again (a
 * compiler's passes, a linker's second pass, a debugger's second look-up), debug's 8.7 MB
 * image goes out as the first pass ends and comes back in the second: 59.3 MB in a run
 * printing each phase's counters, 61.1 and 60.7 MB in two of bench_ecd's (Sprite: 59.9). The
 * variable cache without penalty, not fitted, then pages 68.9 and 70.7 MB where Sprite paged
 * (3,309 + 3,748) x 8 KB = 55.1 MB: 28 % more. Sprite's two rows page alike but for code
 * (its variable cache held the programs' code: 570 fewer faults not from swap); ours pages
 * more where the variable cache grows (to 5.3 MB), its frames taken from the VM's.
 * tests/host/test_bench_ecd.py holds the recorded runs: the no-cache one within 20 % of
 * Sprite's, the other at least Sprite's less 20 %.
 *
 *   phase [-d DIR] [-x PERCENT] [-q] edit|compile|link|debug    one phase
 *   phase [-d DIR] [-x PERCENT] init                            the inputs no phase writes
 *   phase [-x PERCENT] [-s SECONDS] [-m MB | -k KB] env         the environment, until killed
 *   phase [-x PERCENT] plan                                     the table and its totals
 *
 * -x scales every size and count (a tiny run for tests: -x 5). It uses only open, read, write,
 * lseek, close, sbrk, printf, sleep and a millisecond clock (uptime_ms), so that it builds for
 * other kernels unchanged; what the kernel counted (page-ins, disk traffic, negotiations) is
 * read by whoever runs it, with the shell's vmstat. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>

#define BLK 4096
#define TOUCH_WORDS 64            /* a touch adds up 256 bytes of its page */
#define COLD_ONE_IN 32            /* touches outside the working set */
#define SWEEP_PERCENT 200         /* the working set's passes over the image (CALIBRATION, VM) */

struct io { const char *file; unsigned kb; };

struct phase {
  const char *name;
  unsigned image_kb;              /* Table 1's VM image */
  unsigned touches;               /* its computing, in touches */
  struct io reads[4], writes[1];  /* Table 1's I/O, calibrated (above) */
};

/* KB, a loop of the benchmark at -x 100. */
static const struct phase phases[] = {
  { "edit", 560, 8000, { { "src", 60 } }, { { "src", 52 } } },
  { "compile", 1024, 40000, { { "src", 60 }, { "hdr", 996 } }, { { "obj", 304 } } },
  { "link", 3072, 40000, { { "obj", 352 }, { "lib", 8456 } }, { { "kern", 4548 } } },
  { "debug", 8704, 60000, { { "kern", 5284 }, { "src", 60 }, { "hdr", 996 }, { "lib", 704 } }, { { 0, 0 } } },
};
#define NPHASE (int)(sizeof phases / sizeof phases[0])

/* The inputs that exist before any phase: Table 1's headers and library, and the first source. */
static const struct io inputs[] = { { "src", 52 }, { "hdr", 564 }, { "lib", 4800 } };
#define NINPUT (int)(sizeof inputs / sizeof inputs[0])

static const char *dir = ".";
static unsigned percent = 100;
static char blk[BLK];

static void usage(FILE *f)
{
  fprintf(f, "usage: phase [-d DIR] [-x PERCENT] [-q] edit|compile|link|debug|init|plan\n"
             "       phase [-x PERCENT] [-m MB | -k KB] [-s SECONDS] env\n");
  if (f == stdout)
    fprintf(f, "One phase of WRL 90/4's edit-compile-debug benchmark (Table 1): grows to the\n"
               "phase's VM image (every page written), touches it with locality and reads\n"
               "and writes its files in DIR (.) in 4 KB calls; prints its time and bytes.\n"
               "init: makes the inputs no phase writes (src, hdr, lib) in DIR.\n"
               "env: the 5 MB environment (-m MB, -k KB), a quarter of it touched every SECONDS (5),\n"
               "until killed. plan: each phase's image, touches, reads and writes, and totals.\n"
               "-x PERCENT scales every size and count (100; -x 5 is a tiny run).\n"
               "-q: no line per phase.\n");
}

static unsigned scaled(unsigned n)
{
  unsigned long long v = (unsigned long long)n * percent / 100;
  return v ? (unsigned)v : 1;
}
/* A size in KB, scaled, in whole 4 KB blocks (one at least). */
static unsigned scaled_kb(unsigned kb)
{
  unsigned v = scaled(kb);
  return v < 4 ? 4 : v / 4 * 4;
}

static const char *path(const char *file)
{
  static char p[256];
  snprintf(p, sizeof p, "%s/%s", dir, file);
  return p;
}

static void die(const char *what, const char *file) __attribute__((noreturn));
static void die(const char *what, const char *file)
{
  fprintf(stderr, "phase: %s %s: %s\n", what, path(file), strerror(errno));
  exit(1);
}

/* Block b of a file: its name and number at the start, so a reader can tell a block from
 * another file or place (the file system's mistake, not ours) from the right one. */
static void fill(const char *file, unsigned b)
{
  memset(blk, 'a' + b % 26, BLK);
  snprintf(blk, 32, "%s %u\n", file, b);
}

static int check(const char *file, unsigned b)
{
  char want[32];
  int n = snprintf(want, sizeof want, "%s %u\n", file, b);
  return memcmp(blk, want, n) == 0 && blk[BLK - 1] == (char)('a' + b % 26);
}

/* --- the image and its touches --------------------------------------------------------- */
static unsigned *image;
static unsigned npages;
static unsigned rng = 12345;
static volatile unsigned sink;

static unsigned next_rand(void)
{
  rng = rng * 1103515245u + 12345u;
  return rng >> 8;
}

static unsigned reached;           /* pages [0, reached) have been written once */

/* A touch reads 256 bytes of page p and, on the even-numbered pages, writes a word: what a
 * program does to memory it already has, half of it dirtied again after a page-in. */
static void touch(unsigned p, unsigned salt)
{
  unsigned *w = image + p * (BLK / 4), sum = 0;
  for (int i = 0; i < TOUCH_WORDS; i++)
    sum += w[i];
  if (p % 2 == 0)
    w[salt % (BLK / 4)] = sum + salt;
  sink += sum;
}

/* Pages [reached, upto) are wanted for the first time: each is written, as a program writes
 * the memory it asks for (a compiler's symbol table, a linker's relocations), so that no page
 * of the image is a zero-fill page when it is evicted (the essay, 1). */
static void reach(unsigned upto)
{
  for (; reached < upto && reached < npages; reached++)
    image[reached * (BLK / 4) + reached % (BLK / 4)] = reached;
}

static void grow(unsigned kb)
{
  npages = kb / 4;
  char *top = sbrk(npages * BLK + BLK);    /* the break need not be on a page's start */
  if (top == (char *)-1) {
    fprintf(stderr, "phase: cannot grow by %u KB: %s\n", kb, strerror(errno));
    exit(1);
  }
  image = (unsigned *)(((unsigned long)top + BLK - 1) & ~(unsigned long)(BLK - 1));
  reached = 0;
}

/* n touches, done/total of the phase's I/O behind it: the working set's start goes from the
 * image's start to its end, and round again, SWEEP_PERCENT / 100 times in the phase. */
static void compute(unsigned n, unsigned done, unsigned total)
{
  unsigned wset = npages / 4 ? npages / 4 : 1;
  unsigned long long whole = (unsigned long long)(total ? total : 1) * 100, at = (unsigned long long)done * SWEEP_PERCENT;
  unsigned long long within = at % whole;
  if (within == 0 && at > 0)
    within = whole;                 /* the end of a pass, not the start of the next */
  unsigned base = (unsigned)((npages - wset) * within / whole);
  reach(base + wset);               /* the working set's new pages: written as it reaches them */
  for (unsigned i = 0; i < n; i++) {
    unsigned r = next_rand();
    unsigned p = r % COLD_ONE_IN == 0 ? (r / COLD_ONE_IN) % reached : base + (r / COLD_ONE_IN) % wset;
    touch(p, r);
  }
}

/* --- one phase ---------------------------------------------------------------------------- */
static unsigned io_blocks(const struct phase *ph)
{
  unsigned n = 0;
  for (int i = 0; i < 4 && ph->reads[i].file; i++)
    n += scaled_kb(ph->reads[i].kb) / 4;
  if (ph->writes[0].file)
    n += scaled_kb(ph->writes[0].kb) / 4;
  return n;
}

static int run_phase(const struct phase *ph, int quiet)
{
  unsigned t0 = uptime_ms();
  grow(scaled_kb(ph->image_kb));
  unsigned total = io_blocks(ph), touches = scaled(ph->touches), done = 0, given = 0;
  unsigned rkb = 0, wkb = 0;
  /* Touches due after `done` blocks of I/O: spread evenly between the calls. */
#define COMPUTE_UNTIL(d) do { unsigned d_ = (d), due = (unsigned)((unsigned long long)touches * d_ / total); \
    compute(due - given, d_, total); given = due; } while (0)
  for (int i = 0; i < 4 && ph->reads[i].file; i++) {
    const char *f = ph->reads[i].file;
    int fd = open(path(f), O_RDONLY);
    if (fd < 0)
      die("cannot open", f);           /* an earlier phase (or init) makes it */
    unsigned want = scaled_kb(ph->reads[i].kb) / 4, b = 0;
    for (unsigned k = 0; k < want; k++, b++) {
      int n = read(fd, blk, BLK);
      if (n == 0 && b > 0) {            /* round to the start again */
        if (lseek(fd, 0, SEEK_SET) < 0)
          die("cannot seek", f);
        b = 0;
        n = read(fd, blk, BLK);
      }
      if (n < 0)
        die("cannot read", f);
      if (n != BLK || !check(f, b)) {
        fprintf(stderr, "phase: %s: block %u is not what was written\n", path(f), b);
        exit(1);
      }
      rkb += 4;
      COMPUTE_UNTIL(++done);
    }
    close(fd);
  }
  if (ph->writes[0].file) {
    const char *f = ph->writes[0].file;
    int fd = open(path(f), O_WRONLY | O_CREAT | O_TRUNC);
    if (fd < 0)
      die("cannot create", f);
    unsigned want = scaled_kb(ph->writes[0].kb) / 4;
    for (unsigned b = 0; b < want; b++) {
      fill(f, b);
      if (write(fd, blk, BLK) != BLK)
        die("cannot write", f);
      wkb += 4;
      COMPUTE_UNTIL(++done);
    }
    if (close(fd) < 0)
      die("cannot close", f);
  }
  if (total == 0)
    compute(touches, 0, 1);
  if (!quiet)
    printf("phase %s: %u ms, read %u KB, wrote %u KB, image %u KB, %u touches\n", ph->name, uptime_ms() - t0,
           rkb, wkb, npages * 4, touches);
  return 0;
}

static int init(void)
{
  for (int i = 0; i < NINPUT; i++) {
    const char *f = inputs[i].file;
    int fd = open(path(f), O_WRONLY | O_CREAT | O_TRUNC);
    if (fd < 0)
      die("cannot create", f);
    unsigned n = scaled_kb(inputs[i].kb) / 4;
    for (unsigned b = 0; b < n; b++) {
      fill(f, b);
      if (write(fd, blk, BLK) != BLK)
        die("cannot write", f);
    }
    if (close(fd) < 0)
      die("cannot close", f);
    printf("phase init: %s %u KB\n", path(f), n * 4);
  }
  return 0;
}

/* --- the environment ---------------------------------------------------------------------- */
static void env(unsigned kb, unsigned seconds)
{
  grow(kb);
  reach(npages);                    /* all of it written, as a server fills its windows */
  for (unsigned p = 0; p < npages; p++)
    touch(p, p);
  printf("phase env: %u KB ready\n", npages * 4);    /* whoever started it may go on */
  for (unsigned round = 0;; round++) {
    sleep(seconds);
    unsigned q = npages / 4 ? npages / 4 : 1, from = (round % 4) * q;
    for (unsigned p = from; p < from + q && p < npages; p++)
      touch(p, round);
  }
}

/* --- the plan --------------------------------------------------------------------------- */
static int plan(void)
{
  unsigned r = 0, w = 0;
  printf("%-8s %9s %8s %9s %9s\n", "phase", "image KB", "touches", "read KB", "write KB");
  for (int i = 0; i < NPHASE; i++) {
    const struct phase *ph = &phases[i];
    unsigned pr = 0, pw = ph->writes[0].file ? scaled_kb(ph->writes[0].kb) : 0;
    for (int j = 0; j < 4 && ph->reads[j].file; j++)
      pr += scaled_kb(ph->reads[j].kb);
    printf("%-8s %9u %8u %9u %9u\n", ph->name, scaled_kb(ph->image_kb), scaled(ph->touches), pr, pw);
    r += pr, w += pw;
  }
  printf("phase plan: a loop reads %u KB and writes %u KB; two loops %u and %u KB\n", r, w, 2 * r, 2 * w);
  return 0;
}

static unsigned number(const char *s, const char *what, unsigned lo, unsigned hi)
{
  char *end;
  unsigned long v = strtoul(s, &end, 10);
  if (*s == 0 || *end != 0 || v < lo || v > hi) {
    fprintf(stderr, "phase: %s takes a whole number from %u to %u, not '%s'\n", what, lo, hi, s);
    exit(1);
  }
  return v;
}

int main(int argc, char **argv)
{
  int quiet = 0, i;
  unsigned env_kb = 5120, seconds = 5;
  for (i = 1; i < argc && argv[i][0] == '-'; i++) {
    if (strcmp(argv[i], "-h") == 0) {
      usage(stdout);
      return 0;
    } else if (strcmp(argv[i], "-q") == 0)
      quiet = 1;
    else if (i + 1 < argc && strcmp(argv[i], "-d") == 0)
      dir = argv[++i];
    else if (i + 1 < argc && strcmp(argv[i], "-x") == 0)
      percent = number(argv[++i], "-x", 1, 1000);
    else if (i + 1 < argc && strcmp(argv[i], "-m") == 0)
      env_kb = number(argv[++i], "-m", 1, 512) * 1024;
    else if (i + 1 < argc && strcmp(argv[i], "-k") == 0)
      env_kb = number(argv[++i], "-k", 4, 512 * 1024);
    else if (i + 1 < argc && strcmp(argv[i], "-s") == 0)
      seconds = number(argv[++i], "-s", 1, 3600);
    else {
      usage(stderr);
      return 1;
    }
  }
  if (i != argc - 1) {
    usage(stderr);
    return 1;
  }
  const char *what = argv[i];
  if (strcmp(what, "init") == 0)
    return init();
  if (strcmp(what, "plan") == 0)
    return plan();
  if (strcmp(what, "env") == 0) {
    env(scaled_kb(env_kb), seconds);
    return 0;
  }
  for (int k = 0; k < NPHASE; k++)
    if (strcmp(what, phases[k].name) == 0)
      return run_phase(&phases[k], quiet);
  fprintf(stderr, "phase: no phase '%s' (edit, compile, link, debug, init, env, plan)\n", what);
  return 1;
}
