/* Page replacement policies: which VM page gives up its frame when memory is short.
 *
 * A policy is one file (vm/policy_NAME.c) holding one struct vm_policy (its settings with it),
 * registered by the file's POLICY line: no list to edit. It is pure C: it includes no kernel header and sees physical frames
 * only as numbers 0 .. pol_nframes()-1, through the small set of questions below, which the
 * VM answers (vm/aging.c) and so do the host unit tests (tests/host/test_policy.c), on
 * hand-made reference patterns. Every hook is called with the VM lock held and must not sleep.
 *
 * The VM already keeps, for every frame, a time of last reference (ms) refreshed from the
 * hardware accessed bit by the aging sweep (vm/aging.c: a pass over all frames in 2 s) and by
 * pol_referenced(). A policy may use that, the accessed bit itself, one word per frame of its
 * own, and its own static tables (kept small: kernel memory).
 *
 * A policy chooses among the VM's own pages only. When the file cache and the VM trade frames
 * (kernel/mem/negotiate.c), the VM's offer is its oldest page by time of last reference, whatever the
 * policy: the policy decides which page the VM recycles when it keeps the frame for itself.
 */
#ifndef VM_POLICY_H
#define VM_POLICY_H
#include <stdint.h>
#include <stdbool.h>

/* A number a policy lets the user set: the kernel makes each one a setting (sysctl NAME, and
 * NAME=VALUE on its command line), range-checked before it is stored; the host tools and tests
 * set the variable themselves. */
struct pol_setting {
  const char *name;           /* vm.SOMETHING */
  const char *description;
  uint32_t *value;
  uint32_t min, max;
};

struct vm_policy {
  const char *name;
  const char *description;
  /* Optional: the policy's settings, a table ended by an entry without a name. */
  const struct pol_setting *settings;
  /* Frame f now holds a page (page-in, zero fill, copy). Optional. */
  void (*page_in)(uint32_t f);
  /* Frame f's page is gone (paged out or freed). Optional. */
  void (*page_out)(uint32_t f);
  /* Called ten times a second. Optional. */
  void (*tick)(void);
  /* The victim: a frame for which pol_candidate() is true, or -1 when there is none. */
  int32_t (*choose)(void);
};

/* --- what a policy may ask the VM --------------------------------------------------------- */
uint32_t pol_nframes(void);
/* Frame f holds a VM page that may be replaced now: not busy (under I/O), not wired. */
bool pol_candidate(uint32_t f);
/* Was the page in f referenced since the last time anyone asked? Clears the accessed bit
 * (invalidating the TLB entry, folding the dirty bit into the frame first); when it was set,
 * the frame's time of last reference becomes now. */
bool pol_referenced(uint32_t f);
/* The same question, changing nothing. */
bool pol_accessed(uint32_t f);
uint32_t pol_lastref(uint32_t f);     /* ms since boot */
uint32_t pol_now(void);               /* ms since boot */
uint32_t *pol_word(uint32_t f);       /* one word per frame for the policy's own use */
/* A number naming the page in frame f (its segment and page): the same whenever that page
 * comes back, so that a policy may remember pages it has evicted. Two pages may share one. */
uint32_t pol_page(uint32_t f);

/* --- the policies (vm/policy.c) ------------------------------------------------------------ */
/* POLICY(policy_NAME); after a policy's struct registers it: the linker gathers every such
 * entry of the program (the kernel's, the trace simulator's, a test's) into one section,
 * vm_policies, in link order (the files' names), so that a new policy is its file alone. */
#define POLICY(p) \
  static const struct vm_policy *const p##_entry __attribute__((used, section("vm_policies"))) = &p
#define VM_POLICY_DEFAULT "clock"
const struct vm_policy *vm_policy_at(uint32_t i);       /* the i-th, or 0 past the last */
const struct vm_policy *vm_policy_find(const char *name);   /* by name, or 0 */
extern uint32_t vm_cluster_size;     /* clusterlru: frames examined per choice (16) */
extern uint32_t vm_spt_epoch_ms;     /* spt: the length of its epoch (250) */

extern const struct vm_policy policy_clock, policy_fifo, policy_lru, policy_clusterlru,
    policy_random, policy_spt, policy_aging;
#endif
