/* usertests [-l] [NAME...]: tests of the system-call interface, run inside the guest.
 *
 * Each test runs in a child process with its own working directory under /usertests.tmp;
 * the parent waits for it and counts it passed when it exits with status 0. A failing test
 * writes its reason into a pipe the parent reads, so the parent can print
 *   test NAME: OK            or   test NAME: FAILED (reason)
 * and finally "usertests: N passed, M failed". A watchdog process kills a test that hangs.
 * Afterwards the kernel counters must show that no physical frames and no disk blocks
 * leaked: free frames plus frames held by the block cache (which the cache gives back on
 * demand) and free disk blocks are compared with their values before the run.
 *
 * -l lists the tests. With names, only those tests run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys.h>
#include <signal.h>

#define WORKDIR   "/usertests.tmp"
#define SELF      "/bin/usertests"
#define NOFILE    16               /* open files per process (kernel/proc.h) */
#define BAD_HIGH  ((void *)0xC0000000)   /* KERNBASE: never a user address */
#define BAD_GAP   ((void *)0x50000000)   /* between the heap and the stack: unmapped */

static int reason_fd = -1;   /* where a failing test writes why (inherited by its children) */
static const char *current;  /* the running test's name */

/* ---- failing ---- */

static void fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

static void fail(const char *fmt, ...)
{
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(msg, sizeof(msg) - 1, fmt, ap);
  va_end(ap);
  if (n > (int)sizeof(msg) - 2)
    n = sizeof(msg) - 2;
  msg[n++] = '\n';
  if (reason_fd >= 0)
    write(reason_fd, msg, n);
  else
    write(2, msg, n);
  exit(1);
}

#define CHECK(cond, ...) do { if (!(cond)) fail(__VA_ARGS__); } while (0)

static const char *errname(int e)
{
  static const char *names[] = {
    [0] = "0", [EPERM] = "EPERM", [ENOENT] = "ENOENT", [ESRCH] = "ESRCH",
    [EINTR] = "EINTR", [EIO] = "EIO", [E2BIG] = "E2BIG", [ENOEXEC] = "ENOEXEC",
    [EBADF] = "EBADF", [ECHILD] = "ECHILD", [EAGAIN] = "EAGAIN", [ENOMEM] = "ENOMEM",
    [EACCES] = "EACCES", [EFAULT] = "EFAULT", [EBUSY] = "EBUSY", [EEXIST] = "EEXIST",
    [EXDEV] = "EXDEV", [ENOTDIR] = "ENOTDIR", [EISDIR] = "EISDIR", [EINVAL] = "EINVAL",
    [ENFILE] = "ENFILE", [EMFILE] = "EMFILE", [ETXTBSY] = "ETXTBSY", [EFBIG] = "EFBIG",
    [ENOSPC] = "ENOSPC", [ESPIPE] = "ESPIPE", [EROFS] = "EROFS", [EMLINK] = "EMLINK",
    [EPIPE] = "EPIPE", [ERANGE] = "ERANGE", [ENAMETOOLONG] = "ENAMETOOLONG",
    [ENOSYS] = "ENOSYS", [ENOTEMPTY] = "ENOTEMPTY", [ELOOP] = "ELOOP", [ENOSWAP] = "ENOSWAP",
  };
  if (e >= 0 && e < (int)(sizeof(names) / sizeof(names[0])) && names[e])
    return names[e];
  static char buf[16];
  snprintf(buf, sizeof(buf), "errno %d", e);
  return buf;
}

/* The call must have failed with exactly this errno. */
#define EXPECT_ERR(call, err) do {                                                   \
    errno = 0;                                                                       \
    int r_ = (int)(call);                                                            \
    if (r_ != -1 || errno != (err))                                                  \
      fail("%s: returned %d (%s), expected -1 %s", #call, r_,                        \
           r_ == -1 ? errname(errno) : "no error", errname(err));                    \
  } while (0)

/* The call must have succeeded (returned >= 0); gives its result. */
static int ok_(int r, const char *what)
{
  if (r < 0)
    fail("%s: %s", what, errname(errno));
  return r;
}
#define OK(call) ok_((int)(call), #call)

/* ---- helpers ---- */

static void write_file(const char *path, const void *data, int n)
{
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC);
  if (fd < 0)
    fail("create %s: %s", path, errname(errno));
  int w = write_all(fd, data, n);
  if (w != n)
    fail("write %s: %d of %d (%s)", path, w, n, errname(errno));
  OK(close(fd));
}

/* Reads the whole file into buf (at most max bytes); returns the length. */
static int read_file(const char *path, char *buf, int max)
{
  int fd = open(path, O_RDONLY);
  if (fd < 0)
    fail("open %s: %s", path, errname(errno));
  int n = read_full(fd, buf, max);
  if (n < 0)
    fail("read %s: %s", path, errname(errno));
  OK(close(fd));
  return n;
}

static void expect_content(const char *path, const char *want)
{
  char buf[512];
  int n = read_file(path, buf, sizeof(buf) - 1);
  buf[n] = 0;
  if (n != (int)strlen(want) || memcmp(buf, want, n) != 0)
    fail("%s holds \"%s\", expected \"%s\"", path, buf, want);
}

static int file_size(const char *path)
{
  struct stat st;
  if (stat(path, &st) < 0)
    fail("stat %s: %s", path, errname(errno));
  return st.size;
}

/* The byte at offset off of test file number salt: varies with every byte and block. */
static unsigned char pattern(unsigned off, unsigned salt)
{
  return (off ^ (off >> 8) ^ (off >> 16) ^ (off >> 24) * 7 ^ salt) & 0xff;
}

static void fill_pattern(unsigned char *buf, unsigned off, unsigned n, unsigned salt)
{
  for (unsigned i = 0; i < n; i++)
    buf[i] = pattern(off + i, salt);
}

static void check_pattern(const unsigned char *buf, unsigned off, unsigned n, unsigned salt,
                          const char *what)
{
  for (unsigned i = 0; i < n; i++)
    if (buf[i] != pattern(off + i, salt))
      fail("%s: byte at offset %u is %u, expected %u", what, off + i, buf[i],
           pattern(off + i, salt));
}

/* Forks, failing the test if that is impossible. */
static int xfork(void)
{
  int pid = fork();
  if (pid < 0)
    fail("fork: %s", errname(errno));
  return pid;
}

/* Waits for pid and returns its status; fails on any other child or an error. */
static int xwait(int pid)
{
  int status = -12345;
  int got = wait(&status);
  if (got < 0)
    fail("wait: %s", errname(errno));
  if (got != pid)
    fail("wait returned pid %d, expected %d", got, pid);
  return status;
}

/* name's value in the counter text buf (kstat's), or -1. */
static long counter_in(const char *buf, const char *name)
{
  int len = strlen(name);
  for (const char *line = buf; *line;) {
    if (strncmp(line, name, len) == 0 && line[len] == ' ')
      return strtol(line + len + 1, 0, 10);
    const char *eol = strchr(line, '\n');
    if (!eol)
      break;
    line = eol + 1;
  }
  return -1;
}

/* Free disk blocks as the file system sees them: backing store for processes (reserved as
 * they grow or fork, by the VM daemon at any moment) is not its to account for, so it counts
 * as free. Both values come from one reading of the counters: read one at a time, a
 * reservation or removal between the two readings counted its blocks twice or not at all. */
static long free_blocks(void)
{
  static char buf[8192];
  int n = kstat(buf, sizeof(buf) - 1);
  if (n < 0)
    return -1;
  buf[n] = 0;
  long free = counter_in(buf, "fs.disk.blocks.free"), swap = counter_in(buf, "vm.swap.blocks");
  return free < 0 ? -1 : free + (swap > 0 ? swap : 0);
}

static unsigned char bigbuf[64 * 1024];

/* ---- error cases ---- */

static void test_badfd(void)
{
  char buf[16];
  struct stat st;
  struct dirent de;
  int bad[] = {-1, NOFILE, 100, 12};   /* 12: in range but not open */
  for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    int fd = bad[i];
    EXPECT_ERR(read(fd, buf, 1), EBADF);
    EXPECT_ERR(write(fd, "x", 1), EBADF);
    EXPECT_ERR(close(fd), EBADF);
    EXPECT_ERR(fstat(fd, &st), EBADF);
    EXPECT_ERR(lseek(fd, 0, SEEK_SET), EBADF);
    EXPECT_ERR(dup(fd), EBADF);
    EXPECT_ERR(dup2(fd, 5), EBADF);
    EXPECT_ERR(fsync(fd), EBADF);
    EXPECT_ERR(readdir(fd, &de), EBADF);
  }
  /* fsync of something that is not a file: a pipe has no blocks to write. */
  int pfd[2];
  OK(pipe(pfd));
  EXPECT_ERR(fsync(pfd[0]), EINVAL);
  close(pfd[0]);
  close(pfd[1]);
  EXPECT_ERR(dup2(0, -1), EBADF);
  EXPECT_ERR(dup2(0, NOFILE), EBADF);

  /* The access mode counts. */
  write_file("f", "data", 4);
  int fd = OK(open("f", O_RDONLY));
  EXPECT_ERR(write(fd, "x", 1), EBADF);
  OK(close(fd));
  fd = OK(open("f", O_WRONLY));
  EXPECT_ERR(read(fd, buf, 1), EBADF);
  OK(close(fd));
  EXPECT_ERR(close(fd), EBADF);   /* closing twice */
  int p[2];
  OK(pipe(p));
  EXPECT_ERR(write(p[0], "x", 1), EBADF);
  EXPECT_ERR(read(p[1], buf, 1), EBADF);
  OK(close(p[0]));
  OK(close(p[1]));
  OK(unlink("f"));
}

static void test_efault(void)
{
  char buf[64];
  struct stat st;
  struct dirent de;
  write_file("f", "0123456789abcdef0123456789abcdef", 32);
  int fd = OK(open("f", O_RDWR));
  EXPECT_ERR(read(fd, 0, 10), EFAULT);
  EXPECT_ERR(read(fd, BAD_HIGH, 10), EFAULT);
  EXPECT_ERR(read(fd, BAD_GAP, 10), EFAULT);
  EXPECT_ERR(read(fd, (void *)0xFFFFF000, 10), EFAULT);
  /* A buffer that starts in the stack and runs into the kernel. */
  EXPECT_ERR(read(fd, (char *)BAD_HIGH - 8, 16), EFAULT);
  EXPECT_ERR(write(fd, 0, 10), EFAULT);
  EXPECT_ERR(write(fd, BAD_HIGH, 10), EFAULT);
  EXPECT_ERR(write(fd, BAD_GAP, 10), EFAULT);
  EXPECT_ERR(write(fd, (char *)BAD_HIGH - 8, 16), EFAULT);
  EXPECT_ERR(fstat(fd, BAD_HIGH), EFAULT);
  EXPECT_ERR(fstat(fd, 0), EFAULT);
  OK(close(fd));

  EXPECT_ERR(open(0, O_RDONLY), EFAULT);
  EXPECT_ERR(open(BAD_HIGH, O_RDONLY), EFAULT);
  EXPECT_ERR(open(BAD_GAP, O_RDONLY), EFAULT);
  EXPECT_ERR(stat(0, &st), EFAULT);
  EXPECT_ERR(stat("f", 0), EFAULT);
  EXPECT_ERR(stat("f", BAD_HIGH), EFAULT);
  EXPECT_ERR(unlink(0), EFAULT);
  EXPECT_ERR(mkdir(BAD_HIGH), EFAULT);
  EXPECT_ERR(rmdir(0), EFAULT);
  EXPECT_ERR(chdir(0), EFAULT);
  EXPECT_ERR(rename(0, "g"), EFAULT);
  EXPECT_ERR(rename("f", BAD_HIGH), EFAULT);
  EXPECT_ERR(pipe(0), EFAULT);
  EXPECT_ERR(pipe(BAD_HIGH), EFAULT);
  EXPECT_ERR(getcwd(BAD_HIGH, 64) ? 0 : -1, EFAULT);
  EXPECT_ERR(kstat(BAD_HIGH, 64), EFAULT);
  EXPECT_ERR(kstat(0, 64), EFAULT);
  EXPECT_ERR(ps(BAD_HIGH, 4), EFAULT);
  EXPECT_ERR(sysctl(BAD_HIGH, 0, buf, sizeof(buf)), EFAULT);
  fd = OK(open(".", O_RDONLY));
  EXPECT_ERR(readdir(fd, 0), EFAULT);
  EXPECT_ERR(readdir(fd, BAD_HIGH), EFAULT);
  OK(close(fd));

  char *bad_argv[] = {"echo", BAD_HIGH, 0};
  EXPECT_ERR(exec(0, bad_argv), EFAULT);
  EXPECT_ERR(exec("/bin/echo", BAD_HIGH), EFAULT);
  EXPECT_ERR(exec("/bin/echo", bad_argv), EFAULT);

  /* Still alive and the file untouched. */
  expect_content("f", "0123456789abcdef0123456789abcdef");
  (void)de;
  OK(unlink("f"));
}

static void test_enoent(void)
{
  struct stat st;
  EXPECT_ERR(open("nosuch", O_RDONLY), ENOENT);
  EXPECT_ERR(open("nosuch", O_RDWR), ENOENT);
  EXPECT_ERR(open("nosuchdir/f", O_CREAT | O_RDWR), ENOENT);
  EXPECT_ERR(open("", O_RDONLY), ENOENT);
  EXPECT_ERR(stat("nosuch", &st), ENOENT);
  EXPECT_ERR(unlink("nosuch"), ENOENT);
  EXPECT_ERR(rmdir("nosuch"), ENOENT);
  EXPECT_ERR(chdir("nosuch"), ENOENT);
  EXPECT_ERR(mkdir("nosuch/d"), ENOENT);
  EXPECT_ERR(rename("nosuch", "other"), ENOENT);
  write_file("f", "x", 1);
  EXPECT_ERR(rename("f", "nosuchdir/f"), ENOENT);
  OK(unlink("f"));
  char *argv[] = {"nosuch", 0};
  EXPECT_ERR(exec("/bin/nosuch", argv), ENOENT);
}

static void test_eexist(void)
{
  OK(mkdir("d"));
  EXPECT_ERR(mkdir("d"), EEXIST);
  EXPECT_ERR(mkdir("/"), EEXIST);
  EXPECT_ERR(mkdir("."), EEXIST);
  write_file("f", "x", 1);
  EXPECT_ERR(mkdir("f"), EEXIST);
  EXPECT_ERR(open("f", O_CREAT | O_EXCL | O_RDWR), EEXIST);
  EXPECT_ERR(open("d", O_CREAT | O_EXCL | O_RDWR), EEXIST);
  int fd = OK(open("g", O_CREAT | O_EXCL | O_RDWR));
  OK(close(fd));
  EXPECT_ERR(open("g", O_CREAT | O_EXCL | O_WRONLY), EEXIST);
  OK(unlink("f"));
  OK(unlink("g"));
  OK(rmdir("d"));
}

static void test_enotdir(void)
{
  struct stat st;
  struct dirent de;
  write_file("f", "x", 1);
  EXPECT_ERR(open("f/x", O_RDONLY), ENOTDIR);
  EXPECT_ERR(open("f/x", O_CREAT | O_RDWR), ENOTDIR);
  EXPECT_ERR(stat("f/x", &st), ENOTDIR);
  EXPECT_ERR(mkdir("f/x"), ENOTDIR);
  EXPECT_ERR(chdir("f"), ENOTDIR);
  EXPECT_ERR(rmdir("f"), ENOTDIR);
  int fd = OK(open("f", O_RDONLY));
  EXPECT_ERR(readdir(fd, &de), ENOTDIR);
  OK(close(fd));
  OK(mkdir("d"));
  EXPECT_ERR(rename("d", "f"), ENOTDIR);   /* a directory cannot replace a file */
  OK(rmdir("d"));
  OK(unlink("f"));
}

static void test_eisdir(void)
{
  OK(mkdir("d"));
  EXPECT_ERR(open("d", O_WRONLY), EISDIR);
  EXPECT_ERR(open("d", O_RDWR), EISDIR);
  EXPECT_ERR(open("d", O_WRONLY | O_CREAT | O_TRUNC), EISDIR);
  EXPECT_ERR(unlink("d"), EISDIR);
  write_file("f", "x", 1);
  EXPECT_ERR(rename("f", "d"), EISDIR);    /* a file cannot replace a directory */
  int fd = OK(open("d", O_RDONLY));        /* reading a directory's entries is allowed */
  OK(close(fd));
  OK(unlink("f"));
  OK(rmdir("d"));
}

static void test_enotempty(void)
{
  OK(mkdir("d"));
  write_file("d/f", "x", 1);
  EXPECT_ERR(rmdir("d"), ENOTEMPTY);
  OK(unlink("d/f"));
  OK(mkdir("d/e"));
  EXPECT_ERR(rmdir("d"), ENOTEMPTY);
  OK(mkdir("e"));
  EXPECT_ERR(rename("e", "d"), ENOTEMPTY);  /* only an empty directory may be replaced */
  OK(rmdir("d/e"));
  OK(rmdir("d"));
  OK(rmdir("e"));
}

static void test_enametoolong(void)
{
  char name[DIRNAME_MAX + 2];
  memset(name, 'n', DIRNAME_MAX + 1);
  name[DIRNAME_MAX + 1] = 0;               /* one character too many */
  EXPECT_ERR(open(name, O_CREAT | O_RDWR), ENAMETOOLONG);
  EXPECT_ERR(mkdir(name), ENAMETOOLONG);

  /* The longest allowed name works. */
  name[DIRNAME_MAX] = 0;
  int fd = OK(open(name, O_CREAT | O_RDWR));
  OK(close(fd));
  struct stat st;
  OK(stat(name, &st));
  OK(unlink(name));

  /* A path far longer than any path buffer. */
  char *path = malloc(5000);
  CHECK(path, "malloc failed");
  memset(path, 'p', 4999);
  path[4999] = 0;
  EXPECT_ERR(open(path, O_RDONLY), ENAMETOOLONG);
  EXPECT_ERR(open(path, O_CREAT | O_RDWR), ENAMETOOLONG);
  for (int i = 1; i < 4999; i += 2)
    path[i] = '/';                         /* many short components, too long in total */
  EXPECT_ERR(stat(path, &st), ENAMETOOLONG);
  free(path);
}

static void test_espipe(void)
{
  int p[2];
  OK(pipe(p));
  EXPECT_ERR(lseek(p[0], 0, SEEK_SET), ESPIPE);
  EXPECT_ERR(lseek(p[1], 0, SEEK_CUR), ESPIPE);
  OK(close(p[0]));
  OK(close(p[1]));
}

static void test_epipe(void)
{
  int p[2];
  OK(pipe(p));
  OK(close(p[0]));
  EXPECT_ERR(write(p[1], "x", 1), EPIPE);
  OK(close(p[1]));

  /* The reader goes away while the writer is blocked on a full pipe. */
  OK(pipe(p));
  int pid = xfork();
  if (pid == 0) {
    close(p[1]);
    sleep_ms(200);
    exit(0);   /* closes the read end */
  }
  OK(close(p[0]));
  memset(bigbuf, 'w', sizeof(bigbuf));
  int total = 0, r;
  while ((r = write(p[1], bigbuf, sizeof(bigbuf))) > 0)
    total += r;
  CHECK(r == -1 && errno == EPIPE, "blocked writer got %d (%s), expected EPIPE", r,
        errname(errno));
  OK(close(p[1]));
  CHECK(xwait(pid) == 0, "reader failed");
}

static void test_echild(void)
{
  int st;
  EXPECT_ERR(wait(&st), ECHILD);
  EXPECT_ERR(wait(0), ECHILD);
  int pid = xfork();
  if (pid == 0)
    exit(0);
  xwait(pid);
  EXPECT_ERR(wait(0), ECHILD);
}

static void test_esrch(void)
{
  EXPECT_ERR(kill(99999), ESRCH);
  EXPECT_ERR(kill(-99999), ESRCH);          /* no such process group */
  EXPECT_ERR(kill((int)0x80000000), ESRCH);  /* a group number that does not negate */
  /* A process that has exited and been reaped is gone. */
  int pid = xfork();
  if (pid == 0)
    exit(0);
  xwait(pid);
  EXPECT_ERR(kill(pid), ESRCH);
}

static void test_einval(void)
{
  write_file("f", "0123456789", 10);
  int fd = OK(open("f", O_RDWR));
  EXPECT_ERR(lseek(fd, 0, 3), EINVAL);
  EXPECT_ERR(lseek(fd, 0, -1), EINVAL);
  EXPECT_ERR(lseek(fd, -1, SEEK_SET), EINVAL);
  EXPECT_ERR(lseek(fd, -11, SEEK_END), EINVAL);
  CHECK(lseek(fd, 0, SEEK_CUR) == 0, "a failed lseek moved the offset");
  OK(close(fd));
  OK(unlink("f"));
}

static void test_enomem(void)
{
  char *before = sbrk(0);
  errno = 0;
  /* 3 GB does not fit the int argument; ask for as much as it can carry, then the rest. */
  void *r = sbrk(0x7fffffff);
  CHECK(r == (void *)-1 && errno == ENOMEM, "sbrk(2 GB) gave %p (%s), expected ENOMEM", r,
        errname(errno));
  CHECK(sbrk(0) == before, "a failed sbrk moved the break");
  r = sbrk(0x60000000);   /* 1.5 GB: would run into the stack region */
  if (r != (void *)-1) {
    r = sbrk(0x60000000);   /* 3 GB in total: past the kernel boundary */
    CHECK(r == (void *)-1 && errno == ENOMEM, "sbrk to 3 GB gave %p (%s), expected ENOMEM",
          r, errname(errno));
    sbrk(-0x60000000);
  } else {
    /* It fits the address space, not the disk's room for backing store. */
    CHECK(errno == ENOSWAP, "sbrk(1.5 GB) failed with %s, expected ENOSWAP", errname(errno));
  }
  CHECK(sbrk(0) == before, "the break is %p, expected %p", sbrk(0), before);
  /* A failed sbrk keeps no disk blocks. Keeping every free one until the process exits would
   * make the VM daemon kill the next process it reserves backing store for. */
  long raw = kstat_get("fs.disk.blocks.free");
  int fd = OK(open("f", O_CREAT | O_RDWR));
  int n = write(fd, bigbuf, sizeof(bigbuf));
  CHECK(n == (int)sizeof(bigbuf), "after the failed sbrks, writing 64 KB gave %d (%s; %ld blocks free)",
        n, n < 0 ? errname(errno) : "short", raw);
  OK(close(fd));
  OK(unlink("f"));
  /* A huge malloc fails cleanly. */
  CHECK(malloc(0x70000000) == 0, "malloc(1.75 GB) succeeded");
}

static void test_exec_errors(void)
{
  char *argv[] = {"x", 0};
  EXPECT_ERR(exec("/bin/nosuch", argv), ENOENT);
  EXPECT_ERR(exec("nosuch", argv), ENOENT);

  write_file("text", "#!/bin/sh\necho not an ELF file\n", 31);
  EXPECT_ERR(exec("text", argv), ENOEXEC);
  write_file("empty", "", 0);
  EXPECT_ERR(exec("empty", argv), ENOEXEC);

  /* The first bytes of a real program: a valid header whose segments run past the end.
   * The kernel may refuse it (ENOEXEC) or, loading code on demand, start it and kill it at
   * its first fault; it must not run it to a normal exit, nor fall over. */
  int n = read_file("/bin/echo", (char *)bigbuf, 200);
  CHECK(n == 200, "/bin/echo is only %d bytes", n);
  write_file("trunc", bigbuf, 200);
  int pid = xfork();
  if (pid == 0) {
    exec("trunc", argv);
    /* 1 + errno: below 128, where a killed process's statuses start (128 + the signal; 100 +
     * errno would collide with them: 139, killed at its first fault, would read as ENOTEMPTY). */
    exit(errno == ENOEXEC ? 0 : 1 + (errno < 126 ? errno : 126));
  }
  int st = xwait(pid);
  CHECK(st == 0 || st < 0 || st >= 128, "exec of a truncated program failed with %s, expected ENOEXEC "
        "(or it ran to a normal exit, status %d)", errname(st - 1), st);
  /* A directory is not a program. */
  errno = 0;
  int r = exec("/bin", argv);
  CHECK(r == -1 && (errno == EACCES || errno == EISDIR || errno == ENOEXEC),
        "exec(/bin) gave %d (%s)", r, errname(errno));

  /* After all those failures this process still works. */
  expect_content("text", "#!/bin/sh\necho not an ELF file\n");
  OK(unlink("text"));
  OK(unlink("empty"));
  OK(unlink("trunc"));
}

/* A program being run cannot be opened for writing (ETXTBSY). /bin refuses writes to every
 * program anyway (EPERM, fs/protect.c, unless fs.bin_writable=1), so the program run here
 * is a copy of ourselves in the working directory, started with --hold: it says it runs,
 * then waits for the end of its standard input. */
static void test_etxtbsy(void)
{
  int modes[] = {O_WRONLY, O_RDWR, O_WRONLY | O_TRUNC};
  for (int i = 0; i < 3; i++) {
    errno = 0;
    CHECK(open(SELF, modes[i]) < 0 && (errno == EPERM || errno == ETXTBSY),
          "open(" SELF ", %d) for writing: %s", modes[i], errname(errno));
  }
  int fd = OK(open(SELF, O_RDONLY));
  char magic[4];
  CHECK(read(fd, magic, 4) == 4 && memcmp(magic, "\177ELF", 4) == 0, "bad ELF magic");
  OK(close(fd));

  int in = OK(open(SELF, O_RDONLY)), out = OK(open("self", O_CREAT | O_WRONLY | O_TRUNC));
  int n;
  while ((n = read(in, bigbuf, sizeof bigbuf)) > 0)
    CHECK(write_all(out, bigbuf, n) == n, "copy of " SELF ": %s", errname(errno));
  CHECK(n == 0, "read " SELF ": %s", errname(errno));
  OK(close(in));
  OK(close(out));
  int go[2], ready[2];
  OK(pipe(go));
  OK(pipe(ready));
  int pid = xfork();
  if (pid == 0) {
    dup2(go[0], 0);
    dup2(ready[1], 1);
    close(go[0]); close(go[1]); close(ready[0]); close(ready[1]);
    char *argv[] = {"self", "--hold", 0};
    exec("self", argv);
    fail("exec self: %s", errname(errno));
  }
  OK(close(go[0]));
  OK(close(ready[1]));
  char c;
  CHECK(read(ready[0], &c, 1) == 1, "the copy did not start");
  for (int i = 0; i < 3; i++)
    EXPECT_ERR(open("self", modes[i]), ETXTBSY);
  OK(close(go[1]));           /* end of its input: it exits */
  CHECK(xwait(pid) == 0, "the copy failed");
  OK(close(ready[0]));
  OK(close(OK(open("self", O_WRONLY))));       /* no longer running */
  OK(unlink("self"));
}

/* ---- files ---- */

static void test_createtrunc(void)
{
  struct stat st;
  char buf[64];
  int fd = OK(open("f", O_CREAT | O_WRONLY));
  CHECK(write(fd, "hello world", 11) == 11, "write");
  OK(fstat(fd, &st));
  CHECK(st.type == T_FILE && st.size == 11, "fstat: type %d size %u", st.type, st.size);
  OK(close(fd));
  OK(stat("f", &st));
  CHECK(st.type == T_FILE && st.size == 11 && st.nlink == 1,
        "stat: type %d size %u nlink %d", st.type, st.size, st.nlink);

  fd = OK(open("f", O_RDONLY));
  CHECK(read(fd, buf, sizeof(buf)) == 11 && memcmp(buf, "hello world", 11) == 0, "read back");
  CHECK(read(fd, buf, sizeof(buf)) == 0, "read at the end of file is not 0");
  OK(close(fd));

  /* Opening for writing without O_TRUNC overwrites in place. */
  fd = OK(open("f", O_WRONLY));
  CHECK(write(fd, "HE", 2) == 2, "write");
  OK(close(fd));
  expect_content("f", "HEllo world");

  /* O_CREAT on an existing file keeps it. */
  fd = OK(open("f", O_CREAT | O_RDWR));
  OK(close(fd));
  expect_content("f", "HEllo world");

  /* O_TRUNC empties it. */
  fd = OK(open("f", O_WRONLY | O_TRUNC));
  OK(fstat(fd, &st));
  CHECK(st.size == 0, "size after O_TRUNC is %u", st.size);
  CHECK(write(fd, "abc", 3) == 3, "write");
  OK(close(fd));
  expect_content("f", "abc");

  /* O_APPEND writes at the end whatever the offset. */
  fd = OK(open("f", O_WRONLY | O_APPEND));
  OK(lseek(fd, 0, SEEK_SET));
  CHECK(write(fd, "def", 3) == 3, "append");
  CHECK(lseek(fd, 0, SEEK_CUR) == 6, "offset after append is %d", lseek(fd, 0, SEEK_CUR));
  OK(lseek(fd, 1, SEEK_SET));
  CHECK(write(fd, "gh", 2) == 2, "append");
  OK(close(fd));
  expect_content("f", "abcdefgh");

  /* O_RDWR: reads and writes share the offset. */
  fd = OK(open("f", O_RDWR | O_TRUNC));
  CHECK(write(fd, "12345", 5) == 5, "write");
  OK(lseek(fd, 1, SEEK_SET));
  CHECK(read(fd, buf, 2) == 2 && memcmp(buf, "23", 2) == 0, "read in the middle");
  CHECK(write(fd, "x", 1) == 1, "write in the middle");
  OK(close(fd));
  expect_content("f", "123x5");

  /* Two descriptors on one file have their own offsets but see each other's data. */
  int a = OK(open("f", O_RDWR)), b = OK(open("f", O_RDONLY));
  CHECK(write(a, "AB", 2) == 2, "write");
  CHECK(read(b, buf, 5) == 5 && memcmp(buf, "AB3x5", 5) == 0, "second descriptor");
  OK(close(a));
  OK(close(b));

  /* Zero-length operations. */
  fd = OK(open("f", O_RDWR));
  CHECK(write(fd, "", 0) == 0, "write of 0 bytes");
  CHECK(read(fd, buf, 0) == 0, "read of 0 bytes");
  OK(close(fd));

  OK(unlink("f"));
  EXPECT_ERR(open("f", O_RDONLY), ENOENT);
  EXPECT_ERR(unlink("f"), ENOENT);
}

static void test_lseek(void)
{
  char buf[64];
  write_file("f", "0123456789", 10);
  int fd = OK(open("f", O_RDWR));
  CHECK(lseek(fd, 0, SEEK_END) == 10, "SEEK_END");
  CHECK(lseek(fd, -3, SEEK_CUR) == 7, "SEEK_CUR back");
  CHECK(read(fd, buf, 10) == 3 && memcmp(buf, "789", 3) == 0, "read after seek");
  CHECK(lseek(fd, 2, SEEK_SET) == 2, "SEEK_SET");
  CHECK(lseek(fd, 3, SEEK_CUR) == 5, "SEEK_CUR forward");
  CHECK(read(fd, buf, 1) == 1 && buf[0] == '5', "read at 5");
  CHECK(lseek(fd, 100, SEEK_SET) == 100, "seek past the end");
  CHECK(read(fd, buf, 10) == 0, "read past the end is not 0");
  CHECK(file_size("f") == 10, "seeking changed the size");

  /* Writing past the end leaves a hole that reads as zeros. */
  CHECK(lseek(fd, 20000, SEEK_SET) == 20000, "seek to 20000");
  CHECK(write(fd, "Z", 1) == 1, "write after the hole");
  CHECK(file_size("f") == 20001, "size with a hole is %d", file_size("f"));
  OK(lseek(fd, 0, SEEK_SET));
  int n = read_full(fd, bigbuf, sizeof(bigbuf));
  CHECK(n == 20001, "read %d bytes of 20001", n);
  CHECK(memcmp(bigbuf, "0123456789", 10) == 0, "start changed");
  for (int i = 10; i < 20000; i++)
    CHECK(bigbuf[i] == 0, "hole byte %d is %d", i, bigbuf[i]);
  CHECK(bigbuf[20000] == 'Z', "last byte");
  OK(close(fd));
  OK(unlink("f"));
}

/* Data blocks plus indirect blocks for a file of nblocks with no holes. */
static unsigned blocks_needed(unsigned nblocks)
{
  unsigned n = nblocks;
  if (nblocks > 10)
    n++;                                    /* the single-indirect block */
  if (nblocks > 10 + 1024)
    n += 1 + (nblocks - 10 - 1024 + 1023) / 1024;   /* double-indirect and its children */
  return n;
}

static void write_big(const char *path, unsigned size, unsigned salt)
{
  int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC);
  if (fd < 0)
    fail("create %s: %s", path, errname(errno));
  /* Chunk sizes that are not block multiples, so writes straddle block boundaries. */
  static const unsigned chunks[] = {4096, 1000, 8192 + 17, 3, 65536, 4095, 40000};
  unsigned off = 0, k = 0;
  while (off < size) {
    unsigned n = chunks[k++ % 7];
    if (n > size - off)
      n = size - off;
    fill_pattern(bigbuf, off, n, salt);
    int w = write(fd, bigbuf, n);
    if (w != (int)n)
      fail("write at %u: %d of %u (%s)", off, w, n, w < 0 ? errname(errno) : "short");
    off += n;
  }
  OK(close(fd));
}

static void read_big(const char *path, unsigned size, unsigned salt)
{
  int fd = open(path, O_RDONLY);
  if (fd < 0)
    fail("open %s: %s", path, errname(errno));
  static const unsigned chunks[] = {65536, 4096, 777, 12288 + 5};
  unsigned off = 0, k = 0;
  while (off < size) {
    unsigned n = chunks[k++ % 4];
    int r = read(fd, bigbuf, n);
    if (r <= 0)
      fail("read at %u: %d (%s)", off, r, r < 0 ? errname(errno) : "early end of file");
    check_pattern(bigbuf, off, r, salt, path);
    off += r;
  }
  CHECK(read(fd, bigbuf, 16) == 0, "data beyond the size");
  OK(close(fd));
}

static void check_at(int fd, unsigned off, unsigned n, unsigned salt)
{
  if (lseek(fd, off, SEEK_SET) != (int)off)
    fail("lseek to %u: %s", off, errname(errno));
  int r = read(fd, bigbuf, n);
  if (r != (int)n)
    fail("read of %u at %u gave %d", n, off, r);
  check_pattern(bigbuf, off, n, salt, "random read");
}

static void test_bigfile(void)
{
  const unsigned direct = 10 * 4096, indirect = direct + 1024 * 4096;
  struct stat st;

  /* Across the direct -> single-indirect boundary. */
  unsigned size1 = direct + 3 * 4096 + 123;
  write_big("big1", size1, 1);
  OK(stat("big1", &st));
  CHECK(st.size == size1, "big1 size %u, expected %u", st.size, size1);
  read_big("big1", size1, 1);

  /* Across the single -> double-indirect boundary. */
  unsigned size2 = indirect + 2 * 4096 + 555;
  long free0 = free_blocks();
  int fd = OK(open("big2", O_CREAT | O_RDWR));
  OK(close(fd));
  write_big("big2", size2, 2);
  OK(stat("big2", &st));
  CHECK(st.size == size2, "big2 size %u, expected %u", st.size, size2);
  unsigned want = blocks_needed((size2 + 4095) / 4096);
  CHECK(st.blocks == want, "big2 has %u blocks, expected %u (data and indirect)", st.blocks,
        want);
  long free1 = free_blocks();
  if (free0 >= 0 && free1 >= 0)
    CHECK(free0 - free1 == (long)want, "free disk blocks fell by %ld, expected %u",
          free0 - free1, want);
  read_big("big2", size2, 2);

  /* Reads straddling each boundary, and a rewrite across the last one. */
  fd = OK(open("big2", O_RDWR));
  check_at(fd, direct - 2, 4, 2);
  check_at(fd, indirect - 3, 6, 2);
  check_at(fd, indirect + 4096 - 1, 4097, 2);
  check_at(fd, size2 - 10, 10, 2);
  fill_pattern(bigbuf, indirect - 100, 200, 2);
  for (int i = 0; i < 200; i++)
    bigbuf[i] ^= 0xff;
  OK(lseek(fd, indirect - 100, SEEK_SET));
  CHECK(write(fd, bigbuf, 200) == 200, "rewrite across the boundary");
  OK(lseek(fd, indirect - 100, SEEK_SET));
  CHECK(read(fd, bigbuf, 200) == 200, "read back the rewrite");
  for (int i = 0; i < 200; i++)
    CHECK(bigbuf[i] == (pattern(indirect - 100 + i, 2) ^ 0xff), "rewritten byte %d", i);
  OK(fsync(fd));
  OK(close(fd));

  /* Truncation frees every block, indirect ones included. */
  fd = OK(open("big2", O_WRONLY | O_TRUNC));
  OK(fstat(fd, &st));
  CHECK(st.size == 0 && st.blocks == 0, "after O_TRUNC: size %u blocks %u", st.size,
        st.blocks);
  OK(close(fd));
  long free2 = free_blocks();
  if (free0 >= 0 && free2 >= 0)
    CHECK(free2 == free0, "after truncation %ld free blocks, expected %ld", free2, free0);
  OK(unlink("big2"));
  OK(unlink("big1"));
}

static void test_dirs(void)
{
  char cwd[256], base[256];
  struct stat st;
  CHECK(getcwd(base, sizeof(base)), "getcwd: %s", errname(errno));
  CHECK(base[0] == '/', "getcwd gave \"%s\"", base);

  OK(mkdir("d1"));
  OK(mkdir("d1/d2"));
  OK(mkdir("d1/d2/d3"));
  OK(stat("d1/d2/d3", &st));
  CHECK(st.type == T_DIR, "d3 is type %d", st.type);
  OK(chdir("d1/d2/d3"));
  CHECK(getcwd(cwd, sizeof(cwd)), "getcwd: %s", errname(errno));
  char want[300];
  snprintf(want, sizeof(want), "%s/d1/d2/d3", base);
  CHECK(strcmp(cwd, want) == 0, "getcwd \"%s\", expected \"%s\"", cwd, want);
  write_file("f", "deep", 4);
  OK(chdir("../.."));
  CHECK(getcwd(cwd, sizeof(cwd)), "getcwd: %s", errname(errno));
  snprintf(want, sizeof(want), "%s/d1", base);
  CHECK(strcmp(cwd, want) == 0, "after .. getcwd \"%s\", expected \"%s\"", cwd, want);
  expect_content("d2/d3/f", "deep");
  expect_content("./d2/../d2/d3/./f", "deep");
  OK(chdir("/"));
  CHECK(getcwd(cwd, sizeof(cwd)) && strcmp(cwd, "/") == 0, "getcwd at the root: \"%s\"", cwd);
  OK(chdir(".."));   /* the root's parent is the root */
  CHECK(getcwd(cwd, sizeof(cwd)) && strcmp(cwd, "/") == 0, "/.. is \"%s\"", cwd);
  OK(chdir(base));
  EXPECT_ERR(getcwd(cwd, 2) ? 0 : -1, ERANGE);

  /* The new directory's entries: only "f" apart from . and .. */
  int fd = OK(open("d1/d2/d3", O_RDONLY));
  struct dirent de;
  int r, found = 0, others = 0;
  while ((r = readdir(fd, &de)) > 0) {
    if (strcmp(de.name, "f") == 0)
      found++;
    else if (strcmp(de.name, ".") != 0 && strcmp(de.name, "..") != 0 && de.name[0])
      others++;
  }
  CHECK(r == 0, "readdir: %s", errname(errno));
  CHECK(found == 1 && others == 0, "readdir found f %d times and %d others", found, others);
  OK(close(fd));

  /* Many files in one directory: it grows past one block. */
  OK(mkdir("many"));
  for (int i = 0; i < 200; i++) {
    char name[32];
    snprintf(name, sizeof(name), "many/file%d", i);
    write_file(name, name, strlen(name));
  }
  for (int i = 0; i < 200; i += 37) {
    char name[32];
    snprintf(name, sizeof(name), "many/file%d", i);
    expect_content(name, name);
  }
  fd = OK(open("many", O_RDONLY));
  int count = 0;
  while (readdir(fd, &de) > 0)
    if (strncmp(de.name, "file", 4) == 0)
      count++;
  OK(close(fd));
  CHECK(count == 200, "readdir saw %d of 200 files", count);
  for (int i = 0; i < 200; i++) {
    char name[32];
    snprintf(name, sizeof(name), "many/file%d", i);
    OK(unlink(name));
  }
  OK(rmdir("many"));

  EXPECT_ERR(rmdir("d1"), ENOTEMPTY);
  OK(unlink("d1/d2/d3/f"));
  OK(rmdir("d1/d2/d3"));
  OK(rmdir("d1/d2"));
  OK(rmdir("d1"));
  EXPECT_ERR(stat("d1", &st), ENOENT);

  /* A deep path. */
  char path[256] = "";
  for (int i = 0; i < 12; i++) {
    strcat(path, i ? "/n" : "n");
    OK(mkdir(path));
  }
  OK(chdir(path));
  CHECK(getcwd(cwd, sizeof(cwd)), "getcwd deep: %s", errname(errno));
  snprintf(want, sizeof(want), "%s/%s", base, path);
  CHECK(strcmp(cwd, want) == 0, "deep getcwd \"%s\", expected \"%s\"", cwd, want);
  OK(chdir(base));
  for (int i = 11; i >= 0; i--) {
    OK(rmdir(path));
    char *slash = strrchr(path, '/');
    if (slash)
      *slash = 0;
  }
}

static void test_rename(void)
{
  struct stat st;
  write_file("a", "AAA", 3);
  write_file("b", "B", 1);
  OK(rename("a", "b"));                    /* replaces b */
  EXPECT_ERR(stat("a", &st), ENOENT);
  expect_content("b", "AAA");
  OK(rename("b", "b"));                    /* onto itself: nothing happens */
  expect_content("b", "AAA");

  OK(mkdir("r1"));
  OK(mkdir("r2"));
  OK(rename("b", "r1/x"));
  OK(rename("r1/x", "r2/y"));              /* across directories */
  EXPECT_ERR(stat("r1/x", &st), ENOENT);
  expect_content("r2/y", "AAA");

  /* An open file keeps working through a rename. */
  int fd = OK(open("r2/y", O_RDONLY));
  OK(rename("r2/y", "z"));
  char buf[8];
  CHECK(read(fd, buf, 8) == 3 && memcmp(buf, "AAA", 3) == 0, "read after rename");
  OK(close(fd));

  /* Directories move with their contents; .. follows. */
  write_file("r1/inner", "in", 2);
  OK(rename("r1", "r2/r1moved"));
  expect_content("r2/r1moved/inner", "in");
  OK(chdir("r2/r1moved"));
  expect_content("../../z", "AAA");
  OK(chdir("../.."));
  EXPECT_ERR(rename("r2", "r2/r1moved/inside"), EINVAL);   /* into itself */
  OK(mkdir("empty"));
  EXPECT_ERR(rename("empty", "r2/r1moved"), ENOTEMPTY);    /* onto a non-empty directory */
  OK(mkdir("empty2"));
  OK(rename("empty", "empty2"));                           /* onto an empty one: replaced */
  EXPECT_ERR(stat("empty", &st), ENOENT);
  OK(stat("empty2", &st));
  CHECK(st.type == T_DIR, "empty2 is type %d", st.type);

  OK(rmdir("empty2"));
  OK(unlink("r2/r1moved/inner"));
  OK(rmdir("r2/r1moved"));
  OK(rmdir("r2"));
  OK(unlink("z"));
}

static void test_unlinkopen(void)
{
  long free0 = free_blocks();
  int fd = OK(open("f", O_CREAT | O_RDWR));
  fill_pattern(bigbuf, 0, 20000, 9);
  CHECK(write(fd, bigbuf, 20000) == 20000, "write");
  OK(unlink("f"));
  struct stat st;
  EXPECT_ERR(stat("f", &st), ENOENT);
  EXPECT_ERR(open("f", O_RDONLY), ENOENT);
  OK(fstat(fd, &st));
  CHECK(st.size == 20000, "fstat of the unlinked file: size %u", st.size);
  OK(lseek(fd, 0, SEEK_SET));
  memset(bigbuf, 0, 20000);
  CHECK(read(fd, bigbuf, 20000) == 20000, "read of the unlinked file");
  check_pattern(bigbuf, 0, 20000, 9, "unlinked file");
  /* It still grows. */
  fill_pattern(bigbuf, 20000, 50000, 9);
  CHECK(write(fd, bigbuf, 50000) == 50000, "write to the unlinked file");
  OK(lseek(fd, 19000, SEEK_SET));
  CHECK(read(fd, bigbuf, 2000) == 2000, "read across");
  check_pattern(bigbuf, 19000, 2000, 9, "unlinked file");
  /* A new file of the same name is a different file. */
  write_file("f", "new", 3);
  expect_content("f", "new");
  OK(unlink("f"));
  /* A child shares the descriptor; the file lives until the last close. */
  int pid = xfork();
  if (pid == 0) {
    OK(lseek(fd, 0, SEEK_SET));
    CHECK(read(fd, bigbuf, 100) == 100, "child read");
    check_pattern(bigbuf, 0, 100, 9, "child");
    exit(0);
  }
  CHECK(xwait(pid) == 0, "child failed");
  OK(close(fd));
  long free1 = free_blocks();
  if (free0 >= 0 && free1 >= 0)
    CHECK(free1 == free0, "after the last close %ld free blocks, expected %ld", free1, free0);
}

/* Backing store comes and goes under the file system's feet: the VM daemon reserves it for
 * forked processes that live a while, sbrk grows it, exit removes it. Free plus backing
 * blocks must stay the same at every moment, or a test counting free blocks sees a leak
 * that is not there (unlinkopen would, about once in 70 runs, if backing blocks were counted
 * out before the blocks are freed, or in after they are taken). */
static void test_swapcount(void)
{
  long base = free_blocks();
  CHECK(base > 0, "no free-block counter");
  int kids = 0;
  for (int i = 0; i < 12; i++) {
    int pid = xfork();
    if (pid == 0) {
      /* Long enough for the daemon to reserve this process's backing store; some grow it. */
      sleep_ms(120 + 10 * (i % 4));
      if (i % 2 && sbrk(256 * 1024) == (void *)-1)
        exit(1);
      sleep_ms(20);
      exit(0);
    }
    kids++;
  }
  long samples = 0, worst = 0;
  unsigned t0 = uptime_ms();
  while (uptime_ms() - t0 < 1000) {
    long now = free_blocks();
    samples++;
    if (labs(now - base) > labs(worst))
      worst = now - base;
  }
  while (kids > 0) {
    int st;
    if (wait(&st) < 0)
      fail("wait: %s", errname(errno));
    CHECK(st == 0, "a child could not grow its heap");
    kids--;
  }
  CHECK(worst == 0, "free plus backing blocks moved by %ld (of %ld samples)", worst, samples);
  CHECK(free_blocks() == base, "free plus backing blocks %ld at the end, %ld at the start",
        free_blocks(), base);
}

static void test_dup(void)
{
  char buf[16];
  write_file("f", "0123456789", 10);
  write_file("g", "abcdefghij", 10);
  int fd = OK(open("f", O_RDONLY));
  int fd2 = OK(dup(fd));
  CHECK(fd2 != fd, "dup returned the same descriptor");
  CHECK(read(fd, buf, 3) == 3, "read");
  CHECK(lseek(fd2, 0, SEEK_CUR) == 3, "dup does not share the offset");
  CHECK(read(fd2, buf, 2) == 2 && memcmp(buf, "34", 2) == 0, "read through the dup");
  CHECK(dup2(fd, 10) == 10, "dup2 to 10");
  CHECK(read(10, buf, 2) == 2 && memcmp(buf, "56", 2) == 0, "read through dup2");
  CHECK(dup2(fd, fd) == fd, "dup2 onto itself");
  OK(close(fd));
  CHECK(read(fd2, buf, 1) == 1 && buf[0] == '7', "the dup outlives the original");

  /* dup2 onto an open descriptor closes it first. */
  int g = OK(open("g", O_RDONLY));
  CHECK(dup2(fd2, g) == g, "dup2 over an open descriptor");
  CHECK(read(g, buf, 1) == 1 && buf[0] == '8', "dup2 did not replace the descriptor");
  OK(close(g));
  OK(close(fd2));
  OK(close(10));

  /* A new descriptor is the lowest free one. */
  OK(close(0));
  fd = OK(open("f", O_RDONLY));
  CHECK(fd == 0, "open after close(0) gave %d", fd);

  /* A forked child shares the offset too. */
  int pid = xfork();
  if (pid == 0) {
    CHECK(read(0, buf, 4) == 4, "child read");
    exit(0);
  }
  CHECK(xwait(pid) == 0, "child failed");
  CHECK(lseek(0, 0, SEEK_CUR) == 4, "the child's read did not move the shared offset");
  OK(close(0));
  OK(unlink("f"));
  OK(unlink("g"));
}

static void test_fdlimit(void)
{
  write_file("f", "x", 1);
  int already = 0;   /* stdin, stdout, stderr, the reason pipe */
  struct stat st;
  for (int fd = 0; fd < NOFILE; fd++)
    if (fstat(fd, &st) == 0)
      already++;
  int fds[NOFILE * 2], n = 0, r;
  while ((r = open("f", O_RDONLY)) >= 0) {
    CHECK(n < NOFILE * 2, "more than %d descriptors", NOFILE * 2);
    fds[n++] = r;
  }
  CHECK(errno == EMFILE, "running out of descriptors gave %s, expected EMFILE",
        errname(errno));
  CHECK(n == NOFILE - already, "%d descriptors could be opened with %d open, expected %d",
        n, already, NOFILE - already);
  EXPECT_ERR(dup(0), EMFILE);
  int p[2];
  EXPECT_ERR(pipe(p), EMFILE);
  for (int i = 0; i < n; i++)
    OK(close(fds[i]));
  /* pipe needs two: with one free it must fail and leak nothing. */
  n = 0;
  while ((r = dup(1)) >= 0)
    fds[n++] = r;
  OK(close(fds[--n]));
  EXPECT_ERR(pipe(p), EMFILE);
  OK(close(fds[--n]));
  OK(pipe(p));
  OK(close(p[0]));
  OK(close(p[1]));
  while (n > 0)
    OK(close(fds[--n]));
  OK(unlink("f"));
}

/* ---- pipes and processes ---- */

static void test_pipe(void)
{
  int p[2];
  OK(pipe(p));
  const unsigned total = 1024 * 1024 + 17;
  int pid = xfork();
  if (pid == 0) {
    close(p[0]);
    static const unsigned chunks[] = {1, 4096, 333, 10000, 65536, 7};
    unsigned off = 0, k = 0;
    while (off < total) {
      unsigned n = chunks[k++ % 6];
      if (n > total - off)
        n = total - off;
      fill_pattern(bigbuf, off, n, 5);
      if (write_all(p[1], bigbuf, n) != (int)n)
        fail("pipe writer: %s", errname(errno));
      off += n;
    }
    exit(0);
  }
  OK(close(p[1]));
  unsigned off = 0;
  for (;;) {
    int r = read(p[0], bigbuf, 5000);
    if (r < 0)
      fail("pipe read: %s", errname(errno));
    if (r == 0)
      break;
    check_pattern(bigbuf, off, r, 5, "pipe data");
    off += r;
  }
  CHECK(off == total, "read %u bytes of %u", off, total);
  OK(close(p[0]));
  CHECK(xwait(pid) == 0, "writer failed");

  /* Several writers: the reader sees end of file only when all have closed. */
  OK(pipe(p));
  const int writers = 4, each = 50000;
  for (int i = 0; i < writers; i++) {
    if (xfork() == 0) {
      close(p[0]);
      memset(bigbuf, 'a' + i, each);
      sleep_ms(i * 50);
      if (write_all(p[1], bigbuf, each) != each)
        fail("writer %d: %s", i, errname(errno));
      exit(0);
    }
  }
  OK(close(p[1]));
  int counts[4] = {0, 0, 0, 0}, r;
  while ((r = read(p[0], bigbuf, sizeof(bigbuf))) > 0)
    for (int i = 0; i < r; i++) {
      int w = bigbuf[i] - 'a';
      CHECK(w >= 0 && w < writers, "stray byte %d", bigbuf[i]);
      counts[w]++;
    }
  CHECK(r == 0, "read: %s", errname(errno));
  for (int i = 0; i < writers; i++)
    CHECK(counts[i] == each, "writer %d: %d bytes of %d", i, counts[i], each);
  OK(close(p[0]));
  for (int i = 0; i < writers; i++) {
    int st;
    CHECK(wait(&st) > 0 && st == 0, "a writer failed");
  }

  /* A reader blocks until data comes. */
  OK(pipe(p));
  pid = xfork();
  if (pid == 0) {
    close(p[0]);
    sleep_ms(300);
    write(p[1], "late", 4);
    exit(0);
  }
  OK(close(p[1]));
  char buf[8];
  unsigned t0 = uptime_ms();
  CHECK(read(p[0], buf, 8) == 4 && memcmp(buf, "late", 4) == 0, "blocking read");
  CHECK(uptime_ms() - t0 >= 250, "read returned after %u ms, before the data was written",
        uptime_ms() - t0);
  CHECK(read(p[0], buf, 8) == 0, "no end of file after the writer exited");
  OK(close(p[0]));
  CHECK(xwait(pid) == 0, "writer failed");
}

static char cowarea[256 * 1024];   /* in .bss: the heap segment */

static void test_forkwait(void)
{
  /* Exit statuses come back, each child once. */
  const int n = 10;
  int pids[10], seen[10] = {0};
  int parent = getpid();
  for (int i = 0; i < n; i++) {
    pids[i] = xfork();
    if (pids[i] == 0) {
      if (getpid() == parent)
        exit(100);
      exit(i == 9 ? 255 : i);
    }
    CHECK(pids[i] != parent, "fork returned the parent's pid");
  }
  for (int k = 0; k < n; k++) {
    int st;
    int pid = wait(&st);
    CHECK(pid > 0, "wait: %s", errname(errno));
    int i = 0;
    while (i < n && pids[i] != pid)
      i++;
    CHECK(i < n, "wait returned unknown pid %d", pid);
    CHECK(!seen[i], "pid %d returned twice", pid);
    seen[i] = 1;
    CHECK(st == (i == 9 ? 255 : i), "child %d exited %d, expected %d", i, st, i == 9 ? 255 : i);
  }
  EXPECT_ERR(wait(0), ECHILD);

  /* Memory is private after fork, in both directions, for every page. */
  for (unsigned i = 0; i < sizeof(cowarea); i += 512)
    cowarea[i] = 1;
  int p[2];
  OK(pipe(p));
  int pid = xfork();
  if (pid == 0) {
    close(p[1]);
    char c;
    read(p[0], &c, 1);   /* wait until the parent has written its copy */
    for (unsigned i = 0; i < sizeof(cowarea); i += 512)
      CHECK(cowarea[i] == 1, "child sees the parent's later write at %u", i);
    for (unsigned i = 0; i < sizeof(cowarea); i += 512)
      cowarea[i] = 3;
    exit(0);
  }
  close(p[0]);
  for (unsigned i = 0; i < sizeof(cowarea); i += 1024)
    cowarea[i] = 2;   /* half the places: the rest stays shared */
  write(p[1], "go", 1);
  close(p[1]);
  CHECK(xwait(pid) == 0, "child failed");
  for (unsigned i = 0; i < sizeof(cowarea); i += 512)
    CHECK(cowarea[i] == (i % 1024 == 0 ? 2 : 1), "the child's write reached the parent at %u",
          i);

  /* Grandchildren: a child that forks and waits for its own child. */
  pid = xfork();
  if (pid == 0) {
    int gpid = xfork();
    if (gpid == 0)
      exit(7);
    exit(xwait(gpid) == 7 ? 0 : 1);
  }
  CHECK(xwait(pid) == 0, "grandchild status lost");

  /* An orphan: the child exits first, the grandchild goes on alone. */
  pid = xfork();
  if (pid == 0) {
    if (xfork() == 0) {
      sleep_ms(100);
      exit(0);
    }
    exit(0);
  }
  CHECK(xwait(pid) == 0, "child failed");
  EXPECT_ERR(wait(0), ECHILD);   /* the grandchild is not ours */
  sleep_ms(300);                 /* let it finish: later tests count process slots */

  /* An orphan already a zombie: the grandchild exits first, its parent exits without waiting.
   * Init inherits a zombie and must be woken to reap it, or it stays a zombie for good. */
  int gp[2];
  OK(pipe(gp));
  pid = xfork();
  if (pid == 0) {
    int gpid = xfork();
    if (gpid == 0)
      exit(0);
    write(gp[1], &gpid, sizeof gpid);
    sleep_ms(200);               /* the grandchild is a zombie by now */
    exit(0);
  }
  int gpid = 0;
  CHECK(read(gp[0], &gpid, sizeof gpid) == sizeof gpid && gpid > 0, "no grandchild pid");
  close(gp[0]);
  close(gp[1]);
  CHECK(xwait(pid) == 0, "child failed");
  struct procinfo pi;
  int reaped = 0;
  for (int t = 0; t < 50 && !reaped; t++) {
    reaped = getprocinfo(gpid, &pi) < 0;
    if (!reaped)
      sleep_ms(20);
  }
  CHECK(reaped, "orphaned zombie %d still there after 1 s (state %d)", gpid, pi.state);
}

/* A page of fresh heap, page-aligned, that no other test has touched (0 if sbrk fails);
 * fresh_page_free gives it back. */
static char *fresh_page(void)
{
  char *raw = sbrk(2 * 4096);
  CHECK(raw != (char *)-1, "sbrk failed");
  return raw == (char *)-1 ? 0 : (char *)(((unsigned)raw + 4095) & ~4095u);
}

static void fresh_page_free(void)
{
  sbrk(-2 * 4096);
}

/* When the last slave of a page copies it, the master's page is its own again: the master's
 * next write takes no COW fault (Sprite: the page leaves the copy-on-write list). The slave
 * stays alive meanwhile, so only the copy can have ended the sharing, not an exit. */
static void test_cowlast(void)
{
  char *x = fresh_page();
  if (!x)
    return;
  x[0] = 1;
  int ready[2], go[2];
  OK(pipe(ready));
  OK(pipe(go));
  int pid = xfork();
  if (pid == 0) {
    char c = x[0];               /* a COR fault: the child's own copy */
    write(ready[1], &c, 1);
    read(go[0], &c, 1);
    exit(0);
  }
  char c;
  CHECK(read(ready[0], &c, 1) == 1 && c == 1, "the child did not read the page");
  long f0 = kstat_get("vm.cow.faults");
  x[0] = 2;
  long f1 = kstat_get("vm.cow.faults");
  CHECK(f1 == f0, "writing a page its only slave had copied took %ld COW faults", f1 - f0);
  write(go[1], &c, 1);
  CHECK(xwait(pid) == 0, "child failed");
  close(ready[0]);
  close(ready[1]);
  close(go[0]);
  close(go[1]);
  fresh_page_free();
}

/* Pushes process pid's pages to backing store (vm.pageout=PID). */
static void push_out(int pid)
{
  char v[16], out[64];
  snprintf(v, sizeof v, "%d", pid);
  sysctl("vm.pageout", v, out, sizeof out);
}

/* A master's page that is clean (in the master's own backing file) and resident when the
 * master exits goes to its one slave, whose backing file does not hold it: it must count as
 * dirty there, or the slave's next page-out drops it and the slave reads zeros. */
static void test_cowhandoff(void)
{
  int res[2];
  OK(pipe(res));
  int pid = xfork();
  if (pid == 0) {
    unsigned *x = (unsigned *)fresh_page();
    if (!x)
      exit(1);
    for (int i = 0; i < 1024; i++)
      x[i] = 0x5eed0000u + i;
    sleep_ms(300);                  /* the VM daemon reserves a forked segment's backing store */
    push_out(getpid());
    volatile unsigned sum = 0;
    for (int i = 0; i < 1024; i++)
      sum += x[i];                  /* read back: resident, clean, in this file */
    int gone[2];
    pipe(gone);
    if (fork() == 0) {
      char c;
      close(gone[1]);
      read(gone[0], &c, 1);         /* until the master has exited: its page is handed over */
      sleep_ms(300);
      push_out(getpid());
      int bad = 0;
      for (int i = 0; i < 1024; i++)
        bad += x[i] != 0x5eed0000u + i;
      write(res[1], &bad, sizeof bad);
      exit(0);
    }
    exit(0);
  }
  close(res[1]);
  CHECK(xwait(pid) == 0, "the master failed");
  int bad = -1;
  CHECK(read(res[0], &bad, sizeof bad) == sizeof bad, "no word from the slave");
  CHECK(bad == 0, "%d words of a page handed to the slave were lost after its page-out", bad);
  close(res[0]);
  sleep_ms(100);                    /* let the orphan finish: later tests count process slots */
}

/* A master's page that is clean but in no backing file (zero-filled, only read) and shared
 * copy-on-write must still be written when paged out: its slave copies it from the master's
 * backing file later, and dropping it left the slave naming a master with no page. */
static void test_cowclean(void)
{
  volatile unsigned *x = (unsigned *)fresh_page();
  if (!x)
    return;
  unsigned sum = 0;
  for (int i = 0; i < 1024; i++)
    sum += x[i];                    /* zero-filled on a read: clean, not in the backing file */
  CHECK(sum == 0, "a new heap page is not zero");
  int go[2];
  OK(pipe(go));
  int pid = xfork();
  if (pid == 0) {
    char c;
    close(go[1]);
    read(go[0], &c, 1);             /* until the master's pages are out */
    int bad = 0;
    for (int i = 0; i < 1024; i++)
      bad += x[i] != 0;             /* a COR fault from the master's backing file */
    exit(bad ? 1 : 0);
  }
  close(go[0]);
  push_out(getpid());
  char c = 1;
  write(go[1], &c, 1);
  close(go[1]);
  int st = xwait(pid);
  CHECK(st == 0, "the child read a wrong page of its master's (status %d)", st);
  fresh_page_free();
}

static void test_manyforks(void)
{
  int p[2];
  for (int round = 0; round < 2; round++) {
    static int first;
    OK(pipe(p));
    int n = 0, pid;
    while ((pid = fork()) >= 0) {
      if (pid == 0) {
        char c;
        close(p[1]);
        read(p[0], &c, 1);   /* until the parent closes the pipe */
        exit(0);
      }
      n++;
      CHECK(n < 1000, "fork never fails");
    }
    CHECK(errno == EAGAIN || errno == ENOMEM || errno == ENFILE || errno == ENOSPC,
          "fork failed with %s", errname(errno));
    CHECK(n >= 8, "only %d processes could be forked", n);
    OK(close(p[0]));
    OK(close(p[1]));
    for (int i = 0; i < n; i++) {
      int st;
      int w = wait(&st);
      CHECK(w > 0, "wait %d of %d: %s", i, n, errname(errno));
      CHECK(st == 0, "child %d exited %d", w, st);
    }
    EXPECT_ERR(wait(0), ECHILD);
    if (round == 0)
      first = n;
    else
      CHECK(n == first, "first round forked %d, second %d: slots leaked", first, n);
  }
}

static void test_sbrk(void)
{
  char *old = sbrk(0);
  const int grow = 1024 * 1024 + 100;
  char *p = sbrk(grow);
  CHECK(p == old, "sbrk returned %p, expected the old break %p", p, old);
  CHECK(sbrk(0) == old + grow, "break %p, expected %p", sbrk(0), old + grow);
  for (int i = 0; i < grow; i += 4096) {
    CHECK(p[i] == 0, "new memory at +%d is not zero", i);
    p[i] = (char)(i >> 12);
  }
  p[grow - 1] = 'e';
  for (int i = 0; i < grow; i += 4096)
    CHECK(p[i] == (char)(i >> 12), "memory at +%d changed", i);

  /* The kernel reads and writes the new memory too. */
  write_file("f", "kernel", 6);
  CHECK(read_file("f", p + grow - 6, 6) == 6 && memcmp(p + grow - 6, "kernel", 6) == 0,
        "read into sbrk memory");
  OK(unlink("f"));

  CHECK(sbrk(-grow) == old + grow, "shrinking returned the wrong old break");
  CHECK(sbrk(0) == old, "break after shrinking %p, expected %p", sbrk(0), old);

  /* Memory given back is gone: touching it kills the process. */
  int pid = xfork();
  if (pid == 0) {
    ((volatile char *)old)[8192] = 1;
    exit(0);
  }
  CHECK(xwait(pid) != 0, "a child wrote memory above the break and exited normally");

  /* Growing again gives zeroed memory, not the old contents. */
  p = sbrk(grow);
  CHECK(p == old, "regrow returned %p", p);
  for (int i = 0; i < grow; i += 4096)
    CHECK(p[i] == 0, "regrown memory at +%d holds %d", i, p[i]);
  sbrk(-grow);

  /* malloc on top of it. */
  char *m = malloc(3 * 1024 * 1024);
  CHECK(m, "malloc(3 MB) failed");
  memset(m, 0x5a, 3 * 1024 * 1024);
  for (int i = 0; i < 3 * 1024 * 1024; i += 4093)
    CHECK(m[i] == 0x5a, "malloc memory");
  free(m);
}

static void test_killsleep(void)
{
  /* A sleeping child. */
  int pid = xfork();
  if (pid == 0) {
    sleep_ms(30000);
    exit(0);
  }
  sleep_ms(100);
  unsigned t0 = uptime_ms();
  OK(kill(pid));
  int st = xwait(pid);
  CHECK(uptime_ms() - t0 < 10000, "the killed sleeper took %u ms to die", uptime_ms() - t0);
  CHECK(st == SIG_STATUS(SIGKILL), "the killed sleeper exited with %d, not 137 (SIGKILL)", st);

  /* A child blocked reading a pipe. */
  int p[2];
  OK(pipe(p));
  pid = xfork();
  if (pid == 0) {
    char c;
    close(p[1]);
    read(p[0], &c, 1);
    exit(0);
  }
  sleep_ms(100);
  OK(kill(pid));
  st = xwait(pid);
  CHECK(st == SIG_STATUS(SIGKILL), "the killed reader exited with %d, not 137 (SIGKILL)", st);
  OK(close(p[0]));
  OK(close(p[1]));

  /* A child spinning in user mode. */
  pid = xfork();
  if (pid == 0) {
    for (volatile unsigned i = 0;; i++)
      ;
  }
  sleep_ms(100);
  OK(kill(pid));
  st = xwait(pid);
  CHECK(st == SIG_STATUS(SIGKILL), "the killed spinner exited with %d, not 137 (SIGKILL)", st);

  /* A child blocked in wait for its own sleeping child. */
  pid = xfork();
  if (pid == 0) {
    if (xfork() == 0) {
      sleep_ms(500);
      exit(0);
    }
    wait(0);
    exit(0);
  }
  sleep_ms(100);
  OK(kill(pid));
  st = xwait(pid);
  CHECK(st == SIG_STATUS(SIGKILL), "the killed waiter exited with %d, not 137 (SIGKILL)", st);
  sleep_ms(600);   /* let the orphan finish */
}

static void test_execargs(void)
{
  /* Output of a real program through a pipe. */
  int p[2];
  OK(pipe(p));
  int pid = xfork();
  if (pid == 0) {
    dup2(p[1], 1);
    close(p[0]);
    close(p[1]);
    char *argv[] = {"echo", "hello", "world", 0};
    exec("/bin/echo", argv);
    fail("exec echo: %s", errname(errno));
  }
  OK(close(p[1]));
  char buf[64];
  int n = read_full(p[0], buf, sizeof(buf) - 1);
  buf[n > 0 ? n : 0] = 0;
  OK(close(p[0]));
  CHECK(xwait(pid) == 0, "echo failed");
  CHECK(strcmp(buf, "hello world\n") == 0, "echo printed \"%s\"", buf);

  /* Arguments arrive intact: run ourselves with --argcheck, which exits 42 if so. */
  pid = xfork();
  if (pid == 0) {
    static char longarg[300];
    memset(longarg, 'L', sizeof(longarg) - 1);
    static char *argv[64];
    int k = 0;
    argv[k++] = "usertests";
    argv[k++] = "--argcheck";
    argv[k++] = "";
    argv[k++] = "with space";
    argv[k++] = longarg;
    for (int i = 0; i < 40; i++) {
      static char nums[40][8];
      snprintf(nums[i], sizeof(nums[i]), "%d", i);
      argv[k++] = nums[i];
    }
    argv[k] = 0;
    exec(SELF, argv);
    fail("exec self: %s", errname(errno));
  }
  int st = xwait(pid);
  CHECK(st == 42, "argument check exited %d, expected 42", st);

  /* exec keeps open descriptors and the working directory. */
  write_file("f", "kept", 4);
  pid = xfork();
  if (pid == 0) {
    int fd = open("f", O_RDONLY);
    dup2(fd, 0);
    close(fd);
    char *argv[] = {"usertests", "--stdincheck", 0};
    exec(SELF, argv);
    fail("exec self: %s", errname(errno));
  }
  CHECK(xwait(pid) == 43, "exec lost the descriptor or the directory");
  OK(unlink("f"));
}

/* Runs as "usertests --argcheck ...": the arguments test_execargs passed. */
static int argcheck(int argc, char **argv)
{
  if (argc != 45 || strcmp(argv[0], "usertests") != 0 || argv[2][0] != 0 ||
      strcmp(argv[3], "with space") != 0 || strlen(argv[4]) != 299 || argv[45] != 0)
    return 1;
  for (int i = 0; i < 40; i++)
    if (atoi(argv[5 + i]) != i)
      return 1;
  return 42;
}

/* Runs as "usertests --stdincheck": stdin must be file "f" of the working directory. */
static int stdincheck(void)
{
  char buf[8];
  struct stat st;
  if (read(0, buf, 8) != 4 || memcmp(buf, "kept", 4) != 0)
    return 1;
  if (stat("f", &st) < 0 || st.size != 4)
    return 2;
  return 43;
}

/* Many fork/exec/exit/wait rounds: exit codes pass through exec, and nothing accumulates
 * (the final leak check sees it if something does). */
static void test_forkexec(void)
{
  for (int i = 0; i < 30; i++) {
    int pid = xfork();
    if (pid == 0) {
      char code[8];
      snprintf(code, sizeof(code), "%d", i + 1);
      char *argv[] = {"usertests", "--exit", code, 0};
      exec(SELF, argv);
      fail("exec self: %s", errname(errno));
    }
    int st = xwait(pid);
    CHECK(st == i + 1, "round %d: exit status %d, expected %d", i, st, i + 1);
  }
}

/* Processes working on files at the same time, each in its own directory and all in a
 * shared one, and writing through one shared descriptor. */
static void test_concurrent(void)
{
  const int nproc = 4, rounds = 15;
  OK(mkdir("shared"));
  int shared = OK(open("log", O_CREAT | O_RDWR));
  for (int k = 0; k < nproc; k++) {
    if (xfork() != 0)
      continue;
    char dir[16];
    snprintf(dir, sizeof(dir), "p%d", k);
    OK(mkdir(dir));
    for (int r = 0; r < rounds; r++) {
      char path[64], name[64];
      snprintf(path, sizeof(path), "%s/f%d", dir, r);
      unsigned size = 1000 + 3000 * r + 17 * k;
      fill_pattern(bigbuf, 0, size, k * 100 + r);
      write_file(path, bigbuf, size);
      memset(bigbuf, 0, size);
      CHECK(read_file(path, (char *)bigbuf, sizeof(bigbuf)) == (int)size, "%s size", path);
      check_pattern(bigbuf, 0, size, k * 100 + r, path);
      snprintf(name, sizeof(name), "shared/%d.%d", k, r);
      write_file(name, name, strlen(name));
      expect_content(name, name);
      if (r % 2)
        OK(unlink(name));
      if (r > 0) {
        snprintf(path, sizeof(path), "%s/f%d", dir, r - 1);
        OK(unlink(path));
      }
      char rec[10];
      memset(rec, 'a' + k, sizeof(rec));
      CHECK(write(shared, rec, sizeof(rec)) == sizeof(rec), "shared write");
    }
    char path[64];
    snprintf(path, sizeof(path), "%s/f%d", dir, rounds - 1);
    OK(unlink(path));
    OK(rmdir(dir));
    exit(0);
  }
  for (int k = 0; k < nproc; k++) {
    int st;
    CHECK(wait(&st) > 0 && st == 0, "a worker failed");
  }
  /* Every record landed whole, none overwrote another: the offset is shared. */
  struct stat st;
  OK(fstat(shared, &st));
  CHECK(st.size == (unsigned)(nproc * rounds * 10), "the shared log has %u bytes, expected %d",
        st.size, nproc * rounds * 10);
  OK(lseek(shared, 0, SEEK_SET));
  int n = read_full(shared, bigbuf, sizeof(bigbuf));
  int counts[4] = {0, 0, 0, 0};
  for (int i = 0; i < n; i += 10) {
    int k = bigbuf[i] - 'a';
    CHECK(k >= 0 && k < nproc, "a record starts with %d", bigbuf[i]);
    for (int j = 1; j < 10; j++)
      CHECK(bigbuf[i + j] == bigbuf[i], "record at %d is mixed", i);
    counts[k]++;
  }
  for (int k = 0; k < nproc; k++)
    CHECK(counts[k] == rounds, "worker %d has %d records", k, counts[k]);
  OK(close(shared));
  OK(unlink("log"));
  for (int k = 0; k < nproc; k++)
    for (int r = 0; r < rounds; r += 2) {
      char name[64];
      snprintf(name, sizeof(name), "shared/%d.%d", k, r);
      expect_content(name, name);
      OK(unlink(name));
    }
  OK(rmdir("shared"));
}

static void expect_killed(const char *kind)
{
  int pid = xfork();
  if (pid == 0) {
    char *argv[] = {"fault", (char *)kind, 0};
    /* fault announces itself on stdout; keep that out of the test report. The kernel's
     * own message about the kill still reaches the console. */
    int fd = open("fault.out", O_WRONLY | O_CREAT | O_TRUNC);
    if (fd >= 0) {
      dup2(fd, 1);
      close(fd);
    }
    exec("/bin/fault", argv);
    fail("exec /bin/fault: %s", errname(errno));
  }
  int st = xwait(pid);
  CHECK(st != 0 && st != 2 && st != 1, "fault %s: exited with %d, not killed", kind, st);
}

static void test_faults(void)
{
  expect_killed("null");
  expect_killed("write0");
  expect_killed("kernel");
  expect_killed("kwrite");
  expect_killed("jump");
  expect_killed("code");
  expect_killed("div0");
  expect_killed("ud");
  expect_killed("priv");
  expect_killed("stack");
}

static void test_readdir(void)
{
  int fd = OK(open("/bin", O_RDONLY));
  struct dirent de;
  int r, self = 0, sh = 0, n = 0;
  while ((r = readdir(fd, &de)) > 0) {
    n++;
    CHECK(strnlen(de.name, sizeof(de.name)) <= DIRNAME_MAX, "unterminated name");
    if (strcmp(de.name, "usertests") == 0)
      self++;
    if (strcmp(de.name, "sh") == 0)
      sh++;
  }
  CHECK(r == 0, "readdir: %s", errname(errno));
  CHECK(self == 1 && sh == 1, "/bin lists usertests %d times and sh %d times", self, sh);
  CHECK(readdir(fd, &de) == 0, "readdir after the end");
  OK(close(fd));
}

static void test_kstat(void)
{
  static char buf[8192];
  int n = OK(kstat(buf, sizeof(buf) - 1));
  CHECK(n > 0, "kstat returned nothing");
  buf[n] = 0;
  const char *names[] = {"mem.frames.total", "mem.frames.free", "mem.frames.kernel",
                         "mem.frames.cache", "mem.frames.vm", "fs.cache.blocks",
                         "fs.disk.blocks.free"};
  for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
    CHECK(kstat_get(names[i]) >= 0, "counter %s missing", names[i]);
  long total = kstat_get("mem.frames.total"), free = kstat_get("mem.frames.free");
  CHECK(total > 0 && free >= 0 && free <= total, "frames: total %ld free %ld", total, free);
  /* A short buffer gets a prefix and nothing beyond it. */
  memset(buf, '#', 64);
  n = kstat(buf, 10);
  CHECK(n >= 0 && n <= 10, "kstat into 10 bytes returned %d", n);
  for (int i = 10; i < 64; i++)
    CHECK(buf[i] == '#', "kstat wrote beyond its buffer");
}

static void test_ps(void)
{
  static struct procinfo procs[128];
  int n = OK(ps(procs, 128));
  int me = getpid(), found = 0;
  for (int i = 0; i < n; i++) {
    if (procs[i].pid == me) {
      found = 1;
      CHECK(strncmp(procs[i].name, "usertests", 9) == 0, "my name is \"%.16s\"",
            procs[i].name);
      CHECK(procs[i].state == 3, "I am in state %d, not running", procs[i].state);
      CHECK(procs[i].size > 0, "my size is 0");
    }
  }
  CHECK(found, "ps does not list me (pid %d)", me);
  CHECK(ps(procs, 1) == 1, "ps with room for one");
}

/* The process group of pid, from ps. */
static int pgid_of(int pid)
{
  static struct procinfo procs[128];
  int n = OK(ps(procs, 128));
  for (int i = 0; i < n; i++)
    if (procs[i].pid == pid)
      return procs[i].pgid;
  fail("ps does not list pid %d", pid);
}

static void test_pgrp(void)
{
  int me = getpid(), mine = pgid_of(me);
  EXPECT_ERR(setpgid(-1, 0), EINVAL);
  EXPECT_ERR(setpgid(0, -1), EINVAL);
  EXPECT_ERR(setpgid(99999, 0), ESRCH);
  EXPECT_ERR(setpgid(1, 0), ESRCH);          /* init is not my child */
  EXPECT_ERR(setpgid(0, 99999), EPERM);      /* no such group to join */
  EXPECT_ERR(setfg(-1), EINVAL);
  EXPECT_ERR(setfg(99999), ESRCH);
  if (mine != 1)
    EXPECT_ERR(kill(-1), EPERM);             /* init's group: init cannot be killed */
  CHECK(pgid_of(me) == mine, "a refused call changed my group");

  /* A child in a new group with a grandchild: killing the group ends both, and me not. */
  int p[2];
  OK(pipe(p));
  int pid = xfork();
  if (pid == 0) {
    close(p[0]);
    if (setpgid(0, 0) < 0 || xfork() == 0 || write(p[1], "x", 1) != 1)
      for (;;)
        sleep_ms(1000);          /* the grandchild (and a failed child) wait to be killed */
    for (;;)
      sleep_ms(1000);
  }
  close(p[1]);
  char c;
  CHECK(read(p[0], &c, 1) == 1, "the child did not start its group");
  close(p[0]);
  CHECK(pgid_of(pid) == pid, "the child's group is %d, not its pid %d", pgid_of(pid), pid);
  OK(setpgid(pid, pid));                     /* already so: allowed */
  OK(setfg(pid));                            /* the console's foreground: a group that exists */
  OK(setfg(mine));
  OK(kill(-pid));
  CHECK(xwait(pid) != 0, "the killed group leader exited with 0");
  unsigned t0 = uptime_ms();
  while (kill(-pid) == 0 && uptime_ms() - t0 < 10000)
    sleep_ms(10);                            /* the grandchild, now init's, dies too */
  EXPECT_ERR(kill(-pid), ESRCH);
  EXPECT_ERR(setfg(pid), ESRCH);             /* a group with nobody left */
}

static void test_sleep(void)
{
  unsigned t0 = uptime_ms();
  OK(sleep_ms(300));
  unsigned dt = uptime_ms() - t0;
  CHECK(dt >= 300 && dt < 5000, "sleep_ms(300) took %u ms", dt);
  t0 = uptime_ms();
  OK(sleep_ms(0));
  CHECK(uptime_ms() - t0 < 1000, "sleep_ms(0) took %u ms", uptime_ms() - t0);
}

static void test_fsync(void)
{
  write_file("f", "sync me", 7);
  int fd = OK(open("f", O_RDWR));
  OK(fsync(fd));
  CHECK(write(fd, "S", 1) == 1, "write");
  OK(fsync(fd));
  OK(close(fd));
  sync();
  expect_content("f", "Sync me");
  OK(unlink("f"));
}

/* Each write policy, switched on just after a sync, in one process: the first write after a
 * sync takes the clean mark off the disk, here while new blocks are being allocated. */
static void test_policies(void)
{
  static const char *pol[] = {"through", "asap", "delay"};
  static char big[8192];
  char out[64];
  memset(big, 'p', sizeof big);
  for (int i = 0; i < 3; i++) {
    int fd = OK(open("new", O_CREAT | O_RDWR | O_TRUNC));
    CHECK(write(fd, "x", 1) == 1, "first write");
    sync();
    OK(sysctl("fs.write_policy", pol[i], out, sizeof out));
    /* The first disk write after the sync: a new block, so from inside the allocator. */
    OK(lseek(fd, 0, SEEK_END));
    for (int k = 0; k < 8; k++)
      CHECK(write(fd, big, sizeof big) == (int)sizeof big, "write under %s", pol[i]);
    struct stat st;
    OK(fstat(fd, &st));
    CHECK(st.size == 1 + 8 * sizeof big, "size %u under %s", st.size, pol[i]);
    OK(close(fd));
    OK(unlink("new"));
  }
}

/* ---- the driver ---- */

struct test {
  const char *name;
  void (*fn)(void);
  unsigned timeout_ms;   /* a test still running then is killed and fails */
};

static struct test tests[] = {
  {"badfd", test_badfd, 60000},
  {"efault", test_efault, 60000},
  {"enoent", test_enoent, 60000},
  {"eexist", test_eexist, 60000},
  {"enotdir", test_enotdir, 60000},
  {"eisdir", test_eisdir, 60000},
  {"enotempty", test_enotempty, 60000},
  {"enametoolong", test_enametoolong, 60000},
  {"espipe", test_espipe, 60000},
  {"epipe", test_epipe, 60000},
  {"echild", test_echild, 60000},
  {"esrch", test_esrch, 60000},
  {"einval", test_einval, 60000},
  {"enomem", test_enomem, 60000},
  {"exec_errors", test_exec_errors, 60000},
  {"etxtbsy", test_etxtbsy, 60000},
  {"createtrunc", test_createtrunc, 60000},
  {"lseek", test_lseek, 60000},
  {"dirs", test_dirs, 300000},
  {"rename", test_rename, 60000},
  {"unlinkopen", test_unlinkopen, 60000},
  {"swapcount", test_swapcount, 60000},
  {"dup", test_dup, 60000},
  {"fdlimit", test_fdlimit, 60000},
  {"pipe", test_pipe, 300000},
  {"forkwait", test_forkwait, 120000},
  {"cowlast", test_cowlast, 60000},
  {"cowhandoff", test_cowhandoff, 60000},
  {"cowclean", test_cowclean, 60000},
  {"manyforks", test_manyforks, 300000},
  {"sbrk", test_sbrk, 120000},
  {"killsleep", test_killsleep, 120000},
  {"execargs", test_execargs, 60000},
  {"forkexec", test_forkexec, 120000},
  {"concurrent", test_concurrent, 300000},
  {"faults", test_faults, 300000},
  {"readdir", test_readdir, 60000},
  {"kstat", test_kstat, 60000},
  {"ps", test_ps, 60000},
  {"pgrp", test_pgrp, 60000},
  {"sleep", test_sleep, 60000},
  {"fsync", test_fsync, 60000},
  {"policies", test_policies, 60000},
  {"bigfile", test_bigfile, 900000},
};
#define NTESTS ((int)(sizeof(tests) / sizeof(tests[0])))

/* Removes path and everything under it (best effort: used to clean up after failed tests).
 * Returns 0 if it removed path, -1 if not (also when there was nothing to remove). */
static int remove_tree(const char *path)
{
  struct stat st;
  if (stat(path, &st) < 0)
    return -1;
  if (st.type != T_DIR)
    return unlink(path);
  for (;;) {
    /* Read a batch of names, remove them, and start over until the directory is empty;
     * removing while reading could skip entries. A pass that removes nothing ends it, so
     * an entry that cannot be removed does not make this loop forever. */
    char names[16][DIRNAME_MAX + 1];
    int n = 0, removed = 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
      return -1;
    struct dirent de;
    while (n < 16 && readdir(fd, &de) > 0) {
      if (de.name[0] == 0 || strcmp(de.name, ".") == 0 || strcmp(de.name, "..") == 0)
        continue;
      memcpy(names[n++], de.name, sizeof(de.name));
    }
    close(fd);
    for (int i = 0; i < n; i++) {
      char child[512];
      snprintf(child, sizeof(child), "%s/%s", path, names[i]);
      if (remove_tree(child) == 0)
        removed++;
    }
    if (n == 0 || removed == 0)
      break;
  }
  return rmdir(path);
}

/* Runs one test in a child, with a watchdog; returns 1 if it passed. */
static int run_test(struct test *t)
{
  char dir[64];
  snprintf(dir, sizeof(dir), "%s/%s", WORKDIR, t->name);
  if (mkdir(dir) < 0) {
    printf("test %s: FAILED (mkdir %s: %s)\n", t->name, dir, strerror(errno));
    return 0;
  }
  int p[2];
  if (pipe(p) < 0) {
    printf("test %s: FAILED (pipe: %s)\n", t->name, strerror(errno));
    return 0;
  }
  /* The test starts once its watchdog exists: forking the watchdog reserves backing store,
   * which must not happen in the middle of a test that counts free disk blocks. */
  int go[2];
  if (pipe(go) < 0) {
    printf("test %s: FAILED (pipe: %s)\n", t->name, strerror(errno));
    close(p[0]);
    close(p[1]);
    return 0;
  }
  unsigned t0 = uptime_ms();
  int pid = fork();
  if (pid < 0) {
    printf("test %s: FAILED (fork: %s)\n", t->name, strerror(errno));
    close(p[0]);
    close(p[1]);
    close(go[0]);
    close(go[1]);
    return 0;
  }
  if (pid == 0) {
    close(p[0]);
    close(go[1]);
    char c;
    read(go[0], &c, 1);
    close(go[0]);
    reason_fd = p[1];
    current = t->name;
    if (chdir(dir) < 0)
      fail("chdir %s: %s", dir, errname(errno));
    t->fn();
    exit(0);
  }
  int watchdog = fork();
  if (watchdog == 0) {
    close(p[0]);
    close(p[1]);
    close(go[0]);
    close(go[1]);
    sleep_ms(t->timeout_ms);
    kill(pid);
    _exit(0);
  }

  write(go[1], "g", 1);
  close(go[0]);
  close(go[1]);
  int status = 0, timed_out = 0;
  for (int left = watchdog > 0 ? 2 : 1; left > 0; left--) {
    int st;
    int w = wait(&st);
    if (w < 0)
      break;
    if (w == pid) {
      status = st;
      if (watchdog > 0 && left == 2)
        kill(watchdog);   /* finished in time */
    } else if (w == watchdog && left == 2) {
      timed_out = 1;      /* the watchdog fired first: the test is being killed */
    }
  }
  unsigned elapsed = uptime_ms() - t0;

  /* The test's reason, if any. A NUL of our own marks the end, so the read cannot block
   * even if some stray grandchild still holds the write end. */
  char reason[512];
  int n = 0;
  if (write(p[1], "", 1) == 1) {
    while (n < (int)sizeof(reason) - 1) {
      int r = read(p[0], reason + n, 1);
      if (r <= 0 || reason[n] == 0)
        break;
      n++;
    }
  }
  close(p[0]);
  close(p[1]);
  reason[n] = 0;
  while (n > 0 && reason[n - 1] == '\n')
    reason[--n] = 0;
  for (char *c = reason; *c; c++)
    if (*c == '\n')
      *c = ';';

  remove_tree(dir);
  if (status == 0 && !timed_out) {
    printf("test %s: OK\n", t->name);
    return 1;
  }
  if (timed_out)
    printf("test %s: FAILED (timed out after %u ms%s%s)\n", t->name, elapsed,
           n ? ": " : "", reason);
  else if (n)
    printf("test %s: FAILED (%s)\n", t->name, reason);
  else
    printf("test %s: FAILED (exit status %d)\n", t->name, status);
  return 0;
}

struct usage {
  long frames;   /* free frames plus block-cache frames */
  long blocks;   /* free disk blocks */
};

static struct usage measure(void)
{
  struct usage u;
  long free = kstat_get("mem.frames.free");
  long cache = kstat_get("mem.frames.cache");
  if (cache < 0)
    cache = kstat_get("fs.cache.blocks");
  u.frames = free < 0 ? -1 : free + (cache > 0 ? cache : 0);
  /* With demand paging this process's own pages come in as the tests run: not a leak. */
  struct procinfo pi[64];
  int n = ps(pi, 64);
  for (int i = 0; i < n && u.frames >= 0; i++)
    if (pi[i].pid == getpid())
      u.frames += pi[i].size / 4096;
  u.blocks = free_blocks();
  return u;
}

int main(int argc, char **argv)
{
  if (argc >= 2 && strcmp(argv[1], "--argcheck") == 0)
    return argcheck(argc, argv);
  if (argc == 2 && strcmp(argv[1], "--stdincheck") == 0)
    return stdincheck();
  if (argc == 2 && strcmp(argv[1], "--hold") == 0) {
    char c;                 /* for test_etxtbsy: runs until the end of its input */
    write(1, "r", 1);
    while (read(0, &c, 1) > 0)
      ;
    return 0;
  }
  if (argc == 3 && strcmp(argv[1], "--exit") == 0)
    return atoi(argv[2]);   /* for test_forkexec */
  if (argc == 2 && strcmp(argv[1], "-l") == 0) {
    for (int i = 0; i < NTESTS; i++)
      printf("%s\n", tests[i].name);
    return 0;
  }
  for (int i = 1; i < argc; i++) {
    int known = 0;
    for (int k = 0; k < NTESTS; k++)
      if (strcmp(argv[i], tests[k].name) == 0)
        known = 1;
    if (!known) {
      fprintf(stderr, "usertests: no test %s\nusage: usertests [-l] [NAME...]\n", argv[i]);
      return 2;
    }
  }

  /* Make the work directory once and remove it, so that its entry in / exists before the
   * measurement: / keeps the space afterwards and that is not a leak. */
  remove_tree(WORKDIR);
  if (mkdir(WORKDIR) < 0) {
    fprintf(stderr, "usertests: mkdir %s: %s\n", WORKDIR, strerror(errno));
    return 1;
  }
  rmdir(WORKDIR);
  struct usage before = measure();
  if (mkdir(WORKDIR) < 0) {
    fprintf(stderr, "usertests: mkdir %s: %s\n", WORKDIR, strerror(errno));
    return 1;
  }

  int passed = 0, failed = 0;
  for (int i = 0; i < NTESTS; i++) {
    int wanted = argc == 1;
    for (int k = 1; k < argc; k++)
      if (strcmp(argv[k], tests[i].name) == 0)
        wanted = 1;
    if (!wanted)
      continue;
    if (run_test(&tests[i]))
      passed++;
    else
      failed++;
  }
  remove_tree(WORKDIR);

  /* Leak check. Deleted files' blocks are freed at once; frames come back when the last
   * process using them exits. A few frames of slack cover this process's own stack and
   * kernel tables that grow once. */
  struct usage after = measure();
  const long frame_slack = 8;
  if (before.frames >= 0 && after.frames >= 0) {
    if (after.frames < before.frames - frame_slack) {
      printf("test leaks: FAILED (free+cache frames %ld before, %ld after)\n", before.frames,
             after.frames);
      failed++;
    } else {
      printf("test leaks: OK (free+cache frames %ld before, %ld after; disk blocks free %ld "
             "before, %ld after)\n", before.frames, after.frames, before.blocks, after.blocks);
      passed++;
    }
  }
  if (before.blocks >= 0 && after.blocks >= 0 && after.blocks != before.blocks) {
    printf("test diskleaks: FAILED (free disk blocks %ld before, %ld after)\n", before.blocks,
           after.blocks);
    failed++;
  }
  printf("usertests: %d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
