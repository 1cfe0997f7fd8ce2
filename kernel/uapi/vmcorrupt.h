/* SYS_vmcorrupt: test-only damage to the VM's bookkeeping, one word at a time, and its undoing
 * (scaffold/vm_corrupt.c; the program is user/corrupt.c). Refused with -EPERM unless the setting
 * debug.corrupt is 1 (boot key or sysctl); VMC_RESTORE is always allowed.
 *
 * A word is named by a target and its coordinates:
 *   VMC_PTE    pid, seg (VMC_CODE, VMC_HEAP, VMC_STACK), where = virtual address: the entry
 *              (its page table must exist); segno returns the segment's number
 *   VMC_PDE    pid, where = virtual address below KERNBASE: the page-directory entry
 *   VMC_FRAME  where = frame number, field = VMC_F_*: a core-map entry's field
 *   VMC_SEG    where = segment number, field = VMC_S_*: a segment's field
 *   VMC_COUNT  where = pool (VMC_POOL_*): the core map's count of the pool's frames
 *   VMC_INFO   field = VMC_I_* (VMC_GET only): facts a test needs to aim its damage
 * Pointers read and write as numbers: a segment's number, a frame's number, VMC_NONE for
 * null (and VMC_BOGUS when a pointer is neither). VMC_GET and VMC_SET return the value
 * before in old; VMC_SET logs it, and VMC_RESTORE puts every logged word back, last first
 * (a count is put back by its difference, as the kernel changes counts meanwhile). VMC_PANIC
 * panics the kernel (field 1: by a page fault in the kernel), so that a test sees what a panic
 * prints (its backtrace, kernel/ksyms.c). */
#ifndef UAPI_VMCORRUPT_H
#define UAPI_VMCORRUPT_H

enum { VMC_GET = 1, VMC_SET, VMC_RESTORE, VMC_PANIC /* a kernel panic on purpose */ };
enum { VMC_PTE = 1, VMC_PDE, VMC_FRAME, VMC_SEG, VMC_COUNT, VMC_INFO };
enum { VMC_CODE = 0, VMC_HEAP, VMC_STACK };             /* = enum seg_type */
enum { VMC_POOL_NONE = 0, VMC_POOL_FREE, VMC_POOL_KERNEL, VMC_POOL_CACHE, VMC_POOL_VM };
enum { VMC_F_POOL = 1, VMC_F_FLAGS, VMC_F_OWNER, VMC_F_INDEX, VMC_F_NEXT };
enum { VMC_S_USED = 1, VMC_S_TYPE, VMC_S_REFS, VMC_S_START, VMC_S_END, VMC_S_RESIDENT,
       VMC_S_SWAPBLOCKS, VMC_S_LAZY, VMC_S_COR_REFS, VMC_S_COW_NEXT, VMC_S_COW_PREV,
       VMC_S_PID };             /* read only: VMC_S_USED, VMC_S_REFS, VMC_S_PID */
enum { VMC_I_NFRAMES = 1, VMC_I_NSEGS, VMC_I_FREE_TAIL, VMC_I_FREE_BEFORE_TAIL,
       VMC_I_NONE_FRAME, VMC_I_DAMAGED, VMC_I_SEGMENT /* of pid, seg */ };
#define VMC_NONE  0xffffffffu
#define VMC_BOGUS 0xfffffffeu

struct vmcorrupt {
  unsigned op, target;
  int pid;
  unsigned seg, where, field;
  unsigned value;           /* VMC_SET: the new value */
  unsigned old;             /* out: the value before */
  unsigned segno;           /* out (VMC_PTE): the segment's number */
};
#endif
