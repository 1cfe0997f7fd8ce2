/* The negotiation's decision, as pure C: which pool gives up a frame when one of them needs
 * one and none is free. kernel/negotiate.c asks the two pools their questions and acts on the
 * answer; this file only decides, so the host unit test (tests/host/test_negotiate.c) drives
 * the very same code the kernel runs: ties, refusals, both floors, both penalty modes.
 * It includes no kernel header. */
#ifndef KERNEL_NEGOTIATE_RULE_H
#define KERNEL_NEGOTIATE_RULE_H
#include <stdint.h>
#include <stdbool.h>

enum neg_pool { NEG_FS = 0, NEG_VM = 1 };

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
enum neg_penalty_mode { NEG_PENALTY_FIXED = 0, NEG_PENALTY_STEPPED = 1 };

struct neg_penalty {
  uint32_t penalty_s;
  enum neg_penalty_mode mode;
  uint32_t cache_frames;      /* frames the cache holds now */
  uint32_t total_frames;      /* frames the cache and the VM share (not the kernel's) */
};

#define NEG_GROUPS 10          /* Sprite's vmNumPageGroups */

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
#endif
