/* A recorded negotiation trace (traces/negotiation/NAME.negtrace.gz), as the arbiter simulator
 * reads it: the format is in tools/lab/arbitersim/negtrace.c's essay. */
#ifndef ARBITERSIM_NEGTRACE_H
#define ARBITERSIM_NEGTRACE_H
#include <stdint.h>
#include <stdbool.h>

enum ev_type { EV_NEG = 'N', EV_GAVE = 'G', EV_REFAULT = 'R', EV_USED = 'U', EV_RESET = 'X' };

/* Offer flags, as the kernel records them (kernel/arbiters.c). */
#define NF_FS_REFUSED 0x1
#define NF_VM_REFUSED 0x2
#define NF_FS_FREE    0x4
#define NF_VM_FREE    0x8
#define NF_FS_BUSY    0x10
#define NF_VM_BUSY    0x20

struct event {
  char type;
  uint32_t time_ms;
  /* N: asker, flags, verdict (enum neg_verdict), fs and vm offers, frames, penalty_ms.
   * G: pool, key, lastref (a[0]). R: pool, key, distance, reuse, other, early.
   * U: idle, age, count. */
  uint8_t pool, flags, verdict, early;
  uint32_t key;
  uint32_t a[6];
  int32_t gave_up;            /* G: the R that brought the page back (-1: none seen) */
};

struct negtrace {
  const char *path;
  char header[512];           /* the first line, "# negtrace ..." */
  uint32_t penalty_s;         /* the recorded run's vm.penalty */
  int penalty_mode;           /* 0 fixed, 1 stepped, 2 adaptive */
  struct event *ev;
  uint32_t n;
};

/* Reads path (.gz through gzip -dc); exits with status 2 and a one-line reason if it is bad. */
void negtrace_read(struct negtrace *t, const char *path);
#endif
