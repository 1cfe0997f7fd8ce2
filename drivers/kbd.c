/* The PS/2 keyboard on the i8042 controller, IRQ 1.
 *
 * The firmware leaves the controller translating to scancode set 1: one byte per make code,
 * the same byte | 0x80 on release, 0xE0 before the extended keys. We keep the modifier state
 * and turn make codes into ASCII for the console. Keys with no ASCII (arrows, F-keys, Alt)
 * are ignored. A key the console has no room for is dropped: a person can type it again.
 */
#include "kernel/types.h"
#include "kernel/x86.h"
#include "kernel/klib.h"
#include "kernel/trap.h"
#include "kernel/console.h"
#include "drivers/kbd.h"

#define KBD_DATA   0x60
#define KBD_STATUS 0x64
#define KBD_STAT_OBF 0x01     /* a byte is waiting in the output buffer */
#define KBD_STAT_AUX 0x20     /* ... and it is from the mouse, not the keyboard */

#define SC_LSHIFT 0x2A
#define SC_RSHIFT 0x36
#define SC_CTRL   0x1D        /* left; right is E0 1D */
#define SC_CAPS   0x3A

/* Unshifted and shifted ASCII for each set-1 make code (US layout); 0 = no character.
 * The keypad (0x47-0x53) reads as digits, as if Num Lock were on. */
static const char normal[0x59] = {
  [0x01] = 27,
  [0x02] = '1', '2', '3', '4', '5', '6', '7', '8', '9', '0', '-', '=', '\b', '\t',
  [0x10] = 'q', 'w', 'e', 'r', 't', 'y', 'u', 'i', 'o', 'p', '[', ']', '\n',
  [0x1E] = 'a', 's', 'd', 'f', 'g', 'h', 'j', 'k', 'l', ';', '\'', '`',
  [0x2B] = '\\', 'z', 'x', 'c', 'v', 'b', 'n', 'm', ',', '.', '/',
  [0x37] = '*', [0x39] = ' ',
  [0x47] = '7', '8', '9', '-', '4', '5', '6', '+', '1', '2', '3', '0', '.',
};

static const char shifted[0x59] = {
  [0x01] = 27,
  [0x02] = '!', '@', '#', '$', '%', '^', '&', '*', '(', ')', '_', '+', '\b', '\t',
  [0x10] = 'Q', 'W', 'E', 'R', 'T', 'Y', 'U', 'I', 'O', 'P', '{', '}', '\n',
  [0x1E] = 'A', 'S', 'D', 'F', 'G', 'H', 'J', 'K', 'L', ':', '"', '~',
  [0x2B] = '|', 'Z', 'X', 'C', 'V', 'B', 'N', 'M', '<', '>', '?',
  [0x37] = '*', [0x39] = ' ',
  [0x47] = '7', '8', '9', '-', '4', '5', '6', '+', '1', '2', '3', '0', '.',
};

static bool shift_l, shift_r, ctrl_l, ctrl_r, caps;
static bool e0;               /* the previous byte was the 0xE0 prefix */
static int skip;              /* bytes of a Pause sequence (E1 ...) still to ignore */

/* Returns the ASCII for one scancode byte, or -1 if it produces none. */
static int translate(uint8_t sc)
{
  if (skip > 0) {
    skip--;
    return -1;
  }
  if (sc == 0xE0) {
    e0 = true;
    return -1;
  }
  if (sc == 0xE1) {           /* Pause: E1 1D 45 E1 9D C5, no release, no character */
    skip = 5;
    return -1;
  }
  bool ext = e0;
  e0 = false;
  bool release = sc & 0x80;
  uint8_t code = sc & 0x7F;

  /* Fake shifts (E0 2A / E0 AA around extended keys) must not touch the shift state. */
  if (code == SC_LSHIFT || code == SC_RSHIFT) {
    if (!ext) {
      if (code == SC_LSHIFT) shift_l = !release; else shift_r = !release;
    }
    return -1;
  }
  if (code == SC_CTRL) {
    if (ext) ctrl_r = !release; else ctrl_l = !release;
    return -1;
  }
  if (release)
    return -1;
  if (code == SC_CAPS) {
    caps = !caps;
    return -1;
  }

  if (ext) {
    /* Of the extended keys only the keypad's Enter and '/' type something. */
    if (code == 0x1C) return '\n';
    if (code == 0x35) return '/';
    return -1;
  }
  if (code >= sizeof normal)
    return -1;

  bool shift = shift_l || shift_r;
  int c = shift ? shifted[code] : normal[code];
  if (c == 0)
    return -1;
  if (caps && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
    c ^= 0x20;               /* Caps Lock inverts the case that Shift chose */
  if (ctrl_l || ctrl_r) {
    /* Ctrl folds @, A..Z, [ \ ] ^ _ onto 0..31: Ctrl-C = 3, Ctrl-D = 4, Ctrl-U = 21. */
    if (c >= 'a' && c <= 'z')
      c -= 'a' - 'A';
    if (c >= '@' && c <= '_')
      c &= 0x1F;
  }
  return c;
}

static void kbd_intr(void *arg)
{
  (void)arg;
  /* Take every byte the controller has now; each read empties its one-byte buffer. The bound
   * keeps an absent controller (status reads 0xFF) from holding us here. */
  for (int i = 0; i < 16; i++) {
    uint8_t st = inb(KBD_STATUS);
    if (!(st & KBD_STAT_OBF))
      break;
    uint8_t sc = inb(KBD_DATA);
    if (st & KBD_STAT_AUX)
      continue;               /* mouse data: not ours */
    int c = translate(sc);
    if (c >= 0)
      (void)console_input(c); /* false = buffer full: the key is dropped */
  }
}

void kbd_init(void)
{
  /* Discard whatever was typed or left over during boot; bounded in case the controller
   * is absent and reads back all ones. */
  for (int i = 0; i < 32 && (inb(KBD_STATUS) & KBD_STAT_OBF); i++)
    (void)inb(KBD_DATA);
  irq_register(IRQ_KBD, kbd_intr, 0);
}
