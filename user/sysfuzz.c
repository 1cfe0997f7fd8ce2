/* sysfuzz: a system-call fuzzer.
 *
 *   sysfuzz [-p PROCS] [-v] SEED COUNT
 *
 * The kernel's promise is that nothing a user program passes to a system call can panic it,
 * hang it, corrupt its bookkeeping or leak its memory or disk blocks: a bad argument is an
 * error (a negative errno), a bad pointer -EFAULT, and at worst the offending program is
 * killed. sysfuzz tests that promise by making COUNT calls in each of PROCS processes (3 by
 * default), run at once, with numbers and arguments drawn from a PRNG seeded by SEED and the
 * process's index, so a run is reproducible call for call (the interleaving of the processes
 * is not).
 *
 * What it calls. Every number of uapi/syscall.h, weighted towards the file system and the
 * VM, and numbers that are none: 0, the holes between, NSYSCALL, -1, 0x80000000, huge ones.
 * Each argument is drawn from a class chosen for where kernels go wrong:
 *   pointers   NULL, small ones, kernel addresses (0xC0000000, the kernel's text at
 *              0xC0100000, the last page), unmapped user pages, the program's own code (read
 *              only: a kernel write there must fail), buffers straddling the heap break and
 *              either end of the stack (0xC0000000 above, the 8 MB limit below), and valid
 *              buffers in an arena of its own
 *   lengths    0, 1, small, a page and one more, huge (2^31 - 1, 2^31, 2^32 - 1), negative
 *   fds        -1, 16 (NOFILE), 1000, INT_MIN, closed slots, and its open files and pipes
 *   strings    unterminated strings ending at a page boundary before an unmapped page, a
 *              10,000-character path, paths of 255 and 256 bytes, names longer than a
 *              directory entry holds, empty ones, and valid names and paths
 * and valid values for each, so that calls get past the checks into the kernel's depths:
 * files are created, written, truncated, renamed into and out of directories, read back,
 * listed, fsync'ed; pipes filled and drained; the break moved up and down; processes forked.
 *
 * What it does not do, because the system may legitimately go down or the test be wrecked
 * by it (each excluded or neutered where it is drawn):
 *   - poweroff (SYS_shutdown) is never called; SYS_vmcorrupt only with pointers that cannot
 *     be read (it is a test-only call that may damage the VM on purpose);
 *   - kill and setpgid name only itself's children, pid 0, or pids and groups that cannot
 *     exist; setfg only groups that cannot exist (a real one would take the console);
 *   - sysctl reads anything, but sets only values every setting refuses (the table below),
 *     names that do not exist, and vm.pageout (a push to backing store, no setting changed);
 *   - exec runs only in grandchildren, and only bad pointers, directories, missing files,
 *     and files of its own that are no program (or ELF headers of random junk); never a
 *     real binary (a copy of /bin/poweroff run with random arguments would end the test);
 *   - sleep takes at most 20 ms; fork is bounded (2 live grandchildren per process, and
 *     grandchildren do not fork);
 *   - files are written only under a scratch directory it makes (/tmp/fuzz.SEED, one
 *     subdirectory per process, chdir'ed into): a path that may be written is a scratch
 *     name or a bad pointer, and a string taken from its own memory is checked first (no
 *     "..", no absolute path outside the scratch directory); real files are opened read-only.
 *     The parent removes the scratch directory at the end, so disk blocks come back;
 *   - reads and writes of its own pipes never block: it keeps bounds on what each pipe
 *     holds and reads only a pipe known to hold bytes, writes only what surely fits;
 *   - the console (fds 0-2) is closed in the fuzzing processes: a read would wait for a
 *     typist and a write would put random bytes in the test's transcript.
 *
 * It never dereferences a bad pointer itself: the kernel writes only where it is given a
 * pointer, and every pointer it is given that could be valid lies in memory kept for that
 * (the arena, sbrk'ed above all of the program's own data, so that even a huge length runs
 * into the break and never over the fuzzer's state; the top 32 bytes of the stack, which
 * hold only the arguments, parsed before any fuzzing, and main's caller, to which a fuzzing
 * process never returns; the stack's far end, 8 MB below). So a
 * fuzzing process that dies of a fault is a kernel bug (it wrote where it was not asked to,
 * or returned a wrong value that was trusted), and it is reported as such.
 *
 * Each process reports over a pipe (fd 15, never drawn) "calls errors forks"; the parent
 * prints one line per process, then the totals, the children killed by a signal or a fault
 * (status 128 and over) and the grandchildren that were; exit status 0 if every process
 * finished and none was killed, 1 otherwise. -v prints every call of process 0 on the
 * console, its number and arguments before it is made (so that the last line before a panic
 * names the call that did it) and its result after. */
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include <dirent.h>
#include <sys.h>
#include <sys/stat.h>
#include "uapi/syscall.h"
#include "uapi/vmpages.h"

#define MAXPROCS 8
#define NFD 16             /* NOFILE */
#define REPORT_FD 15       /* the pipe to the parent: never drawn as an fd */
#define MAXKIDS 2          /* live grandchildren per fuzzing process */
#define KID_CALLS 24       /* calls a grandchild makes before it exits */
#define ARENA (256 * 1024)
#define PIPECAP 3000       /* less than a pipe holds (a page less its header) */
#define STACK_TOP 0xC0000000u
#define STACK_LO (STACK_TOP - (8u << 20))
#define CODE_BASE 0x00400000u
#define KTEXT 0xC0100000u
#define LOG_FD 14          /* -v: process 0's copy of the console */
#define PGROUNDUP_(a) (((unsigned)(a) + 4095) & ~4095u)

/* --- the PRNG: xorshift32, one state per process ----------------------------------------- */
static unsigned rs;
static unsigned rnd(void)
{
  rs ^= rs << 13;
  rs ^= rs >> 17;
  rs ^= rs << 5;
  return rs;
}
static unsigned below(unsigned n) { return n ? rnd() % n : 0; }
static int chance(unsigned percent) { return below(100) < percent; }

/* --- state of one fuzzing process ---------------------------------------------------------- */
enum { F_FREE, F_INODE, F_PIPE_R, F_PIPE_W };
static struct { char kind; int pipe; } fds[NFD];
static struct { int lo, hi; } pipes[NFD * 2];     /* bytes a pipe surely holds, at most holds */
static int npipes;
static int kids[MAXKIDS];
static unsigned kidborn[MAXKIDS];
static int deadkids[8], ndead;                    /* reaped pids: kill and setpgid must fail */
static int isgrandchild, verbose, idx;
static unsigned long calls, errors, forks, kidfaults;
static char *arena;                 /* ARENA bytes at the top of the heap, then the break */
static unsigned floorbrk;           /* fuzzed sbrk never takes the break below this */
static char root[64];               /* the scratch directory, absolute */
static char mydir[80];              /* this process's subdirectory, absolute */
static unsigned seed;

static int reserved(int fd) { return fd == REPORT_FD || (fd == LOG_FD && verbose && idx == 0); }
static unsigned curbrk(void) { return (unsigned)sbrk(0); }

/* --- argument classes ------------------------------------------------------------------------ */
static unsigned bad_ptr(void)
{
  switch (below(12)) {
  case 0: return 0;
  case 1: return 1 + below(4095);                          /* the null page */
  case 2: return 0xC0000000u;
  case 3: return KTEXT + below(0x10000) * 4;               /* the kernel's code */
  case 4: return 0xC0000000u + below(0x3FFFFFFF);
  case 5: return 0xFFFFF000u + below(4096);
  case 6: return 0x08000000u + below(0x100000) * 4;        /* between code and heap */
  case 7: return PGROUNDUP_(curbrk()) + 4096 * below(64);  /* just above the break */
  case 8: return 0x7FFFF000u + below(4096);                /* the heap slot's end */
  case 9: return STACK_LO - 1 - below(8192);               /* below the stack's limit */
  case 10: return 0xFFFFFFFFu;
  default: return 0x40000000u + below(0x1000000) * 4;
  }
}
/* A pointer the kernel may read from, or (out) write to, with n bytes meant. */
static unsigned any_ptr(unsigned n, int out)
{
  unsigned brk = PGROUNDUP_(curbrk());
  switch (below(10)) {
  case 0: case 1: return bad_ptr();
  case 2: return CODE_BASE + below(0x4000);                /* read-only: writes must fail */
  case 3: return brk - 1 - below(64);                      /* straddles the break */
  case 4: return STACK_TOP - 1 - below(32);                /* straddles the stack's top */
  case 5: return STACK_LO - 1 - below(64);                 /* straddles the stack's limit */
  default: {
    unsigned room = n < ARENA ? ARENA - n : 1;
    return (unsigned)arena + (chance(50) ? 0 : below(room));
  }
  }
}

static unsigned any_len(void)
{
  static const unsigned huge[] = { 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu, 0x40000000u,
                                   0xFFFFF000u, 0x10000000u };
  switch (below(10)) {
  case 0: return 0;
  case 1: return 1;
  case 2: return 4096 + below(2);
  case 3: return huge[below(6)];
  case 4: return -(1 + below(4096));                        /* negative */
  case 5: return below(ARENA);
  default: return below(512);
  }
}

static int any_fd(void)
{
  static const int bad[] = { -1, NFD, 1000, (int)0x80000000, 0x7FFFFFFF, -NFD };
  if (chance(20))
    return bad[below(6)];
  int open[NFD], nopen = 0, closed[NFD], nclosed = 0;
  for (int i = 0; i < NFD; i++) {
    if (reserved(i))
      continue;
    if (fds[i].kind != F_FREE)
      open[nopen++] = i;
    else
      closed[nclosed++] = i;
  }
  if (nopen && chance(85))
    return open[below(nopen)];
  return nclosed ? closed[below(nclosed)] : -1;
}

/* Writes s at arena offset off (an area the kernel may also scribble on: it is rewritten
 * before every use) and returns its address. */
static unsigned put(unsigned off, const char *s)
{
  char *p = arena + off;
  strcpy(p, s);
  return (unsigned)p;
}

/* A string that runs, unterminated, to the end of the page below the break; the page above
 * is unmapped. */
static unsigned unterminated(void)
{
  unsigned end = PGROUNDUP_(curbrk());
  unsigned n = 1 + below(300);
  memset((char *)end - n, 'u', n);
  return end - n;
}

/* A name in the scratch directory: relative (to a cwd that is always in it) or absolute. */
static const char *const names[] = { "a", "b", "c", "d", "d/a", "d/b", "d/e", "d/e/f", "e",
                                     "e/a", "longer-name.txt", "." };
static unsigned scratch_path(void)
{
  char buf[160];
  const char *n = names[below(sizeof names / sizeof names[0])];
  if (chance(30))
    snprintf(buf, sizeof buf, "%s/c%u/%s", root, below(MAXPROCS), n);
  else if (chance(10))
    snprintf(buf, sizeof buf, "%s/%s", root, n);
  else
    snprintf(buf, sizeof buf, "%s", n);
  return put(16 * 1024, buf);
}

/* Is the string at p (in the arena, which ends at the break) safe to write through: inside
 * the scratch directory? */
static int scratch_only(unsigned p)
{
  char *s = (char *)p, *end = (char *)PGROUNDUP_(curbrk());
  int n = 0;
  while (s + n < end && s[n] && n < 300)
    n++;
  if (s + n >= end || n >= 300)
    return 1;                 /* unterminated or too long: a lookup fails before any name */
  if (strstr(s, ".."))
    return 0;
  if (s[0] == '/')
    return strncmp(s, root, strlen(root)) == 0 && (s[strlen(root)] == '/' || s[strlen(root)] == 0);
  return 1;
}

/* A path. writable: the call may create, change or remove what it names. */
static unsigned any_path(int writable)
{
  static const char *const real[] = { "/", "/bin", "/bin/echo", "/bin/cat", "/tmp", "/swap",
                                      "/swap/seg0", "/nonexistent/x", "/bin/", "//bin//cat" };
  unsigned r = below(20);
  if (r < 7)
    return scratch_path();
  if (r == 7)
    return bad_ptr();
  if (r == 8)
    return unterminated();
  if (r == 9 || r == 10) {
    /* 10,000 characters, or just at and past the longest path (255 bytes and its NUL) */
    unsigned n = r == 9 ? 10000 : 254 + below(4);
    char *p = arena + 32 * 1024;
    for (unsigned i = 0; i < n; i++)
      p[i] = (i % 8 == 7) ? '/' : 'p';
    p[n] = 0;
    return (unsigned)p;
  }
  if (r == 11) {
    char buf[64];
    snprintf(buf, sizeof buf, "%.*s", 28 + (int)below(30), "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn");
    return put(16 * 1024, buf);
  }
  if (r == 12)
    return put(16 * 1024, "");
  if (r == 13) {
    unsigned p = (unsigned)arena + below(ARENA - 512);     /* whatever the kernel left there */
    return !writable || scratch_only(p) ? p : scratch_path();
  }
  if (!writable)
    return put(16 * 1024, real[below(sizeof real / sizeof real[0])]);
  return scratch_path();
}

/* --- the calls ------------------------------------------------------------------------------- */
struct call { int num; unsigned a[5]; };

static const struct { const char *name, *refused; } settings[] = {
  { "vm.policy", "nosuch" }, { "vm.cluster", "0" }, { "vm.spt_epoch_ms", "5" },
  { "vm.audit", "2" }, { "vm.clock_rate", "-1" }, { "vm.trace_epoch_ms", "50" },
  { "vm.fork", "spoon" }, { "debug.corrupt", "7" }, { "vm.penalty", "-5" },
  { "vm.penalty_mode", "wavy" }, { "neg.reset", "2" }, { "fs.cache_min_kb", "1" },
  { "fs.cache_max_kb", "abc" }, { "fs.cache_fixed_kb", "-1" }, { "fs.write_policy", "never" },
  { "fs.writeback_delay", "99999" }, { "fs.desc_delay", "-1" }, { "fs.scan_interval", "0" },
  { "fs.backing_reserve", "-3" }, { "vm.pageout", "x" },
};
#define NSETTINGS (sizeof settings / sizeof settings[0])

static int live_kids(void)
{
  int n = 0;
  for (int i = 0; i < MAXKIDS; i++)
    n += kids[i] > 0;
  return n;
}

static int some_pid(void)
{
  unsigned r = below(6);
  if (r == 1 && live_kids())
    for (int i = 0;; i++)
      if (kids[i] > 0)
        return kids[i];
  if (r == 2 && ndead)
    return deadkids[below(ndead)];
  switch (r) {
  case 0: return 0;
  case 1: case 2: case 3: return 1000000 + below(1000000);
  case 4: return -(1000000 + (int)below(1000000));
  default: return (int)0x80000000;
  }
}

/* Fills c with a call: its number and five arguments (the unused ones random too). */
static void draw(struct call *c)
{
  static const int numbers[] = {
    SYS_fork, SYS_exit, SYS_wait, SYS_exec, SYS_getpid, SYS_kill, SYS_sbrk, SYS_sleep,
    SYS_uptime, SYS_open, SYS_open, SYS_open, SYS_close, SYS_read, SYS_read, SYS_write,
    SYS_write, SYS_write, SYS_lseek, SYS_fstat, SYS_stat, SYS_unlink, SYS_mkdir, SYS_rmdir,
    SYS_readdir, SYS_rename, SYS_rename, SYS_dup, SYS_dup2, SYS_pipe, SYS_chdir, SYS_fsync,
    SYS_kstat, SYS_ps, SYS_sync, SYS_getcwd, SYS_dup2, SYS_sysctl, SYS_setpgid, SYS_setfg,
    SYS_incore, SYS_vmaudit, SYS_vmcorrupt, SYS_negtrace, SYS_vmtrace, SYS_vmpages, SYS_open, SYS_write,
    SYS_lseek, SYS_mkdir, SYS_unlink,
  };
  static const int nonumbers[] = { 0, 36, 42, 49, 54, 63, NSYSCALL, NSYSCALL + 1, -1, -64,
                                   (int)0x80000000, 0x7FFFFFFF, 1 << 16, 255, 256 };
  for (int i = 0; i < 5; i++)
    c->a[i] = rnd();
  if (chance(4)) {
    c->num = nonumbers[below(sizeof nonumbers / sizeof nonumbers[0])];
    return;
  }
  c->num = numbers[below(sizeof numbers / sizeof numbers[0])];
  unsigned *a = c->a;
  switch (c->num) {
  case SYS_fork:
    if (isgrandchild || live_kids() >= MAXKIDS)
      c->num = SYS_getpid;
    break;
  case SYS_exit:
    if (!isgrandchild)
      c->num = SYS_uptime;                  /* a fuzzing process ends only after COUNT */
    else
      a[0] = below(128);
    break;
  case SYS_wait:
    a[0] = chance(60) ? any_ptr(4, 1) : 0;
    break;
  case SYS_exec:
    if (!isgrandchild) {
      c->num = SYS_stat;
      a[0] = any_path(0);
      a[1] = any_ptr(sizeof(struct stat), 1);
      break;
    }
    a[0] = any_path(1);
    if (chance(50)) {
      unsigned *v = (unsigned *)(arena + 48 * 1024);
      int n = below(80);
      for (int i = 0; i < n; i++)
        v[i] = chance(50) ? any_ptr(8, 0) : (unsigned)arena + below(ARENA);
      v[n] = chance(90) ? 0 : rnd();
      a[1] = (unsigned)v;
    } else {
      a[1] = any_ptr(64, 0);
    }
    break;
  case SYS_kill:
    a[0] = some_pid();
    break;
  case SYS_sbrk: {
    unsigned b = curbrk();
    switch (below(6)) {
    case 0: a[0] = below(64 * 1024); break;
    case 1: a[0] = 4096 * below(64); break;
    case 2: a[0] = b > floorbrk ? -(int)below(b - floorbrk + 1) : 0; break;
    case 3: a[0] = 0x7FFFFFFF - below(4096); break;                 /* must be refused */
    case 4: a[0] = 0x80000000u + below(4096); break;
    default: a[0] = -(int)(b - 0x10000000u) - 1 - below(1 << 20); break;  /* below the heap */
    }
    /* a heap grown past 8 MB only fills the machine: shrink instead */
    if ((int)a[0] > 0 && (int)a[0] < 0x10000000 && b + a[0] > floorbrk + (8u << 20))
      a[0] = -(int)(b - floorbrk);
    break;
  }
  case SYS_sleep:
    a[0] = below(21);
    break;
  case SYS_open: {
    static const int fl[] = { O_RDONLY, O_WRONLY, O_RDWR, O_CREAT | O_RDWR, O_CREAT | O_WRONLY | O_TRUNC,
                              O_CREAT | O_EXCL | O_RDWR, O_APPEND | O_WRONLY, O_ACCMODE, O_CREAT | O_APPEND | O_RDWR };
    int flags = chance(85) ? fl[below(9)] : (int)rnd();
    int writes = (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC));
    a[0] = any_path(writes);
    a[1] = flags;
    break;
  }
  case SYS_close: case SYS_dup: case SYS_fsync:
    a[0] = any_fd();
    break;
  case SYS_read: case SYS_write: {
    a[0] = any_fd();
    a[2] = chance(30) ? any_len() : below(8192);
    a[1] = any_ptr(a[2] < ARENA ? a[2] : 0, c->num == SYS_read);
    if (c->num == SYS_write && chance(20))
      a[1] = any_ptr(a[2] < ARENA ? a[2] : 0, 0);
    break;
  }
  case SYS_lseek: {
    static const int offs[] = { 0, 1, -1, 4096, 40960, 4 << 20, 0x7FFFFFFF, (int)0x80000000, 1 << 22 };
    a[0] = any_fd();
    a[1] = chance(80) ? (unsigned)offs[below(9)] + below(3) * 4096 : rnd();
    a[2] = chance(90) ? below(3) : rnd();
    break;
  }
  case SYS_fstat:
    a[0] = any_fd();
    a[1] = any_ptr(sizeof(struct stat), 1);
    break;
  case SYS_stat:
    a[0] = any_path(0);
    a[1] = any_ptr(sizeof(struct stat), 1);
    break;
  case SYS_unlink: case SYS_mkdir: case SYS_rmdir:
    a[0] = any_path(1);
    break;
  case SYS_chdir:
    a[0] = any_path(1);                   /* a cwd outside the scratch directory would make
                                             its relative names real files */
    break;
  case SYS_readdir:
    a[0] = any_fd();
    a[1] = any_ptr(sizeof(struct dirent), 1);
    break;
  case SYS_rename:
    a[0] = any_path(1);
    a[1] = any_path(1);
    break;
  case SYS_dup2:
    a[0] = any_fd();
    a[1] = any_fd();
    break;
  case SYS_pipe:
    a[0] = any_ptr(8, 1);
    break;
  case SYS_kstat:
    a[1] = any_len();
    a[0] = any_ptr(a[1] < ARENA ? a[1] : 0, 1);
    break;
  case SYS_ps: {
    static const int maxes[] = { 0, 1, 64, 65, -1, 1000, (int)0x80000000 };
    a[1] = maxes[below(7)];
    a[0] = any_ptr(64 * sizeof(struct procinfo), 1);
    break;
  }
  case SYS_getcwd:
    a[1] = chance(50) ? below(300) : any_len();
    a[0] = any_ptr(a[1] < ARENA ? a[1] : 0, 1);
    break;
  case SYS_sysctl: {
    int k = below(NSETTINGS), real = 0;
    if (chance(25))
      k = NSETTINGS - 1;          /* vm.pageout: its pages to backing store, for the calls after */
    if (chance(30)) {
      a[0] = chance(50) ? bad_ptr() : chance(50) ? unterminated() : put(20 * 1024, "no.such.setting");
    } else {
      a[0] = put(20 * 1024, settings[k].name);
      real = 1;
    }
    if (chance(50)) {
      a[1] = 0;                                             /* a read: anything goes */
    } else if (real && strcmp(settings[k].name, "vm.pageout") == 0 && chance(70)) {
      char v[16];
      snprintf(v, sizeof v, "%d", chance(50) ? getpid() : 0);
      a[1] = put(20 * 1024 + 128, v);
    } else if (real) {
      a[1] = chance(70) ? put(20 * 1024 + 128, settings[k].refused) : bad_ptr();
    } else {
      a[1] = chance(50) ? bad_ptr() : put(20 * 1024 + 128, "1");   /* an unknown or bad name */
    }
    a[3] = chance(60) ? below(300) : any_len();
    a[2] = chance(10) ? 0 : any_ptr(a[3] < ARENA ? a[3] : 0, 1);
    break;
  }
  case SYS_setpgid:
    a[0] = chance(30) ? 0 : chance(30) ? (unsigned)getpid() : (unsigned)some_pid();
    a[1] = chance(30) ? 0 : chance(30) ? (unsigned)getpid() : (unsigned)some_pid();
    break;
  case SYS_setfg:
    a[0] = chance(50) ? (unsigned)-(int)(1 + below(1000)) : 1000000 + below(1000000);
    break;
  case SYS_incore:
    a[0] = any_fd();
    a[2] = chance(50) ? below(64) : any_len();
    a[1] = any_ptr(a[2] < ARENA ? a[2] : 0, 1);
    break;
  case SYS_vmaudit:
    a[0] = chance(50) ? 1 : rnd();
    break;
  case SYS_vmcorrupt: {
    static const unsigned bad[] = { 0, 0xC0000000u, KTEXT, 0x20000000u, 0xFFFFFFF0u };
    a[0] = bad[below(5)];
    break;
  }
  case SYS_negtrace:
    a[1] = chance(50) ? below(100) : any_len();
    a[0] = any_ptr(32 * 64, 1);
    break;
  case SYS_vmpages:
    a[0] = chance(80) ? below(20) : rnd();
    a[1] = any_ptr(8, 1);
    a[2] = any_ptr(VMPAGES_MAX * sizeof(struct vmpage), 1);
    a[3] = chance(50) ? below(100) : any_len();
    break;
  case SYS_vmtrace:
    a[0] = any_ptr(32, 1);
    a[1] = any_ptr(1024, 1);
    a[2] = chance(50) ? below(10) : rnd();
    a[3] = chance(50) ? below(100) : any_len();
    break;
  }
}

/* The pipe rules: a read only of a pipe known to hold bytes, a write only of what surely
 * fits. Returns 0 if the call must not be made as drawn. */
static int pipe_safe(struct call *c)
{
  if (c->num != SYS_read && c->num != SYS_write)
    return 1;
  int fd = (int)c->a[0];
  if (fd < 0 || fd >= NFD || fds[fd].kind == F_FREE || fds[fd].kind == F_INODE)
    return 1;
  int p = fds[fd].pipe;
  if (c->num == SYS_read) {
    if (fds[fd].kind != F_PIPE_R)
      return 1;               /* a read of a write end fails at once */
    if (pipes[p].lo <= 0)
      return 0;
    return 1;
  }
  if (fds[fd].kind != F_PIPE_W)
    return 1;
  int room = PIPECAP - pipes[p].hi;
  if (room <= 0)
    c->a[2] = 0;
  else if (c->a[2] > (unsigned)room)           /* unsigned: a huge length is no negative one */
    c->a[2] = below(room);
  return 1;
}

static int sys5(int num, unsigned a, unsigned b, unsigned c, unsigned d, unsigned e)
{
  int ret;
  __asm__ volatile("int $0x80" : "=a"(ret) : "a"(num), "b"(a), "c"(b), "d"(c), "S"(d), "D"(e)
                   : "memory", "cc");
  return ret;
}

static void forget_fd(int fd)
{
  if (fd >= 0 && fd < NFD)
    fds[fd].kind = F_FREE;
}

/* What a call that returned r did to the process's descriptors, pipes and children. */
static void account(struct call *c, int r)
{
  int fd = (int)c->a[0];
  switch (c->num) {
  case SYS_open:
    if (r >= 0 && r < NFD)
      fds[r].kind = F_INODE;
    break;
  case SYS_close:
    if (r == 0 || (r < 0 && r != -EBADF))
      forget_fd(fd);               /* an error from a delayed write still closes it */
    break;
  case SYS_dup:
    if (r >= 0 && r < NFD)
      fds[r] = fds[fd];
    break;
  case SYS_dup2:
    if (r >= 0 && r < NFD && r != fd)
      fds[r] = fds[fd];
    break;
  case SYS_pipe:
    if (r == 0) {
      int *v = (int *)c->a[0];     /* the kernel wrote there: it is our memory */
      if (npipes < NFD * 2) {
        pipes[npipes].lo = pipes[npipes].hi = 0;
        fds[v[0]].kind = F_PIPE_R;
        fds[v[0]].pipe = npipes;
        fds[v[1]].kind = F_PIPE_W;
        fds[v[1]].pipe = npipes;
        npipes++;
      } else {
        sys5(SYS_close, v[0], 0, 0, 0, 0);
        sys5(SYS_close, v[1], 0, 0, 0, 0);
      }
    }
    break;
  case SYS_read:
    if (fd >= 0 && fd < NFD && fds[fd].kind == F_PIPE_R) {
      int p = fds[fd].pipe;
      if (r >= 0) {
        pipes[p].lo -= r;
        pipes[p].hi -= r;
      } else {
        pipes[p].lo = 0;           /* some may have gone before the fault */
      }
      if (pipes[p].lo < 0)
        pipes[p].lo = 0;
    }
    break;
  case SYS_write:
    if (fd >= 0 && fd < NFD && fds[fd].kind == F_PIPE_W) {
      int p = fds[fd].pipe;
      if (r >= 0) {
        pipes[p].lo += r;
        pipes[p].hi += r;
      } else {
        pipes[p].hi += (int)c->a[2];
      }
    }
    break;
  case SYS_fork:
    if (r > 0) {
      forks++;
      for (int i = 0; i < MAXKIDS; i++)
        if (kids[i] <= 0) {
          kids[i] = r;
          kidborn[i] = uptime_ms();
          break;
        }
    }
    break;
  case SYS_wait:
    if (r > 0) {
      for (int i = 0; i < MAXKIDS; i++)
        if (kids[i] == r)
          kids[i] = 0;
      deadkids[ndead++ % 8] = r;
      if (ndead > 8)
        ndead = 8;
      if (c->a[0] && c->a[0] - (unsigned)arena < ARENA && *(int *)c->a[0] >= 128 &&
          *(int *)c->a[0] != SIG_STATUS(SIGKILL))       /* not its own kill */
        kidfaults++;
    }
    break;
  }
}

/* Does the file named at p (any string) start like a program? */
static int is_program(unsigned p)
{
  int fd = sys5(SYS_open, p, O_RDONLY, 0, 0, 0);
  if (fd < 0)
    return 0;
  char m[4] = { 0 };
  sys5(SYS_read, fd, (unsigned)m, 4, 0, 0);
  sys5(SYS_close, fd, 0, 0, 0, 0);
  return memcmp(m, "\177ELF", 4) == 0;
}

/* A grandchild: drops the report pipe and every pipe (its reads and writes would upset the
 * parent's bounds), writes a junk program of its own to exec now and then, and runs
 * KID_CALLS calls. */
static void grandchild(void)
{
  isgrandchild = 1;
  for (int i = 0; i < NFD; i++)
    if (reserved(i) || fds[i].kind == F_PIPE_R || fds[i].kind == F_PIPE_W) {
      sys5(SYS_close, i, 0, 0, 0, 0);
      fds[i].kind = F_FREE;
    }
  for (int i = 0; i < MAXKIDS; i++)
    kids[i] = 0;
  rs ^= getpid() * 2654435761u;
  char junk[160];
  snprintf(junk, sizeof junk, "%s/g%d", root, getpid());
  for (int n = 0; n < KID_CALLS; n++) {
    struct call c;
    draw(&c);
    if (c.num == SYS_exec && chance(40)) {
      /* A file that starts like a program: an ELF header and program headers of junk. */
      unsigned char *h = (unsigned char *)arena + 64 * 1024;
      for (int i = 0; i < 256; i++)
        h[i] = rnd();
      memcpy(h, "\177ELF\1\1\1", 7);
      h[16] = 2; h[17] = 0; h[18] = 3; h[19] = 0;           /* executable, i386 */
      if (chance(70)) { h[28] = 52; h[29] = h[30] = h[31] = 0; }       /* phoff */
      if (chance(70)) { h[44] = below(4); h[45] = 0; }                 /* phnum */
      int fd = open(junk, O_CREAT | O_WRONLY | O_TRUNC);
      if (fd >= 0) {
        write(fd, h, 64 + below(192));
        close(fd);
      }
      c.a[0] = put(16 * 1024, junk);
    } else if (c.num == SYS_exec && c.a[0] - (unsigned)arena < ARENA && is_program(c.a[0])) {
      continue;                   /* a copy of a real program, read into a scratch file */
    }
    if (!pipe_safe(&c))
      continue;
    int r = sys5(c.num, c.a[0], c.a[1], c.a[2], c.a[3], c.a[4]);
    account(&c, r);
  }
  unlink(junk);
  _exit(below(100));
}

/* Kills grandchildren that have lived long (one that exec'd junk may loop), so that wait
 * does not wait for ever. */
static void reap_old(int all)
{
  unsigned now = uptime_ms();
  for (int i = 0; i < MAXKIDS; i++)
    if (kids[i] > 0 && (all || now - kidborn[i] > 500))
      kill(kids[i]);
}

static void fuzz(int procidx, unsigned count)
{
  idx = procidx;
  rs = seed * 2654435761u + (procidx + 1) * 40503u;
  if (!rs)
    rs = 1;
  for (int i = 0; i < 20; i++)
    rnd();
  if (verbose && procidx == 0)
    dup2(1, LOG_FD);
  for (int i = 0; i < 3; i++)
    close(i);                      /* the console: see the essay */
  snprintf(mydir, sizeof mydir, "%s/c%d", root, procidx);
  mkdir(mydir);
  chdir(mydir);
  while (calls < count) {
    struct call c;
    draw(&c);
    if (!pipe_safe(&c))
      continue;                    /* drawn again */
    if (c.num == SYS_wait)
      reap_old(0);
    if (verbose && procidx == 0)
      dprintf(LOG_FD, "sysfuzz: call %lu: %d %x %x %x %x %x\n", calls, c.num, c.a[0], c.a[1], c.a[2], c.a[3], c.a[4]);
    int r = sys5(c.num, c.a[0], c.a[1], c.a[2], c.a[3], c.a[4]);
    if (verbose && procidx == 0 && (r != 0 || c.num != SYS_fork))
      dprintf(LOG_FD, "sysfuzz: call %lu = %d\n", calls, r);
    if (r == 0 && c.num == SYS_fork)
      grandchild();
    calls++;
    if (r < 0 && r >= -4095 && c.num != SYS_sbrk)
      errors++;
    else if (c.num == SYS_sbrk && r < 0 && r >= -4095)
      errors++;
    account(&c, r);
  }
  reap_old(1);
  int st;
  while (live_kids() > 0) {
    int pid = wait(&st);
    if (pid < 0)
      break;
    for (int i = 0; i < MAXKIDS; i++)
      if (kids[i] == pid)
        kids[i] = 0;
    if (st >= 128 && st != SIG_STATUS(SIGKILL))
      kidfaults++;
  }
  char line[96];
  int n = snprintf(line, sizeof line, "%lu %lu %lu %lu\n", calls, errors, forks, kidfaults);
  sys5(SYS_write, REPORT_FD, (unsigned)line, n, 0, 0);
  _exit(0);
}

/* Removes the scratch directory and everything in it (the fuzzers may have nested it). */
static int rmtree(const char *path, int depth)
{
  struct stat st;
  if (stat(path, &st) < 0)
    return -1;
  if (st.type == T_DIR && depth < 64) {
    int fd = open(path, O_RDONLY);
    if (fd >= 0) {
      struct dirent de;
      char names[64][DIRNAME_MAX + 1];
      for (;;) {
        int k = 0;
        while (k < 64 && readdir(fd, &de) > 0)
          if (strcmp(de.name, ".") && strcmp(de.name, ".."))
            strcpy(names[k++], de.name);
        if (k == 0)
          break;
        for (int i = 0; i < k; i++) {
          char sub[512];
          snprintf(sub, sizeof sub, "%s/%s", path, names[i]);
          rmtree(sub, depth + 1);
        }
        lseek(fd, 0, SEEK_SET);
        if (k < 64)
          break;
      }
      close(fd);
    }
    return rmdir(path);
  }
  return unlink(path);
}

static void usage(void)
{
  printf("usage: sysfuzz [-p PROCS] [-v] SEED COUNT\n"
         "  PROCS processes (1..%d, default 3) each make COUNT system calls drawn from SEED:\n"
         "  every call number and bad ones, bad pointers, lengths, fds and paths, in a scratch\n"
         "  directory /tmp/fuzz.SEED (removed at the end). Exit 0 if all finished unkilled.\n"
         "  -v: print process 0's calls (number and arguments) as it makes them\n", MAXPROCS);
  exit(2);
}

int main(int argc, char **argv)
{
  int procs = 3, i = 1;
  for (; i < argc && argv[i][0] == '-'; i++) {
    if (strcmp(argv[i], "-p") == 0 && i + 1 < argc)
      procs = atoi(argv[++i]);
    else if (strcmp(argv[i], "-v") == 0)
      verbose = 1;
    else
      usage();
  }
  if (argc - i != 2 || procs < 1 || procs > MAXPROCS)
    usage();
  char *end;
  seed = strtoul(argv[i], &end, 0);
  if (*end)
    usage();
  unsigned long count = strtoul(argv[i + 1], &end, 0);
  if (*end)
    usage();

  snprintf(root, sizeof root, "/tmp/fuzz.%u", seed);
  if (stat(root, &(struct stat){0}) == 0)
    rmtree(root, 0);
  if (mkdir(root) < 0) {
    printf("sysfuzz: cannot make %s: %s\n", root, strerror(errno));
    return 1;
  }
  /* The arena: page-aligned at the top of the heap, above all of the program's own data. */
  unsigned b = curbrk();
  sbrk(PGROUNDUP_(b) - b);
  arena = sbrk(ARENA);
  if (arena == (char *)-1) {
    printf("sysfuzz: no memory for the arena\n");
    return 1;
  }
  memset(arena, 0, ARENA);
  floorbrk = curbrk();

  printf("sysfuzz: seed %u, %d processes, %lu calls each\n", seed, procs, count);
  int pid[MAXPROCS], rfd[MAXPROCS];
  for (int k = 0; k < procs; k++) {
    int p[2];
    if (pipe(p) < 0) {
      printf("sysfuzz: pipe: %s\n", strerror(errno));
      return 1;
    }
    fflush(0);
    pid[k] = fork();
    if (pid[k] == 0) {
      for (int j = 0; j < k; j++)
        close(rfd[j]);
      close(p[0]);
      if (p[1] != REPORT_FD) {
        dup2(p[1], REPORT_FD);
        close(p[1]);
      }
      fuzz(k, count);
    }
    close(p[1]);
    rfd[k] = p[0];
    if (pid[k] < 0) {
      printf("sysfuzz: fork: %s\n", strerror(errno));
      return 1;
    }
  }
  unsigned long tcalls = 0, terrs = 0, tforks = 0, tkidfaults = 0;
  int bad = 0, finished = 0;
  for (int k = 0; k < procs; k++) {
    char buf[128];
    int n = 0, r;
    while (n < (int)sizeof buf - 1 && (r = read(rfd[k], buf + n, sizeof buf - 1 - n)) > 0)
      n += r;
    buf[n] = 0;
    close(rfd[k]);
    unsigned long v[4];
    char *p = buf;
    int got = 0;
    for (; got < 4; got++) {
      char *e;
      v[got] = strtoul(p, &e, 10);
      if (e == p)
        break;
      p = e;
    }
    if (got == 4) {
      printf("sysfuzz: process %d: %lu calls, %lu errors, %lu forks, %lu grandchildren killed\n",
             k, v[0], v[1], v[2], v[3]);
      tcalls += v[0]; terrs += v[1]; tforks += v[2]; tkidfaults += v[3];
      finished++;
    } else {
      printf("sysfuzz: process %d: no report\n", k);
    }
  }
  int killed = 0;
  for (int k = 0; k < procs; k++) {
    int st;
    int w = wait(&st);
    if (w > 0 && st != 0) {
      printf("sysfuzz: pid %d exited with status %d%s\n", w, st, st >= 128 ? " (killed)" : "");
      if (st >= 128)
        killed++;
      bad++;
    }
  }
  int rm = rmtree(root, 0);
  printf("sysfuzz: %lu calls, %lu errors, %lu forks; %d of %d processes finished, %d killed; "
         "%lu grandchildren killed; scratch %s\n", tcalls, terrs, tforks, finished, procs, killed,
         tkidfaults, rm == 0 ? "removed" : "NOT removed");
  return bad || finished != procs || rm != 0;
}
