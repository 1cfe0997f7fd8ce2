/* poweroff: syncs the disks and turns the machine off. */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <sys.h>

int main(void)
{
  shutdown();
  fprintf(stderr, "poweroff: %s\n", strerror(errno));
  return 1;
}
