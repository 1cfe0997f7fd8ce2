/* A small stdio. stdout (fd 1) is buffered and flushed at every newline, when the buffer
 * fills, before fork/exec/reading a line, and at exit; stderr (fd 2) is written at the end of
 * every call. There are no FILEs for ordinary files: use open/read/write and dprintf. */
#ifndef _STDIO_H
#define _STDIO_H
#include <stddef.h>
#include <stdarg.h>

#define EOF (-1)
#define BUFSIZ 1024

typedef struct FILE {
  int fd;
  int flush_each_call;   /* stderr: write out at the end of every call */
  int len;               /* bytes waiting in buf */
  int err;               /* a write failed */
  char buf[BUFSIZ];
} FILE;

extern FILE *stdin, *stdout, *stderr;

int printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int fprintf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int dprintf(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int sprintf(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int snprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int vprintf(const char *fmt, va_list ap);
int vfprintf(FILE *f, const char *fmt, va_list ap);
int vdprintf(int fd, const char *fmt, va_list ap);
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);

int putchar(int c);
int puts(const char *s);          /* s and a newline */
int fputc(int c, FILE *f);
int fputs(const char *s, FILE *f);  /* s only */
size_t fwrite(const void *p, size_t size, size_t n, FILE *f);
int fflush(FILE *f);              /* fflush(0) flushes stdout and stderr */

/* Reads one line from fd, one byte at a time so that nothing past the newline is consumed
 * (a child process may read the rest). Stores at most max-1 bytes, keeping the '\n' if it
 * fits, and NUL-terminates. Returns the number of bytes stored, 0 at end of input, -1 on
 * error. Flushes stdout first so that a prompt appears. */
int getline_fd(int fd, char *buf, int max);
/* fgets over getline_fd: buf, or 0 at end of input or error. */
char *fgets(char *buf, int max, FILE *f);
int getchar(void);

void perror(const char *msg);     /* "msg: strerror(errno)" on stderr */
int rename(const char *from, const char *to);
#endif
