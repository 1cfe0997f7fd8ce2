/* corrupt: test-only damage to the VM's bookkeeping, one word at a time, to show that the
 * audit notices it (tests/qemu/test_audit_checks.py). The kernel refuses it unless
 * debug.corrupt=1 (boot key or sysctl); `corrupt restore` undoes everything, last first.
 * Each change prints "corrupt: WHAT: OLD -> NEW". See usage() for the commands. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <sys.h>
#include "uapi/vmcorrupt.h"

#define PGSIZE 4096u

static const char *segname[] = { "code", "heap", "stack" };
static const char *poolname[] = { "none", "free", "kernel", "cache", "vm" };

static const struct { const char *name; unsigned id; } frame_fields[] = {
  { "pool", VMC_F_POOL }, { "flags", VMC_F_FLAGS }, { "owner", VMC_F_OWNER },
  { "index", VMC_F_INDEX }, { "next", VMC_F_NEXT },
};
static const struct { const char *name; unsigned id; } seg_fields[] = {
  { "used", VMC_S_USED }, { "type", VMC_S_TYPE }, { "refs", VMC_S_REFS },
  { "start", VMC_S_START }, { "end", VMC_S_END }, { "resident", VMC_S_RESIDENT },
  { "swapblocks", VMC_S_SWAPBLOCKS }, { "lazy", VMC_S_LAZY }, { "cor_refs", VMC_S_COR_REFS },
  { "cow_next", VMC_S_COW_NEXT }, { "cow_prev", VMC_S_COW_PREV },
};
/* The bits a test flips in an entry (kernel/memlayout.h, vm/vm.h). */
static const struct { const char *name; unsigned bit; } bits[] = {
  { "present", 0x1 }, { "writable", 0x2 }, { "user", 0x4 }, { "accessed", 0x20 },
  { "dirty", 0x40 }, { "cor", 0x100 }, { "ondisk", 0x200 }, { "intrans", 0x400 },
  { "cow", 0x800 },
};

static void usage(FILE *f)
{
  fprintf(f,
    "usage: corrupt COMMAND ...   test-only damage to the VM's bookkeeping, so that the audit\n"
    "                             can be seen to catch it; needs debug.corrupt=1\n"
    "  corrupt family [N [PAGES]] touches PAGES (4) heap pages, forks N (3) children sharing\n"
    "                             them copy-on-reference, prints \"family: master PID slaves\n"
    "                             PID...\"; all then block, touching nothing, until killed\n"
    "  corrupt show PID           its segments and their non-empty page-table entries\n"
    "  corrupt info               frames, segments, the free list's tail, a frame of no pool\n"
    "  corrupt pte PID SEG VA [CHANGE]   an entry (SEG: code heap stack); CHANGE: a bit to\n"
    "                             flip (present writable user accessed dirty cor ondisk\n"
    "                             intrans cow), frame N (point it at frame N), =VALUE\n"
    "  corrupt pde PID VA [=VALUE | like PID2]   a page-directory entry (like: PID2's)\n"
    "  corrupt frame N FIELD [CHANGE]   a core-map entry; FIELD: pool owner index flags\n"
    "                             next; owner is a segment, next a frame, \"none\" for null\n"
    "  corrupt seg K FIELD [CHANGE]     a segment; FIELD: type start end resident swapblocks\n"
    "                             lazy cor_refs cow_next cow_prev (used, refs: read only)\n"
    "  corrupt count POOL [CHANGE]      the core map's count of a pool (free kernel cache vm)\n"
    "  corrupt restore            puts back everything changed, last first\n"
    "  corrupt panic [fault]      panics the kernel (to see what a panic prints); fault: by a\n"
    "                             page fault in the kernel\n"
    "CHANGE is =VALUE, +N or -N (numbers decimal or 0x hex; pools by name too). Without it the\n"
    "value is printed. Each change prints \"corrupt: WHAT: OLD -> NEW\".\n");
}

static int fail(const char *what, int err)
{
  if (err == -EPERM)
    fprintf(stderr, "corrupt: refused: the kernel allows this only with debug.corrupt=1 "
                    "(boot key, or sysctl debug.corrupt=1)\n");
  else
    fprintf(stderr, "corrupt: %s: %s\n", what, strerror(-err));
  return 1;
}

static int number(const char *s, unsigned *v)
{
  char *end;
  if (strcmp(s, "none") == 0) {
    *v = VMC_NONE;
    return 0;
  }
  for (unsigned i = 0; i < sizeof poolname / sizeof poolname[0]; i++)
    if (strcmp(s, poolname[i]) == 0) {
      *v = i;
      return 0;
    }
  if (!*s)
    return -1;
  *v = strtoul(s, &end, 0);
  return *end ? -1 : 0;
}

static int call(struct vmcorrupt *r)
{
  return vmcorrupt(r);
}

static void show_value(char *buf, int len, unsigned v, int hex)
{
  if (v == VMC_NONE)
    snprintf(buf, len, "none");
  else if (v == VMC_BOGUS)
    snprintf(buf, len, "bogus");
  else
    snprintf(buf, len, hex ? "0x%x" : "%u", v);
}

/* Reads the word r names; with a change (argv[0]), writes the new value and prints both. */
static int get_set(struct vmcorrupt *r, const char *what, int argc, char **argv, int hex)
{
  r->op = VMC_GET;
  int err = call(r);
  if (err < 0)
    return fail(what, err);
  unsigned old = r->old, v;
  char a[24], b[24];
  show_value(a, sizeof a, old, hex);
  if (argc == 0) {
    printf("corrupt: %s: %s\n", what, a);
    return 0;
  }
  const char *c = argv[0];
  if (r->target == VMC_PTE && argc == 2 && strcmp(c, "frame") == 0) {
    if (number(argv[1], &v) < 0)
      goto bad;
    v = (v << 12) | (old & 0xfff);
  } else if (r->target == VMC_PDE && argc == 2 && strcmp(c, "like") == 0) {
    struct vmcorrupt o = *r;
    o.pid = atoi(argv[1]);
    if ((err = call(&o)) < 0)
      return fail(argv[1], err);
    v = o.old;
  } else if (argc != 1) {
    goto bad;
  } else if (c[0] == '=') {
    if (number(c + 1, &v) < 0)
      goto bad;
  } else if (c[0] == '+' || c[0] == '-') {
    if (number(c + 1, &v) < 0)
      goto bad;
    v = c[0] == '+' ? old + v : old - v;
  } else {
    unsigned i;
    for (i = 0; i < sizeof bits / sizeof bits[0] && strcmp(c, bits[i].name); i++)
      ;
    if (r->target != VMC_PTE || i == sizeof bits / sizeof bits[0])
      goto bad;
    v = old ^ bits[i].bit;
  }
  r->op = VMC_SET;
  r->value = v;
  if ((err = call(r)) < 0)
    return fail(what, err);
  show_value(b, sizeof b, v, hex);
  printf("corrupt: %s: %s -> %s\n", what, a, b);
  return 0;
bad:
  fprintf(stderr, "corrupt: %s: cannot make the change '%s'\n", what, c);
  return 2;
}

static int field(const char *name, int seg, unsigned *id)
{
  int n = seg ? sizeof seg_fields / sizeof seg_fields[0] : sizeof frame_fields / sizeof frame_fields[0];
  for (int i = 0; i < n; i++) {
    const char *f = seg ? seg_fields[i].name : frame_fields[i].name;
    if (strcmp(name, f) == 0) {
      *id = seg ? seg_fields[i].id : frame_fields[i].id;
      return 0;
    }
  }
  fprintf(stderr, "corrupt: no field '%s'\n", name);
  return -1;
}

static unsigned seg_get(unsigned k, unsigned f, int *err)
{
  struct vmcorrupt r = { .op = VMC_GET, .target = VMC_SEG, .where = k, .field = f };
  int e = call(&r);
  if (e < 0)
    *err = e;
  return r.old;
}

static int show(int pid)
{
  int err = 0;
  unsigned segno[3];
  for (int t = 0; t < 3; t++) {
    struct vmcorrupt r = { .op = VMC_GET, .target = VMC_INFO, .field = VMC_I_SEGMENT, .pid = pid,
                           .seg = t };
    int e = call(&r);
    if (e < 0)
      return fail("show", e);
    segno[t] = r.old;
  }
  printf("pid %d code %u heap %u stack %u\n", pid, segno[0], segno[1], segno[2]);
  for (int t = 0; t < 3; t++) {
    unsigned k = segno[t];
    unsigned start = seg_get(k, VMC_S_START, &err), end = seg_get(k, VMC_S_END, &err);
    printf("segment %u %s pid %u start 0x%x end 0x%x resident %u swapblocks %u lazy %u refs %u "
           "cor_refs %u next %u prev %u\n", k, segname[t], seg_get(k, VMC_S_PID, &err), start, end,
           seg_get(k, VMC_S_RESIDENT, &err), seg_get(k, VMC_S_SWAPBLOCKS, &err),
           seg_get(k, VMC_S_LAZY, &err), seg_get(k, VMC_S_REFS, &err),
           seg_get(k, VMC_S_COR_REFS, &err), seg_get(k, VMC_S_COW_NEXT, &err),
           seg_get(k, VMC_S_COW_PREV, &err));
    for (unsigned va = start; va < end; va += PGSIZE) {
      struct vmcorrupt r = { .op = VMC_GET, .target = VMC_PTE, .pid = pid, .seg = t, .where = va };
      int e = call(&r);
      if (e == -ENOENT)
        continue;                 /* no page table for these 4 MB */
      if (e < 0)
        return fail("show", e);
      if (r.old)
        printf("entry %u 0x%x 0x%x\n", k, va, r.old);
    }
  }
  return err < 0 ? fail("show", err) : 0;
}

static int info(void)
{
  static const struct { const char *name; unsigned id; } facts[] = {
    { "frames", VMC_I_NFRAMES }, { "segments", VMC_I_NSEGS }, { "free-tail", VMC_I_FREE_TAIL },
    { "before-tail", VMC_I_FREE_BEFORE_TAIL }, { "none-frame", VMC_I_NONE_FRAME },
    { "damaged", VMC_I_DAMAGED },
  };
  unsigned vals[sizeof facts / sizeof facts[0]];
  for (unsigned i = 0; i < sizeof facts / sizeof facts[0]; i++) {
    struct vmcorrupt r = { .op = VMC_GET, .target = VMC_INFO, .field = facts[i].id };
    int e = call(&r);
    if (e < 0)
      return fail(facts[i].name, e);
    vals[i] = r.old;
  }
  printf("info");
  for (unsigned i = 0; i < sizeof facts / sizeof facts[0]; i++)
    printf(" %s %u", facts[i].name, vals[i]);
  printf("\n");
  return 0;
}

/* The family blocks in read() on a pipe whose write end it keeps open itself: it never runs
 * user code again, so it never touches (or faults on) the memory a test damages. */
static int family(int n, int pages)
{
  static int kids[16];
  volatile char stack[3 * PGSIZE];
  char *heap = sbrk(pages * PGSIZE);
  int fds[2];
  if (n < 1 || n > 16 || pages < 1 || heap == (char *)-1 || pipe(fds) < 0) {
    fprintf(stderr, "corrupt: family: cannot set up (N 1..16, PAGES > 0)\n");
    return 1;
  }
  for (int i = 0; i < pages; i++)
    heap[i * PGSIZE] = (char)i;
  for (unsigned i = 0; i < sizeof stack; i += PGSIZE)
    stack[i] = (char)i;
  for (int i = 0; i < n; i++) {
    int pid = fork();
    if (pid < 0) {
      fprintf(stderr, "corrupt: family: fork: %s\n", strerror(errno));
      return 1;
    }
    if (pid == 0) {
      char c;
      read(fds[0], &c, 1);
      _exit(0);
    }
    kids[i] = pid;
  }
  printf("family: master %d slaves", getpid());
  for (int i = 0; i < n; i++)
    printf(" %d", kids[i]);
  printf("\n");
  fflush(stdout);
  char c;
  read(fds[0], &c, 1);
  return 0;
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  const char *cmd = argv[1];
  char what[80];
  struct vmcorrupt r = { 0 };
  unsigned v;
  if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
    usage(stdout);
    return 0;
  }
  if (strcmp(cmd, "family") == 0 && argc <= 4)
    return family(argc > 2 ? atoi(argv[2]) : 3, argc > 3 ? atoi(argv[3]) : 4);
  if (strcmp(cmd, "show") == 0 && argc == 3)
    return show(atoi(argv[2]));
  if (strcmp(cmd, "info") == 0 && argc == 2)
    return info();
  if (strcmp(cmd, "panic") == 0 && (argc == 2 || (argc == 3 && strcmp(argv[2], "fault") == 0))) {
    struct vmcorrupt r = { .op = VMC_PANIC, .field = argc == 3 };
    return fail("panic", call(&r));     /* returns only when refused */
  }
  if (strcmp(cmd, "restore") == 0 && argc == 2) {
    r.op = VMC_RESTORE;
    int n = call(&r);
    if (n < 0)
      return fail("restore", n);
    printf("corrupt: restored %d\n", n);
    return 0;
  }
  if (strcmp(cmd, "pte") == 0 && argc >= 5) {
    int t;
    for (t = 0; t < 3 && strcmp(argv[3], segname[t]); t++)
      ;
    if (t == 3 || number(argv[4], &v) < 0)
      goto usage;
    r = (struct vmcorrupt){ .target = VMC_PTE, .pid = atoi(argv[2]), .seg = t, .where = v };
    r.op = VMC_GET;
    int e = call(&r);
    if (e < 0)
      return fail("pte", e);
    snprintf(what, sizeof what, "segment %u (pid %d %s) va 0x%x entry", r.segno, r.pid,
             segname[t], v);
    return get_set(&r, what, argc - 5, argv + 5, 1);
  }
  if (strcmp(cmd, "pde") == 0 && argc >= 4) {
    if (number(argv[3], &v) < 0)
      goto usage;
    r = (struct vmcorrupt){ .target = VMC_PDE, .pid = atoi(argv[2]), .where = v & ~0x3fffffu };
    snprintf(what, sizeof what, "pid %d page directory entry for 0x%x", r.pid, r.where);
    return get_set(&r, what, argc - 4, argv + 4, 1);
  }
  if ((strcmp(cmd, "frame") == 0 || strcmp(cmd, "seg") == 0) && argc >= 4) {
    int seg = cmd[0] == 's';
    if (number(argv[2], &v) < 0 || field(argv[3], seg, &r.field) < 0)
      goto usage;
    r.target = seg ? VMC_SEG : VMC_FRAME;
    r.where = v;
    snprintf(what, sizeof what, "%s %u %s", seg ? "segment" : "frame", v, argv[3]);
    int hex = seg && (r.field == VMC_S_START || r.field == VMC_S_END);
    return get_set(&r, what, argc - 4, argv + 4, hex || (!seg && r.field == VMC_F_FLAGS));
  }
  if (strcmp(cmd, "count") == 0 && argc >= 3) {
    if (number(argv[2], &v) < 0)
      goto usage;
    r = (struct vmcorrupt){ .target = VMC_COUNT, .where = v };
    snprintf(what, sizeof what, "pool %u count", v);
    return get_set(&r, what, argc - 3, argv + 3, 0);
  }
usage:
  usage(stderr);
  return 2;
}
