/* The order of sort's lines, the one `LC_ALL=C sort` gives with -n, -r, -k N and -k N,M.
 *
 * Bytes. In the C locale text compares as unsigned bytes, like memcmp; when one line is a
 * prefix of the other, the shorter comes first (so the empty line comes before all others).
 *
 * Fields. Without -t, GNU sort splits a line at every blank-to-nonblank transition: a field
 * is a run of blanks (space or tab) followed by a run of non-blanks, so the blanks in front
 * of a field belong to it. "-k 2" is the key from the blanks in front of field 2 to the end of
 * the line; "-k 2,3" ends it after field 3's non-blanks. A line with fewer fields has an empty
 * key there; an end before the start (-k 3,2) is an empty key too.
 *
 * Numbers (-n). The key's leading number: blanks skipped, an optional '-', digits, and an
 * optional '.' with more digits (the C locale: no thousands separator, no '+'). Anything else
 * ends it; no digits at all is zero, and so is "-0" or "-.000". Numbers compare by value, not
 * by reading them into a machine integer: leading zeros dropped, the longer integer part is
 * the larger, then digit by digit, then the fractions digit by digit (trailing zeros
 * dropped). So any length works, and "1.50" equals "1.5".
 *
 * Ties. Lines whose keys are equal are ordered by their whole bytes, GNU sort's last-resort
 * comparison, and -r reverses that too: sort's output is then a function of the set of
 * lines, whatever order the runs were made and merged in. Only identical lines are equal.
 */
#include "linecmp.h"

static int blank(unsigned char c)
{
  return c == ' ' || c == '\t';
}

static int digit(unsigned char c)
{
  return c >= '0' && c <= '9';
}

/* Byte order of [a, a+alen) and [b, b+blen): -1, 0 or 1. */
static int bytes_compare(const char *a, size_t alen, const char *b, size_t blen)
{
  size_t n = alen < blen ? alen : blen;
  for (size_t i = 0; i < n; i++)
    if (a[i] != b[i])
      return (unsigned char)a[i] < (unsigned char)b[i] ? -1 : 1;
  return (alen > blen) - (alen < blen);
}

/* Past n fields from p (each: blanks, then non-blanks), stopping at lim. */
static const char *skip_fields(const char *p, const char *lim, unsigned n)
{
  while (p < lim && n-- > 0) {
    while (p < lim && blank(*p))
      p++;
    while (p < lim && !blank(*p))
      p++;
  }
  return p;
}

/* A number's parts: sign, significant integer digits, significant fraction digits. */
struct number {
  int negative;
  const char *ints, *ints_end;
  const char *frac, *frac_end;
};

static void parse_number(const char *p, const char *lim, struct number *n)
{
  while (p < lim && blank(*p))
    p++;
  n->negative = p < lim && *p == '-';
  if (n->negative)
    p++;
  while (p < lim && *p == '0')
    p++;
  n->ints = p;
  while (p < lim && digit(*p))
    p++;
  n->ints_end = n->frac = n->frac_end = p;
  if (p < lim && *p == '.') {
    n->frac = ++p;
    while (p < lim && digit(*p))
      p++;
    n->frac_end = p;
    while (n->frac_end > n->frac && n->frac_end[-1] == '0')
      n->frac_end--;
  }
  if (n->ints == n->ints_end && n->frac == n->frac_end)
    n->negative = 0;          /* zero has no sign */
}

static int number_compare(const char *a, const char *alim, const char *b, const char *blim)
{
  struct number x, y;
  parse_number(a, alim, &x);
  parse_number(b, blim, &y);
  if (x.negative != y.negative)
    return x.negative ? -1 : 1;
  size_t xi = x.ints_end - x.ints, yi = y.ints_end - y.ints;
  int d = xi != yi ? (xi < yi ? -1 : 1) : bytes_compare(x.ints, xi, y.ints, yi);
  if (d == 0)
    d = bytes_compare(x.frac, x.frac_end - x.frac, y.frac, y.frac_end - y.frac);
  return x.negative ? -d : d;
}

static int has_key(const struct sortkey *k)
{
  return k->numeric || k->field > 1 || k->endfield;
}

void sortline_key(const struct sortkey *k, struct sortline *l)
{
  const char *s = l->text, *lim = s + l->len;
  const char *beg = k->field > 1 ? skip_fields(s, lim, k->field - 1) : s;
  const char *end = k->endfield ? skip_fields(s, lim, k->endfield) : lim;
  l->kbeg = beg - s;
  l->kend = end < beg ? l->kbeg : (unsigned)(end - s);
}

int sortline_compare(const struct sortkey *k, const struct sortline *a, const struct sortline *b)
{
  int d = 0;
  if (has_key(k)) {
    const char *ak = a->text + a->kbeg, *bk = b->text + b->kbeg;
    d = k->numeric ? number_compare(ak, a->text + a->kend, bk, b->text + b->kend)
                   : bytes_compare(ak, a->kend - a->kbeg, bk, b->kend - b->kbeg);
  }
  if (d == 0)
    d = bytes_compare(a->text, a->len, b->text, b->len);
  return k->reverse ? -d : d;
}

int line_compare(const struct sortkey *k, const char *a, size_t alen, const char *b, size_t blen)
{
  struct sortline x = { a, alen, 0, 0 }, y = { b, blen, 0, 0 };
  sortline_key(k, &x);
  sortline_key(k, &y);
  return sortline_compare(k, &x, &y);
}

/* A field number at *s (1 to 1000000), advancing *s past it; 0 (and *why) when bad. */
static unsigned parse_field(const char **s, const char **why)
{
  unsigned v = 0;
  const char *p = *s;
  while (digit(*p) && v <= 1000000)
    v = v * 10 + (*p++ - '0');
  if (p == *s)
    *why = "expected a field number";
  else if (v == 0)
    *why = "field numbers start at 1";
  else if (v > 1000000)
    *why = "field number too large";
  else {
    *s = p;
    return v;
  }
  return 0;
}

int sortkey_parse(struct sortkey *k, const char *spec, const char **why)
{
  const char *p = spec;
  unsigned start = parse_field(&p, why), end = 0;
  if (start == 0)
    return -1;
  if (*p == ',') {
    p++;
    if ((end = parse_field(&p, why)) == 0)
      return -1;
  }
  if (*p) {
    *why = "only FIELD or FIELD,END (no .CHAR, no per-key options)";
    return -1;
  }
  k->field = start;
  k->endfield = end;
  return 0;
}
