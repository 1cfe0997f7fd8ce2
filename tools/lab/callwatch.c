/* callwatch: a time limit on each call of a student's hook, in CPU time.
 *
 * A policy's or an arbiter's hooks run in the kernel under a lock (the VM lock; a spinlock with
 * interrupts off) and must return at once: one that loops hangs the machine. In the simulators
 * the same hook loops the simulator, and a grader that waits for it by the wall clock both
 * wastes the time it waits and, on a loaded machine, gives up on a good submission that was
 * merely slow to be scheduled. So the limit is here, per call, and in CPU time: a hook's call
 * takes microseconds of CPU whatever the load, and one that has run for a second of CPU has
 * looped. The line the watch prints says which hook and at which step of the trace.
 *
 * How: the simulator marks each hook call (callwatch_enter before it, callwatch_leave after:
 * two stores and an increment, nothing per reference that costs a system call). A profiling
 * timer (ITIMER_PROF: the process's CPU time, user and system) ticks ten times per limit; at
 * each tick the handler looks whether a hook is under way and whether it is still the same
 * call as at the tick before (the count of calls begun has not moved). Ten ticks in one call
 * is a call that has used the limit: the handler writes one line and ends the process with
 * CALLWATCH_EXIT. A tick outside a hook, or in a new call, starts the count again.
 *
 * The handler formats its line with snprintf, which a signal handler may not in general: here
 * it runs only when the interrupted code is a hook that has looped, and a hook calls nothing
 * of the C library (the grader refuses a file that does), so no library lock can be held.
 *
 * A run also dies with its simulator (PR_SET_PDEATHSIG): a grader that gives up on a simulator
 * and kills it leaves no run of it behind. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include "tools/lab/callwatch.h"

#define TICKS 10

const char *volatile callwatch_hook;
volatile uint32_t callwatch_step, callwatch_calls;

static const char *prog = "simulator";
static uint32_t limit_ms = CALLWATCH_DEFAULT_MS;
static char who[300] = "a hook", noun[32] = "step";
static uint32_t nsteps;
static uint32_t seen_calls, same;

static void tick(int sig)
{
  const char *hook = callwatch_hook;
  if (!hook || callwatch_calls != seen_calls) {
    seen_calls = callwatch_calls;
    same = 0;
    return;
  }
  if (++same < TICKS)
    return;
  char line[600];
  int n = snprintf(line, sizeof line, "\n%s: %s: its %s hook did not return within %u ms of CPU time, at %s %u "
                   "of %u: a hook that loops (it runs under a lock in the kernel and must return at once)\n",
                   prog, who, hook, (unsigned)limit_ms, noun, (unsigned)callwatch_step + 1, (unsigned)nsteps);
  if (n > (int)sizeof line - 1)
    n = sizeof line - 1;
  ssize_t w = write(2, line, (size_t)n);
  (void)w;                    /* nothing more can be said if it fails */
  _exit(CALLWATCH_EXIT);
}

void callwatch_init(const char *name, uint32_t ms)
{
  prog = name;
  limit_ms = ms ? ms : CALLWATCH_DEFAULT_MS;
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = tick;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGPROF, &sa, 0);
  uint32_t us = limit_ms * 1000 / TICKS;
  struct itimerval it = { { us / 1000000, us % 1000000 }, { us / 1000000, us % 1000000 } };
  setitimer(ITIMER_PROF, &it, 0);
}

void callwatch_context(const char *w, const char *n, uint32_t steps)
{
  snprintf(who, sizeof who, "%s", w);
  snprintf(noun, sizeof noun, "%s", n);
  nsteps = steps;
}
