#ifndef UAPI_STAT_H
#define UAPI_STAT_H
#define T_FILE 1
#define T_DIR  2
#define T_DEV  3   /* the console */

struct stat {
  unsigned int dev;
  unsigned int ino;      /* descriptor number */
  short type;            /* T_FILE, T_DIR, T_DEV */
  short nlink;
  unsigned int size;     /* bytes */
  unsigned int blocks;   /* 4 KB blocks allocated, data and indirect */
  unsigned int mtime;    /* seconds since boot of the last change (no wall clock) */
};

#define DIRNAME_MAX 27     /* longest name in a directory entry */
struct dirent {
  unsigned int ino;
  char name[DIRNAME_MAX + 1];
};

/* One row of SYS_ps. */
struct procinfo {
  int pid, ppid;
  int pgid;              /* process group */
  int state;             /* 1 sleeping, 2 runnable, 3 running, 4 zombie */
  unsigned int size;     /* bytes of user memory */
  unsigned int pageins;  /* pages read in for it: backing store, executable, a COR master's file */
  unsigned int pageouts; /* pages of its heap and stack written to backing store */
  char name[16];
};
#endif
