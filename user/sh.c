/* sh: the shell.
 *
 *   sh                 reads commands from stdin, printing the prompt "$ " before each line
 *   sh SCRIPT          reads commands from the file SCRIPT
 *   sh -c 'COMMANDS'   runs COMMANDS
 *
 * A line is a list of pipelines separated by ';' or '&' (run in the background: prints
 * [pid]); a pipeline is commands joined by '|'; a command is words and redirections:
 * '< file', '> file', '>> file', 'N> file', 'N>> file', 'N< file', 'N>&M' (e.g. 2>&1).
 * Words may be quoted: '...' is literal, "..." keeps spaces and honours \" \\ \$ \`, and a
 * backslash outside quotes takes the next character literally. $? (outside '...') is the
 * status of the last command, as in sh: the tests read each command's status with it. '#' at the start of a word
 * begins a comment. Builtins: cd [DIR], exit [N], help. A command name without '/' is
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
#define MAXBG    64

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
static int bg_pids[MAXBG];      /* background processes not yet reaped */
static int nbg;

/* ---- lexing ---- */

/* Words are copied into this arena, reset for every line; at most one byte per input byte
 * plus a NUL per word, or 3 bytes ("255") for the 2 of a "$?", so twice the line length is
 * enough. */
static char arena[2 * MAXLINE + 16];
static int arena_used;

static const char *lex_pos;
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
  lex_pos = p;
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
  return strcmp(name, "cd") == 0 || strcmp(name, "exit") == 0 || strcmp(name, "help") == 0;
}

static void help(void)
{
  printf("builtins: cd [DIR], exit [N], help\n");
  printf("syntax: CMD ARGS < in > out >> append 2> err 2>&1 | ; & 'quotes' \"quotes\" \\\n");
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

static void forget_bg(int pid)
{
  for (int i = 0; i < nbg; i++) {
    if (bg_pids[i] == pid) {
      bg_pids[i] = bg_pids[--nbg];
      return;
    }
  }
}

/* Reaps background processes that have finished, without blocking: wait() has no
 * "don't block" flag, so ask the process table how many of our children are zombies and
 * wait for exactly that many. */
static void reap_background(void)
{
  static struct procinfo procs[128];
  if (nbg == 0)
    return;
  int n = ps(procs, 128);
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
    for (int i = 0; i < started; i++)
      if (nbg < MAXBG)
        bg_pids[nbg++] = pids[i];
    if (started > 0)
      printf("[%d]\n", pids[started - 1]);
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

/* Reads and runs lines from fd until the end of input. */
static void run_stream(int fd, int prompt)
{
  static char line[MAXLINE];
  for (;;) {
    if (prompt) {
      reap_background();
      printf("$ ");
    }
    int n = getline_fd(fd, line, sizeof(line));
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
