/* The reference trace (vm/trace.c): what SYS_vmtrace copies out. */
#ifndef UAPI_VMTRACE_H
#define UAPI_VMTRACE_H

/* One page referenced or modified in one epoch. */
struct vmtrace_rec {
  unsigned epoch;           /* 0 for the first epoch of the trace */
  unsigned seg;             /* the segment's serial number (never reused) */
  unsigned page;            /* page << 2 | modified << 1 | referenced */
};
#define VMTRACE_REF 1u
#define VMTRACE_MOD 2u

struct vmtrace_info {
  unsigned epoch_ms;        /* the trace's epoch (vm.trace_epoch_ms when it was started) */
  unsigned epochs;          /* epochs sampled */
  unsigned records;         /* records held */
  unsigned lost;            /* records that did not fit */
  unsigned on;              /* still recording */
  unsigned ordered;         /* each epoch's records are in the order of first references */
};
#endif
