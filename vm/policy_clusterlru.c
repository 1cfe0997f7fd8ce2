/* Cluster LRU (Hagmann 1991, 4.3.2): history is kept per page (the accessed bits are sampled
 * every tick into the time of last reference, as for LRU), but a choice examines only one
 * cluster: the next vm_cluster_size contiguous physical frames after the last cluster used.
 * The least recently used page of that cluster is the victim. */
#include "vm/policy.h"

uint32_t vm_cluster_size = 16;
static uint32_t cluster;    /* first frame of the cluster the next choice examines */

static void clusterlru_sample(void)
{
  for (uint32_t f = 0; f < pol_nframes(); f++)
    if (pol_candidate(f))
      pol_referenced(f);
}

/* The LRU candidate of the cluster starting at c (its accessed bits sampled first), or -1
 * when it has none. */
static int32_t lru_in(uint32_t c)
{
  uint32_t n = pol_nframes(), size = vm_cluster_size ? vm_cluster_size : 1;
  int32_t best = -1;
  uint32_t now = pol_now(), best_age = 0;
  for (uint32_t f = c; f < c + size && f < n; f++) {
    if (!pol_candidate(f))
      continue;
    pol_referenced(f);
    uint32_t age = now - pol_lastref(f);
    if (best < 0 || age > best_age) {
      best = (int32_t)f;
      best_age = age;
    }
  }
  return best;
}

static int32_t clusterlru_choose(void)
{
  uint32_t n = pol_nframes(), size = vm_cluster_size ? vm_cluster_size : 1;
  uint32_t c = cluster < n ? cluster : 0;
  for (uint32_t i = 0; i <= n / size; i++) {
    int32_t v = lru_in(c);
    c += size;
    if (c >= n)
      c = 0;
    if (v >= 0) {
      cluster = c;
      return v;
    }
  }
  return -1;
}

static const struct pol_setting settings[] = {
  { "vm.cluster", "cluster size of clusterlru (frames)", &vm_cluster_size, 1, 4096 },
  { 0 },
};

const struct vm_policy policy_clusterlru = {
  .name = "clusterlru",
  .description = "Hagmann's cluster LRU: the LRU page of the next cluster of frames (vm.cluster)",
  .settings = settings,
  .tick = clusterlru_sample,
  .choose = clusterlru_choose,
};
POLICY(policy_clusterlru);
