/* exec: replace a process's program with an ELF executable.
 *
 * Read-only loadable parts (text, rodata) go into the code segment; writable ones (data, bss)
 * at the start of the heap segment; the arguments at the top of a fresh stack segment.
 * Nothing is read here but the headers: pages come in on demand (vm/fault.c); a program that
 * is already running shares its code segment. */
#include "kernel/klib.h"
#include "kernel/elf.h"
#include "kernel/proc.h"
#include "kernel/syscall.h"
#include "kernel/uapi/stat.h"
#include "fs/backing.h"
#include "vm/vm.h"
#include "kernel/mem/coremap.h"

#define MAXARG 64
#define ARGSPACE (64 * 1024)   /* bytes of argument strings and pointers */

/* Copies kernel bytes into the not-yet-active address space as. */
static int as_copyout(struct addrspace *as, uint32_t va, const void *src, uint32_t n)
{
  const char *s = src;
  struct segment *st = as->seg[SEG_STACK];
  while (n > 0) {
    acquire(&vm_lock);
    pte_t *pte = as_walk(as, va);
    if (!pte || !(*pte & PTE_P)) {
      /* Pushed out under memory pressure before we wrote it (it held zeros): again. */
      release(&vm_lock);
      if (seg_alloc_range(st, PGROUNDDOWN(va), PGSIZE, PTE_W) < 0)
        return -ENOMEM;
      continue;
    }
    uint32_t off = va & (PGSIZE - 1);
    uint32_t m = MIN(n, PGSIZE - off);
    /* Written through the kernel's mapping, which sets no dirty bit in the user's entry. */
    pa_to_frame(PTE_ADDR(*pte))->pflags |= VMF_DIRTY;
    memmove((char *)P2V(PTE_ADDR(*pte)) + off, s, m);
    release(&vm_lock);
    va += m, s += m, n -= m;
  }
  return 0;
}

/* Records a loadable part of the executable: its pages come in when touched (vm/fault.c).
 * Code goes in the code segment, writable data at the start of the heap. */
static int load_segment(struct addrspace *as, struct proghdr *ph)
{
  struct segment *s = as_segment_at(as, ph->vaddr);
  if (!s || ph->memsz < ph->filesz || ph->vaddr + ph->memsz < ph->vaddr ||
      ph->vaddr + ph->memsz > s->hi || (ph->vaddr & (PGSIZE - 1)) != (ph->off & (PGSIZE - 1)))
    return -ENOEXEC;
  bool writable = ph->flags & ELF_PROG_FLAG_WRITE;
  if ((s->type == SEG_CODE) == writable)
    return -ENOEXEC;           /* writable data belongs in the heap, code in the code segment */
  if (s->nload == SEG_NLOAD)
    return -ENOEXEC;
  if (ph->filesz > 0)
    s->load[s->nload++] = (struct seg_load){ ph->vaddr, ph->filesz, ph->off };
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
  st->start = lo;
  st->end = USER_STACK_TOP;
  int err = seg_reserve(st);
  if (err < 0 || (err = seg_alloc_range(st, lo, USER_STACK_TOP - lo, PTE_W)) < 0)
    return err;

  uint32_t sp = USER_STACK_TOP;
  uint32_t uargv[MAXARG + 1];
  for (int i = argc - 1; i >= 0; i--) {
    uint32_t n = strlen(argv[i]) + 1;
    sp -= n;
    if ((err = as_copyout(as, sp, argv[i], n)) < 0)
      return err;
    uargv[i] = sp;
  }
  uargv[argc] = 0;
  sp &= ~3u;
  sp -= (argc + 1) * 4;
  if ((err = as_copyout(as, sp, uargv, (argc + 1) * 4)) < 0)
    return err;
  uint32_t frame[2] = { argc, sp };   /* crt0's _start finds argc and argv here */
  sp -= sizeof frame;
  if ((err = as_copyout(as, sp, frame, sizeof frame)) < 0)
    return err;
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
  /* A program already running shares its code segment; else a new one is described. */
  struct segment *code = seg_find_code(ip);
  bool shared = code != 0;
  if (!code && !(code = seg_create(as, SEG_CODE)))
    goto bad_text;
  as->seg[SEG_CODE] = code;
  for (int t = SEG_HEAP; t <= SEG_STACK; t++)
    if (!(as->seg[t] = seg_create(as, t)))
      goto bad_text;
  as->seg[SEG_HEAP]->ip = idup(ip);
  if (!shared)
    code->ip = idup(ip);
  for (int i = 0; i < eh.phnum; i++) {
    struct proghdr ph;
    if (readi(ip, false, (uint32_t)&ph, eh.phoff + i * sizeof ph, sizeof ph) != sizeof ph) {
      err = -ENOEXEC;
      goto bad_text;
    }
    if (ph.type != ELF_PROG_LOAD || ph.memsz == 0)
      continue;
    if (shared && !(ph.flags & ELF_PROG_FLAG_WRITE))
      continue;
    if ((err = load_segment(as, &ph)) < 0)
      goto bad_text;
  }
  if (eh.entry < USER_CODE_BASE || eh.entry >= USER_HEAP_BASE) {
    err = -ENOEXEC;
    goto bad_text;
  }
  seg_attach(as, code);
  iunlock(ip);
  err = seg_reserve(as->seg[SEG_HEAP]);

  uint32_t sp;
  if (err < 0 || (err = push_args(as, argv, &sp)) < 0) {
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
  /* Unlocked first: the new code segment holds the program's inode too, and freeing it
   * takes that inode's lock (a boot with no free blocks panicked here, init's exec failing). */
  iunlock(ip);
  if (as)
    as_destroy(as);
  iput(ip);
  return err;
}
