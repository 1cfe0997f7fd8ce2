/* sleep SECONDS: sleeps; fractions such as 0.5 are allowed (millisecond resolution). */
#include <stdio.h>
#include <unistd.h>

/* Parses "12", "0.5", ".25" into milliseconds without floating point. */
static int parse_ms(const char *s, unsigned *ms)
{
  unsigned whole = 0, frac = 0, scale = 1000;
  int digits = 0;
  for (; *s >= '0' && *s <= '9'; s++, digits++) {
    if (whole > 4000000)
      return -1;   /* more than a month and a half: surely a mistake */
    whole = whole * 10 + (*s - '0');
  }
  if (*s == '.') {
    for (s++; *s >= '0' && *s <= '9'; s++, digits++) {
      if (scale > 1) {
        scale /= 10;
        frac += (*s - '0') * scale;
      }
    }
  }
  if (*s != 0 || digits == 0)
    return -1;
  *ms = whole * 1000 + frac;
  return 0;
}

int main(int argc, char **argv)
{
  unsigned ms;
  if (argc != 2 || parse_ms(argv[1], &ms) < 0) {
    fprintf(stderr, "usage: sleep SECONDS\n");
    return 1;
  }
  sleep_ms(ms);
  return 0;
}
