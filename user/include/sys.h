/* System calls particular to this kernel: counters, power, processes, settings, time. */
#ifndef _SYS_H
#define _SYS_H
#include "uapi/stat.h"   /* struct procinfo */
#include "uapi/negtrace.h"   /* struct negrecord */
#include "uapi/vmtrace.h"    /* struct vmtrace_info, vmtrace_rec */
#include "uapi/syscall.h"    /* CONS_COOKED, CONS_RAW */

/* Copies the kernel counters into buf as "name value\n" lines; returns the byte count. */
int kstat(char *buf, unsigned len);
/* The value of one counter, e.g. kstat_get("mem.frames.free"), or -1 if there is none. */
long kstat_get(const char *name);
/* Syncs the disks and powers off; returns only on failure. */
int shutdown(void);
/* Fills buf with up to max process rows; returns how many. */
int ps(struct procinfo *buf, int max);
/* The row of process pid (getpid(): its own page-ins and page-outs): 0, or -1 (ESRCH). */
int getprocinfo(int pid, struct procinfo *out);
/* Reads (value == 0) or sets a run-time setting; the current (new) value is written to out
 * as text, or for a refused value the reason. Returns >= 0 or -1 with errno. */
int sysctl(const char *name, const char *value, char *out, unsigned outlen);
/* Makes group pgid the console's foreground group, the one ^C kills; 0: none (^C then
 * ends the line being typed, empty). */
int setfg(int pgid);
/* Sets the input mode of the console open as fd: CONS_COOKED (the kernel edits and echoes
 * lines) or CONS_RAW (every byte as it comes, no echo: the shell's line editor). Returns the
 * mode before, or -1 with errno ENOTTY when fd is not the console. */
int consmode(int fd, int mode);
/* Which of the first n blocks of open file fd the file cache holds: vec[i] gets INCORE_CACHED,
 * | INCORE_DIRTY when not yet written back (uapi/syscall.h). Returns the file's block count. */
int incore(int fd, unsigned char *vec, unsigned n);
unsigned uptime_ms(void);
int sleep_ms(unsigned ms);
/* The VM's invariant checker (user/lib/vm.c): problems found (printed on the console unless
 * quiet), 0 when all is well. */
int vmaudit(int quiet);
/* The last negotiations between the file cache and the VM, oldest first, at most max (and
 * NEGTRACE_MAX): how many, or a negative errno. */
int negtrace(struct negrecord *buf, int max);
/* The reference trace (vm.trace_epoch_ms): fills *info, and buf with up to max records from
 * number first on (fewer at a page's end: call again); how many, or a negative errno. */
int vmtrace(struct vmtrace_info *info, struct vmtrace_rec *buf, unsigned first, unsigned max);
/* Test-only damage to the VM's bookkeeping and its undoing (uapi/vmcorrupt.h): the call's
 * result (>= 0), or a negative errno; refused (-EPERM) unless debug.corrupt=1. */
struct vmcorrupt;
int vmcorrupt(struct vmcorrupt *r);
#endif
