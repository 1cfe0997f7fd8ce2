/* A reference trace, as recorded by the kernel (vm/trace.c) and shipped in traces/: see
 * trace.c for the file format. */
#ifndef TRACESIM_TRACE_H
#define TRACESIM_TRACE_H
#include <stdint.h>
#include <stdbool.h>

struct ref {
  uint32_t epoch;
  uint32_t page;            /* dense page number 0 .. npages-1 (one per segment and page) */
  bool modified;
  bool ends;                /* the last reference of its segment: its pages die at the epoch's end */
};

struct trace {
  const char *path;
  uint32_t epoch_ms;        /* the recording's epoch */
  uint32_t first_epoch, last_epoch;
  uint32_t nrefs, npages;
  bool ordered;             /* "order=reference": each epoch's references in the order of use */
  uint32_t live;            /* the most pages ever between their first and last use at once: MIN
                               needs no more frames than this to fault only on first touches */
  struct ref *refs;         /* in the file's order: by epoch, then as the kernel met them */
  uint32_t *seg_of;         /* page -> dense segment number */
  uint32_t nsegs;
};

/* Reads a trace; on a bad file prints one line naming it and the line, and exits 2. */
void trace_read(const char *path, struct trace *t);
#endif
