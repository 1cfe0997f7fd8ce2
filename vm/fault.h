/* The one fault path: user page faults and the kernel's own accesses to user memory
 * (system-call copies) both come here. */
#ifndef VM_FAULT_H
#define VM_FAULT_H
#include "kernel/types.h"

#define FAULT_PRESENT 0x1   /* x86 error code bits */
#define FAULT_WRITE   0x2
#define FAULT_USER    0x4

/* Makes va accessible for the kind of access err describes; 0 if it now is, -1 if the access
 * is not allowed (the caller kills the process or returns EFAULT). */
int vm_fault(uint32_t va, uint32_t err, bool from_user);
/* Checks that user range [va, va+len) is accessible (faulting pages in as needed); 0 or -EFAULT. */
int vm_check_user(uint32_t va, uint32_t len, bool write);
extern const char *vm_fault_reason;   /* why the last vm_fault failed, or 0 */
#endif
