#ifndef _STDLIB_H
#define _STDLIB_H
#include <stddef.h>

#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1

void *malloc(size_t n);
void free(void *p);
void *calloc(size_t count, size_t size);
void *realloc(void *p, size_t n);

/* Flushes stdout and ends the process with this status. */
void exit(int status) __attribute__((noreturn));
/* Ends the process at once, without flushing stdio. */
void _exit(int status) __attribute__((noreturn));
void abort(void) __attribute__((noreturn));

long strtol(const char *s, char **end, int base);
unsigned long strtoul(const char *s, char **end, int base);
int atoi(const char *s);
long atol(const char *s);
int abs(int x);
long labs(long x);

/* A small deterministic generator (not the C library's exact sequence). */
#define RAND_MAX 0x7fffffff
int rand(void);
void srand(unsigned seed);

void qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
#endif
