/* The kernel command line: "key=value" words. Every setting (kernel/sysctl.c) takes its boot
 * value from here when it is registered; a few boot parameters that are not settings (init,
 * disktest) are asked for directly. Words nobody asked for are reported once boot is done, so
 * a typo is seen but not fatal. */
#include "kernel/cmdline.h"
#include "kernel/klib.h"

/* Room for every setting given a value at once, after the kernel's file name, which QEMU
 * puts first with its whole path (as deep as the folder the project was cloned into). What
 * does not fit is reported, never dropped in silence. */
#define MAXWORDS 96
static char line[4096];
static struct {
  char *key, *value;
  bool known;
} words[MAXWORDS];
static int nwords;
static bool cut_line;           /* the line was longer than line[] */
static int dropped;             /* words past MAXWORDS */

void cmdline_init(const char *s)
{
  s = s ? s : "";
  safestrcpy(line, s, sizeof line);
  cut_line = strlen(s) >= sizeof line;
  char *p = line;
  /* GRUB and QEMU pass the kernel's file name as the first word: it has no '='. */
  bool first = true;
  while (*p) {
    while (*p == ' ')
      *p++ = 0;
    if (!*p)
      break;
    char *w = p;
    while (*p && *p != ' ')
      p++;
    if (*p)
      *p++ = 0;
    bool image_name = first && !strchr(w, '=');
    first = false;
    if (image_name)
      continue;
    if (nwords >= MAXWORDS) {
      dropped++;
      continue;
    }
    char *eq = strchr(w, '=');
    words[nwords].key = w;
    words[nwords].value = eq ? eq + 1 : "";
    if (eq)
      *eq = 0;
    nwords++;
  }
}

const char *cmdline_get(const char *key, const char *def)
{
  const char *v = def;
  for (int i = 0; i < nwords; i++) {
    if (strcmp(words[i].key, key) == 0) {
      words[i].known = true;
      v = words[i].value;      /* the last one wins, so CMDLINE overrides defaults */
    }
  }
  return v;
}

void cmdline_report_unknown(void)
{
  if (cut_line)
    kprintf("cmdline: longer than %u bytes: the rest was ignored\n", (unsigned)sizeof line - 1);
  if (dropped)
    kprintf("cmdline: more than %d words: the last %d were ignored\n", MAXWORDS, dropped);
  for (int i = 0; i < nwords; i++)
    if (!words[i].known)
      kprintf("cmdline: unknown setting '%s' ignored\n", words[i].key);
}
