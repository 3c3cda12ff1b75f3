/* The CLI's progress line (progress.c): one line on stderr, redrawn in place
 * at most 10 times a second (stage, percent, rate, ETA), only when stderr is
 * a terminal and --quiet was not given; erased when the work ends, so that
 * nothing of it stays on the screen. Without a terminal nothing is printed.
 * The library reports through g16_progress_fn callbacks (g16.h); the CLI's
 * own stages (loading a key, polling an engine or the daemon) call
 * cli_progress directly. One line per process (the CLI runs one command). */
#ifndef G16_CLI_PROGRESS_H
#define G16_CLI_PROGRESS_H

#include <stdint.h>

/* 1 after --quiet or -q (cli_quiet_take): no progress line, no progress
 * messages. */
extern int g16_cli_quiet;

/* Takes every --quiet and -q out of argv[1..] (up to a "--"), sets
 * g16_cli_quiet, and updates *argc (argv stays NULL-terminated). */
void cli_quiet_take(int *argc, char **argv);

/* Starts the line for the command cmd ("g16 setup"): drawn from 200 ms on,
 * once a stage is reported. A second begin restarts it. */
void cli_progress_begin(const char *cmd);
/* A g16_progress_fn (user is ignored): the current stage, its units done
 * and total (total 1: a step without parts; the line shows its time). */
void cli_progress(void *user, const char *stage, uint64_t done, uint64_t total);
/* Erases the line before other output on stderr; the next report draws it
 * again. */
void cli_progress_clear(void);
/* Stops the line and erases it. */
void cli_progress_end(void);
/* 1 while a line is being kept (a terminal, not quiet, between begin and end). */
int cli_progress_on(void);

#endif
