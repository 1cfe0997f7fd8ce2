/* The user library's system calls on Linux (i386), so that the very programs of user/ run as
 * 32-bit static Linux programs unchanged: the benchmark of Linux beside this kernel
 * (tools/bench/bench_linux.py) runs sort and the toucher built from the same sources.
 *
 * Every call of unistd.h, fcntl.h, sys/stat.h, dirent.h and sys.h keeps this kernel's meaning
 * (kernel/uapi) and is made of Linux's calls (linux/abi.h): the same int 0x80 with Linux's
 * numbers. What differs, and how it is bridged:
 *   - errno: this kernel's numbers are Linux's (uapi/errno.h), so a negative result is
 *     passed on as it is; ENOSWAP is never returned by Linux.
 *   - open's flags: the same bits as Linux's (uapi/fcntl.h); files are created 0666 under
 *     the umask, as there are no permissions here.
 *   - wait's status: Linux encodes it; it becomes this kernel's: the exit code, or 128 + the
 *     signal for a killed process (uapi/signal.h).
 *   - stat: Linux's stat64 becomes struct stat (uapi/stat.h): the type from the mode, the
 *     size, 4 KB blocks from 512-byte ones, the seconds of the last change.
 *   - readdir: getdents64, a buffer's worth at a time.
 *   - sbrk: brk, which Linux gives as the new break.
 *   - uptime_ms: CLOCK_BOOTTIME, the clock of /proc/uptime, so a program's time stamps and a
 *     script's read of /proc/uptime are on one axis.
 *   - ps and getprocinfo: /proc/PID/stat; a process's page-ins are its major faults (pages
 *     read from swap or a file while it waited); Linux counts no page-outs by process (0).
 *   - kill: SIGKILL, final as here; a negative pid is a process group on both.
 *   - shutdown: sync, then reboot(POWER_OFF).
 * The calls particular to this kernel (kstat, sysctl, setfg, consmode, incore and the VM's
 * negtrace, vmaudit, vmtrace, vmcorrupt) have no Linux call: they fail with ENOSYS, as Linux
 * does for a number it does not know. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include <dirent.h>
#include <sys/stat.h>
#include <string.h>
#include <sys.h>
#include "abi.h"

int errno;
char **environ;            /* set by crt0: execve passes it on */

static inline int sys5(int num, int a, int b, int c, int d, int e)
{
  int ret;
  __asm__ volatile("int $0x80"
                   : "=a"(ret)
                   : "a"(num), "b"(a), "c"(b), "d"(c), "S"(d), "D"(e)
                   : "memory", "cc");
  return ret;
}

static int check(int r)
{
  if (r < 0 && r >= -4095) {
    errno = -r;
    return -1;
  }
  return r;
}

#define SYS0(n)             check(sys5((n), 0, 0, 0, 0, 0))
#define SYS1(n, a)          check(sys5((n), (int)(a), 0, 0, 0, 0))
#define SYS2(n, a, b)       check(sys5((n), (int)(a), (int)(b), 0, 0, 0))
#define SYS3(n, a, b, c)    check(sys5((n), (int)(a), (int)(b), (int)(c), 0, 0))
#define SYS4(n, a, b, c, d) check(sys5((n), (int)(a), (int)(b), (int)(c), (int)(d), 0))

static int nosys(void)
{
  errno = ENOSYS;
  return -1;
}

int fork(void)
{
  fflush(0);
  return SYS0(LNX_fork);
}

void _exit(int status)
{
  for (;;)
    sys5(LNX_exit_group, status, 0, 0, 0, 0);
}

/* Linux's encoded status as this kernel's: the code, or 128 + the signal. */
int linux_wait_status(int st)
{
  if ((st & 0x7f) == 0)
    return (st >> 8) & 0xff;
  return 128 + (st & 0x7f);
}

int wait(int *status)
{
  int st = 0;
  int pid = SYS4(LNX_wait4, -1, &st, 0, 0);
  if (pid >= 0 && status)
    *status = linux_wait_status(st);
  return pid;
}

int exec(const char *path, char **argv)
{
  fflush(0);
  static char *none[] = { 0 };
  return SYS3(LNX_execve, path, argv, environ ? environ : none);
}

int execv(const char *path, char **argv) { return exec(path, argv); }
int getpid(void) { return SYS0(LNX_getpid); }
int kill(int pid) { return SYS2(LNX_kill, pid, LNX_SIGKILL); }
int setpgid(int pid, int pgid) { return SYS2(LNX_setpgid, pid, pgid); }

void *sbrk(int increment)
{
  static unsigned cur;
  if (!cur)
    cur = (unsigned)sys5(LNX_brk, 0, 0, 0, 0, 0);
  unsigned old = cur;
  if (increment == 0)
    return (void *)old;
  unsigned want = old + increment;
  unsigned got = (unsigned)sys5(LNX_brk, (int)want, 0, 0, 0, 0);
  if (got != want) {         /* Linux leaves the break where it was and says so */
    errno = ENOMEM;
    return (void *)-1;
  }
  cur = want;
  return (void *)old;
}

int sleep_ms(unsigned ms)
{
  struct lnx_timespec t = { ms / 1000, (ms % 1000) * 1000000 }, left;
  while (sys5(LNX_nanosleep, (int)&t, (int)&left, 0, 0, 0) == -EINTR)
    t = left;
  return 0;
}

unsigned sleep(unsigned seconds)
{
  sleep_ms(seconds * 1000);
  return 0;
}

unsigned uptime_ms(void)
{
  struct lnx_timespec t;
  sys5(LNX_clock_gettime, LNX_CLOCK_BOOTTIME, (int)&t, 0, 0, 0);
  return (unsigned)t.tv_sec * 1000u + (unsigned)t.tv_nsec / 1000000u;
}

int open(const char *path, int flags) { return SYS3(LNX_open, path, flags | LNX_O_LARGEFILE, 0666); }
int close(int fd) { return SYS1(LNX_close, fd); }
int read(int fd, void *buf, unsigned n) { return SYS3(LNX_read, fd, buf, n); }
int write(int fd, const void *buf, unsigned n) { return SYS3(LNX_write, fd, buf, n); }
int lseek(int fd, int offset, int whence) { return SYS3(LNX_lseek, fd, offset, whence); }

/* Linux's stat64 as this kernel's struct stat. */
void linux_stat_convert(const struct lnx_stat64 *l, struct stat *st)
{
  memset(st, 0, sizeof *st);
  st->dev = (unsigned)l->st_dev;
  st->ino = (unsigned)l->st_ino;
  unsigned fmt = l->st_mode & LNX_S_IFMT;
  st->type = fmt == LNX_S_IFDIR ? T_DIR : fmt == LNX_S_IFREG ? T_FILE : T_DEV;
  st->nlink = l->st_nlink;
  st->size = (unsigned)l->st_size;
  st->blocks = (unsigned)((l->st_blocks + 7) / 8);
  st->mtime = l->st_mtime;
}

int fstat(int fd, struct stat *st)
{
  struct lnx_stat64 l;
  if (SYS2(LNX_fstat64, fd, &l) < 0)
    return -1;
  linux_stat_convert(&l, st);
  return 0;
}

int stat(const char *path, struct stat *st)
{
  struct lnx_stat64 l;
  if (SYS2(LNX_stat64, path, &l) < 0)
    return -1;
  linux_stat_convert(&l, st);
  return 0;
}

int unlink(const char *path) { return SYS1(LNX_unlink, path); }
int mkdir(const char *path) { return SYS2(LNX_mkdir, path, 0777); }
int rmdir(const char *path) { return SYS1(LNX_rmdir, path); }
int rename(const char *from, const char *to) { return SYS2(LNX_rename, from, to); }
int dup(int fd) { return SYS1(LNX_dup, fd); }
int dup2(int fd, int newfd) { return SYS2(LNX_dup2, fd, newfd); }
int pipe(int fds[2]) { return SYS1(LNX_pipe, fds); }
int chdir(const char *path) { return SYS1(LNX_chdir, path); }
int fsync(int fd) { return SYS1(LNX_fsync, fd); }
void sync(void) { sys5(LNX_sync, 0, 0, 0, 0, 0); }

char *getcwd(char *buf, unsigned len)
{
  if (SYS2(LNX_getcwd, buf, len) < 0)
    return 0;
  return buf;
}

/* Directories: getdents64 fills a buffer of entries; readdir hands them out one by one. A
 * few directories may be read at once (ls -R), each by its descriptor. */
#define NDIRBUF 4
static struct dirbuf {
  int fd1;                    /* the descriptor + 1; 0: free */
  int pos, len;
  char buf[2048];
} dirbufs[NDIRBUF];

int readdir(int fd, struct dirent *de)
{
  struct dirbuf *d = 0;
  for (int i = 0; i < NDIRBUF && !d; i++)
    if (dirbufs[i].fd1 == fd + 1)
      d = &dirbufs[i];
  for (int i = 0; i < NDIRBUF && !d; i++)
    if (dirbufs[i].fd1 == 0) {
      d = &dirbufs[i];
      d->fd1 = fd + 1, d->pos = d->len = 0;
    }
  if (!d) {
    errno = EMFILE;
    return -1;
  }
  if (d->pos >= d->len) {
    int n = SYS3(LNX_getdents64, fd, d->buf, sizeof d->buf);
    d->pos = 0, d->len = n > 0 ? n : 0;
    if (n <= 0) {
      d->fd1 = 0;              /* the end, or an error: the slot is free again */
      return n;
    }
  }
  struct lnx_dirent64 *e = (struct lnx_dirent64 *)(d->buf + d->pos);
  d->pos += e->d_reclen;
  de->ino = (unsigned)e->d_ino;
  strlcpy(de->name, e->d_name, sizeof de->name);
  return 1;
}

int shutdown(void)
{
  fflush(0);
  sync();
  return SYS4(LNX_reboot, LNX_REBOOT_MAGIC1, LNX_REBOOT_MAGIC2, LNX_REBOOT_POWER_OFF, 0);
}

/* One row of ps from the text of /proc/PID/stat: "pid (comm) state ppid pgrp session tty
 * tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime priority nice threads
 * itrealvalue starttime vsize ...". The name may hold spaces and parentheses: it ends at the
 * last ')'. Returns 0, or -1 if the text is not such a line. */
int linux_parse_stat(const char *text, struct procinfo *p)
{
  memset(p, 0, sizeof *p);
  const char *open_paren = strchr(text, '('), *close_paren = strrchr(text, ')');
  if (!open_paren || !close_paren || close_paren < open_paren || close_paren[1] != ' ')
    return -1;
  p->pid = atoi(text);
  unsigned n = close_paren - open_paren - 1;
  if (n >= sizeof p->name)
    n = sizeof p->name - 1;
  memcpy(p->name, open_paren + 1, n);
  p->name[n] = 0;
  const char *s = close_paren + 2;
  char state = *s;
  p->state = state == 'R' ? 3 : state == 'Z' || state == 'X' ? 4 : 1;
  unsigned long f[21];               /* the fields after the state: f[0] ppid ... f[19] vsize */
  int k = 0;
  for (s++; k < 21 && *s; k++) {
    while (*s == ' ')
      s++;
    if (!*s)
      break;
    f[k] = strtoul(s, (char **)&s, 10);
  }
  if (k < 20)
    return -1;
  p->ppid = f[0];
  p->pgid = f[1];
  p->pageins = f[8];                 /* majflt */
  p->pageouts = 0;
  p->size = f[19];                   /* vsize, bytes */
  return 0;
}

int getprocinfo(int pid, struct procinfo *out)
{
  char path[32], text[512];
  snprintf(path, sizeof path, "/proc/%d/stat", pid);
  int fd = open(path, O_RDONLY);
  if (fd < 0) {
    errno = ESRCH;
    return -1;
  }
  int n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n <= 0) {
    errno = ESRCH;
    return -1;
  }
  text[n] = 0;
  if (linux_parse_stat(text, out) < 0) {
    errno = EIO;
    return -1;
  }
  return 0;
}

int ps(struct procinfo *buf, int max)
{
  int fd = open("/proc", O_RDONLY), n = 0;
  if (fd < 0)
    return -1;
  struct dirent de;
  while (n < max && readdir(fd, &de) > 0) {
    if (de.name[0] < '1' || de.name[0] > '9')
      continue;
    if (getprocinfo(atoi(de.name), &buf[n]) == 0)
      n++;
  }
  while (readdir(fd, &de) > 0)
    ;                                /* to the end: frees readdir's buffer */
  close(fd);
  return n;
}

int kstat(char *buf, unsigned len) { return nosys(); }
int sysctl(const char *name, const char *value, char *out, unsigned outlen) { return nosys(); }
int setfg(int pgid) { return nosys(); }
int consmode(int fd, int mode) { return nosys(); }
int incore(int fd, unsigned char *vec, unsigned n) { return nosys(); }
int negtrace(struct negrecord *buf, int max) { return -ENOSYS; }   /* the VM's calls return -errno (vm.c) */
int vmaudit(int quiet) { return -ENOSYS; }
int vmtrace(struct vmtrace_info *info, struct vmtrace_rec *buf, unsigned first, unsigned max) { return -ENOSYS; }
int vmcorrupt(struct vmcorrupt *r) { return -ENOSYS; }
