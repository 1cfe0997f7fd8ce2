/* sh: the shell.
 *
 *   sh                 reads commands from stdin, printing the prompt "$ " before each line
 *   sh SCRIPT          reads commands from the file SCRIPT
 *   sh -c 'COMMANDS'   runs COMMANDS
 *
 * A line is a list of pipelines separated by ';' or '&' (run in the background: prints [N],
 * the job's number); a pipeline is commands joined by '|'; a command is words and redirections:
 * '< file', '> file', '>> file', 'N> file', 'N>> file', 'N< file', 'N>&M' (e.g. 2>&1).
 * Words may be quoted: '...' is literal, "..." keeps spaces and honours \" \\ \$ \`, and a
 * backslash outside quotes takes the next character literally. $? (outside '...') is the
 * status of the last command, as in sh: the tests read each command's status with it. '#' at the start of a word
 * begins a comment. Builtins: cd [DIR], exit [N], help, jobs. A command name without '/' is
 * looked up in /bin.
 *
 * Exit status: the last command's status for a script or -c; 0 at the end of stdin.
 *
 * Jobs (when reading commands from stdin with a prompt): each pipeline runs in a process
 * group of its own, named after its first process. A foreground pipeline's group is the
 * console's foreground group while the shell waits for it, so ^C kills the whole pipeline
 * and nothing else; the shell sits in a group of its own and is never the foreground group,
 * so ^C at the prompt only discards the line being typed. Background jobs keep their own
 * groups and live on. A script or -c runs everything in the shell's group, as it is: ^C
 * then ends the script with its command.
 *
 * A background job's number N, printed as [N] when it starts, is its process group: the pid
 * of its first process. So kill -N, or kill %N, ends the whole job (sleep 100 | cat &, both
 * processes), and jobs lists "[N] Running|Done COMMAND"; a job listed as Done is forgotten.
 * (In a script or -c there are no groups: N is then the first process's pid, for kill N.)
 *
 * Reading from the console, the shell edits the line itself: arrows, ^A ^E, backspace, ^U,
 * history (up/down, the last 32 lines), Tab to complete a file name; see "the line editor"
 * below.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys.h>

#define MAXLINE  4096
#define MAXARGS  64
#define MAXREDIR 8
#define MAXCMDS  16
#define MAXJOBS  16
#define CTRL_A   1
#define CTRL_B   2
#define CTRL_C   3
#define CTRL_D   4
#define CTRL_E   5
#define CTRL_F   6
#define TAB      9
#define CTRL_K   11
#define CTRL_U   21
#define CTRL_W   23
#define NHIST    32       /* lines of history, in HISTBYTES */
#define HISTBYTES 4096

enum { R_IN, R_OUT, R_APPEND, R_DUP };

struct redir {
  int fd;        /* the descriptor being redirected */
  int kind;      /* R_IN, R_OUT, R_APPEND, or R_DUP (fd becomes a copy of dupfd) */
  char *file;
  int dupfd;
};

struct cmd {
  char *argv[MAXARGS + 1];
  int argc;
  struct redir redirs[MAXREDIR];
  int nredir;
};

struct pipeline {
  struct cmd cmds[MAXCMDS];
  int ncmds;
  int background;
  const char *text;     /* where it is in the line, for jobs */
  int textlen;
};

/* A background job: what jobs lists. Its number is its process group (the pid of its first
 * process), so that the number the shell prints is the one kill -N (or kill %N) takes. */
struct job {
  int pgid;              /* 0: a free slot */
  int pids[MAXCMDS];     /* its processes not yet reaped; 0 once reaped */
  int left;              /* how many of them */
  char text[48];         /* the command, cut to fit */
};

/* Tokens: words carry their text (quotes already removed); operators carry none. */
enum { T_WORD, T_PIPE, T_SEMI, T_AMP, T_REDIR, T_END };

struct token {
  int type;
  char *text;           /* T_WORD */
  struct redir redir;   /* T_REDIR (file filled by the parser from the next word) */
};

static int last_status;
static int interactive;         /* job control: see above */
static int script_fd = -1;      /* the script being read, closed in children */
static struct job jobs[MAXJOBS]; /* background jobs, running or done and not yet listed */

/* ---- lexing ---- */

/* Words are copied into this arena, reset for every line; at most one byte per input byte
 * plus a NUL per word, or 3 bytes ("255") for the 2 of a "$?", so twice the line length is
 * enough. */
static char arena[2 * MAXLINE + 16];
static int arena_used;

static const char *lex_pos;
static const char *lex_tok;     /* where the last token began */
static const char *lex_error;

static int is_operator_char(char c)
{
  return c == '|' || c == ';' || c == '&' || c == '<' || c == '>';
}

/* Reads an optional "&N" after '>' or '<' for a duplication. */
static int lex_dup_target(struct token *t)
{
  const char *p = lex_pos;
  if (*p != '&')
    return 0;
  p++;
  if (*p < '0' || *p > '9') {
    lex_error = "expected a descriptor number after >&";
    return -1;
  }
  int n = 0;
  while (*p >= '0' && *p <= '9')
    n = n * 10 + (*p++ - '0');
  t->redir.kind = R_DUP;
  t->redir.dupfd = n;
  lex_pos = p;
  return 1;
}

/* Lexes a redirection operator at lex_pos, with fd already known. */
static int lex_redir(struct token *t, int fd)
{
  t->type = T_REDIR;
  t->redir.fd = fd;
  t->redir.file = 0;
  t->redir.dupfd = -1;
  if (*lex_pos == '<') {
    lex_pos++;
    t->redir.kind = R_IN;
  } else if (lex_pos[1] == '>') {
    lex_pos += 2;
    t->redir.kind = R_APPEND;
  } else {
    lex_pos++;
    t->redir.kind = R_OUT;
  }
  if (t->redir.kind != R_APPEND && lex_dup_target(t) < 0)
    return -1;
  return 0;
}

/* Copies the last status in decimal to w for "$?"; returns the end of what it wrote. */
static char *put_status(char *w)
{
  char digits[12];
  int n = 0, v = last_status & 0xff;
  do
    digits[n++] = '0' + v % 10;
  while ((v /= 10) > 0);
  while (n > 0)
    *w++ = digits[--n];
  return w;
}

/* The next token from lex_pos; T_END at the end of the line or at a comment. */
static int next_token(struct token *t)
{
  const char *p = lex_pos;
  while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
    p++;
  lex_pos = lex_tok = p;
  if (*p == 0 || *p == '#') {
    t->type = T_END;
    return 0;
  }
  if (*p == '|') {
    lex_pos++;
    t->type = T_PIPE;
    return 0;
  }
  if (*p == ';') {
    lex_pos++;
    t->type = T_SEMI;
    return 0;
  }
  if (*p == '&') {
    lex_pos++;
    t->type = T_AMP;
    return 0;
  }
  if (*p == '<' || *p == '>')
    return lex_redir(t, *p == '<' ? 0 : 1);
  /* "2>file": a lone digit right before a redirection names the descriptor. */
  if (*p >= '0' && *p <= '9' && (p[1] == '<' || p[1] == '>')) {
    lex_pos = p + 1;
    return lex_redir(t, *p - '0');
  }

  /* A word, possibly assembled from quoted and unquoted pieces. */
  char *out = arena + arena_used;
  char *w = out;
  while (*p && !is_operator_char(*p) && *p != ' ' && *p != '\t' && *p != '\r' &&
         *p != '\n') {
    if (*p == '\'') {
      for (p++; *p && *p != '\''; p++)
        *w++ = *p;
      if (*p != '\'') {
        lex_error = "unterminated '";
        return -1;
      }
      p++;
    } else if (*p == '"') {
      for (p++; *p && *p != '"'; p++) {
        if (*p == '\\' && (p[1] == '"' || p[1] == '\\' || p[1] == '$' || p[1] == '`'))
          p++;
        else if (*p == '$' && p[1] == '?') {
          w = put_status(w);
          p++;
          continue;
        }
        *w++ = *p;
      }
      if (*p != '"') {
        lex_error = "unterminated \"";
        return -1;
      }
      p++;
    } else if (*p == '\\') {
      p++;
      if (*p == '\n' || *p == 0) {   /* a trailing backslash: nothing to escape */
        if (*p)
          p++;
        continue;
      }
      *w++ = *p++;
    } else if (*p == '$' && p[1] == '?') {
      w = put_status(w);
      p += 2;
    } else {
      *w++ = *p++;
    }
  }
  *w++ = 0;
  arena_used += w - out;
  lex_pos = p;
  t->type = T_WORD;
  t->text = out;
  return 0;
}

/* ---- parsing ---- */

static void syntax_error(const char *what)
{
  fprintf(stderr, "sh: syntax error: %s\n", what);
  last_status = 2;
}

/* Parses one pipeline from the lexer. Returns 1 with *pl filled, 0 at the end of the
 * line (nothing parsed), -1 on a syntax error. */
static int parse_pipeline(struct pipeline *pl)
{
  struct token t;
  memset(pl, 0, sizeof(*pl));
  struct cmd *c = &pl->cmds[0];
  pl->ncmds = 1;
  for (;;) {
    if (next_token(&t) < 0) {
      syntax_error(lex_error);
      return -1;
    }
    if (!pl->text && t.type != T_SEMI && t.type != T_END)
      pl->text = lex_tok;
    switch (t.type) {
    case T_WORD:
      if (c->argc == MAXARGS) {
        syntax_error("too many arguments");
        return -1;
      }
      c->argv[c->argc++] = t.text;
      break;
    case T_REDIR: {
      if (c->nredir == MAXREDIR) {
        syntax_error("too many redirections");
        return -1;
      }
      if (t.redir.kind != R_DUP) {
        struct token f;
        if (next_token(&f) < 0) {
          syntax_error(lex_error);
          return -1;
        }
        if (f.type != T_WORD) {
          syntax_error("a redirection needs a file name");
          return -1;
        }
        t.redir.file = f.text;
      }
      c->redirs[c->nredir++] = t.redir;
      break;
    }
    case T_PIPE:
      if (c->argc == 0) {
        syntax_error("empty command before |");
        return -1;
      }
      if (pl->ncmds == MAXCMDS) {
        syntax_error("pipeline too long");
        return -1;
      }
      c = &pl->cmds[pl->ncmds++];
      break;
    case T_SEMI:
    case T_AMP:
    case T_END:
      if (c->argc == 0) {
        if (pl->ncmds > 1 || c->nredir > 0) {
          syntax_error("missing command");
          return -1;
        }
        if (t.type == T_END)
          return 0;
        if (t.type == T_AMP) {
          syntax_error("empty command before &");
          return -1;
        }
        continue;   /* a stray ';' */
      }
      pl->background = t.type == T_AMP;
      pl->textlen = lex_tok - pl->text;
      while (pl->textlen > 0 && (pl->text[pl->textlen - 1] == ' ' || pl->text[pl->textlen - 1] == '\t'))
        pl->textlen--;
      return 1;
    }
  }
}

/* ---- running ---- */

/* Applies the redirections in order; on failure prints why and returns -1. */
static int apply_redirs(struct cmd *c)
{
  for (int i = 0; i < c->nredir; i++) {
    struct redir *r = &c->redirs[i];
    if (r->kind == R_DUP) {
      if (dup2(r->dupfd, r->fd) < 0) {
        fprintf(stderr, "sh: %d: %s\n", r->dupfd, strerror(errno));
        return -1;
      }
      continue;
    }
    int flags = r->kind == R_IN ? O_RDONLY
              : r->kind == R_OUT ? O_WRONLY | O_CREAT | O_TRUNC
              : O_WRONLY | O_CREAT | O_APPEND;
    int fd = open(r->file, flags);
    if (fd < 0) {
      fprintf(stderr, "sh: %s: %s\n", r->file, strerror(errno));
      return -1;
    }
    if (fd != r->fd) {
      if (dup2(fd, r->fd) < 0) {
        fprintf(stderr, "sh: %s: %s\n", r->file, strerror(errno));
        close(fd);
        return -1;
      }
      close(fd);
    }
  }
  return 0;
}

static int is_builtin(const char *name)
{
  return strcmp(name, "cd") == 0 || strcmp(name, "exit") == 0 || strcmp(name, "help") == 0 ||
         strcmp(name, "jobs") == 0;
}

static void reap_background(void);

/* jobs: each background job with its number (its process group) and state; a job listed
 * as Done is then forgotten. */
static int list_jobs(void)
{
  reap_background();
  for (int j = 0; j < MAXJOBS; j++) {
    struct job *jb = &jobs[j];
    if (!jb->pgid)
      continue;
    printf("[%d] %-7s %s\n", jb->pgid, jb->left > 0 ? "Running" : "Done", jb->text);
    if (jb->left == 0)
      jb->pgid = 0;
  }
  return 0;
}

static void help(void)
{
  printf("builtins: cd [DIR], exit [N], help, jobs\n");
  printf("syntax: CMD ARGS < in > out >> append 2> err 2>&1 | ; & 'quotes' \"quotes\" \\\n");
  printf("jobs: CMD & prints [N], N the job's process group: jobs lists them, kill %%N ends one\n");
  printf("keys: <- -> ^B ^F move, ^A ^E (Home End) start/end, backspace, Delete, ^U ^K ^W cut,\n"
         "      up/down: the last %d lines, Tab completes a file name, ^C drops the line (or\n"
         "      kills the command), ^D ends\n", NHIST);
  printf("programs in /bin:");
  int fd = open("/bin", O_RDONLY);
  if (fd >= 0) {
    struct dirent de;
    int col = 17;
    while (readdir(fd, &de) > 0) {
      if (de.name[0] == 0 || de.name[0] == '.')
        continue;
      int len = strlen(de.name);
      if (col + 1 + len > 78) {
        printf("\n ");
        col = 1;
      }
      printf(" %s", de.name);
      col += 1 + len;
    }
    close(fd);
  }
  printf("\n");
}

/* Runs a builtin in this process; returns its status. exit does not return. */
static int run_builtin(struct cmd *c)
{
  char *name = c->argv[0];
  if (strcmp(name, "cd") == 0) {
    const char *dir = c->argc > 1 ? c->argv[1] : "/";
    if (c->argc > 2) {
      fprintf(stderr, "sh: cd: too many arguments\n");
      return 1;
    }
    if (chdir(dir) < 0) {
      fprintf(stderr, "sh: cd: %s: %s\n", dir, strerror(errno));
      return 1;
    }
    return 0;
  }
  if (strcmp(name, "exit") == 0) {
    int status = 0;
    if (c->argc > 1) {
      char *end;
      status = strtol(c->argv[1], &end, 10);
      if (*end || end == c->argv[1]) {
        fprintf(stderr, "sh: exit: %s: not a number\n", c->argv[1]);
        status = 2;
      }
    }
    exit(status);
  }
  if (strcmp(name, "jobs") == 0)
    return list_jobs();
  help();
  return 0;
}

/* In a child: sets up redirections and replaces itself with the command. */
static void exec_cmd(struct cmd *c)
{
  if (script_fd >= 0)
    close(script_fd);
  if (apply_redirs(c) < 0)
    exit(1);
  if (is_builtin(c->argv[0]))
    exit(run_builtin(c));
  char path[256];
  const char *name = c->argv[0];
  if (strchr(name, '/'))
    snprintf(path, sizeof(path), "%s", name);
  else
    snprintf(path, sizeof(path), "/bin/%s", name);
  c->argv[c->argc] = 0;
  exec(path, c->argv);
  if (errno == ENOENT) {
    fprintf(stderr, "sh: %s: not found\n", name);
    _exit(127);
  }
  fprintf(stderr, "sh: %s: %s\n", name, strerror(errno));
  _exit(126);
}

/* A background process has been reaped: its job has one fewer running. */
static void forget_bg(int pid)
{
  for (int j = 0; j < MAXJOBS; j++)
    for (int i = 0; jobs[j].pgid && i < MAXCMDS; i++)
      if (jobs[j].pids[i] == pid) {
        jobs[j].pids[i] = 0;
        jobs[j].left--;
        return;
      }
}

static int jobs_running(void)
{
  for (int j = 0; j < MAXJOBS; j++)
    if (jobs[j].pgid && jobs[j].left > 0)
      return 1;
  return 0;
}

/* Remembers a background job, in a free slot or else in one whose job is done. */
static void add_job(struct pipeline *pl, int *pids, int started)
{
  for (int pass = 0; pass < 2; pass++)
  for (int j = 0; j < MAXJOBS; j++) {
    struct job *jb = &jobs[j];
    if (jb->pgid && (pass == 0 || jb->left > 0))
      continue;
    jb->pgid = pids[0];
    for (int i = 0; i < started; i++)
      jb->pids[i] = pids[i];
    jb->left = started;
    int n = pl->textlen < (int)sizeof(jb->text) ? pl->textlen : (int)sizeof(jb->text) - 1;
    memcpy(jb->text, pl->text, n);
    jb->text[n] = 0;
    return;
  }
}

/* Reaps background processes that have finished, without blocking: wait() has no
 * "don't block" flag, so ask the process table how many of our children are zombies and
 * wait for exactly that many. */
static void reap_background(void)
{
  static struct procinfo procs[64];   /* NPROC */
  if (!jobs_running())
    return;
  int n = ps(procs, 64);
  if (n < 0)
    return;
  int me = getpid(), zombies = 0;
  for (int i = 0; i < n; i++)
    if (procs[i].ppid == me && procs[i].state == 4)
      zombies++;
  while (zombies-- > 0) {
    int pid = wait(0);
    if (pid < 0)
      break;
    forget_bg(pid);
  }
}

static void run_pipeline(struct pipeline *pl)
{
  /* A lone builtin runs in the shell itself so that cd and exit take effect; its
   * redirections are undone afterwards. */
  if (pl->ncmds == 1 && !pl->background && is_builtin(pl->cmds[0].argv[0])) {
    struct cmd *c = &pl->cmds[0];
    int saved[MAXREDIR];
    for (int i = 0; i < c->nredir; i++)
      saved[i] = dup(c->redirs[i].fd);
    fflush(stdout);
    if (apply_redirs(c) == 0)
      last_status = run_builtin(c);
    else
      last_status = 1;
    fflush(stdout);
    for (int i = c->nredir - 1; i >= 0; i--) {
      if (saved[i] >= 0) {
        dup2(saved[i], c->redirs[i].fd);
        close(saved[i]);
      } else {
        close(c->redirs[i].fd);   /* it was not open before */
      }
    }
    return;
  }

  int pids[MAXCMDS];
  int prev_read = -1;   /* read end of the previous command's pipe */
  int started = 0;
  int pgid = 0;         /* the job's group: its first process's pid */
  int fg = 0;           /* the job is the console's foreground group */
  for (int i = 0; i < pl->ncmds; i++) {
    int p[2] = {-1, -1};
    if (i < pl->ncmds - 1 && pipe(p) < 0) {
      fprintf(stderr, "sh: pipe: %s\n", strerror(errno));
      break;
    }
    int pid = fork();
    if (pid < 0) {
      fprintf(stderr, "sh: fork: %s\n", strerror(errno));
      if (p[0] >= 0) {
        close(p[0]);
        close(p[1]);
      }
      break;
    }
    if (pid == 0) {
      /* Both child and shell set the group, so it is right whichever runs first. */
      if (interactive)
        setpgid(0, pgid);
      if (prev_read >= 0) {
        dup2(prev_read, 0);
        close(prev_read);
      }
      if (p[1] >= 0) {
        dup2(p[1], 1);
        close(p[1]);
        close(p[0]);
      }
      exec_cmd(&pl->cmds[i]);
    }
    pids[started++] = pid;
    if (interactive) {
      if (pgid == 0)
        pgid = pid;
      setpgid(pid, pgid);
      if (!pl->background && !fg)
        fg = setfg(pgid) == 0;
    }
    if (prev_read >= 0)
      close(prev_read);
    if (p[1] >= 0)
      close(p[1]);
    prev_read = p[0];
  }
  if (prev_read >= 0)
    close(prev_read);

  if (pl->background) {
    if (started > 0) {
      add_job(pl, pids, started);
      printf("[%d]\n", pids[0]);
    }
    last_status = started == pl->ncmds ? 0 : 1;
    return;
  }

  /* Wait for every process of the pipeline; the status is the last one's. Background
   * processes that end meanwhile are reaped here too. */
  int left = started;
  last_status = started == pl->ncmds ? 0 : 1;
  while (left > 0) {
    int status;
    int pid = wait(&status);
    if (pid < 0)
      break;
    int mine = 0;
    for (int i = 0; i < started; i++) {
      if (pids[i] == pid) {
        mine = 1;
        left--;
        if (i == pl->ncmds - 1)
          last_status = status;
      }
    }
    if (!mine)
      forget_bg(pid);
  }
  if (interactive)
    setfg(0);
}

static void run_line(const char *line)
{
  struct pipeline pl;
  arena_used = 0;
  lex_pos = line;
  for (;;) {
    int r = parse_pipeline(&pl);
    if (r <= 0)
      return;
    run_pipeline(&pl);
  }
}

/* ---- the line editor ----
 *
 * When stdin is the console, the shell reads its command lines in the console's raw mode
 * (SYS_consmode: every byte as typed, no echo) and edits and echoes them itself; the console
 * is back in cooked mode before the line runs, so commands read lines as ever and ^C kills
 * them. Keys: printable (and other) bytes are inserted at the cursor; left/right arrows and
 * ^B/^F move, ^A/Home and ^E/End go to the start/end, backspace (^H, DEL) and Delete erase,
 * ^U cuts to the start, ^K to the end, ^W the word before the cursor; up/down walk the last
 * NHIST lines; Tab completes the file name before the cursor (complete()); ^C drops the line
 * and prompts again; ^D on an empty line ends the input (on
 * others it ends the line and then the input, as the console's own ^D). The keys a terminal
 * sends as escape sequences (arrows, Home, End, Delete, F1-F4, PageUp...) never become part
 * of the line: those not named above are dropped. Any other escape sequence (colours, say)
 * is text, as the console itself keeps it.
 *
 * Echo follows the console's rule for input typed ahead: what arrives together is edited
 * first and shown after, so a line piped in whole (with or without editing keys in it) shows
 * as "$ " + the line that runs + "\n"; a user typing key by key sees each at once. */

static int editing;             /* stdin is the console: lines come from edit_line */
/* Memory is kept small on purpose: the shell's data and bss (and so every child's, at fork)
 * stay within ten pages; with more, its backing file needs an
 * indirect block, which is written at once, and a test that counts the disk writes after a
 * scan of the cleaner (tests/qemu/test_writeback_timing.py) sees it. So there is no copy of the
 * screen (only how much of it still matches: same), the history is one buffer of NUL-ended
 * lines, the line is edited in the caller's buffer and the new line waits in the lexer's
 * arena while the history is walked (the arena is used only while a line runs). */
static char hbuf[HISTBYTES];    /* the last lines read, oldest first, each ended by a NUL */
static int hlen, nhist, hpos;   /* bytes used; lines; the one shown (nhist: the new line) */

static char *ed;                /* the line being edited, without its newline */
static int edlen, edcur;        /* its length; the cursor */
static int nshown, shcur;       /* the terminal: bytes shown after the prompt; its cursor */
static int same;                /* ed[0..same) is what the terminal shows there */
static int overflow;            /* the line is too long: echo the rest and drop it */

static char obuf[512];          /* echo, written before every read */
static int olen;

static void oflush(void)
{
  if (olen > 0)
    write_all(1, obuf, olen);
  olen = 0;
}

static void out(const char *s, int n)
{
  while (n-- > 0) {
    if (olen == (int)sizeof(obuf))
      oflush();
    obuf[olen++] = *s++;
  }
}

static void outn(int c, int n)
{
  char ch = c;
  while (n-- > 0)
    out(&ch, 1);
}

/* Brings the terminal up to ed: back to where they differ, the rest written anew, blanks over
 * what is left of the old line, back to the cursor. */
static void redraw(void)
{
  int p = same < edlen ? same : edlen;
  if (shcur > p)
    outn('\b', shcur - p);
  else
    out(ed + shcur, p - shcur);
  out(ed + p, edlen - p);
  int extra = nshown > edlen ? nshown - edlen : 0;
  outn(' ', extra);
  outn('\b', extra + edlen - edcur);
  nshown = same = edlen;
  shcur = edcur;
}

static void set_line(const char *s)
{
  edlen = edcur = strlen(s);
  memmove(ed, s, edlen);
  same = 0;
}

static void cut(int from, int to)
{
  if (same > from)
    same = from;
  memmove(ed + from, ed + to, edlen - to);
  edlen -= to - from;
  if (edcur > to)
    edcur -= to - from;
  else if (edcur > from)
    edcur = from;
}

static void insert(int c)
{
  if (edlen == MAXLINE - 2) {   /* no room for it and the newline */
    edcur = edlen;
    redraw();
    overflow = 1;
    outn(c, 1);
    return;
  }
  if (same > edcur)
    same = edcur;
  memmove(ed + edcur + 1, ed + edcur, edlen - edcur);
  ed[edcur++] = c;
  edlen++;
}

/* History line k (0: the oldest). */
static char *hist(int k)
{
  char *s = hbuf;
  while (k-- > 0)
    s += strlen(s) + 1;
  return s;
}

/* Adds the line just read to the history (up to a NUL in it), unless it is empty or the
 * same as the last; the oldest lines go to make room. */
static void remember(void)
{
  int len = strnlen(ed, edlen);
  if (len == 0 || len + 1 > HISTBYTES ||
      (nhist > 0 && strlen(hist(nhist - 1)) == (size_t)len && memcmp(hist(nhist - 1), ed, len) == 0))
    return;
  while (nhist == NHIST || hlen + len + 1 > HISTBYTES) {
    int n = strlen(hbuf) + 1;
    memmove(hbuf, hbuf + n, hlen - n);
    hlen -= n;
    nhist--;
  }
  memcpy(hbuf + hlen, ed, len);
  hbuf[hlen + len] = 0;
  hlen += len + 1;
  nhist++;
}

static void history(int step)
{
  char *draft = arena;            /* free while a line is edited */
  if (hpos + step < 0 || hpos + step > nhist)
    return;
  if (hpos == nhist) {
    memcpy(draft, ed, edlen);
    draft[edlen] = 0;
  }
  hpos += step;
  set_line(hpos == nhist ? draft : hist(hpos));
}

/* Tab: the word before the cursor is the start of a file name (DIR/PREFIX, or PREFIX in the
 * current directory). The names of DIR starting with PREFIX are read: one, and it is put in
 * whole, then "/" after a directory (the next Tab goes on inside it) or " " after a file;
 * several, and the line grows by what they have in common; if that is nothing more, they are
 * listed under the line, which is shown again after a new prompt. None: nothing changes.
 * Names starting with a dot only when PREFIX does, as ls shows them. A Tab is never put in
 * the line itself: the terminal would move its cursor to a tab stop, and the redraws (^U, say),
 * which count one column a byte, would then no longer land where the line is. */
static void complete(const char *prompt)
{
  int from = edcur;
  while (from > 0 && ed[from - 1] != ' ' && !is_operator_char(ed[from - 1]))
    from--;
  char dir[256], common[DIRNAME_MAX + 1];
  int slash = -1;
  for (int i = from; i < edcur; i++)
    if (ed[i] == '/')
      slash = i;
  if (slash >= 0) {
    int n = slash + 1 - from;
    if (n >= (int)sizeof(dir) - DIRNAME_MAX - 1)
      return;
    memcpy(dir, ed + from, n);
    dir[n] = 0;
  } else
    strcpy(dir, ".");
  const char *prefix = ed + (slash >= 0 ? slash + 1 : from);
  int plen = ed + edcur - prefix, matches = 0, clen = 0;
  int fd = open(dir, O_RDONLY);
  if (fd < 0)
    return;
  struct dirent de;
  for (int pass = 0; pass < 2; pass++) {
    /* Pass 0 finds what the matches share; pass 1, only if that adds nothing, lists them. */
    while (readdir(fd, &de) > 0) {
      if (de.name[0] == 0 || (de.name[0] == '.' && prefix[0] != '.') || strncmp(de.name, prefix, plen) != 0)
        continue;
      if (pass == 1) {
        if (matches++ > 0)
          out(" ", 1);
        out(de.name, strlen(de.name));
      } else if (matches++ == 0) {
        strcpy(common, de.name);
        clen = strlen(common);
      } else
        for (int i = 0; i < clen; i++)
          if (common[i] != de.name[i])
            clen = i;
    }
    if (pass == 1 || matches == 0)
      break;
    if (matches == 1 || clen > plen) {
      for (int i = plen; i < clen && !overflow; i++)
        insert(common[i]);
      if (matches == 1 && !overflow) {
        struct stat st;
        char path[sizeof(dir)];
        snprintf(path, sizeof(path), "%s%s", slash >= 0 ? dir : "", common);
        insert(stat(path, &st) == 0 && st.type == T_DIR ? '/' : ' ');
      }
      break;
    }
    close(fd);
    if ((fd = open(dir, O_RDONLY)) < 0)
      return;
    int cur = edcur;
    edcur = edlen;
    redraw();                   /* the cursor at the line's end: the list goes under it */
    edcur = cur;
    out("\n", 1);
    matches = 0;
  }
  if (matches > 1 && clen <= plen) {
    out("\n", 1);
    out(prompt, strlen(prompt));
    nshown = shcur = same = 0;  /* the whole line again, after the new prompt */
  }
  close(fd);
}

enum { KEY_UP = 256, KEY_DOWN, KEY_RIGHT, KEY_LEFT, KEY_HOME, KEY_END, KEY_DELETE, KEY_OTHER };

/* The key an escape sequence stands for (seq: ESC, '[' or 'O', parameters, final byte), or
 * 0 if it is no key but text. */
static int seq_key(const char *seq, int n)
{
  int final = seq[n - 1];
  if (seq[1] == 'O')
    return final >= 'A' && final <= 'D' ? KEY_UP + (final - 'A')
         : final == 'H' ? KEY_HOME : final == 'F' ? KEY_END
         : final >= 'P' && final <= 'S' ? KEY_OTHER : 0;
  if (final >= 'A' && final <= 'D')
    return KEY_UP + (final - 'A');
  if (final == 'H')
    return KEY_HOME;
  if (final == 'F')
    return KEY_END;
  if (final == '~') {
    int num = atoi(seq + 2);
    return num == 1 || num == 7 ? KEY_HOME : num == 4 || num == 8 ? KEY_END
         : num == 3 ? KEY_DELETE : KEY_OTHER;
  }
  return strchr("PQRSZ", final) ? KEY_OTHER : 0;
}

enum { ED_MORE, ED_LINE, ED_EOF };

static char seq[16];            /* an escape sequence being read */
static int nseq;
static int eof_pending;         /* ^D ended a line: the input ends after it */

/* Acts on one byte; says whether a line (or the end of input) is there. */
static int edit_key(int c, const char *prompt)
{
  if (nseq > 0) {
    /* ESC [ params final, or ESC O final; anything else makes the bytes so far text. */
    int ok = nseq == 1 ? c == '[' || c == 'O'
           : seq[1] == '[' ? c >= 0x20 && c <= 0x7e && nseq < (int)sizeof(seq) : c >= 0x40 && c <= 0x7e;
    if (ok) {
      seq[nseq++] = c;
      if (nseq == 2 || (seq[1] == '[' && c < 0x40))
        return ED_MORE;           /* not complete yet */
      int key = seq_key(seq, nseq), n = nseq;
      nseq = 0;
      if (key)
        return edit_key(key, prompt);
      for (int i = 0; i < n && !overflow; i++)
        insert(seq[i]);
      return ED_MORE;
    }
    int n = nseq;
    nseq = 0;
    for (int i = 0; i < n && !overflow; i++)
      insert(seq[i]);
  }
  if (c == CTRL_C) {
    edcur = edlen;
    if (!overflow)
      redraw();
    out("^C\n", 3);
    out(prompt, strlen(prompt));
    edlen = edcur = nshown = shcur = same = overflow = 0;
    hpos = nhist;
    return ED_MORE;
  }
  if (c == '\n' || c == CTRL_D) {
    if (c == CTRL_D && edlen == 0 && !overflow)
      return ED_EOF;
    edcur = edlen;
    if (!overflow)
      redraw();
    out("\n", 1);
    eof_pending = c == CTRL_D;
    return ED_LINE;
  }
  if (overflow) {
    outn(c, 1);
    return ED_MORE;
  }
  switch (c) {
  case 0x1b:
    seq[nseq++] = c;
    break;
  case '\b': case 0x7f:
    if (edcur > 0)
      cut(edcur - 1, edcur);
    break;
  case KEY_DELETE:
    if (edcur < edlen)
      cut(edcur, edcur + 1);
    break;
  case KEY_LEFT: case CTRL_B:
    if (edcur > 0)
      edcur--;
    break;
  case KEY_RIGHT: case CTRL_F:
    if (edcur < edlen)
      edcur++;
    break;
  case KEY_HOME: case CTRL_A:
    edcur = 0;
    break;
  case KEY_END: case CTRL_E:
    edcur = edlen;
    break;
  case CTRL_U:
    cut(0, edcur);
    break;
  case CTRL_K:
    cut(edcur, edlen);
    break;
  case CTRL_W: {
    int from = edcur;
    while (from > 0 && ed[from - 1] == ' ')
      from--;
    while (from > 0 && ed[from - 1] != ' ')
      from--;
    cut(from, edcur);
    break;
  }
  case KEY_UP: case KEY_DOWN:
    history(c == KEY_UP ? -1 : 1);
    break;
  case TAB:
    complete(prompt);
    break;
  case KEY_OTHER:
    break;
  default:
    insert(c);
  }
  return ED_MORE;
}

/* Reads one line from the console fd, edited: stores it with its newline in line and returns
 * its length; 0 at the end of input, -1 on an error, -2 for a line too long (dropped). */
static int edit_line(int fd, char *line, const char *prompt)
{
  if (eof_pending)
    return 0;
  /* Raw before the prompt shows: a key sent on seeing it must find the editor, not the
   * console's discipline (^C there would drop the line unseen). */
  consmode(fd, CONS_RAW);
  fflush(stdout);
  ed = line;
  edlen = edcur = nshown = shcur = same = overflow = nseq = 0;
  hpos = nhist;
  int r = ED_MORE, n = 0;
  static char in[256];
  while (r == ED_MORE) {
    redraw();                   /* what came so far, before waiting for more */
    oflush();
    n = read(fd, in, sizeof(in));
    if (n <= 0)
      break;
    for (int i = 0; i < n && r == ED_MORE; i++)
      r = edit_key((unsigned char)in[i], prompt);
  }
  oflush();
  consmode(fd, CONS_COOKED);
  if (r == ED_MORE)
    return n < 0 ? -1 : 0;
  if (r == ED_EOF)
    return 0;
  if (overflow)
    return -2;
  remember();
  line[edlen] = '\n';
  line[edlen + 1] = 0;
  return edlen + 1;
}

/* Reads and runs lines from fd until the end of input. */
static void run_stream(int fd, int prompt)
{
  static char line[MAXLINE];
  for (;;) {
    if (prompt) {
      reap_background();
      printf("$ ");
    }
    int n = editing ? edit_line(fd, line, "$ ") : getline_fd(fd, line, sizeof(line));
    if (n == -2) {
      fprintf(stderr, "sh: line too long\n");
      last_status = 2;
      continue;
    }
    if (n <= 0)
      return;
    /* A line longer than the buffer: drop the rest rather than run it as a command. */
    if (line[n - 1] != '\n' && n == MAXLINE - 1) {
      char rest[64];
      int m;
      while ((m = getline_fd(fd, rest, sizeof(rest))) > 0 && rest[m - 1] != '\n')
        ;
      fprintf(stderr, "sh: line too long\n");
      last_status = 2;
      continue;
    }
    run_line(line);
  }
}

int main(int argc, char **argv)
{
  if (argc == 1) {
    interactive = 1;
    setpgid(0, 0);
    setfg(0);
    editing = consmode(0, CONS_COOKED) >= 0;
    run_stream(0, 1);
    return 0;
  }
  if (strcmp(argv[1], "-c") == 0) {
    if (argc != 3) {
      fprintf(stderr, "usage: sh [-c COMMANDS | SCRIPT]\n");
      return 2;
    }
    if (strlen(argv[2]) >= MAXLINE) {
      fprintf(stderr, "sh: -c: command too long\n");
      return 2;
    }
    run_line(argv[2]);
    return last_status;
  }
  if (argv[1][0] == '-' || argc > 2) {
    fprintf(stderr, "usage: sh [-c COMMANDS | SCRIPT]\n");
    return 2;
  }
  script_fd = open(argv[1], O_RDONLY);
  if (script_fd < 0) {
    fprintf(stderr, "sh: %s: %s\n", argv[1], strerror(errno));
    return 127;
  }
  run_stream(script_fd, 0);
  return last_status;
}
