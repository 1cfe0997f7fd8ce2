/* The order of sort's lines (user/lib/linecmp.c): what `LC_ALL=C sort` with -n, -r and -k
 * does, as pure C that the host tests compile unchanged. */
#ifndef _LINECMP_H
#define _LINECMP_H
#include <stddef.h>

struct sortkey {
  int numeric;           /* -n: the key's leading number (blanks, '-', digits, '.' digits) */
  int reverse;           /* -r: the whole order reversed, ties between keys included */
  unsigned field;        /* -k FIELD: the key starts at field FIELD (1-based); 0: line start */
  unsigned endfield;     /* -k FIELD,END: the key ends with field END; 0: at the line's end */
};

/* Parses -k's argument, "FIELD" or "FIELD,END", into k. Returns 0, or -1 with *why saying
 * what is wrong with it. */
int sortkey_parse(struct sortkey *k, const char *spec, const char **why);

/* A line and its key, found once (sortline_key) and compared many times. */
struct sortline {
  const char *text;
  unsigned len;          /* bytes, the newline not counted */
  unsigned kbeg, kend;   /* the key is text[kbeg, kend) */
};

void sortline_key(const struct sortkey *k, struct sortline *l);
/* The order of two lines whose keys sortline_key found; see line_compare. */
int sortline_compare(const struct sortkey *k, const struct sortline *a, const struct sortline *b);

/* Compares lines a and b (their bytes, without the newline; NUL bytes allowed): the key as k
 * says, then, if the keys are equal, the whole lines byte by byte (a shorter line that is a
 * prefix first); -r reverses both. Returns < 0, 0 (the lines are identical) or > 0. */
int line_compare(const struct sortkey *k, const char *a, size_t alen, const char *b, size_t blen);
#endif
