/* exec: replace a process's program with an ELF executable.
 *
 * Read-only loadable parts (text, rodata) go into the code segment; writable ones (data, bss)
 * at the start of the heap segment; the arguments at the top of a fresh stack segment.
 * In this first version every page is loaded at once; the VM issue makes it demand-paged. */
#include "kernel/klib.h"
#include "kernel/elf.h"
#include "kernel/proc.h"
#include "kernel/syscall.h"
#include "kernel/uapi/stat.h"
#include "fs/fs.h"
#include "vm/vm.h"

#define MAXARG 64
#define ARGSPACE (64 * 1024)   /* bytes of argument strings and pointers */

/* Copies kernel bytes into the not-yet-active address space as. */
static int as_copyout(struct addrspace *as, uint32_t va, const void *src, uint32_t n)
{
  const char *s = src;
  while (n > 0) {
    pte_t *pte = as_walk(as, va);
    if (!pte || !(*pte & PTE_P))
      return -EFAULT;
    uint32_t off = va & (PGSIZE - 1);
    uint32_t m = MIN(n, PGSIZE - off);
    memmove((char *)P2V(PTE_ADDR(*pte)) + off, s, m);
    va += m, s += m, n -= m;
  }
  return 0;
}

static int load_segment(struct addrspace *as, struct inode *ip, struct proghdr *ph)
{
  struct segment *s = as_segment_at(as, ph->vaddr);
  if (!s || ph->memsz < ph->filesz || ph->vaddr + ph->memsz < ph->vaddr ||
      ph->vaddr + ph->memsz > s->hi || (ph->vaddr & (PGSIZE - 1)) != (ph->off & (PGSIZE - 1)))
    return -ENOEXEC;
  bool writable = ph->flags & ELF_PROG_FLAG_WRITE;
  if ((s->type == SEG_CODE) == writable)
    return -ENOEXEC;           /* writable data belongs in the heap, code in the code segment */
  int err = seg_alloc_range(s, ph->vaddr, ph->memsz, writable ? PTE_W : 0);
  if (err < 0)
    return err;
  for (uint32_t done = 0; done < ph->filesz;) {
    uint32_t va = ph->vaddr + done;
    pte_t *pte = as_walk(as, va);
    uint32_t off = va & (PGSIZE - 1);
    uint32_t m = MIN(ph->filesz - done, PGSIZE - off);
    if (readi(ip, false, (uint32_t)P2V(PTE_ADDR(*pte)) + off, ph->off + done, m) != (int)m)
      return -ENOEXEC;
    done += m;
  }
  if (PGROUNDDOWN(ph->vaddr) < s->start || s->start == s->end)
    s->start = PGROUNDDOWN(ph->vaddr);
  if (PGROUNDUP(ph->vaddr + ph->memsz) > s->end)
    s->end = PGROUNDUP(ph->vaddr + ph->memsz);
  if (s->type == SEG_HEAP && ph->vaddr + ph->memsz > as->brk)
    as->brk = ph->vaddr + ph->memsz;
  return 0;
}

/* Lays out argc, argv[] and the strings at the top of the stack; returns the new esp. */
static int push_args(struct addrspace *as, char *const argv[], uint32_t *espp)
{
  struct segment *st = as->seg[SEG_STACK];
  int argc = 0;
  uint32_t bytes = 0;
  for (; argv[argc]; argc++) {
    if (argc >= MAXARG)
      return -E2BIG;
    bytes += strlen(argv[argc]) + 1;
  }
  bytes += (argc + 3) * 4 + 16;
  if (bytes > ARGSPACE)
    return -E2BIG;
  uint32_t lo = PGROUNDDOWN(USER_STACK_TOP - bytes - PGSIZE);   /* at least one free page below */
  int err = seg_alloc_range(st, lo, USER_STACK_TOP - lo, PTE_W);
  if (err < 0)
    return err;
  st->start = lo;
  st->end = USER_STACK_TOP;

  uint32_t sp = USER_STACK_TOP;
  uint32_t uargv[MAXARG + 1];
  for (int i = argc - 1; i >= 0; i--) {
    uint32_t n = strlen(argv[i]) + 1;
    sp -= n;
    as_copyout(as, sp, argv[i], n);
    uargv[i] = sp;
  }
  uargv[argc] = 0;
  sp &= ~3u;
  sp -= (argc + 1) * 4;
  as_copyout(as, sp, uargv, (argc + 1) * 4);
  uint32_t frame[2] = { argc, sp };   /* crt0's _start finds argc and argv here */
  sp -= sizeof frame;
  as_copyout(as, sp, frame, sizeof frame);
  *espp = sp;
  return 0;
}

int exec(const char *path, char *const argv[])
{
  struct proc *p = myproc();
  struct elfhdr eh;
  struct addrspace *as = 0;
  int err;

  struct inode *ip = namei(path, &err);
  if (!ip)
    return err;
  ilock(ip);
  if (inode_type(ip) != T_FILE) {
    err = inode_type(ip) == T_DIR ? -EISDIR : -EACCES;
    goto bad_locked;
  }
  if (readi(ip, false, (uint32_t)&eh, 0, sizeof eh) != sizeof eh || eh.magic != ELF_MAGIC ||
      eh.machine != 3 || eh.phentsize != sizeof(struct proghdr) || eh.phnum > 16) {
    err = -ENOEXEC;
    goto bad_locked;
  }
  if ((err = inode_text_get(ip)) < 0)
    goto bad_locked;

  err = -ENOMEM;
  if (!(as = as_create()))
    goto bad_text;
  for (int t = 0; t < 3; t++)
    if (!(as->seg[t] = seg_create(as, t)))
      goto bad_text;
  for (int i = 0; i < eh.phnum; i++) {
    struct proghdr ph;
    if (readi(ip, false, (uint32_t)&ph, eh.phoff + i * sizeof ph, sizeof ph) != sizeof ph) {
      err = -ENOEXEC;
      goto bad_text;
    }
    if (ph.type != ELF_PROG_LOAD || ph.memsz == 0)
      continue;
    if ((err = load_segment(as, ip, &ph)) < 0)
      goto bad_text;
  }
  if (eh.entry < USER_CODE_BASE || eh.entry >= USER_HEAP_BASE) {
    err = -ENOEXEC;
    goto bad_text;
  }
  as->seg[SEG_CODE]->ip = idup(ip);
  seg_attach(as, as->seg[SEG_CODE]);
  iunlock(ip);

  uint32_t sp;
  if ((err = push_args(as, argv, &sp)) < 0) {
    ilock(ip);
    goto bad_text;
  }

  /* The point of no return: the old program is gone. */
  const char *base = path;
  for (const char *c = path; *c; c++)
    if (*c == '/')
      base = c + 1;
  safestrcpy(p->name, base, sizeof p->name);
  struct addrspace *old = p->as;
  struct inode *oldtext = p->text;
  p->as = as;
  p->text = ip;                 /* keeps namei's reference */
  p->tf->eip = eh.entry;
  p->tf->esp = sp;
  as_activate(as);
  if (old)
    as_destroy(old);
  if (oldtext) {
    inode_text_put(oldtext);
    iput(oldtext);
  }
  return 0;

bad_text:
  inode_text_put(ip);
bad_locked:
  if (as)
    as_destroy(as);
  iunlockput(ip);
  return err;
}
