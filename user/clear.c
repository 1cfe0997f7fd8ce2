/* clear: clears the terminal and puts the cursor at its top left, with the ANSI (VT100)
 * sequences every terminal emulator knows: ESC [ 2 J (erase the screen), ESC [ H (home). */
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
  if (argc > 1) {
    fprintf(stderr, "usage: clear\n");
    return 1;
  }
  return write_all(1, "\x1b[2J\x1b[H", 7) == 7 ? 0 : 1;
}
