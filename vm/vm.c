/*
 * The VM as a whole: its start, its settings and its counters.
 *
 * vm_init runs at boot, before any process: it gives up the identity map that only served to
 * turn paging on, and registers the VM's settings (sysctl) and counters (vmstat, ^P) in the
 * order they are listed, the order vmstat prints them in: the VM's counters begin at
 * vm.faults, and the reference trace's, COW-COR's and the test-only damage's come after the
 * VM's own. Each file registers the settings it answers (vm/pageout.c: vm.policy and
 * vm.pageout; vm/aging.c: vm.clock_rate; vm/oldest.c the VM's answers to the negotiation);
 * each policy's own settings (vm.cluster, vm.spt_epoch_ms) are made settings here, as is the
 * audit's vm.audit. vm_start, once processes exist, starts the VM's three threads: the VM
 * daemon (vmaging, below: the aging sweep and the tick's other work), the page-out daemon
 * (vmpageout, vm/pageout.c) and the reaper of segments (vmreap, vm/segment.c).
 */
#include "kernel/klib.h"
#include "kernel/x86.h"
#include "kernel/proc.h"
#include "kernel/stats.h"
#include "kernel/sysctl.h"
#include "kernel/time.h"
#include "kernel/mem/coremap.h"
#include "kernel/mem/negotiate.h"
#include "fs/backing.h"
#include "vm/vm.h"
#include "vm/policy.h"
#include "vm/paging.h"

extern pde_t boot_pgdir[];

uint32_t vm_audit_every_fault;

static const struct setting set_audit = {
  "vm.audit", "1: run the VM audit after every fault", &vm_audit_every_fault, 0, 1, 0, 0 };

static uint32_t frames_vm(void) { return frame_count(POOL_VM); }

static const struct counter counters[] = {
  COUNTER("vm.faults", &st_vm_faults),
  COUNTER("vm.faults.zero", &st_vm_faults_zero),
  COUNTER("vm.faults.code", &st_vm_faults_code),
  COUNTER("vm.pageins", &st_vm_pageins),
  COUNTER("vm.pageins.backing", &st_vm_pageins_backing),
  COUNTER("vm.pageouts", &st_vm_pageouts),
  COUNTER("vm.pageout_requests", &st_vm_pageout_requests),
  COUNTER_FN("vm.frames", frames_vm),
  COUNTER("vm.clock.sweeps", &st_age_sweeps),
  COUNTER("vm.clock.checks", &st_age_checks),
  COUNTER("vm.evictions", &st_vm_evictions),
  COUNTER("vm.oom", &st_vm_oom),
  COUNTER("vm.policy_errors", &st_vm_policy_errors),
  COUNTER_FN("vm.oldest_ms", vm_oldest_ms),
  COUNTER("vm.age_lag_ms", &age_lag_ms),
  COUNTER("vm.laundered", &st_vm_laundered),
  COUNTER("vm.pageout_waits", &st_vm_pageout_waits),
  COUNTER("vm.swap.blocks", &backing_swap_blocks),
  COUNTER_FN("vm.segments", seg_count_used),
};

/* Each policy's own settings (struct pol_setting) as kernel settings, in the policies' order. */
#define MAX_POLICY_SETTINGS 16
static struct setting policy_settings[MAX_POLICY_SETTINGS];

static void policy_settings_init(void)
{
  uint32_t n = 0;
  for (uint32_t i = 0; vm_policy_at(i); i++)
    for (const struct pol_setting *s = vm_policy_at(i)->settings; s && s->name; s++) {
      if (n == MAX_POLICY_SETTINGS)
        panic("vm: more than %d policy settings", MAX_POLICY_SETTINGS);
      policy_settings[n] = (struct setting){ s->name, s->description, s->value, s->min, s->max, 0, 0 };
      setting_register(&policy_settings[n++]);
    }
}

/* The VM daemon (vmaging): ten times a second the aging sweep (vm/aging.c), then it samples
 * the reference trace (vm/trace.c), lets the policy tick, scans for the VM's oldest pages
 * (vm/oldest.c), reserves backing store for forked segments (vm/segment.c) and tops up the
 * kernel's reserve of free frames (neg_refill). */
uint32_t vm_ticks;

void vm_daemon(void *arg)
{
  for (;;) {
    sleep_ms(100);
    if (vm_damaged)
      continue;             /* a test damaged the bookkeeping on purpose (scaffold/vm_corrupt.c) */
    acquire(&vm_lock);
    vm_ticks++;
    age_tick();
    vm_trace_tick();
    const struct vm_policy *policy = current_policy();
    if (policy->tick)
      policy->tick();
    scan_oldest();          /* here, not in the first cache miss of the tick */
    bool all = vm_reserve_wanted;
    vm_reserve_wanted = false;
    release(&vm_lock);
    seg_reserve_lazy(all);
    neg_refill();
  }
}

void vm_init(void)
{
  initlock(&vm_lock, "vm");
  boot_pgdir[0] = 0;        /* the identity map was only for turning paging on */
  lcr3(V2P(boot_pgdir));
  pageout_init();           /* the laundry, the ready list, the policy; vm.policy, vm.pageout */
  policy_settings_init();   /* each policy's own (vm.cluster, vm.spt_epoch_ms) */
  setting_register(&set_audit);
  aging_init();             /* vm.clock_rate */
  oldest_init();            /* the VM's answers to the negotiation */
  stat_register_table(counters, NELEM(counters));
  vm_trace_init();          /* after the VM's own counters: ^P prints them in this order */
  cowcor_init();
  corrupt_init();
}

void vm_start(void)
{
  if (kthread_create("vmaging", vm_daemon, 0) < 0 || kthread_create("vmpageout", pageout_daemon, 0) < 0)
    panic("vm: cannot start the clock and the page-out daemon");
  if (kthread_create("vmreap", seg_reaper, 0) < 0)
    panic("vm: cannot start the reaper");
}
