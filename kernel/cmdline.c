/* The kernel command line: "key=value" words. Every setting (kernel/sysctl.c) takes its boot
 * value from here when it is registered; a few boot parameters that are not settings (init,
 * disktest) are asked for directly. Words nobody asked for are reported once boot is done, so
 * a typo is seen but not fatal. */
#include "kernel/cmdline.h"
#include "kernel/klib.h"

#define MAXWORDS 32
static char line[512];
static struct {
  char *key, *value;
  bool known;
} words[MAXWORDS];
static int nwords;

void cmdline_init(const char *s)
{
  safestrcpy(line, s ? s : "", sizeof line);
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
    if (image_name || nwords >= MAXWORDS)
      continue;
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
  for (int i = 0; i < nwords; i++)
    if (!words[i].known)
      kprintf("cmdline: unknown setting '%s' ignored\n", words[i].key);
}
