/* One finding of an audit: counted in the caller's `bad` and, unless the caller's `quiet`,
 * printed as "audit: ..." (every audit function has both: int bad, bool quiet). The audits
 * are kernel/mem/coremap.c's, vm/audit.c's and its helpers', fs/cache_audit.c's and the dirty lists'. */
#ifndef KERNEL_AUDIT_H
#define KERNEL_AUDIT_H
#include "kernel/klib.h"

#define AUDIT_BAD(...) do { bad++; if (!quiet) kprintf("audit: " __VA_ARGS__); } while (0)
#endif
