/* Shadow tables (kernel/mem/shadow.c): what a pool remembers of the pages it gave up, so that it
 * knows, when one comes back, that it gave it up too early and by how much. Pure C: the kernel
 * (kernel/mem/refault.c) and the host test (tests/host/test_shadow.c) run the very same code. */
#ifndef KERNEL_SHADOW_H
#define KERNEL_SHADOW_H
#include <stdint.h>
#include <stdbool.h>

#define SHADOW_WAYS 4

/* One page given up: its identity (a hash the pool makes of it), the pool's count of pages
 * given up when it went (0: the entry is empty), and its time of last reference then. */
struct shadow_entry {
  uint32_t key;
  uint32_t gone;
  uint32_t lastref_ms;
};

struct shadow_set {
  struct shadow_entry way[SHADOW_WAYS];
};

#define SHADOW_SETS_PER_PAGE (4096 / sizeof(struct shadow_set))
#define SHADOW_MAX_PAGES 64

/* The table: nsets sets of SHADOW_WAYS entries, in pages of SHADOW_SETS_PER_PAGE sets (the
 * kernel has pages, not one contiguous array). horizon: a page given up more than horizon
 * give-ups ago is forgotten (aged out), whether or not its entry is still there. */
struct shadow {
  struct shadow_set *page[SHADOW_MAX_PAGES];
  uint32_t nsets;
  uint32_t horizon;
  uint32_t gone;              /* pages given up since boot: the clock distances are read on */
};

enum shadow_found { SHADOW_NONE = 0, SHADOW_AGED = 1, SHADOW_HIT = 2 };

/* Sets the table up on npages zeroed pages (at most SHADOW_MAX_PAGES). */
void shadow_init(struct shadow *t, struct shadow_set **pages, uint32_t npages, uint32_t horizon);
/* The pool gave up the page named key, last referenced at lastref_ms. */
void shadow_remember(struct shadow *t, uint32_t key, uint32_t lastref_ms);
/* The page named key is wanted again: was it given up, and how far back? On SHADOW_HIT,
 * *distance is the pages given up since (it included) and *lastref_ms its time of last
 * reference before it went; the entry is forgotten either way. */
enum shadow_found shadow_recall(struct shadow *t, uint32_t key, uint32_t *distance, uint32_t *lastref_ms);
/* Entries in use (for the host test: the table never holds more than its sets' ways). */
uint32_t shadow_count(const struct shadow *t);
#endif
