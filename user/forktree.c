/* forktree: fork trees that check every byte they share, for COW-COR.
 *
 *   forktree [-k KB] [-s KB] [-d DEPTH] [-w WIDTH] [-o] [-e] [-f] [-p] [-r]
 *
 * Every process owns a pattern (a function of its id and a generation). A process fills KB of
 * heap and an S KB array on its stack with its pattern, then forks WIDTH children (to DEPTH
 * levels). A child first checks that its heap and every stack array above it (its ancestors'
 * frames, inherited) hold its parent's generation-0 pattern, then writes its own into all of
 * them. After forking, a parent overwrites everything with its generation-1 pattern (COW
 * faults while its children still read the old one), waits for its children and checks its
 * own pattern again. So any page shared by mistake shows as a wrong word.
 *
 *   -o  parents do not wait: they exit before their children (clean-up hands pages over)
 *   -e  the leaves check what they inherited, then exec `forktree -c ID FD` at once
 *   -f  every child forks once more before touching anything
 *   -p  each new child and each parent after forking wait a little (for the VM daemon to
 *       reserve backing store of forked segments), then push every process's pages to
 *       backing store (sysctl vm.pageout=0), so COR faults read from the masters' files
 *   -r  every fill and check goes through the kernel: a pipe of the process's own, write()
 *       from the memory checked and read() into the memory filled, so the kernel's own
 *       copies meet COW and COR pages (they must take the same path as a user access)
 *
 * Each process sends "id bad checksum" to the first process through a pipe; that one prints
 * them sorted by id, then "forktree: N processes, M bad": the same output in every fork mode.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys.h>

#define MAXD 8
#define MAXSTK (16 * 1024)   /* words: 64 KB */

static unsigned heapw, stkw;       /* words of heap and of each stack array */
static unsigned *heap;
static unsigned *frames[MAXD + 1];
static int maxdepth = 2, width = 3, orphans, execleaves, eager, pushout, viakernel;
static int kfd[2] = { -1, -1 };
#define KCHUNK 256          /* words per pipe trip: less than a pipe holds */
static unsigned tmp[KCHUNK];
static int outfd = -1;
static unsigned heapkb = 64, stkkb = 16;

struct rec {
  int id;
  int bad;
  unsigned sum;
};

static unsigned pat(unsigned id, unsigned gen, unsigned i)
{
  unsigned x = id * 2654435761u ^ (gen * 0x9e3779b9u) ^ (i * 40503u + 12345u);
  x ^= x >> 15;
  x *= 2246822519u;
  x ^= x >> 13;
  return x;
}

/* A pipe of this process's own for -r (a pipe inherited from the parent is shared). */
static void kpipe(void)
{
  if (kfd[0] >= 0) {
    close(kfd[0]);
    close(kfd[1]);
  }
  if (pipe(kfd) < 0) {
    printf("forktree: pipe failed\n");
    exit(1);
  }
}

/* Moves n bytes from src to dst through the kernel: write() reads src, read() writes dst. */
static void kcopy(void *dst, const void *src, unsigned n)
{
  if (write(kfd[1], src, n) != (int)n) {
    printf("forktree: write to pipe failed\n");
    exit(1);
  }
  for (unsigned got = 0; got < n;) {
    int m = read(kfd[0], (char *)dst + got, n - got);
    if (m <= 0) {
      printf("forktree: read from pipe failed\n");
      exit(1);
    }
    got += m;
  }
}

static void fill(unsigned *p, unsigned n, unsigned id, unsigned gen)
{
  if (!viakernel) {
    for (unsigned i = 0; i < n; i++)
      p[i] = pat(id, gen, i);
    return;
  }
  for (unsigned b = 0; b < n; b += KCHUNK) {
    unsigned m = n - b < KCHUNK ? n - b : KCHUNK;
    for (unsigned i = 0; i < m; i++)
      tmp[i] = pat(id, gen, b + i);
    kcopy(p + b, tmp, m * 4);
  }
}

/* Mismatching words; the checksum of what was read goes into *sum. */
static int check(unsigned *p, unsigned n, unsigned id, unsigned gen, unsigned *sum, int me,
                 const char *what)
{
  int bad = 0;
  for (unsigned i = 0; i < n; i++) {
    if (viakernel && i % KCHUNK == 0)
      kcopy(tmp, p + i, (n - i < KCHUNK ? n - i : KCHUNK) * 4);
    unsigned got = viakernel ? tmp[i % KCHUNK] : p[i];
    unsigned want = pat(id, gen, i);
    *sum = *sum * 31 + got;
    if (got != want) {
      if (bad == 0)
        printf("forktree: id %d: %s word %u is %08x, want %08x (id %u gen %u)\n", me, what, i,
               got, want, id, gen);
      bad++;
    }
  }
  return bad;
}

static void report(int id, int bad, unsigned sum)
{
  struct rec r = { id, bad, sum };
  write(outfd, &r, sizeof r);
}

static void push_everything_out(void)
{
  char out[32];
  sysctl("vm.pageout", "0", out, sizeof out);
}

/* Checks that the heap and the stack arrays of levels [0, depth) hold (id, gen). */
static int check_all(int depth, unsigned id, unsigned gen, unsigned *sum, int me)
{
  int bad = check(heap, heapw, id, gen, sum, me, "heap");
  for (int d = 0; d < depth; d++)
    bad += check(frames[d], stkw, id, gen, sum, me, "stack");
  return bad;
}

static void fill_all(int depth, unsigned id, unsigned gen)
{
  fill(heap, heapw, id, gen);
  for (int d = 0; d < depth; d++)
    fill(frames[d], stkw, id, gen);
}

static void node(int id, int parent, int depth);

/* A new process at depth, a copy of parent (gen 0): check, take over, go on. */
static void child(int id, int parent, int depth)
{
  if (pushout) {
    sleep_ms(200);
    push_everything_out();    /* what we inherited is read from the masters' backing files */
  }
  if (eager) {
    /* Fork again before touching anything: both must see the parent's memory. */
    int pid = fork();
    if (pid == 0) {
      unsigned sum = 0;
      int me = id + 10000;
      if (viakernel)
        kpipe();
      int bad = check_all(depth, parent, 0, &sum, me);
      fill_all(depth, me, 0);
      bad += check_all(depth, me, 0, &sum, me);
      report(me, bad, sum);
      exit(0);
    }
  }
  node(id, parent, depth);
  exit(0);
}

static void node(int id, int parent, int depth)
{
  unsigned stk[MAXSTK];
  unsigned sum = 0;
  int bad = 0;
  frames[depth] = stk;
  if (viakernel)
    kpipe();
  if (parent >= 0)
    bad += check_all(depth, parent, 0, &sum, id);
  if (execleaves && depth == maxdepth) {
    char a[16], b[16], k[16], s[16];
    snprintf(a, sizeof a, "%d", id);
    snprintf(b, sizeof b, "%d", outfd);
    snprintf(k, sizeof k, "%u", heapkb);
    snprintf(s, sizeof s, "%u", stkkb);
    report(id, bad, sum);
    char *argv[] = { "forktree", "-k", k, "-s", s, "-c", a, b, viakernel ? "-r" : 0, 0 };
    exec("/bin/forktree", argv);
    printf("forktree: id %d: exec failed\n", id);
    exit(1);
  }
  fill_all(depth + 1, id, 0);
  int kids = 0;
  if (depth < maxdepth) {
    for (int i = 0; i < width; i++) {
      int cid = id * width + i + 1;
      int pid = fork();
      if (pid < 0) {
        printf("forktree: id %d: fork failed\n", id);
        bad++;
        break;
      }
      if (pid == 0)
        child(cid, id, depth + 1);
      kids++;
    }
    if (pushout) {
      /* Pages of a forked segment can go out once its backing store is reserved (by the
       * VM daemon, a tenth of a second after the fork): wait for that, then push. */
      sleep_ms(300);
      push_everything_out();
    }
  }
  /* Our own memory again, while the children may still read generation 0. */
  bad += check_all(depth + 1, id, 0, &sum, id);
  fill_all(depth + 1, id, 1);
  if (!orphans)
    while (kids > 0 && wait(0) >= 0)
      kids--;
  bad += check_all(depth + 1, id, 1, &sum, id);
  if (!(execleaves && depth == maxdepth))
    report(id, bad, sum);
}

/* The program exec'd by a leaf (-e): a fresh image, its own pattern. */
static int execd(int id)
{
  unsigned stk[MAXSTK];
  unsigned sum = 0;
  frames[0] = stk;
  int me = id + 20000;
  if (viakernel)
    kpipe();
  fill_all(1, me, 0);
  int bad = check_all(1, me, 0, &sum, me);
  report(me, bad, sum);
  return 0;
}

static int cmp(const void *a, const void *b)
{
  return ((const struct rec *)a)->id - ((const struct rec *)b)->id;
}

static void usage(void)
{
  fprintf(stderr, "usage: forktree [-k KB] [-s KB] [-d DEPTH] [-w WIDTH] [-o] [-e] [-f] [-p] [-r]\n");
  exit(1);
}

int main(int argc, char **argv)
{
  int cid = -1;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-k") == 0 && i + 1 < argc)
      heapkb = atoi(argv[++i]);
    else if (strcmp(argv[i], "-s") == 0 && i + 1 < argc)
      stkkb = atoi(argv[++i]);
    else if (strcmp(argv[i], "-d") == 0 && i + 1 < argc)
      maxdepth = atoi(argv[++i]);
    else if (strcmp(argv[i], "-w") == 0 && i + 1 < argc)
      width = atoi(argv[++i]);
    else if (strcmp(argv[i], "-o") == 0)
      orphans = 1;
    else if (strcmp(argv[i], "-e") == 0)
      execleaves = 1;
    else if (strcmp(argv[i], "-f") == 0)
      eager = 1;
    else if (strcmp(argv[i], "-p") == 0)
      pushout = 1;
    else if (strcmp(argv[i], "-r") == 0)
      viakernel = 1;
    else if (strcmp(argv[i], "-c") == 0 && i + 2 < argc) {
      cid = atoi(argv[++i]);
      outfd = atoi(argv[++i]);
    } else
      usage();
  }
  if (maxdepth < 0 || maxdepth > MAXD - 1 || width < 1 || stkkb * 256 > MAXSTK || stkkb == 0)
    usage();
  heapw = heapkb * 256;
  stkw = stkkb * 256;
  heap = sbrk(heapw * 4 + 4);
  if (heap == (void *)-1) {
    printf("forktree: no memory for %u KB\n", heapkb);
    return 1;
  }
  if (cid >= 0)
    return execd(cid);

  int fds[2];
  if (pipe(fds) < 0) {
    printf("forktree: pipe failed\n");
    return 1;
  }
  outfd = fds[1];
  int pid = fork();
  if (pid == 0) {
    close(fds[0]);
    node(0, -1, 0);
    exit(0);
  }
  close(fds[1]);
  static struct rec recs[4096];
  int n = 0;
  struct rec r;
  int got = 0;
  for (;;) {
    int m = read(fds[0], (char *)&r + got, sizeof r - got);
    if (m <= 0)
      break;
    got += m;
    if (got == (int)sizeof r) {
      if (n < 4096)
        recs[n++] = r;
      got = 0;
    }
  }
  wait(0);
  qsort(recs, n, sizeof recs[0], cmp);
  int bad = 0;
  for (int i = 0; i < n; i++) {
    printf("forktree: id %d sum %08x %s\n", recs[i].id, recs[i].sum, recs[i].bad ? "BAD" : "ok");
    bad += recs[i].bad != 0;
  }
  printf("forktree: %d processes, %d bad\n", n, bad);
  return bad != 0;
}
