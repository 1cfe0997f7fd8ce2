/* Host unit tests of the replacement policies (vm/policy_*.c, compiled unchanged) on
 * hand-made reference patterns. This file is the "machine": a few frames, their accessed
 * bits, times of last reference and candidacy, as vm/aging.c provides them in the kernel.
 *
 * Run by tests/host/test_c_programs.py.
 * host-test: vm/policy*.c */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "vm/policy.h"

#define MAXF 64
static uint32_t nf, now;
static bool cand[MAXF], acc[MAXF];
static uint32_t last[MAXF], word[MAXF], page[MAXF], pages;
static int failures;

uint32_t pol_nframes(void) { return nf; }
bool pol_candidate(uint32_t f) { return cand[f]; }
bool pol_accessed(uint32_t f) { return acc[f]; }
bool pol_referenced(uint32_t f)
{
  bool r = acc[f];
  acc[f] = false;
  if (r)
    last[f] = now;
  return r;
}
uint32_t pol_lastref(uint32_t f) { return last[f]; }
uint32_t pol_now(void) { return now; }
uint32_t *pol_word(uint32_t f) { return &word[f]; }
uint32_t pol_page(uint32_t f) { return page[f]; }

#define CHECK(c, ...) do { if (!(c)) { failures++; printf("FAIL %s:%d: ", __FILE__, __LINE__); \
  printf(__VA_ARGS__); printf("\n"); } } while (0)

/* n frames, all candidates, brought in one per ms in order 0..n-1, none referenced since. */
static void machine(const struct vm_policy *p, uint32_t n)
{
  nf = n;
  now = 1000;
  for (uint32_t f = 0; f < n; f++) {
    cand[f] = true;
    acc[f] = false;
    word[f] = 0;
    page[f] = ++pages;
    last[f] = ++now;
    if (p->page_in)
      p->page_in(f);
  }
  now += 10;
}

static void touch(uint32_t f) { acc[f] = true; now++; if (true) {} }
static void tick(const struct vm_policy *p) { now += 100; if (p->tick) p->tick(); }

/* Evicts a frame and brings a new page into it, as the VM does. */
static int32_t replace(const struct vm_policy *p)
{
  int32_t v = p->choose();
  if (v >= 0) {
    if (p->page_out)
      p->page_out(v);
    now++;
    last[v] = now;
    page[v] = ++pages;
    acc[v] = true;            /* the VM maps a new page as accessed */
    if (p->page_in)
      p->page_in(v);
  }
  return v;
}

static void test_common(const struct vm_policy *p)
{
  /* No candidates: -1. */
  machine(p, 8);
  for (int f = 0; f < 8; f++)
    cand[f] = false;
  CHECK(p->choose() == -1, "%s: chose a frame with no candidates", p->name);
  /* Busy or wired frames (not candidates) are never chosen. */
  machine(p, 8);
  cand[0] = cand[3] = cand[5] = false;
  for (int i = 0; i < 200; i++) {
    if (i % 3 == 0)
      touch(i % 8);
    int32_t v = replace(p);
    CHECK(v >= 0 && cand[v], "%s: chose frame %d, not a candidate", p->name, v);
    if (i % 7 == 0)
      tick(p);
  }
  /* Only one candidate: it is the one. */
  machine(p, 8);
  for (int f = 0; f < 8; f++)
    cand[f] = f == 6;
  touch(6);
  CHECK(p->choose() == 6, "%s: the only candidate was not chosen", p->name);
}

static void test_fifo(void)
{
  const struct vm_policy *p = &policy_fifo;
  machine(p, 4);
  /* Arrival order 0,1,2,3; references do not matter. */
  touch(0);
  touch(1);
  CHECK(replace(p) == 0, "fifo: first victim should be 0");
  CHECK(replace(p) == 1, "fifo: then 1");
  CHECK(replace(p) == 2, "fifo: then 2");
  CHECK(replace(p) == 3, "fifo: then 3");
  CHECK(replace(p) == 0, "fifo: then 0 again (it came in first of the new ones)");
}

static void test_lru(void)
{
  const struct vm_policy *p = &policy_lru;
  machine(p, 4);
  /* References, sampled at ticks: 0 @t1, 2 @t2, 3 @t3, 1 @t4, 0 @t5 -> LRU is 2. */
  int order[] = { 0, 2, 3, 1, 0 };
  for (int i = 0; i < 5; i++) {
    touch(order[i]);
    tick(p);
  }
  CHECK(p->choose() == 2, "lru: victim should be 2");
  cand[2] = false;          /* now busy: the next oldest */
  CHECK(p->choose() == 3, "lru: victim should be 3 once 2 is busy");
  /* A reference not yet sampled still counts at the choice (it samples first). */
  cand[2] = true;
  touch(2);
  CHECK(p->choose() == 3, "lru: 2 was just referenced; victim should be 3");
}

static void test_clock(void)
{
  const struct vm_policy *p = &policy_clock;
  machine(p, 4);
  /* All referenced: the hand clears every bit, comes round and takes 0. */
  for (int f = 0; f < 4; f++)
    touch(f);
  CHECK(p->choose() == 0, "clock: all referenced: victim should be 0 after a full turn");
  /* The hand is at 1. 1 referenced, 2 not: 1 is spared, 2 goes. */
  touch(1);
  CHECK(p->choose() == 2, "clock: second chance for 1; victim 2");
  /* The hand is at 3. A reference seen only by the VM's background sweep (time of last
   * reference newer than the hand's visit, bit already cleared) also earns a second chance. */
  now += 50;
  last[3] = now;
  CHECK(p->choose() == 0, "clock: 3 referenced per its time; victim should be 0");
  /* Second chance only once: nothing referenced since, so 1 (next after the hand) goes. */
  CHECK(p->choose() == 1, "clock: victim should be 1");
  CHECK(p->choose() == 2, "clock: then 2");
  CHECK(p->choose() == 3, "clock: then 3");
}

static void test_clusterlru(void)
{
  const struct vm_policy *p = &policy_clusterlru;
  vm_cluster_size = 4;
  machine(p, 12);
  /* History: frames referenced at ticks in this order; frame 9 is the globally oldest. */
  int order[] = { 9, 2, 0, 3, 1, 4, 5, 6, 7, 8, 10, 11, 0 };
  for (unsigned i = 0; i < sizeof order / sizeof order[0]; i++) {
    touch(order[i]);
    tick(p);
  }
  /* The first choice sees only cluster 0..3: its LRU is 2, not the global LRU 9. */
  CHECK(p->choose() == 2, "clusterlru: victim should be 2 (LRU of frames 0-3)");
  CHECK(p->choose() == 4, "clusterlru: next cluster 4-7: victim 4");
  CHECK(p->choose() == 9, "clusterlru: next cluster 8-11: victim 9");
  /* A cluster with no candidate is skipped. */
  for (int f = 0; f < 4; f++)
    cand[f] = false;
  int32_t v = p->choose();
  CHECK(v >= 4 && v < 8, "clusterlru: cluster 0-3 all busy: victim from 4-7, got %d", v);
  vm_cluster_size = 16;
}

static void test_random(void)
{
  const struct vm_policy *p = &policy_random;
  machine(p, 16);
  int seen[16] = { 0 };
  for (int i = 0; i < 400; i++) {
    int32_t v = p->choose();
    if (v >= 0)
      seen[v]++;
  }
  int spread = 0;
  for (int f = 0; f < 16; f++)
    spread += seen[f] > 0;
  CHECK(spread >= 12, "random: only %d of 16 frames ever chosen", spread);
}

/* SPT with one epoch per tick (100 ms): a tick is an epoch. */
static void epochs(const struct vm_policy *p, int n)
{
  for (int i = 0; i < n; i++)
    tick(p);
}

/* SPT with a 100 ms epoch: each tick is one. Runs ticks until the epoch is e, frame keep (if
 * not -1) referenced in every one. A reference is seen at the tick after it, in the next epoch. */
static void until_epoch(const struct vm_policy *p, uint32_t e, int keep)
{
  while (now / 100 < e) {
    if (keep >= 0)
      touch(keep);
    tick(p);
  }
}

static void test_spt(void)
{
  const struct vm_policy *p = &policy_spt;
  uint32_t saved = vm_spt_epoch_ms;
  vm_spt_epoch_ms = 100;
  machine(p, 4);            /* every page in at epoch 10 */
  /* Frame 0: referenced again at epoch 20 (an unreferenced run of 9: periodic, gap 9).
   * Frame 1: again at 32 (gap 21). Frame 2: never again (one brief run: transient).
   * Frame 3: referenced every epoch (a reference run: the LRU heap). */
  until_epoch(p, 19, 3);
  touch(0);
  until_epoch(p, 31, 3);
  touch(1);
  until_epoch(p, 39, 3);
  /* At 39: 0 was due at 30 (overdue by 9), 1 is due at 54 (in 15), 2 never. LRU would take
   * 2, then 0, then 1. */
  int32_t v = p->choose();
  CHECK(v == 2, "spt: victim should be the transient page 2, got %d", v);
  cand[2] = false;
  v = p->choose();
  CHECK(v == 1, "spt: then 1 (due in 15 epochs; 0 overdue by 9), got %d", v);
  cand[1] = false;
  v = p->choose();
  CHECK(v == 0, "spt: then 0 (the next-time heap before the LRU page 3), got %d", v);
  cand[0] = false;
  CHECK(p->choose() == 3, "spt: then the LRU page 3");

  /* Transient: a page used briefly once and idle since goes before an older page that was used
   * for a long run (LRU heap, idle under SPT_OLD). */
  machine(p, 3);
  for (int i = 0; i < 10; i++) {
    touch(0);               /* frame 0: a long run */
    touch(2);               /* frame 2: keeps running */
    epochs(p, 1);
  }
  touch(1);                 /* frame 1: one epoch, then idle */
  touch(2);
  epochs(p, 1);
  for (int i = 0; i < 8; i++) {
    touch(2);
    epochs(p, 1);
  }
  v = p->choose();
  CHECK(v == 1, "spt: the transient page 1 goes before the older LRU page 0, got %d", v);
  /* A very old LRU page (30 epochs idle) goes before any transient one. */
  for (int i = 0; i < 25; i++) {
    touch(2);
    epochs(p, 1);
  }
  v = p->choose();
  CHECK(v == 0, "spt: the LRU page idle 30+ epochs goes first, got %d", v);
  /* Only LRU pages: least recently used. */
  machine(p, 3);
  touch(2);
  epochs(p, 1);
  touch(0);
  epochs(p, 1);
  v = p->choose();
  CHECK(v == 1, "spt: only LRU pages: the least recently used (1), got %d", v);
  vm_spt_epoch_ms = saved;
}

int main(void)
{
  CHECK(vm_policy_find(VM_POLICY_DEFAULT) == &policy_clock, "clock is the default and can be found by name");
  /* Every policy file registered itself (POLICY), each once. */
  const struct vm_policy *const shipped[] = { &policy_clock, &policy_fifo, &policy_lru, &policy_clusterlru,
                                              &policy_random, &policy_spt };
  for (uint32_t k = 0; k < sizeof shipped / sizeof shipped[0]; k++) {
    int seen = 0;
    for (uint32_t i = 0; vm_policy_at(i); i++)
      seen += vm_policy_at(i) == shipped[k];
    CHECK(seen == 1, "policy %s is registered %d times, not once", shipped[k]->name, seen);
  }
  CHECK(vm_policy_find("nosuch") == 0, "an unknown name finds nothing");
  for (uint32_t i = 0; vm_policy_at(i); i++) {
    const struct vm_policy *p = vm_policy_at(i);
    CHECK(p->name && p->choose, "policy %u lacks a name or choose", i);
    test_common(p);
    /* A policy's own settings: named vm.*, a variable, bounds that hold its default. */
    for (const struct pol_setting *st = p->settings; st && st->name; st++)
      CHECK(strncmp(st->name, "vm.", 3) == 0 && st->description && st->value && st->min < st->max &&
            *st->value >= st->min && *st->value <= st->max,
            "policy %s: setting %s is not a vm.* setting with a variable and bounds around its default",
            p->name, st->name);
  }
  CHECK(policy_clusterlru.settings && strcmp(policy_clusterlru.settings[0].name, "vm.cluster") == 0 &&
        policy_clusterlru.settings[0].value == &vm_cluster_size, "clusterlru declares vm.cluster");
  CHECK(policy_spt.settings && strcmp(policy_spt.settings[0].name, "vm.spt_epoch_ms") == 0 &&
        policy_spt.settings[0].value == &vm_spt_epoch_ms, "spt declares vm.spt_epoch_ms");
  test_fifo();
  test_lru();
  test_clock();
  test_clusterlru();
  test_random();
  test_spt();
  if (failures) {
    printf("test_policy: %d failures\n", failures);
    return 1;
  }
  printf("test_policy: all passed\n");
  return 0;
}
