/* fsbench: file-system micro-benchmarks in the spirit of Braunstein et al. (SOSP 1989),
 * run by tools/bench/bench_fs.py. Every result is one line "csv,FIELDS..." for the host script.
 *
 *   fsbench cpu       guest-timed (rdtsc; under -icount shift=0 it counts 1 ns per guest
 *                     instruction, so the figures are exact): the guest's own copy of a 4 KB
 *                     page (the physical limit), then write and read throughput of a 2 MB
 *                     file by transfer size with the data in the cache, and the cost of one
 *                     cached 4 KB read with the cache at 1 MB and at 16 MB.
 *   fsbench disk      wall-clock (ms): reads and overwrites of a file not in the cache.
 *   fsbench policy    disk writes (data, and descriptor/indirect/bitmap) of a build-like
 *                     workload under each write policy (fs.write_policy).
 *   fsbench ceiling MB   wall-clock: the disk's own sequential ceiling, MB read and written
 *                     back by the kernel in 64 KB requests with no file system (sysctl
 *                     disk.ceiling_kb, scaffold/disk_ceiling.c; the image must have MB spare
 *                     past its file system).
 *   fsbench miss FILE   guest-timed: the cost of each cache miss, FILE read 4 KB at a time out
 *                     of the cache with read-ahead off (so every read waits for its block);
 *                     the fewest, the median and the most ticks of one read (bench-negcost
 *                     sets the cost of a negotiation against it).
 *   fsbench seq MB [1]   wall-clock: a new MB file written in 64 KB calls and fsync'ed, then,
 *                     out of the cache, read in 64 KB calls; with the disk's requests and KB
 *                     each took. With 1: one block a request (fs.cluster_max=1, no read-ahead).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include <sys.h>
#include <bench.h>
#include <sys/stat.h>

#define FILE_BYTES (2u * 1024 * 1024)
static unsigned char buf[64 * 1024] __attribute__((aligned(4096)));
static const unsigned sizes[] = { 4, 16, 64, 256, 1024, 4096, 8192, 16384, 65536 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static void die(const char *what)
{
  printf("fsbench: %s: %s\n", what, strerror(errno));
  exit(1);
}

static void set(const char *name, const char *value)
{
  char out[64];
  if (sysctl(name, value, out, sizeof(out)) < 0)
    die(name);
}

/* MB/s from bytes and ns (MB = 10^6 bytes, as the papers use). */
static unsigned mbps(unsigned long long bytes, unsigned long long ns)
{
  return ns ? (unsigned)(bytes * 1000ull / ns) : 0;
}

/* Writes the whole file in calls of size sz; returns ns. */
static unsigned long long write_file(const char *path, unsigned sz, int flags)
{
  int fd = open(path, O_WRONLY | O_CREAT | flags);
  if (fd < 0)
    die(path);
  unsigned long long t0 = bench_ticks();
  for (unsigned off = 0; off < FILE_BYTES; off += sz)
    if (write(fd, buf, sz) != (int)sz)
      die("write");
  unsigned long long t = bench_ticks() - t0;
  close(fd);
  return t;
}

static unsigned long long read_file(const char *path, unsigned sz)
{
  int fd = open(path, O_RDONLY);
  if (fd < 0)
    die(path);
  unsigned long long t0 = bench_ticks();
  for (unsigned off = 0; off < FILE_BYTES; off += sz)
    if (read(fd, buf, sz) != (int)sz)
      die("read");
  unsigned long long t = bench_ticks() - t0;
  close(fd);
  return t;
}

/* ns per cached 4 KB read of one block, many times over. */
static unsigned long long cached_read_cost(const char *path)
{
  int fd = open(path, O_RDONLY);
  if (fd < 0)
    die(path);
  read(fd, buf, 4096);
  const int n = 2000;
  unsigned long long t0 = bench_ticks();
  for (int i = 0; i < n; i++) {
    lseek(fd, 0, SEEK_SET);
    read(fd, buf, 4096);
  }
  unsigned long long t = (bench_ticks() - t0) / n;
  close(fd);
  return t;
}

static void fill_cache(unsigned mb)
{
  char name[32];
  for (unsigned i = 0; i < mb; i++) {
    snprintf(name, sizeof(name), "/tmp/fill%u", i);
    int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC);
    for (int k = 0; k < 16; k++)
      write(fd, buf, 65536);
    close(fd);
  }
}

static void cpu(void)
{
  set("fs.cache_max_kb", "8192");       /* 8 MB: the 2 MB file stays resident */
  unsigned long long copy = bench_copy4k();
  printf("csv,copy,4096,%llu,%u\n", copy, mbps(4096, copy));
  memset(buf, 'x', sizeof(buf));
  for (unsigned i = 0; i < NSIZES; i++) {
    unsigned sz = sizes[i];
    unlink("/tmp/bench");
    unsigned long long tw = write_file("/tmp/bench", sz, O_TRUNC);      /* a new file */
    unsigned long long tr = read_file("/tmp/bench", sz);                /* cache-resident */
    unsigned long long to = write_file("/tmp/bench", sz, 0);            /* overwrite in cache */
    printf("csv,cached,%u,%u,%u,%u\n", sz, mbps(FILE_BYTES, tw), mbps(FILE_BYTES, to),
           mbps(FILE_BYTES, tr));
  }
  unlink("/tmp/bench");
  sync();
  /* One cached block read over and over, with the cache small, then large and full. */
  write_file("/tmp/bench", 65536, O_TRUNC);
  set("fs.cache_max_kb", "1024");           /* 1 MB */
  unsigned long long small = cached_read_cost("/tmp/bench");
  set("fs.cache_max_kb", "16384");          /* 16 MB, filled */
  fill_cache(15);
  unsigned long long large = cached_read_cost("/tmp/bench");
  printf("csv,lookup,%u,%llu,%llu,%ld\n", 4096u, small, large, kstat_get("fs.cache.blocks"));
  for (unsigned i = 0; i < 15; i++) {
    char name[32];
    snprintf(name, sizeof(name), "/tmp/fill%u", i);
    unlink(name);
  }
  unlink("/tmp/bench");
  set("fs.cache_max_kb", "0");
}

/* Wall-clock: the file is on disk and not in the cache. */
static void evict(void)
{
  sync();
  set("fs.cache_max_kb", "64");
  set("fs.cache_max_kb", "0");
}

static void disk(void)
{
  memset(buf, 'y', sizeof(buf));
  write_file("/tmp/dbench", 65536, O_TRUNC);
  for (unsigned i = 0; i < NSIZES; i++) {
    unsigned sz = sizes[i];
    if (sz < 1024)
      continue;               /* a 2 MB file in 4-byte reads from disk takes too long */
    evict();
    unsigned t0 = uptime_ms();
    int fd = open("/tmp/dbench", O_RDONLY);
    for (unsigned off = 0; off < FILE_BYTES; off += sz)
      read(fd, buf, sz);
    close(fd);
    unsigned tr = uptime_ms() - t0;
    evict();
    t0 = uptime_ms();
    fd = open("/tmp/dbench", O_WRONLY);
    for (unsigned off = 0; off < FILE_BYTES; off += sz)
      write(fd, buf, sz);
    fsync(fd);
    close(fd);
    unsigned tw = uptime_ms() - t0;
    printf("csv,disk,%u,%u,%u\n", sz, mbps(FILE_BYTES, tw * 1000000ull),
           mbps(FILE_BYTES, tr * 1000000ull));
  }
  unlink("/tmp/dbench");
}

/* A build: sources written, compiled into temporaries that are deleted, objects rewritten,
 * and one large sequential output; then everything surviving is synced. */
static void workload(void)
{
  char a[48], b[48];
  mkdir("/w");
  for (int i = 0; i < 40; i++) {
    snprintf(a, sizeof(a), "/w/src%d.c", i);
    int fd = open(a, O_WRONLY | O_CREAT | O_TRUNC);
    write(fd, buf, 1000 + (i * 577) % 9000);
    close(fd);
  }
  for (int pass = 0; pass < 3; pass++)
    for (int i = 0; i < 40; i++) {
      snprintf(a, sizeof(a), "/w/tmp%d.s", i);
      snprintf(b, sizeof(b), "/w/obj%d.o", i);
      int fd = open(a, O_WRONLY | O_CREAT | O_TRUNC);
      write(fd, buf, 3000 + (i * 911) % 12000);
      close(fd);
      fd = open(b, O_WRONLY | O_CREAT | O_TRUNC);
      write(fd, buf, 2000 + (i * 313) % 6000);
      close(fd);
      unlink(a);
    }
  int fd = open("/w/a.out", O_WRONLY | O_CREAT | O_TRUNC);
  for (int k = 0; k < 32; k++)
    write(fd, buf, 65536);
  close(fd);
}

static void cleanup(void)
{
  char a[48];
  for (int i = 0; i < 40; i++) {
    snprintf(a, sizeof(a), "/w/src%d.c", i);
    unlink(a);
    snprintf(a, sizeof(a), "/w/obj%d.o", i);
    unlink(a);
  }
  unlink("/w/a.out");
  rmdir("/w");
  sync();
}

static void policy(void)
{
  static const char *pols[] = { "through", "asap", "delay" };
  memset(buf, 'z', sizeof(buf));
  for (int p = 0; p < 3; p++) {
    sync();
    set("fs.write_policy", pols[p]);
    long d0 = kstat_get("fs.disk.writes.data"), m0 = kstat_get("fs.disk.writes.meta");
    unsigned t0 = uptime_ms();
    workload();
    unsigned t1 = uptime_ms();
    sync();
    long d1 = kstat_get("fs.disk.writes.data"), m1 = kstat_get("fs.disk.writes.meta");
    printf("csv,policy,%s,%ld,%ld,%u\n", pols[p], d1 - d0, m1 - m0, t1 - t0);
    set("fs.write_policy", "delay");
    cleanup();
  }
}

static void ceiling(unsigned mb)
{
  char kb[16];
  snprintf(kb, sizeof(kb), "%u", mb * 1024);
  set("disk.ceiling_kb", kb);
  printf("csv,ceiling,%u,%ld,%ld\n", mb, kstat_get("disk.ceiling.read_ms"), kstat_get("disk.ceiling.write_ms"));
}

static void seq(unsigned mb, int single)
{
  if (single) {
    set("fs.cluster_max", "1");
    set("fs.readahead", "0");
  }
  memset(buf, 's', sizeof(buf));
  unlink("/tmp/seq");
  sync();
  long wr0 = kstat_get("disk.writes"), wk0 = kstat_get("disk.write_kb");
  unsigned t0 = uptime_ms();
  int fd = open("/tmp/seq", O_WRONLY | O_CREAT | O_TRUNC);
  if (fd < 0)
    die("/tmp/seq");
  for (unsigned n = 0; n < mb * 16; n++)
    if (write(fd, buf, sizeof(buf)) != (int)sizeof(buf))
      die("write");
  if (fsync(fd) < 0)
    die("fsync");
  close(fd);
  unsigned tw = uptime_ms() - t0;
  long wr = kstat_get("disk.writes") - wr0, wk = kstat_get("disk.write_kb") - wk0;
  evict();
  long rr0 = kstat_get("disk.reads"), rk0 = kstat_get("disk.read_kb");
  t0 = uptime_ms();
  fd = open("/tmp/seq", O_RDONLY);
  if (fd < 0)
    die("/tmp/seq");
  for (unsigned n = 0; n < mb * 16; n++)
    if (read(fd, buf, sizeof(buf)) != (int)sizeof(buf))
      die("read");
  close(fd);
  unsigned tr = uptime_ms() - t0;
  long rr = kstat_get("disk.reads") - rr0, rk = kstat_get("disk.read_kb") - rk0;
  printf("csv,seq,%u,%u,%u,%ld,%ld,%ld,%ld,%s\n", mb, tw, tr, wr, wk, rr, rk, single ? "single" : "clustered");
  unlink("/tmp/seq");
  sync();
  if (single) {
    set("fs.cluster_max", "16");
    set("fs.readahead", "1");
  }
}

static int by_value(const void *a, const void *b)
{
  unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
  return x < y ? -1 : x > y;
}

#define MISS_MAX 8192   /* reads timed: a 32 MB file */
static unsigned long long miss_ticks[MISS_MAX];

static void miss(const char *path)
{
  char ra[16];
  if (sysctl("fs.readahead", 0, ra, sizeof(ra)) < 0)
    die("fs.readahead");
  set("fs.readahead", "0");
  evict();
  int fd = open(path, O_RDONLY);
  if (fd < 0)
    die(path);
  unsigned n = 0;
  for (;;) {
    unsigned long long t0 = bench_ticks();
    int got = read(fd, buf, 4096);
    unsigned long long t = bench_ticks() - t0;
    if (got < 0)
      die("read");
    if (got == 0 || n == MISS_MAX)
      break;
    miss_ticks[n++] = t;
  }
  close(fd);
  set("fs.readahead", ra);
  if (n == 0) {
    printf("fsbench: %s is empty\n", path);
    exit(1);
  }
  qsort(miss_ticks, n, sizeof miss_ticks[0], by_value);
  printf("csv,miss,%u,%llu,%llu,%llu\n", n, miss_ticks[0], miss_ticks[n / 2], miss_ticks[n - 1]);
}

int main(int argc, char **argv)
{
  if (argc >= 3 && strcmp(argv[1], "ceiling") == 0) {
    ceiling(atoi(argv[2]));
    printf("fsbench ceiling done\n");
    return 0;
  }
  if (argc >= 3 && strcmp(argv[1], "seq") == 0) {
    seq(atoi(argv[2]), argc > 3 && strcmp(argv[3], "1") == 0);
    printf("fsbench seq done\n");
    return 0;
  }
  if (argc == 3 && strcmp(argv[1], "miss") == 0) {
    miss(argv[2]);
    printf("fsbench miss done\n");
    return 0;
  }
  if (argc != 2) {
    fprintf(stderr, "usage: fsbench cpu|disk|policy | fsbench ceiling MB | fsbench seq MB [1] | fsbench miss FILE\n");
    return 1;
  }
  if (strcmp(argv[1], "cpu") == 0)
    cpu();
  else if (strcmp(argv[1], "disk") == 0)
    disk();
  else if (strcmp(argv[1], "policy") == 0)
    policy();
  else
    return 1;
  printf("fsbench %s done\n", argv[1]);
  return 0;
}
