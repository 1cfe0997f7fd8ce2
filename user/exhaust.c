/* exhaust WHAT: uses up one of the kernel's resources, reports the error that ended it, and
 * gives everything back, so that a test can check the counters before and after.
 *
 *   mem      grows the heap 256 KB at a time, writing every page, until sbrk fails (the
 *            backing store is reserved as the heap grows: past memory, pages go out to it;
 *            ENOSWAP when the disk has no room left for it); also prints
 *            "exhaust: mem: sbrk: MESSAGE" (strerror)
 *   disk     writes 1 MB files into /exhaust.tmp until a write fails, then removes them
 *   inodes   creates empty files in /exhaust.tmp until a create fails, then removes them
 *   fds      opens one file until this process has no descriptor left
 *   files    children open files until the system's open-file table is full
 *   icache   children open distinct files until the in-memory inode table is full
 *   pipes    children make pipes until something runs out
 *   procs    forks children (each waits) until fork fails, twice: the same count both times
 *   bomb S   a fork bomb: every process forks as fast as it can for S seconds (at once
 *            again when fork fails), then each waits for its children and exits; ^C ends
 *            it sooner (the console kills the whole group)
 *
 *   disk -k, inodes -k   keep the files (a later `exhaust clean` removes them)
 *   WHAT -h MS   holds what it took for MS milliseconds before giving it back (the shell
 *            can be tried meanwhile: `exhaust procs -h 2000 &`)
 *   clean    removes what disk -k or inodes -k left
 *   forklater MS   a bystander: after MS forks a child that lives 0.5 s; prints its status
 *
 * Each prints "exhaust: WHAT: N UNIT, then ERRNAME" (the error that stopped it) and a last
 * line "exhaust: WHAT: released" once what it held is given back. Exit status 0 when it
 * ran out of the resource with one of the errors a user is promised (ENOMEM, ENOSPC, ENOSWAP,
 * EMFILE, ENFILE, EAGAIN), 1 otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include <sys.h>
#include <sys/stat.h>

#define DIR "/exhaust.tmp"
#define MAXKIDS 128

static const char *errname(int e)
{
  switch (e) {
  case ENOMEM: return "ENOMEM";
  case ENOSPC: return "ENOSPC";
  case ENOSWAP: return "ENOSWAP";
  case EMFILE: return "EMFILE";
  case ENFILE: return "ENFILE";
  case EAGAIN: return "EAGAIN";
  case EIO: return "EIO";
  case EFBIG: return "EFBIG";
  default: return strerror(e);
  }
}

static int expected(int e)
{
  return e == ENOMEM || e == ENOSPC || e == ENOSWAP || e == EMFILE || e == ENFILE || e == EAGAIN;
}

static unsigned hold_ms;     /* -h MS: keep what was taken that long before giving it back */

static int report(const char *what, long n, const char *unit, int err)
{
  printf("exhaust: %s: %ld %s, then %s\n", what, n, unit, errname(err));
  fflush(stdout);
  if (hold_ms) {
    printf("exhaust: %s: holding for %u ms\n", what, hold_ms);
    fflush(stdout);
    sleep_ms(hold_ms);
  }
  return expected(err) ? 0 : 1;
}

static void released(const char *what)
{
  printf("exhaust: %s: released\n", what);
}

static void fname(char *buf, int len, int i)
{
  snprintf(buf, len, DIR "/f%d", i);
}

static int ex_mem(void)
{
  const int step = 256 * 1024;
  long kb = 0;
  char *p;
  while ((p = sbrk(step)) != (char *)-1) {
    for (int i = 0; i < step; i += 4096)
      p[i] = (char)((kb * 1024 + i) / 4096);
    kb += step / 1024;
  }
  int err = errno;
  printf("exhaust: mem: sbrk: %s\n", strerror(err));
  /* Every page still holds what was written (many came back from backing store). */
  char *base = sbrk(0) - kb * 1024;
  for (long off = 0; off < kb * 1024; off += 4096)
    if (base[off] != (char)(off / 4096)) {
      printf("exhaust: mem: the page at +%ld KB changed\n", off / 1024);
      return 1;
    }
  int r = report("mem", kb, "KB", err);
  sbrk(-(int)(kb * 1024));
  released("mem");
  return r;
}

/* Removes the n files of DIR and DIR itself, syncs so the blocks are counted free, and says
 * what was given back. */
static void remove_files(int n, const char *what)
{
  for (int i = 0; i < n; i++) {
    char name[32];
    fname(name, sizeof name, i);
    unlink(name);
  }
  rmdir(DIR);
  sync();
  released(what);
}

static int ex_disk(int keep)
{
  static char buf[64 * 1024];
  memset(buf, 0x5a, sizeof buf);
  mkdir(DIR);
  long kb = 0;
  int err = 0, n = 0;
  for (; !err; n++) {
    char name[32];
    fname(name, sizeof name, n);
    int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC);
    if (fd < 0) {
      err = errno;
      break;
    }
    for (int i = 0; i < 16; i++) {
      int w = write(fd, buf, sizeof buf);
      if (w > 0)
        kb += w / 1024;
      if (w != (int)sizeof buf) {
        err = w < 0 ? errno : ENOSPC;
        break;
      }
    }
    if (close(fd) < 0 && !err)
      err = errno;
  }
  int r = report("disk", kb, "KB", err);
  if (keep)
    return r;
  remove_files(n + 1, "disk");    /* the file the disk filled in too */
  return r;
}

static int ex_inodes(int keep)
{
  mkdir(DIR);
  int n = 0, err;
  for (;; n++) {
    char name[32];
    fname(name, sizeof name, n);
    int fd = open(name, O_CREAT | O_WRONLY);
    if (fd < 0) {
      err = errno;
      break;
    }
    close(fd);
  }
  int r = report("inodes", n, "files", err);
  if (keep)
    return r;
  remove_files(n, "inodes");
  return r;
}

static int ex_fds(void)
{
  int fds[64], n = 0, err;
  for (;;) {
    int fd = open("/bin/sh", O_RDONLY);
    if (fd < 0) {
      err = errno;
      break;
    }
    fds[n++] = fd;
    if (n == 64) {
      printf("exhaust: fds: 64 and no end\n");
      return 1;
    }
  }
  int r = report("fds", n, "open", err);
  for (int i = 0; i < n; i++)
    close(fds[i]);
  released("fds");
  return r;
}

/* Children each take what they can with take(), tell the parent how many (one byte each
 * through a pipe) and why they stopped, and hold it until the parent closes the pipe. */
static int (*take)(int kid, int *err);
static int in_children(const char *what, const char *unit)
{
  int up[2], down[2];
  if (pipe(up) < 0 || pipe(down) < 0) {
    printf("exhaust: %s: pipe: %s\n", what, errname(errno));
    return 1;
  }
  int kids = 0, total = 0, err = 0;
  while (!err && kids < MAXKIDS) {
    fflush(stdout);
    int pid = fork();
    if (pid < 0) {
      err = errno;          /* the process table, before the resource */
      printf("exhaust: %s: fork: %s\n", what, errname(err));
      break;
    }
    if (pid == 0) {
      close(up[0]);
      close(down[1]);
      int e = 0;
      sleep_ms(150);        /* a holder that has lived a while: its backing store is reserved */
      int got = take(kids, &e);
      int msg[2] = { got, e };
      write(up[1], msg, sizeof msg);
      char c;
      read(down[0], &c, 1);      /* until the parent closes its end */
      exit(0);
    }
    kids++;
    int msg[2];
    if (read(up[0], msg, sizeof msg) != sizeof msg) {
      printf("exhaust: %s: a child died\n", what);
      break;
    }
    total += msg[0];
    err = msg[1];
  }
  int r = report(what, total, unit, err);
  close(down[1]);
  close(down[0]);
  close(up[0]);
  close(up[1]);
  for (int i = 0; i < kids; i++)
    wait(0);
  released(what);
  return r;
}

/* Opens until failure, leaving a descriptor or two for the pipe ends it inherited. */
static int take_files(int kid, int *err)
{
  (void)kid;
  int n = 0;
  for (;;) {
    int fd = open("/bin/sh", O_RDONLY);
    if (fd < 0) {
      *err = errno == EMFILE ? 0 : errno;   /* EMFILE: this child is full, not the system */
      return n;
    }
    n++;
  }
}

static int take_icache(int kid, int *err)
{
  int next = kid * 16, n = 0;    /* no two children open the same file */
  for (;;) {
    char name[32];
    fname(name, sizeof name, next);
    int fd = open(name, O_RDONLY);
    if (fd < 0) {
      *err = errno == EMFILE ? 0 : errno;
      return n;
    }
    n++;
    next++;
  }
}

static int take_pipes(int kid, int *err)
{
  (void)kid;
  int n = 0, p[2];
  for (;;) {
    if (pipe(p) < 0) {
      *err = errno == EMFILE ? 0 : errno;
      return n;
    }
    n++;
  }
}

static int ex_icache(void)
{
  /* More distinct files than the kernel holds inodes for (NINODE is 128). */
  const int nfiles = 300;
  mkdir(DIR);
  for (int i = 0; i < nfiles; i++) {
    char name[32];
    fname(name, sizeof name, i);
    int fd = open(name, O_CREAT | O_WRONLY);
    if (fd < 0) {
      printf("exhaust: icache: cannot create %s: %s\n", name, errname(errno));
      return 1;
    }
    close(fd);
  }
  take = take_icache;
  int r = in_children("icache", "inodes");
  for (int i = 0; i < nfiles; i++) {
    char name[32];
    fname(name, sizeof name, i);
    unlink(name);
  }
  rmdir(DIR);
  sync();
  return r;
}

static int procs_once(int *n)
{
  int p[2];
  if (pipe(p) < 0)
    return errno;
  *n = 0;
  int pid, err;
  while ((pid = fork()) >= 0) {
    if (pid == 0) {
      char c;
      close(p[1]);
      read(p[0], &c, 1);
      exit(0);
    }
    ++*n;
  }
  err = errno;
  if (hold_ms) {
    printf("exhaust: procs: %d children, then %s; holding for %u ms\n", *n, errname(err), hold_ms);
    fflush(stdout);
    sleep_ms(hold_ms);
  }
  close(p[0]);
  close(p[1]);
  for (int i = 0; i < *n; i++)
    wait(0);
  return err;
}

static int ex_procs(void)
{
  int n1, n2;
  int e1 = procs_once(&n1);
  hold_ms = 0;              /* held once is enough */
  int e2 = procs_once(&n2);
  int r = report("procs", n1, "children", e1);
  printf("exhaust: procs: again %d children, then %s\n", n2, errname(e2));
  released("procs");
  return r || e2 != e1 || n2 != n1;
}

/* Every process forks until the deadline, trying again at once when fork fails (a real
 * bomb spins: the shell and the kernel's threads must still get the CPU). The first to see the table full
 * says so once, through a flag file. At the deadline each waits for its children, so the
 * first process exits last and can say it is over. */
static int ex_bomb(int secs)
{
  unsigned end = uptime_ms() + (unsigned)secs * 1000;
  int root = getpid(), kids = 0, fails = 0, lasterr = 0;
  unlink("/exhaust.full");
  while (uptime_ms() < end) {
    int pid = fork();
    if (pid == 0) {
      kids = 0;
      fails = 0;
      continue;
    }
    if (pid > 0) {
      kids++;
      continue;
    }
    fails++;
    lasterr = errno;
    int fd = open("/exhaust.full", O_CREAT | O_EXCL | O_WRONLY);
    if (fd >= 0) {
      struct procinfo pi[80];
      int n = ps(pi, 80);
      printf("exhaust: bomb: full at %d processes, fork says %s\n", n, errname(lasterr));
      fflush(stdout);
      close(fd);
    }
  }
  while (kids > 0 && wait(0) > 0)
    kids--;
  if (getpid() != root)
    exit(0);
  unlink("/exhaust.full");
  printf("exhaust: bomb: over\n");
  released("bomb");
  return 0;
}

/* A bystander: after MS, forks a child that lives half a second and exits 0. Run in the
 * background while something else is exhausted, it shows whether that costs an innocent
 * process its life (the VM daemon reserves a forked child's backing store a tick after fork). */
static int ex_forklater(unsigned ms)
{
  sleep_ms(ms);
  fflush(stdout);
  int pid = fork();
  if (pid < 0) {
    printf("exhaust: forklater: fork: %s\n", errname(errno));
    return 1;
  }
  if (pid == 0) {
    sleep_ms(500);
    exit(0);
  }
  int status = -1;
  wait(&status);
  printf("exhaust: forklater: child status %d\n", status);
  return status != 0;
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: exhaust mem|disk|inodes|fds|files|icache|pipes|procs|bomb SECS\n");
    return 2;
  }
  const char *w = argv[1];
  if (argc == 4 && strcmp(argv[2], "-h") == 0) {
    hold_ms = (unsigned)atoi(argv[3]);
    argc = 2;
  }
  if (strcmp(w, "mem") == 0)
    return ex_mem();
  if (strcmp(w, "disk") == 0)
    return ex_disk(argc == 3 && strcmp(argv[2], "-k") == 0);
  if (strcmp(w, "inodes") == 0)
    return ex_inodes(argc == 3 && strcmp(argv[2], "-k") == 0);
  if (strcmp(w, "fds") == 0)
    return ex_fds();
  if (strcmp(w, "files") == 0) {
    take = take_files;
    return in_children("files", "open");
  }
  if (strcmp(w, "icache") == 0)
    return ex_icache();
  if (strcmp(w, "pipes") == 0) {
    take = take_pipes;
    return in_children("pipes", "pipes");
  }
  if (strcmp(w, "clean") == 0) {
    char name[32];
    int n = 0;
    for (int i = 0, misses = 0; misses < 64; i++) {
      fname(name, sizeof name, i);
      if (unlink(name) == 0) {
        n++;
        misses = 0;
      } else {
        misses++;
      }
    }
    rmdir(DIR);
    sync();
    printf("exhaust: clean: %d files removed\n", n);
    return 0;
  }
  if (strcmp(w, "procs") == 0)
    return ex_procs();
  if (strcmp(w, "forklater") == 0 && argc == 3)
    return ex_forklater((unsigned)atoi(argv[2]));
  if (strcmp(w, "bomb") == 0 && argc == 3)
    return ex_bomb(atoi(argv[2]));
  fprintf(stderr, "exhaust: unknown %s\n", w);
  return 2;
}
