/* Uniprocessor spinlocks: the only concurrency is interrupts, so a lock is "interrupts off".
 * The locked flag only catches a lock taken twice, which would be a deadlock on SMP. */
#include "kernel/spinlock.h"
#include "kernel/klib.h"

static int ncli;          /* depth of pushcli */
static int intena;        /* were interrupts on before the outermost pushcli? */

static inline uint32_t readeflags(void)
{
  uint32_t f;
  __asm__ volatile("pushfl; popl %0" : "=r"(f));
  return f;
}

void pushcli(void)
{
  uint32_t f = readeflags();
  __asm__ volatile("cli");
  if (ncli++ == 0)
    intena = f & 0x200;
}

void popcli(void)
{
  if (readeflags() & 0x200)
    panic("popcli: interrupts enabled");
  if (--ncli < 0)
    panic("popcli: unbalanced");
  if (ncli == 0 && intena)
    __asm__ volatile("sti");
}

/* Needed by the scheduler, which switches between processes with different nesting. */
int cli_depth(void) { return ncli; }
int cli_intena(void) { return intena; }
void cli_set(int depth, int ena) { ncli = depth; intena = ena; }

void initlock(struct spinlock *lk, const char *name)
{
  lk->locked = 0;
  lk->name = name;
}

void acquire(struct spinlock *lk)
{
  pushcli();
  if (lk->locked)
    panic("acquire %s: already held", lk->name);
  lk->locked = 1;
}

void release(struct spinlock *lk)
{
  if (!lk->locked)
    panic("release %s: not held", lk->name);
  lk->locked = 0;
  popcli();
}

int holding(struct spinlock *lk)
{
  return lk->locked;
}
