/* SPT (Hagmann 1991, section 4.3.1): find the pages whose references are periodic,
 * sequential or transient, which LRU serves worst, and replace them by their expected time to
 * next use, as MIN would; replace all other pages LRU.
 *
 * History is kept per page in epochs (vm_spt_epoch_ms, 250 ms: our workloads last seconds;
 * Hagmann's, minutes long, had 5 s). A page's
 * references form "reference runs" separated by "unreferenced runs": a reference run starts
 * with a reference and ends once the page has gone SPT_RUN_END epochs (6) unreferenced. Every
 * tick samples each frame's accessed bit (as LRU does) into the policy word:
 *
 *     bits  0-11  last: the epoch of the last reference (mod 4096)
 *     bits 12-23  start: the epoch its current (or last) reference run began
 *     bits 24-31  gap: the length of the unreferenced run before that (0: none seen yet)
 *
 * At a choice, every candidate is classed:
 *   - a gap seen and its current run brief, at most SPT_BRIEF epochs so far (periodic): the
 *     next-time heap, its expected next use one gap after its last reference; the key is how
 *     far that is from now, either way. (Hagmann put pages into this heap once their run had
 *     ended, SPT_RUN_END epochs after their last reference; a page touched once per period, as
 *     the toucher does, is then LRU's exactly when it matters: just touched, due again in a
 *     whole period, and the next-time heap holding only the pages due now);
 *   - other pages referenced within SPT_RUN_END epochs: in a reference run, the LRU heap;
 *   - idle longer, never a gap, and its run lasted at most SPT_BRIEF epochs (transient; a
 *     sequential page, used once in passing, looks the same here: a policy sees frames, not
 *     virtual addresses, so it cannot tell sequence from the order of faults as Hagmann
 *     proposed): the next-time heap, expected never;
 *   - anything else (one long run, now idle): the LRU heap.
 * The victim, by Hagmann's rule, which he found the best of a dozen on his traces:
 *   1. an LRU page idle SPT_VERY_OLD epochs (30) or more;
 *   2. while the LRU heap holds a page idle SPT_OLD epochs (15), the two heaps by turns;
 *   3. else the next-time heap's page expected farthest away, until it is empty;
 *   4. else the least recently used page.
 * No heaps in fact: a choice scans the frames once, as lru does.
 *
 * Hagmann kept history per page of every virtual object, resident or not: a periodic page is
 * one that comes back, mostly after having been evicted. So a page's word outlives its frame
 * in a small table of the evicted (SPT_GHOSTS entries, by pol_page(), the newest eviction
 * taking a slot): a page that comes back gets its history again, its fault being a reference,
 * and an unreferenced run longer than SPT_RUN_END makes it periodic.
 */
#include "vm/policy.h"

#define SPT_RUN_END 6
#define SPT_BRIEF 6
#define SPT_OLD 15
#define SPT_VERY_OLD 30
#define EMASK 0xfffu
#define NEVER 0xffffffffu

#define SPT_GHOSTS 1024

uint32_t vm_spt_epoch_ms = 250;
static bool turn;           /* rule 2: the next-time heap's turn next */
static struct { uint32_t page, word; bool used; } ghost[SPT_GHOSTS];

static uint32_t epoch_of(uint32_t ms) { return (ms / (vm_spt_epoch_ms ? vm_spt_epoch_ms : 1)) & EMASK; }
static uint32_t since(uint32_t now, uint32_t then) { return (now - then) & EMASK; }
static uint32_t w_last(uint32_t w) { return w & EMASK; }
static uint32_t w_start(uint32_t w) { return (w >> 12) & EMASK; }
static uint32_t w_gap(uint32_t w) { return w >> 24; }
static uint32_t word(uint32_t last, uint32_t start, uint32_t gap)
{
  return (last & EMASK) | (start & EMASK) << 12 | (gap > 255 ? 255 : gap) << 24;
}

static uint32_t slot(uint32_t page) { return (page ^ page >> 10 ^ page >> 20) % SPT_GHOSTS; }

static void spt_page_in(uint32_t f)
{
  uint32_t e = epoch_of(pol_now()), p = pol_page(f), g = slot(p);
  if (!ghost[g].used || ghost[g].page != p) {
    *pol_word(f) = word(e, e, 0);
    return;
  }
  ghost[g].used = false;
  uint32_t w = ghost[g].word, d = since(e, w_last(w));
  if (d > SPT_RUN_END && d < EMASK / 2)
    *pol_word(f) = word(e, e, d - 1);       /* back after an unreferenced run */
  else
    *pol_word(f) = word(e, w_start(w), w_gap(w));
}

static void spt_page_out(uint32_t f)
{
  uint32_t p = pol_page(f), g = slot(p);
  ghost[g].page = p;
  ghost[g].word = *pol_word(f);
  ghost[g].used = true;
}

/* Folds a frame's references since the last sample into its history. */
static void sample(uint32_t f, uint32_t cur)
{
  uint32_t w = *pol_word(f);
  pol_referenced(f);
  uint32_t e = epoch_of(pol_lastref(f));
  uint32_t last = w_last(w), start = w_start(w), gap = w_gap(w);
  uint32_t d = since(e, last);
  if (d > 0 && d < EMASK / 2) {
    if (d > SPT_RUN_END) {          /* an unreferenced run ended: a new reference run */
      gap = d - 1;
      start = e;
    }
    last = e;
  } else if (since(cur, last) > EMASK / 2) {
    last = start = (cur - EMASK / 2) & EMASK;   /* idle for ages: keep the numbers apart */
  }
  *pol_word(f) = word(last, start, gap);
}

static void spt_tick(void)
{
  uint32_t cur = epoch_of(pol_now());
  for (uint32_t f = 0; f < pol_nframes(); f++)
    if (pol_candidate(f))
      sample(f, cur);
}

static int32_t spt_choose(void)
{
  uint32_t cur = epoch_of(pol_now()), now = pol_now();
  int32_t lru = -1, next = -1;
  uint32_t lru_age = 0, lru_idle = 0, next_key = 0;
  for (uint32_t f = 0; f < pol_nframes(); f++) {
    if (!pol_candidate(f))
      continue;
    sample(f, cur);
    uint32_t w = *pol_word(f), idle = since(cur, w_last(w));
    uint32_t key = 0;
    bool timed = false;
    uint32_t run = since(w_last(w), w_start(w)) + 1;
    if (w_gap(w) && run <= SPT_BRIEF) {
      uint32_t due = w_last(w) + 1 + w_gap(w);        /* epochs, unwrapped below */
      uint32_t until = since(due & EMASK, cur);
      key = until > EMASK / 2 ? EMASK + 1 - until : until;
      timed = true;
    } else if (idle > SPT_RUN_END && run <= SPT_BRIEF) {
      key = NEVER;
      timed = true;
    }
    if (timed) {
      if (next < 0 || key > next_key) {
        next = (int32_t)f;
        next_key = key;
      }
      continue;
    }
    uint32_t age = now - pol_lastref(f);
    if (lru < 0 || age > lru_age) {
      lru = (int32_t)f;
      lru_age = age;
      lru_idle = idle;
    }
  }
  if (lru >= 0 && lru_idle >= SPT_VERY_OLD)
    return lru;
  if (lru >= 0 && lru_idle >= SPT_OLD && next >= 0) {
    turn = !turn;
    return turn ? next : lru;
  }
  return next >= 0 ? next : lru;
}

static const struct pol_setting settings[] = {
  { "vm.spt_epoch_ms", "epoch of the spt policy's history (ms)", &vm_spt_epoch_ms, 10, 60000 },
  { 0 },
};

const struct vm_policy policy_spt = {
  .name = "spt",
  .description = "Hagmann's SPT: periodic and transient pages by expected next use, the rest LRU",
  .settings = settings,
  .page_in = spt_page_in,
  .page_out = spt_page_out,
  .tick = spt_tick,
  .choose = spt_choose,
};
POLICY(policy_spt);
