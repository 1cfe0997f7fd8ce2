/* trace: records a reference trace of a command (vm/trace.c) and writes it to a file in the
 * simulator's text format (tools/lab/tracesim/trace.c).
 *
 *   trace [-r] [-e MS] [-w NAME] -o FILE COMMAND [ARG...]
 *       starts a trace with an epoch of MS ms (default 250), runs COMMAND (a program in /bin,
 *       or a path), waits for it, stops the trace and writes it to FILE; the header names the
 *       workload NAME (default: the command's name). The trace holds every process's pages,
 *       as Hagmann's did, not only the command's. -r records the order of each epoch's first
 *       references (vm.trace_order=1: soft faults) instead of sampling the bits alone. While
 *       the command runs, a child of trace drains the kernel's buffer into FILE every 200 ms,
 *       so a trace may be longer than the buffer.
 *   trace [-w NAME] -o FILE
 *       writes the trace the kernel holds (or is recording) to FILE.
 *   trace -f [-w NAME] -o FILE
 *       follows the trace the kernel is recording (started with sysctl vm.trace_order and
 *       vm.trace_epoch_ms) into FILE, draining its buffer, until the trace is stopped: run it
 *       in the background to trace a whole session of commands at the shell.
 *
 * One trace at a time: starting one drops what the kernel held.
 *
 * Prints "trace: N records, E epochs of MS ms, L lost" on success; exit status 1 with one
 * line on any error (a bad option, the trace refused, FILE not writable, records lost), or
 * the command's failure ("trace: COMMAND exited with status S": the trace is written anyway).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys.h>

static struct vmtrace_rec recs[512];
static char out[8192];
static int used;

static void usage(void)
{
  fprintf(stderr, "usage: trace [-r] [-e MS] [-w NAME] -o FILE COMMAND [ARG...] | trace [-f] [-w NAME] -o FILE\n");
  exit(1);
}

static void put(int fd, const char *s, int n)
{
  if (used + n > (int)sizeof out) {
    if (write(fd, out, used) != used) {
      fprintf(stderr, "trace: cannot write the file (disk full?)\n");
      exit(1);
    }
    used = 0;
  }
  memcpy(out + used, s, n);
  used += n;
}

/* Writes the kernel's trace to path; follow: while it is still recording, wait for more. */
static int save(const char *path, const char *name, int follow)
{
  struct vmtrace_info info;
  int n = vmtrace(&info, recs, 0, 0);
  if (n < 0) {
    fprintf(stderr, "trace: cannot read the kernel's trace (error %d)\n", -n);
    return 1;
  }
  if (!info.epoch_ms) {
    fprintf(stderr, "trace: the kernel holds no trace (set vm.trace_epoch_ms, or give a command)\n");
    return 1;
  }
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC);
  if (fd < 0) {
    fprintf(stderr, "trace: %s: cannot create\n", path);
    return 1;
  }
  char line[96];
  int len = follow ? snprintf(line, sizeof line, "# trace epoch_ms=%u workload=%s%s\n", info.epoch_ms,
                              name, info.ordered ? " order=reference" : "")
                   : snprintf(line, sizeof line, "# trace epoch_ms=%u workload=%s epochs=%u lost=%u%s\n",
                              info.epoch_ms, name, info.epochs, info.lost,
                              info.ordered ? " order=reference" : "");
  put(fd, line, len);
  put(fd, "# EPOCH SEGMENT PAGE REFERENCED MODIFIED\n", 41);
  unsigned first = 0;
  for (;;) {
    n = vmtrace(&info, recs, first, sizeof recs / sizeof recs[0]);
    if (n < 0) {
      fprintf(stderr, "trace: cannot read the kernel's trace (error %d)\n", -n);
      return 1;
    }
    if (n == 0 && follow && info.on) {
      sleep_ms(200);
      continue;
    }
    if (n == 0)
      break;
    for (int i = 0; i < n; i++) {
      len = snprintf(line, sizeof line, "%u %u %u %u %u\n", recs[i].epoch, recs[i].seg,
                     recs[i].page >> 2, (recs[i].page & VMTRACE_REF) ? 1 : 0,
                     (recs[i].page & VMTRACE_MOD) ? 1 : 0);
      put(fd, line, len);
    }
    first += n;
  }
  if (follow) {
    len = snprintf(line, sizeof line, "# end epochs=%u lost=%u\n", info.epochs, info.lost);
    put(fd, line, len);
  }
  if (used && write(fd, out, used) != used) {
    fprintf(stderr, "trace: cannot write the file (disk full?)\n");
    return 1;
  }
  close(fd);
  printf("trace: %u records, %u epochs of %u ms, %u lost\n", info.records, info.epochs,
         info.epoch_ms, info.lost);
  if (info.lost) {
    fprintf(stderr, "trace: %u records did not fit in the kernel's buffer\n", info.lost);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv)
{
  const char *file = 0, *name = 0, *epoch = "250", *order = "0";
  int i = 1, follow = 0;
  for (; i < argc && argv[i][0] == '-'; i++) {
    if (strcmp(argv[i], "-r") == 0)
      order = "1";
    else if (strcmp(argv[i], "-f") == 0)
      follow = 1;
    else if (strcmp(argv[i], "-e") == 0 && i + 1 < argc)
      epoch = argv[++i];
    else if (strcmp(argv[i], "-w") == 0 && i + 1 < argc)
      name = argv[++i];
    else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
      file = argv[++i];
    else
      usage();
  }
  if (!file)
    usage();
  if (i == argc)
    return save(file, name ? name : "unnamed", follow);
  if (follow)
    usage();
  char why[128];
  if (sysctl("vm.trace_order", order, why, sizeof why) < 0) {
    fprintf(stderr, "trace: cannot set vm.trace_order: %s\n", why);
    return 1;
  }
  if (strcmp(epoch, "0") == 0 || sysctl("vm.trace_epoch_ms", epoch, why, sizeof why) < 0) {
    fprintf(stderr, "trace: cannot start: %s\n", strcmp(epoch, "0") ? why : "the epoch must not be 0");
    return 1;
  }
  char path[128];
  if (strchr(argv[i], '/'))
    snprintf(path, sizeof path, "%s", argv[i]);
  else
    snprintf(path, sizeof path, "/bin/%s", argv[i]);
  const char *wname = name ? name : argv[i];
  int drainer = fork();
  if (drainer == 0)
    exit(save(file, wname, 1));
  int pid = drainer < 0 ? -1 : fork();
  if (pid < 0) {
    fprintf(stderr, "trace: cannot fork\n");
    sysctl("vm.trace_epoch_ms", "0", why, sizeof why);
    return 1;
  }
  if (pid == 0) {
    exec(path, argv + i);
    fprintf(stderr, "trace: %s: cannot run\n", path);
    exit(127);
  }
  int status = 0, st, rc = 1, w;
  while ((w = wait(&st)) != pid && w >= 0)
    if (w == drainer)
      rc = st, drainer = -1;   /* it failed early: the file is incomplete */
  status = st;
  sysctl("vm.trace_epoch_ms", "0", why, sizeof why);
  if (drainer > 0)
    while ((w = wait(&st)) >= 0)
      if (w == drainer) {
        rc = st;
        break;
      }
  if (status != 0) {
    fprintf(stderr, "trace: %s exited with status %d\n", argv[i], status);
    return 1;
  }
  return rc;
}
