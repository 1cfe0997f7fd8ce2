/* Host unit tests of the shadow tables (kernel/mem/shadow.c, compiled unchanged): a page given up
 * and wanted again is found with its distance and time; the table never holds more than its
 * sets' ways however many pages go; entries further back than the horizon are aged out.
 *
 * Run by tests/host/test_c_programs.py.
 * host-test: kernel/mem/shadow.c */
#include <stdio.h>
#include <stdlib.h>
#include "kernel/mem/shadow.h"

static int failures, checks;

#define CHECK(c, ...) do { checks++; if (!(c)) { failures++; printf("FAIL %s:%d: ", __FILE__, __LINE__); \
  printf(__VA_ARGS__); printf("\n"); } } while (0)

static struct shadow_set *pages[SHADOW_MAX_PAGES];

static void table(struct shadow *t, uint32_t npages, uint32_t horizon)
{
  for (uint32_t i = 0; i < npages; i++) {
    free(pages[i]);
    pages[i] = calloc(1, 4096);
  }
  shadow_init(t, pages, npages, horizon);
}

static void found_with_distance(void)
{
  struct shadow t;
  table(&t, 2, 1000);
  uint32_t d = 99, lr = 99;
  CHECK(shadow_recall(&t, 7, &d, &lr) == SHADOW_NONE, "an empty table found something");
  shadow_remember(&t, 7, 1234);
  for (uint32_t k = 100; k < 110; k++)
    shadow_remember(&t, k, 5);
  CHECK(shadow_recall(&t, 7, &d, &lr) == SHADOW_HIT, "page 7 given up, not found");
  CHECK(d == 10 && lr == 1234, "page 7: distance %u (want 10), lastref %u (want 1234)", d, lr);
  /* Found once: forgotten, so the next miss on it is no refault. */
  CHECK(shadow_recall(&t, 7, &d, &lr) == SHADOW_NONE, "page 7 recalled twice");
  /* Given up again before it came back: the newer time counts. */
  shadow_remember(&t, 8, 1);
  shadow_remember(&t, 8, 2);
  CHECK(shadow_recall(&t, 8, &d, &lr) == SHADOW_HIT && lr == 2 && d == 0, "page 8 given up twice: lastref %u, distance %u", lr, d);
  /* A page given up just now comes back at distance 0. */
  shadow_remember(&t, 9, 3);
  CHECK(shadow_recall(&t, 9, &d, &lr) == SHADOW_HIT && d == 0, "page 9: distance %u", d);
}

static void bounded(void)
{
  struct shadow t;
  table(&t, 3, 1u << 30);
  uint32_t cap = 3 * SHADOW_SETS_PER_PAGE * SHADOW_WAYS;
  for (uint32_t k = 0; k < 100000; k++)
    shadow_remember(&t, k, k);
  uint32_t n = shadow_count(&t);
  CHECK(n <= cap, "%u entries in a table of %u", n, cap);
  CHECK(n > cap * 9 / 10, "only %u entries of %u used: the sets are badly spread", n, cap);
  /* What it holds is the last pages given up: the newest are there, the first are not. */
  uint32_t d, lr, newest = 0, oldest = 0;
  for (uint32_t k = 100000 - cap / 2; k < 100000; k++)
    newest += shadow_recall(&t, k, &d, &lr) == SHADOW_HIT;
  for (uint32_t k = 0; k < cap; k++)
    oldest += shadow_recall(&t, k, &d, &lr) != SHADOW_NONE;
  CHECK(newest > cap / 2 * 9 / 10, "of the last %u pages given up, %u remembered", cap / 2, newest);
  CHECK(oldest == 0, "%u of the first pages given up still remembered", oldest);
}

static void aged_out(void)
{
  struct shadow t;
  table(&t, 4, 50);
  uint32_t d, lr;
  shadow_remember(&t, 1, 0);
  shadow_remember(&t, 2, 0);
  for (uint32_t k = 0; k < 50; k++)
    shadow_remember(&t, 1000 + k, 0);
  CHECK(shadow_recall(&t, 2, &d, &lr) == SHADOW_HIT && d == 50, "page 2 at the horizon: distance %u", d);
  CHECK(shadow_recall(&t, 1, &d, &lr) == SHADOW_AGED, "page 1 past the horizon was not aged out");
  CHECK(shadow_recall(&t, 1, &d, &lr) == SHADOW_NONE, "an aged entry stays");
}

int main(void)
{
  found_with_distance();
  bounded();
  aged_out();
  if (failures) {
    printf("%d of %d checks failed\n", failures, checks);
    return 1;
  }
  printf("shadow tables: %d checks, all passed\n", checks);
  return 0;
}
