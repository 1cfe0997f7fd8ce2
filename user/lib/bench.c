/* The benchmarks' reference page copy and zeroing (user/include/bench.h). One routine in the
 * library, called through the library, so every program measures the same instructions: a
 * copy written in each program came out as different code (a volatile destination in one
 * made it a fifth cheaper). A plain word loop, not `rep movs`, which -icount would count as
 * one instruction per word and so make look cheaper than any real copy. */
#include <bench.h>

static unsigned src[1024], dst[1024];

__attribute__((noinline)) static void copy_page(unsigned *d, const unsigned *s)
{
  for (int i = 0; i < 1024; i++)
    d[i] = s[i];
}

__attribute__((noinline)) static void zero_page(unsigned *d)
{
  for (int i = 0; i < 1024; i++)
    d[i] = 0;
}

unsigned long long bench_copy4k(void)
{
  for (int i = 0; i < 1024; i++)
    src[i] = i * 2654435761u;
  copy_page(dst, src);                  /* both pages resident before timing */
  unsigned long long best = ~0ull;
  for (int r = 0; r < 32; r++) {
    unsigned long long t0 = bench_ticks();
    copy_page(dst, src);
    __asm__ volatile("" ::: "memory");
    unsigned long long t = bench_ticks() - t0;
    if (t < best)
      best = t;
  }
  return best;
}

unsigned long long bench_zero4k(void)
{
  zero_page(dst);
  unsigned long long best = ~0ull;
  for (int r = 0; r < 32; r++) {
    unsigned long long t0 = bench_ticks();
    zero_page(dst);
    __asm__ volatile("" ::: "memory");
    unsigned long long t = bench_ticks() - t0;
    if (t < best)
      best = t;
  }
  return best;
}
