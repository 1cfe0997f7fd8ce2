/* tracesim: replays reference traces through the kernel's replacement policies and Belady's
 * MIN, for a range of memory sizes, as Hagmann did (1991, section 5, Figures 1-3).
 *
 *   tracesim [-p POLICY,...|all] [-m FRAMES,...] [-e SPT_EPOCH_MS] [-k CLUSTER] [-K] [-t MS] [-c CSV] TRACE...
 *
 * For each trace and each memory size (frames for pages; by default a tenth to nine tenths of
 * the most pages the trace ever has live at once, between their first and last use, in nine
 * steps, then all its distinct pages: MIN needs no more than the peak to fault only on first
 * touches, and on a trace of many short-lived processes the distinct pages are far more) it runs every registered policy (POLICY, vm/policy.h) of the table
 * (or those named) on the simulated machine (machine.c) and MIN (min.c), and prints a table:
 * faults per policy and, beside each, the percent over MIN (Hagmann's Figure 2; MIN is 0).
 * -e sets spt's epoch (vm.spt_epoch_ms in the kernel, the same default), -k clusterlru's
 * cluster size (vm.cluster, 16). -c appends the same as CSV rows (trace, epoch_ms, references, pages, frames, policy, faults,
 * writes, over_min_pct, worst5: the faults of its five worst seconds, ordered: 1 for a trace in
 * the order of use; a header when the file is new). tools/lab/tracesim.py draws the figures.
 * -K keeps the pages of a segment whose last reference is past in memory until a policy evicts
 * them (by default they leave at the end of that epoch, as the kernel frees an exiting process's
 * frames: machine.c). Atlas's loop detector (atlas.c) is a policy of the simulator only, run
 * with the others.
 *
 * Compiled with -DTRACESIM_EXTRA=policy_NAME (tools/lab/grade.py does, for a policy file the
 * tree's build lacks, which may have no POLICY line yet), that policy is found by name too.
 *
 * Every run is a child process: a policy's static state (clock's hand, random's seed) starts
 * afresh each time, so two runs of tracesim print the same counts. Each call of a policy's hook
 * may take at most -t MS of CPU time (1000 by default; tools/lab/callwatch.c): a hook that loops
 * ends the run and tracesim with one line naming the hook and the reference it was called at.
 * Exit status: 0; 1 when a policy chose a frame it may not (its cell reads "error", and a line
 * "error: ..." after the row says which frame and why); 2 for a bad command line or trace; 3
 * when a hook did not return within the limit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "tools/lab/tracesim/min.h"
#include "tools/lab/callwatch.h"

#define MAXPOL 32

#ifdef TRACESIM_EXTRA
extern const struct vm_policy TRACESIM_EXTRA;
#endif

static const struct vm_policy *find(const char *name)
{
#ifdef TRACESIM_EXTRA
  if (!strcmp(TRACESIM_EXTRA.name, name))
    return &TRACESIM_EXTRA;
#endif
  for (int i = 0; sim_policies[i]; i++)
    if (!strcmp(sim_policies[i]->name, name))
      return sim_policies[i];
  return vm_policy_find(name);
}
#define MAXSIZES 64

static void usage(void)
{
  fprintf(stderr, "usage: tracesim [-p POLICY,...|all] [-m FRAMES,...] [-e SPT_EPOCH_MS] [-k CLUSTER] [-K] [-t MS] [-c CSV] TRACE...\npolicies:");
  for (uint32_t i = 0; vm_policy_at(i); i++)
    fprintf(stderr, " %s", vm_policy_at(i)->name);
  for (int i = 0; sim_policies[i]; i++)
    fprintf(stderr, " %s (simulator only)", sim_policies[i]->name);
  fprintf(stderr, "\n");
  exit(2);
}

/* What a run's child hands back. */
struct outcome {
  int ok;
  struct sim_result r;
  char why[240];
};

/* One policy (0: MIN) at one size, in a child; -1 when the policy chose wrongly (why says
 * how). */
static uint32_t call_limit_ms = CALLWATCH_DEFAULT_MS;

static int run(const struct vm_policy *p, const struct trace *t, uint32_t frames,
               struct sim_result *r, char *why, int whylen)
{
  int fd[2];
  if (pipe(fd) < 0) {
    perror("tracesim: pipe");
    exit(2);
  }
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) {
    perror("tracesim: fork");
    exit(2);
  }
  struct outcome o;
  if (pid == 0) {
    close(fd[0]);
    memset(&o, 0, sizeof o);
    if (p) {
      char who[300];
      snprintf(who, sizeof who, "policy %s on %s at %u frames", p->name,
               strrchr(t->path, '/') ? strrchr(t->path, '/') + 1 : t->path, frames);
      callwatch_init("tracesim", call_limit_ms);
      callwatch_context(who, "reference", t->nrefs);
      o.ok = machine_run(p, t, frames, &o.r, o.why, sizeof o.why) == 0;
    }
    else {
      min_run(t, frames, &o.r);
      o.ok = 1;
    }
    _exit(write(fd[1], &o, sizeof o) == sizeof o ? 0 : 2);
  }
  close(fd[1]);
  ssize_t got = 0, n;
  while (got < (ssize_t)sizeof o && (n = read(fd[0], (char *)&o + got, sizeof o - got)) > 0)
    got += n;
  close(fd[0]);
  int st;
  waitpid(pid, &st, 0);
  if (WIFEXITED(st) && WEXITSTATUS(st) == CALLWATCH_EXIT) {
    fflush(stdout);
    exit(CALLWATCH_EXIT);       /* the run said where its hook looped */
  }
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || got != sizeof o) {
    fflush(stdout);
    if (WIFSIGNALED(st))
      fprintf(stderr, "\ntracesim: the run of %s on %s at %u frames died (signal %d: it crashed)\n",
              p ? p->name : "MIN", t->path, frames, WTERMSIG(st));
    else
      fprintf(stderr, "\ntracesim: the run of %s on %s at %u frames died\n", p ? p->name : "MIN", t->path, frames);
    exit(2);
  }
  *r = o.r;
  snprintf(why, whylen, "%s", o.why);
  return o.ok ? 0 : -1;
}

static uint32_t parse_list(char *s, uint32_t *out, uint32_t max)
{
  uint32_t n = 0;
  for (char *tok = strtok(s, ","); tok; tok = strtok(0, ",")) {
    char *end;
    unsigned long v = strtoul(tok, &end, 10);
    if (*end || v == 0 || n == max) {
      fprintf(stderr, "tracesim: -m wants frame counts above 0, at most %u of them\n", max);
      exit(2);
    }
    out[n++] = (uint32_t)v;
  }
  return n;
}

int main(int argc, char **argv)
{
  const struct vm_policy *pols[MAXPOL];
  int npol = 0;
  uint32_t sizes[MAXSIZES], nsizes = 0;
  const char *csv = 0;
  int c;
  while ((c = getopt(argc, argv, "p:m:e:k:Kt:c:h")) != -1) {
    if (c == 'p') {
      for (char *tok = strtok(optarg, ","); tok; tok = strtok(0, ",")) {
        if (!strcmp(tok, "all")) {
          for (uint32_t i = 0; vm_policy_at(i) && npol < MAXPOL; i++)
            pols[npol++] = vm_policy_at(i);
          for (int i = 0; sim_policies[i] && npol < MAXPOL; i++)
            pols[npol++] = sim_policies[i];
          continue;
        }
        const struct vm_policy *p = find(tok);
        if (!p) {
          fprintf(stderr, "tracesim: no policy named %s\n", tok);
          usage();
        }
        if (npol < MAXPOL)
          pols[npol++] = p;
      }
    } else if (c == 'm') {
      nsizes = parse_list(optarg, sizes, MAXSIZES);
    } else if (c == 'e') {
      vm_spt_epoch_ms = (uint32_t)strtoul(optarg, 0, 10);
      if (vm_spt_epoch_ms < 10 || vm_spt_epoch_ms > 60000) {
        fprintf(stderr, "tracesim: -e wants 10..60000 ms\n");
        exit(2);
      }
    } else if (c == 'k') {
      vm_cluster_size = (uint32_t)strtoul(optarg, 0, 10);
      if (vm_cluster_size < 1 || vm_cluster_size > 4096) {
        fprintf(stderr, "tracesim: -k wants 1..4096 frames\n");
        exit(2);
      }
    } else if (c == 'K') {
      machine_keep_dead = true;
    } else if (c == 't') {
      char *end;
      unsigned long v = strtoul(optarg, &end, 10);
      if (*end || v < 10 || v > 3600000) {
        fprintf(stderr, "tracesim: -t wants 10..3600000 ms of CPU time per hook call\n");
        exit(2);
      }
      call_limit_ms = (uint32_t)v;
    } else if (c == 'c') {
      csv = optarg;
    } else {
      usage();
    }
  }
  if (optind >= argc)
    usage();
  if (!npol) {
    for (uint32_t i = 0; vm_policy_at(i) && npol < MAXPOL; i++)
      pols[npol++] = vm_policy_at(i);
    for (int i = 0; sim_policies[i] && npol < MAXPOL; i++)
      pols[npol++] = sim_policies[i];
  }
  FILE *out = 0;
  if (csv) {
    bool fresh = access(csv, F_OK) != 0;
    out = fopen(csv, "a");
    if (!out) {
      fprintf(stderr, "tracesim: %s: cannot write\n", csv);
      exit(2);
    }
    if (fresh)
      fprintf(out, "trace,epoch_ms,references,pages,frames,policy,faults,writes,over_min_pct,worst5,ordered\n");
  }
  int status = 0;
  for (int a = optind; a < argc; a++) {
    struct trace t;
    trace_read(argv[a], &t);
    uint32_t sz[MAXSIZES], nsz = nsizes;
    if (nsizes) {
      memcpy(sz, sizes, sizeof sizes);
    } else {
      nsz = 0;
      for (uint32_t k = 1; k <= 10; k++) {
        uint32_t v = (k < 10 ? t.live : t.npages) * k / 10;
        if (v < 4)
          v = 4;
        if (!nsz || sz[nsz - 1] != v)
          sz[nsz++] = v;
      }
    }
    const char *name = strrchr(t.path, '/') ? strrchr(t.path, '/') + 1 : t.path;
    printf("%s: %u epochs of %u ms, %u references to %u pages (at most %u live at once), %s\n", name,
           t.last_epoch - t.first_epoch + 1, t.epoch_ms, t.nrefs, t.npages, t.live,
           t.ordered ? "in the order of use" : "sampled (no order within an epoch)");
    printf("%8s %8s", "frames", "MIN");
    for (int i = 0; i < npol; i++)
      printf(" %18s", pols[i]->name);
    printf("\n");
    for (uint32_t s = 0; s < nsz; s++) {
      struct sim_result m, r;
      char why[240], errors[MAXPOL][240];
      int nerr = 0;
      run(0, &t, sz[s], &m, why, sizeof why);
      printf("%8u %8llu", sz[s], (unsigned long long)m.faults);
      if (out)
        fprintf(out, "%s,%u,%u,%u,%u,MIN,%llu,%llu,0.0,%llu,%d\n", name, t.epoch_ms, t.nrefs, t.npages,
                sz[s], (unsigned long long)m.faults, (unsigned long long)m.writes,
                (unsigned long long)m.worst5, t.ordered);
      for (int i = 0; i < npol; i++) {
        if (run(pols[i], &t, sz[s], &r, why, sizeof why) < 0) {
          status = 1;
          snprintf(errors[nerr++], sizeof errors[0], "%s", why);
          printf(" %18s", "error");
          if (out)
            fprintf(out, "%s,%u,%u,%u,%u,%s,error,error,error,error,%d\n", name, t.epoch_ms, t.nrefs,
                    t.npages, sz[s], pols[i]->name, t.ordered);
          continue;
        }
        double over = m.faults ? 100.0 * ((double)r.faults - (double)m.faults) / (double)m.faults : 0;
        printf(" %9llu (%+5.0f%%)", (unsigned long long)r.faults, over);
        if (out)
          fprintf(out, "%s,%u,%u,%u,%u,%s,%llu,%llu,%.1f,%llu,%d\n", name, t.epoch_ms, t.nrefs, t.npages,
                  sz[s], pols[i]->name, (unsigned long long)r.faults,
                  (unsigned long long)r.writes, over, (unsigned long long)r.worst5, t.ordered);
      }
      printf("\n");
      for (int i = 0; i < nerr; i++)
        printf("error: %s\n", errors[i]);
    }
    printf("\n");
    free(t.refs);
    free(t.seg_of);
  }
  if (out)
    fclose(out);
  return status;
}
