/* The negotiation's decision, as pure C: which pool gives up a frame when one of them needs
 * one and none is free. kernel/mem/negotiate.c asks the two pools their questions and acts on the
 * answer; this file only decides, so the host unit test (tests/host/test_negotiate.c) drives
 * the very same code the kernel runs: ties, refusals, both floors, both penalty modes.
 * It includes no kernel header. */
#ifndef KERNEL_NEGOTIATE_RULE_H
#define KERNEL_NEGOTIATE_RULE_H
#include <stdint.h>
#include <stdbool.h>

enum neg_pool { NEG_FS = 0, NEG_VM = 1 };

/* The pool that is not p. */
static inline enum neg_pool neg_other(enum neg_pool p)
{
  return p == NEG_FS ? NEG_VM : NEG_FS;
}

/* One pool's answer to "how old is the page you would give up next?": refuse when it may
 * not give one (at its floor, or nothing it holds can go now), else the page's time of last
 * reference in ms since boot (both pools stamp the same clock). */
struct neg_offer {
  bool refuse;
  bool free;                  /* a free page (no identity): lastref_ms is 0, older than any
                                 (beside refuse: the struct stays 8 bytes, which gdb's
                                 negbreak reads in the optimised kernel) */
  bool busy;                  /* the page is dirty: it can go only once written, and the
                                 pool has its writers on it (fits the same 8 bytes) */
  uint32_t lastref_ms;
};

/* The penalty that biases the comparison against the file cache (WRL 90/4 section 6).
 * fixed: penalty_s is added to every VM page's time of last reference. stepped (Sprite's
 * vmFSPenalty / vmNumPageGroups): memory is cut into groups tenths, and the VM gets
 * penalty_s for every whole group the cache holds, so a small cache pays nothing and each
 * tenth of memory it grows costs it another penalty. */
/* adaptive: a bias learned from refaults instead (below). ignored: adaptive's control, the bias
 * learned at the same cost and not applied: the two ages compared as they are. */
enum neg_penalty_mode { NEG_PENALTY_FIXED = 0, NEG_PENALTY_STEPPED = 1, NEG_PENALTY_ADAPTIVE = 2, NEG_PENALTY_IGNORED = 3 };

struct neg_penalty {
  uint32_t penalty_s;
  enum neg_penalty_mode mode;
  uint32_t cache_frames;      /* frames the cache holds now */
  uint32_t total_frames;      /* frames the cache and the VM share (not the kernel's) */
};

#define NEG_GROUPS 10          /* Sprite's vmNumPageGroups */

/* The learned bias (kernel/mem/negotiate_rule.c, THE LEARNED BIAS, says how and why; the
 * evidence comes from kernel/mem/refault.c). */
struct neg_learned {
  uint32_t bias_ms;           /* as last set by evidence (decay is computed when read) */
  uint32_t evidence_ms;       /* when: the last early refault or saved page */
};
#define NEG_BIAS_MAX_MS (3600u * 1000)   /* an hour: a bias is bounded */
#define NEG_LAG_MS 2000                   /* the aging clock's pass: a VM time may be that stale */
#define NEG_GRACE_MS 10000                /* evidence is awaited this much beyond twice the bias */

bool neg_refault_early(uint32_t distance, uint32_t other_frames);
void neg_learn_refault(struct neg_learned *l, uint32_t now_ms, uint32_t reuse_ms);
bool neg_saved(uint32_t idle_ms, uint32_t other_age_ms, uint32_t bias_ms);
void neg_learn_saved(struct neg_learned *l, uint32_t now_ms);
/* The bias in ms now: bias_ms, halved for every whole quiet period since evidence_ms. */
uint32_t neg_learned_bias(const struct neg_learned *l, uint32_t now_ms);

/* The bias in ms added to a VM page's time of last reference. */
uint32_t neg_penalty_ms(const struct neg_penalty *p);

/* What the asker does: take its own oldest page (NEG_OWN), have the other surrender its
 * oldest (NEG_OTHER), wait because neither may give (NEG_NONE), or wait a little because
 * the other's page should go but is dirty and being written (NEG_BUSY). */
enum neg_verdict { NEG_OWN = 0, NEG_OTHER = 1, NEG_NONE = 2, NEG_BUSY = 3 };

/* asker needs a frame; own and other are the two pools' offers (own is the asker's); the
 * VM's time is biased by penalty_ms. The older page goes: the other surrenders only if its
 * (biased) page is strictly older than the asker's own, so a tie keeps pages where they are.
 * An asker whose own pool refuses (nothing it holds can go now) takes the other's page
 * whatever its age, unless that refuses too. When the other's page should go but is busy
 * (dirty), the answer is NEG_BUSY, not NEG_OWN: the page the age comparison protects stays,
 * and the asker waits for the other's writers. own.busy changes nothing: the asker recycles
 * its own pages dirty or clean, through its own writers. */
enum neg_verdict neg_decide(enum neg_pool asker, struct neg_offer own, struct neg_offer other,
                            uint32_t penalty_ms);

/* Whether neg_decide says NEG_OWN whatever the other pool answers, knowing only that none of
 * the pages it could offer was last used before other_since_ms (kernel/mem/negotiate.c,
 * UNASKED). False when own refuses. */
bool neg_keeps_own(enum neg_pool asker, struct neg_offer own, uint32_t other_since_ms, uint32_t penalty_ms);
#endif
