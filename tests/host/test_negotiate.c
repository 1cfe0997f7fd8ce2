/* Host unit tests of the negotiation's decision (kernel/mem/negotiate_rule.c, compiled unchanged):
 * who gives a frame for each pair of offers, with and without the penalty, in both modes.
 *
 * Run by tests/host/test_c_programs.py.
 * host-test: kernel/mem/negotiate_rule.c */
#include <stdio.h>
#include "kernel/mem/negotiate_rule.h"

static int failures, checks;

#define CHECK(c, ...) do { checks++; if (!(c)) { failures++; printf("FAIL %s:%d: ", __FILE__, __LINE__); \
  printf(__VA_ARGS__); printf("\n"); } } while (0)

static struct neg_offer at(uint32_t s) { struct neg_offer o = { .refuse = false, .lastref_ms = s * 1000 }; return o; }
static struct neg_offer dirty(uint32_t s) { struct neg_offer o = at(s); o.busy = true; return o; }
static const struct neg_offer REFUSE = { .refuse = true };
static const char *name[] = { "own", "other", "none", "busy" };

static void decides(enum neg_pool asker, struct neg_offer own, struct neg_offer other,
                    uint32_t penalty_s, enum neg_verdict want, int line)
{
  enum neg_verdict got = neg_decide(asker, own, other, penalty_s * 1000);
  checks++;
  if (got != want) {
    failures++;
    printf("FAIL line %d: %s asks, own %s%s%u s, other %s%s%u s, penalty %u s: %s, want %s\n", line,
           asker == NEG_FS ? "fs" : "vm", own.refuse ? "refuses " : "", own.busy ? "busy " : "",
           own.lastref_ms / 1000, other.refuse ? "refuses " : "", other.busy ? "busy " : "",
           other.lastref_ms / 1000, penalty_s, name[got], name[want]);
  }
}
#define DECIDES(...) decides(__VA_ARGS__, __LINE__)

static void without_penalty(void)
{
  /* The older page goes, whoever asks. */
  DECIDES(NEG_FS, at(100), at(50), 0, NEG_OTHER);     /* the VM's page is older: it gives */
  DECIDES(NEG_FS, at(50), at(100), 0, NEG_OWN);       /* the cache's is: it recycles its own */
  DECIDES(NEG_VM, at(100), at(50), 0, NEG_OTHER);
  DECIDES(NEG_VM, at(50), at(100), 0, NEG_OWN);
  /* A tie keeps pages where they are: the asker recycles its own. */
  DECIDES(NEG_FS, at(70), at(70), 0, NEG_OWN);
  DECIDES(NEG_VM, at(70), at(70), 0, NEG_OWN);
  /* Time 0 (never referenced since boot) is the oldest there is. */
  DECIDES(NEG_FS, at(1), at(0), 0, NEG_OTHER);
}

static void refusals(void)
{
  /* The other at its floor (or with nothing it may give): the asker recycles its own,
   * however old the other's pages are. */
  DECIDES(NEG_FS, at(100), REFUSE, 0, NEG_OWN);
  DECIDES(NEG_VM, at(100), REFUSE, 0, NEG_OWN);
  /* The asker with nothing of its own that can go takes the other's, however young. */
  DECIDES(NEG_FS, REFUSE, at(1000), 1200, NEG_OTHER);
  DECIDES(NEG_VM, REFUSE, at(1000), 1200, NEG_OTHER);
  /* Neither: wait. */
  DECIDES(NEG_FS, REFUSE, REFUSE, 0, NEG_NONE);
  DECIDES(NEG_VM, REFUSE, REFUSE, 0, NEG_NONE);
}

static void with_penalty(void)
{
  /* 120 s: the cache takes a VM page only if it is idle 120 s longer than the cache's oldest. */
  DECIDES(NEG_FS, at(200), at(81), 120, NEG_OWN);     /* 81 + 120 = 201 > 200: kept */
  DECIDES(NEG_FS, at(200), at(79), 120, NEG_OTHER);   /* 79 + 120 = 199 < 200: taken */
  DECIDES(NEG_FS, at(200), at(80), 120, NEG_OWN);     /* exactly the penalty: a tie, kept */
  /* The VM asking: its own pages look younger too, so it takes cache blocks more readily. */
  DECIDES(NEG_VM, at(150), at(200), 120, NEG_OTHER);  /* 150 + 120 = 270 > 200 */
  DECIDES(NEG_VM, at(50), at(200), 120, NEG_OWN);     /* 50 + 120 = 170 < 200 */
  /* Sprite's daily 20 minutes against an hour-old cache block. */
  DECIDES(NEG_FS, at(3600), at(3600 - 1199), 1200, NEG_OWN);
  DECIDES(NEG_FS, at(3600), at(3600 - 1201), 1200, NEG_OTHER);
  /* A bias that would run past the clock saturates: the VM page is never taken. */
  DECIDES(NEG_FS, at(4000000), at(4000000), 4000000, NEG_OWN);
  struct neg_offer late = { .lastref_ms = UINT32_MAX - 5 }, early = { .lastref_ms = 10 };
  CHECK(neg_decide(NEG_FS, late, early, UINT32_MAX) == NEG_OWN, "saturating bias wrapped");
}

static void penalty_modes(void)
{
  struct neg_penalty p = { 120, NEG_PENALTY_FIXED, 0, 1000 };
  CHECK(neg_penalty_ms(&p) == 120000, "fixed: %u", neg_penalty_ms(&p));
  p.cache_frames = 900;
  CHECK(neg_penalty_ms(&p) == 120000, "fixed does not depend on the cache's size: %u", neg_penalty_ms(&p));
  /* Stepped: one penalty per whole tenth of memory the cache holds. */
  p.mode = NEG_PENALTY_STEPPED;
  uint32_t want[][2] = { { 0, 0 }, { 99, 0 }, { 100, 120000 }, { 199, 120000 }, { 200, 240000 },
                         { 550, 600000 }, { 1000, 1200000 } };
  for (unsigned i = 0; i < sizeof want / sizeof want[0]; i++) {
    p.cache_frames = want[i][0];
    CHECK(neg_penalty_ms(&p) == want[i][1], "stepped, cache %u of 1000: %u, want %u",
          want[i][0], neg_penalty_ms(&p), want[i][1]);
  }
  /* Fewer frames than groups: no group is whole, no penalty (and no division by zero). */
  p.total_frames = 5;
  p.cache_frames = 5;
  CHECK(neg_penalty_ms(&p) == 0, "stepped on 5 frames: %u", neg_penalty_ms(&p));
  /* Zero penalty in either mode is zero. */
  struct neg_penalty z = { 0, NEG_PENALTY_STEPPED, 900, 1000 };
  CHECK(neg_penalty_ms(&z) == 0, "zero stepped: %u", neg_penalty_ms(&z));
  /* Large settings saturate. */
  struct neg_penalty big = { 4000000, NEG_PENALTY_STEPPED, 1000, 1000 };
  CHECK(neg_penalty_ms(&big) == UINT32_MAX, "saturated: %u", neg_penalty_ms(&big));
}

static void busy_answers(void)
{
  /* The case: the VM asks under a 120 s penalty, the sleeping toucher's page 8 s old
   * (128 s as compared), the cache's oldest block 2 s old but dirty. The cache's block should
   * go: the VM waits for it to be written instead of recycling the toucher's page. */
  DECIDES(NEG_VM, at(92), dirty(98), 120, NEG_BUSY);
  DECIDES(NEG_VM, at(92), at(98), 120, NEG_OTHER);      /* clean: given at once */
  /* Busy changes nothing when the asker's own page goes anyway. */
  DECIDES(NEG_VM, at(50), dirty(200), 120, NEG_OWN);
  DECIDES(NEG_FS, at(50), dirty(100), 0, NEG_OWN);
  /* The cache asking the VM, whose oldest page is dirty: the laundry answers busy too. */
  DECIDES(NEG_FS, at(100), dirty(50), 0, NEG_BUSY);
  /* An asker with nothing of its own waits for the busy page rather than take it dirty. */
  DECIDES(NEG_FS, REFUSE, dirty(1000), 1200, NEG_BUSY);
  DECIDES(NEG_VM, REFUSE, dirty(1000), 1200, NEG_BUSY);
  /* The asker's own page being dirty is its own writers' affair: the rule ignores it. */
  DECIDES(NEG_VM, dirty(150), at(200), 120, NEG_OTHER);
  DECIDES(NEG_VM, dirty(50), REFUSE, 120, NEG_OWN);
  /* A refusal outranks busy. */
  struct neg_offer both = dirty(10);
  both.refuse = true;
  DECIDES(NEG_VM, at(100), both, 0, NEG_OWN);
  CHECK(sizeof(struct neg_offer) == 8, "struct neg_offer is %u bytes; gdb's negbreak reads 8",
        (unsigned)sizeof(struct neg_offer));
}

/* vm.penalty_mode=adaptive: the bias learned from the VM's refaults. */
static void adaptive(void)
{
  /* A toucher that sleeps 150 s, longer than the paper's 120 s penalty: each round under
   * pressure its pages go to the cache and come back 150 s (and the touch) after their last
   * use. It must be protected within 3 refaults: a page idle 151 s against the cache's
   * block used a second ago must then stay. */
  struct neg_learned l = { 0, 0 };
  uint32_t t = 1000000, reuse = 151000;
  int n = 0;
  while (n < 10 && neg_decide(NEG_FS, at(t / 1000 - 1), at((t - reuse) / 1000), neg_learned_bias(&l, t)) != NEG_OWN) {
    neg_learn_refault(&l, t, reuse);
    n++;
    t += 200;             /* the round's next pages come back moments later */
  }
  CHECK(n >= 1 && n <= 3, "a toucher reusing its pages every 151 s protected after %d refaults", n);
  CHECK(neg_learned_bias(&l, t) <= NEG_BIAS_MAX_MS, "bias %u past its bound", neg_learned_bias(&l, t));
  /* Once protected it refaults no more; the aging clock sees its pages used every 151 s,
   * idle longer than the cache's oldest block (2 s) and within the bias: saved, which keeps
   * the bias for as long as the pattern lasts (ten hours here). */
  for (int round = 0; round < 240; round++) {
    t += reuse;
    uint32_t b = neg_learned_bias(&l, t);
    if (neg_decide(NEG_FS, at(t / 1000 - 2), at((t - reuse) / 1000), b) != NEG_OWN) {
      CHECK(0, "round %d: the protected toucher lost its page (bias %u ms)", round, b);
      break;
    }
    CHECK(neg_saved(reuse, 2000, b) || round > 0, "its reuse was not seen as saved");
    if (neg_saved(reuse, 2000, b))
      neg_learn_saved(&l, t);
  }
  /* A bias that is not a constant: it never exceeds its bound, whatever the reuse. */
  struct neg_learned big = { 0, 0 };
  for (int i = 0; i < 40; i++)
    neg_learn_refault(&big, 5000 + i, 4000000000u);
  CHECK(neg_learned_bias(&big, 5040) == NEG_BIAS_MAX_MS, "a huge reuse: bias %u, want the bound %u",
        neg_learned_bias(&big, 5040), NEG_BIAS_MAX_MS);

  /* The toucher stops (its process exits, or it sleeps for good): no refault, nothing saved.
   * The bias decays to nothing, so the cache gets its plain LRU back: within ten halvings'
   * periods, and it has halved within one. */
  uint32_t b0 = neg_learned_bias(&l, t), period = 2 * b0 + NEG_GRACE_MS;
  CHECK(neg_learned_bias(&l, t + period) <= b0 / 2, "no decay: %u ms a period after evidence stopped (was %u)",
        neg_learned_bias(&l, t + period), b0);
  CHECK(neg_learned_bias(&l, t + 40 * period) == 0, "the bias never decays: %u ms long after its evidence",
        neg_learned_bias(&l, t + 40 * period));
  /* A scan never refaults early and never saves: its bias stays 0 whatever the time. */
  struct neg_learned scan = { 0, 0 };
  for (uint32_t tt = 0; tt < 3600000; tt += 1000) {
    if (neg_saved(30000, 1000, neg_learned_bias(&scan, tt)))
      neg_learn_saved(&scan, tt);
  }
  CHECK(neg_learned_bias(&scan, 3600000) == 0, "a scan gained a bias: %u ms", neg_learned_bias(&scan, 3600000));
  /* Early means the cache could have paid: a program cycling through more pages than the
   * cache holds refaults from further back, and is not protected. */
  CHECK(neg_refault_early(1000, 2000), "a refault at distance 1000 with 2000 cache frames is early");
  CHECK(!neg_refault_early(5000, 2000), "a refault at distance 5000 with 2000 cache frames is not early");
  /* Saved only when the bias was what kept it. */
  CHECK(!neg_saved(30000, 40000, 60000), "younger than the cache's oldest: LRU kept it, not the bias");
  CHECK(!neg_saved(100000, 1000, 60000), "idle longer than the bias could cover");
  CHECK(neg_saved(30000, 1000, 60000), "idle 30 s, cache's oldest 1 s, bias 60 s: saved");
  CHECK(!neg_saved(30000, 1000, 0), "no bias saves nothing");
}

/* neg_keeps_own: the asker recycles its own without asking the other only when no answer the
 * other could give -- a refusal, or any page last used at or after the bound, clean or dirty --
 * would have made neg_decide say anything else. Every combination of a grid of times and
 * penalties, the clock's ends among them. */
static void unasked(void)
{
  /* 120 s: the cache's oldest block at 200 s, none of the VM's pages used before 81 s: even a
   * page from 81 s is kept (201 > 200), so the VM need not be asked; from 79 s it could be
   * taken (199 < 200), so it must. A tie keeps too. */
  CHECK(neg_keeps_own(NEG_FS, at(200), 81000, 120000), "bound 81 s, penalty 120 s, own 200 s: keep");
  CHECK(!neg_keeps_own(NEG_FS, at(200), 79000, 120000), "bound 79 s: a VM page that old would be taken");
  CHECK(neg_keeps_own(NEG_FS, at(200), 80000, 120000), "bound 80 s: a tie keeps");
  /* The VM asking: its own time is the biased one. */
  CHECK(neg_keeps_own(NEG_VM, at(50), 170000, 120000), "VM asks, own 50 s + 120, cache since 170 s: keep");
  CHECK(!neg_keeps_own(NEG_VM, at(50), 169000, 120000), "cache since 169 s: a block that old would be taken");
  /* An asker with nothing of its own must ask. */
  CHECK(!neg_keeps_own(NEG_FS, REFUSE, UINT32_MAX, UINT32_MAX), "own refuses: ask the other");
  CHECK(!neg_keeps_own(NEG_VM, REFUSE, UINT32_MAX, 0), "own refuses: ask the other");

  static const uint32_t t[] = { 0, 1, 999, 1000, 1001, 80000, 120000, 199999, 200000, 200001,
                                UINT32_MAX / 2, UINT32_MAX - 120001, UINT32_MAX - 1, UINT32_MAX };
  static const uint32_t pen[] = { 0, 1, 1000, 120000, 1200000, UINT32_MAX - 1, UINT32_MAX };
  int n = sizeof t / sizeof t[0], np = sizeof pen / sizeof pen[0], bad = 0, kept = 0;
  for (int a = 0; a < 2; a++)
    for (int ow = -1; ow < n; ow++)
      for (int p = 0; p < np; p++)
        for (int b = 0; b < n; b++) {
          struct neg_offer own = ow < 0 ? REFUSE : (struct neg_offer){ .lastref_ms = t[ow], .busy = ow % 2 };
          bool keep = neg_keeps_own(a, own, t[b], pen[p]);
          kept += keep;
          /* the answer for a page exactly at the bound: keep is exactly "that page stays" */
          struct neg_offer at_bound = { .lastref_ms = t[b] };
          bad += keep != (neg_decide(a, own, at_bound, pen[p]) == NEG_OWN);
          if (!keep)
            continue;
          struct neg_offer refusing = { .refuse = true };
          bad += neg_decide(a, own, refusing, pen[p]) != NEG_OWN;
          for (int o = b; o < n; o++)
            for (int busy = 0; busy < 2; busy++) {
              struct neg_offer other = { .lastref_ms = t[o], .busy = busy };
              if (neg_decide(a, own, other, pen[p]) != NEG_OWN && bad++ < 5)
                printf("FAIL: asker %d own %u pen %u bound %u: the other's page at %u %s would go\n", a, own.lastref_ms,
                       pen[p], t[b], t[o], busy ? "(busy)" : "");
            }
        }
  CHECK(bad == 0, "neg_keeps_own kept the asker's own where an answer of the other's changes the verdict (%d)", bad);
  CHECK(kept > 0, "the grid never kept");
}

int main(void)
{
  unasked();
  adaptive();
  busy_answers();
  without_penalty();
  refusals();
  with_penalty();
  penalty_modes();
  if (failures) {
    printf("%d of %d checks failed\n", failures, checks);
    return 1;
  }
  printf("negotiation: %d checks, all passed\n", checks);
  return 0;
}
