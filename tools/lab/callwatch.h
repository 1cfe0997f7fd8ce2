/* A time limit on each call of a student's hook, in CPU time, for both lab simulators
 * (tools/lab/tracesim, arbitersim): tools/lab/callwatch.c says how and why. */
#ifndef TOOLS_LAB_CALLWATCH_H
#define TOOLS_LAB_CALLWATCH_H
#include <stdint.h>

/* The simulator's exit status when a hook did not return in time (its line says where). */
#define CALLWATCH_EXIT 3
/* The limit when none is given (-t): a hook's call takes microseconds. */
#define CALLWATCH_DEFAULT_MS 1000

/* What the watch reads: the hook under way (0: none), the step of the trace it was called at,
 * and how many calls began (a call that spans the watch's ticks is one that never returned). */
extern const char *volatile callwatch_hook;
extern volatile uint32_t callwatch_step, callwatch_calls;

/* Starts the watch in this process (interval timers are not inherited across fork: a
 * simulator that forks its runs starts it in each child). prog names the simulator in the
 * watch's line; limit_ms is CPU time per call. The process also dies with its parent. */
void callwatch_init(const char *prog, uint32_t limit_ms);
/* What is being run, for the watch's line: who ("policy dave on sort.trace at 12 frames"), the
 * trace's steps ("reference") and how many there are. */
void callwatch_context(const char *who, const char *noun, uint32_t nsteps);

static inline void callwatch_enter(const char *hook, uint32_t step)
{
  callwatch_step = step;
  callwatch_calls++;
  callwatch_hook = hook;
}

static inline void callwatch_leave(void)
{
  callwatch_hook = 0;
}
#endif
