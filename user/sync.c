/* sync: writes every dirty block of the file cache to the disk and marks it clean. */
#include <unistd.h>

int main(void)
{
  sync();
  return 0;
}
