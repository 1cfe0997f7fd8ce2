/* The console: output goes to the serial line and the VGA screen; input comes from the serial
 * line and the keyboard, line by line, with echo, backspace, ^U (kill line), ^D (end of file)
 * and ^C (interrupt). ^P prints the kernel's state (kernel/dump.c) and is not input.
 *
 * ^C discards the line being edited and kills the foreground process group, which the shell
 * names (SYS_setfg) while a job runs. With no foreground group (the shell at its prompt) it
 * ends the line instead, empty, so the reader sees a blank line and prompts again. Lines
 * already ended (typed ahead) are kept.
 *
 * Echo is deferred while nobody is reading: bytes piped in ahead of time are echoed when a
 * program reads them, so a transcript shows each command just before its output. A user at
 * a terminal, typing while the shell waits, sees each key at once.
 *
 * "Waits" means for the line being typed. Once a line is committed, the reader it woke may
 * not have run yet; bytes arriving meanwhile belong to its next read, after whatever the
 * command prints, so they are not echoed now. (Echoed at once, "echo survived" would show
 * before the output of the command on the line above, and its output after a prompt:
 * "$ survived".)
 *
 * Raw mode (SYS_consmode, for the shell's own line editing at its prompt) turns all of that
 * off: every byte is input as it comes (^C, ^D, erase and escape sequences too; \r is still
 * \n), nothing is echoed, and a read returns as soon as there is a byte, ending after a
 * newline so that lines typed ahead stay for whoever reads next. Back in cooked mode, the
 * bytes after the last newline are a line being typed again (editable, not yet readable);
 * bytes not read in raw mode are echoed when read, as ever. */
#include "kernel/klib.h"
#include "kernel/console.h"
#include "kernel/spinlock.h"
#include "kernel/proc.h"
#include "kernel/syscall.h"
#include "kernel/dump.h"
#include "drivers/serial.h"
#include "drivers/vga.h"

#define INPUT_BUF 1024
#define CTRL(c) ((c) - '@')

static struct {
  struct spinlock lock;
  char buf[INPUT_BUF];
  uint32_t r;        /* next byte to read */
  uint32_t w;        /* end of committed lines */
  uint32_t e;        /* end of the line being edited */
  uint32_t x;        /* bytes before this are echoed */
  int readers;       /* processes in console_read (asleep, or woken and not yet run) */
  int fg;            /* foreground process group, killed by ^C; 0: none */
  bool raw;          /* raw mode: no editing, no echo (see the top) */
} in;

static void (*space_callback)(void);

void console_init(void)
{
  initlock(&in.lock, "console");
  serial_init();
  vga_init();
}

void console_putc(int c)
{
  serial_putc(c);
  vga_putc(c);
}

static void echo(int c)
{
  if (c == CTRL('D'))
    return;
  console_putc(c);
}

void console_set_space_callback(void (*fn)(void))
{
  space_callback = fn;
}

bool console_input_room(void)
{
  return in.e - in.r < INPUT_BUF;
}

void console_setfg(int pgid)
{
  acquire(&in.lock);
  in.fg = pgid;
  release(&in.lock);
}

/* Cooked input: one byte through the line discipline (in.lock held). False: no room. */
static bool cook(int c)
{
  bool ok = true;
  if (c == CTRL('C')) {
    in.e = in.w;
    if (in.x > in.e)
      in.x = in.e;
    if (in.fg > 0 && group_exists(in.fg, false)) {
      console_putc('^'); console_putc('C'); console_putc('\n');
      kill_group(in.fg, 128 + 2, "interrupted (^C)");
      return true;
    }
    /* Nobody to interrupt: an empty line. Shown as ^C only if the echo has caught up, or
     * it would land among lines typed ahead and not yet echoed. */
    if (in.x == in.e) {
      console_putc('^'); console_putc('C');
    }
    c = '\n';
  }
  if (c == '\b' || c == 0x7F) {
    if (in.e != in.w) {
      in.e--;
      if (in.x > in.e) {
        console_putc('\b'); console_putc(' '); console_putc('\b');
        in.x = in.e;
      }
    }
  } else if (c == CTRL('U')) {
    while (in.e != in.w && in.buf[(in.e - 1) % INPUT_BUF] != '\n') {
      in.e--;
      if (in.x > in.e) {
        console_putc('\b'); console_putc(' '); console_putc('\b');
        in.x = in.e;
      }
    }
  } else if (!console_input_room()) {
    ok = false;
  } else {
    in.buf[in.e++ % INPUT_BUF] = c;
    /* Echo at once only for a reader waiting on this very line: one woken for an ended line
     * may not have run yet, and its output would come between these bytes. */
    if (in.readers > 0 && in.r == in.w && in.x == in.e - 1) {
      echo(c);
      in.x = in.e;
    }
    /* A line that alone fills the buffer is handed over as it is, or reader and sender would
     * wait for each other. Only then: a buffer full of lines typed ahead and the start of
     * this one waits for the reader to take those, and this line stays whole and editable
     * (cutting it there made a flood's erase keys and ^U miss the bytes before them). */
    if (c == '\n' || c == CTRL('D') || (!console_input_room() && in.r == in.w)) {
      in.w = in.e;
      wakeup(&in.r);
    }
  }
  return ok;
}

bool console_setmode(bool raw)
{
  acquire(&in.lock);
  bool old = in.raw;
  if (raw && !in.raw) {
    in.w = in.e;             /* the line being typed is the reader's now, as it is */
    wakeup(&in.r);
  } else if (!raw && in.raw) {
    /* What came in raw and is not read yet goes through the discipline now, as if it came
     * now (in place: the discipline never stores more than it is given). */
    uint32_t end = in.e;
    in.e = in.w = in.r;
    in.raw = false;
    for (uint32_t i = in.r; i != end; i++)
      cook(in.buf[i % INPUT_BUF]);
    if (in.x > in.e)
      in.x = in.e;
  }
  in.raw = raw;
  release(&in.lock);
  return old;
}

bool console_input(int c)
{
  bool ok = true;
  if (c == CTRL('P')) {
    state_dump();
    return true;
  }
  acquire(&in.lock);
  if (c == '\r')
    c = '\n';
  if (!in.raw) {
    ok = cook(c);
  } else if (!console_input_room()) {
    ok = false;
  } else {
    in.buf[in.e++ % INPUT_BUF] = c;
    in.w = in.e;
    wakeup(&in.r);
  }
  release(&in.lock);
  return ok;
}

int console_read(uint32_t udst, uint32_t n)
{
  uint32_t done = 0;
  int result = 0;
  acquire(&in.lock);
  while (in.r == in.w) {
    if (myproc()->killed) {
      release(&in.lock);
      return -EINTR;
    }
    /* Echo what is already typed on the line being edited, then wait for the rest. */
    while (!in.raw && in.x < in.e) {
      echo(in.buf[in.x % INPUT_BUF]);
      in.x++;
    }
    in.readers++;
    sleep(&in.r, &in.lock);
    in.readers--;
  }
  while (done < n && in.r != in.w) {
    char c = in.buf[in.r % INPUT_BUF];
    if (c == CTRL('D') && !in.raw) {
      if (done == 0)
        in.r++;              /* end of file: consumed, read returns 0 */
      break;
    }
    if (in.raw && in.r >= in.x)
      in.x = in.r + 1;       /* raw: the reader echoes what it takes, if it wants */
    if (in.r >= in.x) {
      echo(c);
      in.x = in.r + 1;
    }
    in.r++;
    /* Copying to user memory may fault a page in, so it is done one byte at a time without the lock held across it. */
    release(&in.lock);
    int err = copy_to_user(udst + done, &c, 1);
    acquire(&in.lock);
    if (err < 0) {
      result = done > 0 ? (int)done : err;
      break;
    }
    done++;
    result = done;
    if (c == '\n')
      break;
  }
  release(&in.lock);
  /* Every byte taken may be room the UART waits for (it stops when the buffer is full): even
   * after a fault, or a reader would sleep on an emptied buffer the sender cannot refill. */
  if (space_callback)
    space_callback();
  return result;
}

int console_write(uint32_t usrc, uint32_t n)
{
  char buf[128];
  uint32_t done = 0;
  while (done < n) {
    uint32_t m = MIN(n - done, sizeof buf);
    int err = copy_from_user(buf, usrc + done, m);
    if (err < 0)
      return done > 0 ? (int)done : err;
    pushcli();
    for (uint32_t i = 0; i < m; i++)
      console_putc(buf[i]);
    popcli();
    done += m;
  }
  return done;
}
