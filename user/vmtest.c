/* vmtest [-t MS | -l MS] MB [LOOPS]: after Irlam's vmtest (A Guide to Sun-4 Virtual Memory
 * Performance, 1990, section 6). Forks MB/2 processes that each sweep 2 MB of their own heap
 * (one byte per page), and reports the elapsed time and the faults, page-ins and page-outs,
 * for MB of active virtual memory in all. Irlam's children shared one data segment through
 * fork; here copy-on-reference would copy it, so each child has its own.
 *
 * With LOOPS every child sweeps LOOPS times, and the time is until the last is done: a fixed
 * amount of work, as Irlam ran it (make bench-vm's rows). Thrashing makes that time grow
 * without bound (every touch a page-in), so -l MS stops the run after MS milliseconds: the
 * children still sweeping are killed and the line says how many were done ("not done in MS
 * ms"), a bound on the speed rather than a figure. With -t MS every child sweeps for MS
 * milliseconds instead (finishing the sweep it is in), and the line gives the page touches per
 * second of all children together: the rate of whoever is resident, which holds up while the
 * processes whose pages fit go on, so it cannot show thrashing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys.h>

#define PROCESS_SIZE (2 << 20)
#define PAGES (PROCESS_SIZE / 4096)

static int readn(int fd, void *buf, int n)
{
  int got = 0;
  while (got < n) {
    int r = read(fd, (char *)buf + got, n - got);
    if (r <= 0)
      return got;
    got += r;
  }
  return got;
}

static void usage(void)
{
  fprintf(stderr, "usage: vmtest [-t MS | -l MS] MB [LOOPS]\n");
  exit(2);
}

int main(int argc, char **argv)
{
  int i = 1;
  unsigned run_ms = 0, limit_ms = 0;
  if (i < argc && (strcmp(argv[i], "-t") == 0 || strcmp(argv[i], "-l") == 0)) {
    if (i + 1 >= argc || atoi(argv[i + 1]) <= 0)
      usage();
    *(argv[i][1] == 't' ? &run_ms : &limit_ms) = atoi(argv[i + 1]);
    i += 2;
  }
  if (i >= argc || atoi(argv[i]) <= 0)
    usage();
  int mb = atoi(argv[i]);
  int loops = i + 1 < argc ? atoi(argv[i + 1]) : 20;
  int procs = mb / 2 > 0 ? mb / 2 : 1;
  long f0 = kstat_get("vm.faults"), i0 = kstat_get("vm.pageins"), o0 = kstat_get("vm.pageouts");
  /* All children start sweeping together, as Irlam's long-running ones overlap: each says it
   * is ready (its memory touched) on one pipe, and the parent lets them all go on another
   * only when every one is ready; otherwise early children finish before late ones start.
   * No child allocates its heap before every one has been forked (the byte each reads from
   * all_forked): if a fork fails, the run is not the one asked for, and the children already
   * started see the pipe closed and leave without having paged anything. */
  int go[2], ready[2], all_forked[2];
  if (pipe(go) < 0 || pipe(ready) < 0 || pipe(all_forked) < 0) {
    fprintf(stderr, "vmtest: pipe failed\n");
    return 1;
  }
  int pids[procs];
  int forked = 0;
  for (int p = 0; p < procs; p++) {
    int pid = fork();
    if (pid < 0)
      break;
    if (pid == 0) {
      close(go[1]);
      close(ready[0]);
      close(all_forked[1]);
      char c;
      if (read(all_forked[0], &c, 1) != 1)
        exit(1);
      close(all_forked[0]);
      volatile char *mem = sbrk(PROCESS_SIZE);
      if (mem == (void *)-1) {
        fprintf(stderr, "vmtest: out of memory\n");
        exit(1);
      }
      for (int i = 0; i < PROCESS_SIZE; i += 4096)
        mem[i] = 0;           /* all of it in use before any sweep starts */
      c = 'r';
      write(ready[1], &c, 1);
      read(go[0], &c, 1);
      close(go[0]);
      unsigned end = uptime_ms() + run_ms;
      unsigned sweeps = 0;
      for (int c = 0; run_ms ? (sweeps == 0 || (int)(uptime_ms() - end) < 0) : c < loops; c++) {
        for (int i = 0; i < PROCESS_SIZE; i += 4096)
          if (mem[i] != (char)c)
            fprintf(stderr, "vmtest: page %d lost its byte\n", i / 4096);
          else
            mem[i] = (char)(c + 1);
        sweeps++;
      }
      /* Done sweeping: the time stops here, not at exit. One write is never split. */
      write(ready[1], &sweeps, sizeof sweeps);
      exit(0);
    }
    pids[forked++] = pid;
  }
  close(all_forked[0]);
  int status;
  if (forked < procs) {
    close(all_forked[1]);
    while (wait(&status) > 0)
      ;
    fprintf(stderr, "vmtest: fork failed: %d of %d processes started, none run\n", forked, procs);
    return 1;
  }
  for (int p = 0; p < procs; p++)
    write(all_forked[1], "f", 1);
  close(all_forked[1]);
  close(go[0]);
  char c;
  for (int p = 0; p < procs && read(ready[0], &c, 1) == 1; p++)
    ;
  unsigned t0 = uptime_ms();
  for (int p = 0; p < procs; p++)
    write(go[1], "g", 1);     /* a byte each: every child goes */
  close(go[1]);
  /* With -l, one more child sleeps out the limit and then reports "time up" on the same pipe,
   * so the parent waits in one read for whichever comes first. */
  const unsigned TIME_UP = ~0u;
  int timer = 0;
  if (limit_ms && (timer = fork()) == 0) {
    sleep_ms(limit_ms);
    write(ready[1], &TIME_UP, sizeof TIME_UP);
    exit(0);
  }
  if (timer < 0) {
    /* Without its timer the run would have no limit: a thrashing one could take hours. */
    for (int k = 0; k < forked; k++)
      kill(pids[k]);
    while (wait(&status) > 0)
      ;
    fprintf(stderr, "vmtest: fork failed: no timer for the %u ms limit\n", limit_ms);
    return 1;
  }
  close(ready[1]);
  unsigned long long sweeps = 0;
  unsigned n;
  int done = 0;
  while (done < procs && readn(ready[0], &n, sizeof n) == sizeof n && n != TIME_UP) {
    sweeps += n;
    done++;
  }
  unsigned ms = uptime_ms() - t0;
  if (timer > 0)
    kill(timer);
  for (int k = 0; done < procs && k < forked; k++)
    kill(pids[k]);            /* time up: the children still sweeping (the others are gone) */
  int failed = 0, pid;
  while ((pid = wait(&status)) > 0)
    if (status != 0 && pid != timer && done == procs)
      failed++;               /* neither the timer nor a child killed at the limit failed */
  long faults = kstat_get("vm.faults") - f0, ins = kstat_get("vm.pageins") - i0,
       outs = kstat_get("vm.pageouts") - o0;
  if (done < procs)
    printf("vmtest: %d MB, %d procs, %d loops: not done in %u ms (%d of %d processes done), %ld faults, "
           "%ld pageins, %ld pageouts\n", mb, procs, loops, ms, done, procs, faults, ins, outs);
  else if (run_ms)
    printf("vmtest: %d MB, %d procs, %llu sweeps in %u ms: %llu touches/s, %ld faults, %ld pageins, "
           "%ld pageouts%s\n", mb, procs, sweeps, ms, sweeps * PAGES * 1000 / (ms ? ms : 1), faults,
           ins, outs, failed ? ", FAILED" : "");
  else
    printf("vmtest: %d MB, %d procs, %d loops: %u ms, %ld faults, %ld pageins, %ld pageouts%s\n",
           mb, procs, loops, ms, faults, ins, outs, failed ? ", FAILED" : "");
  return failed != 0;
}
