/* The one signal self-pipe of asynctop's main thread: each handled signal
 * writes its number as one byte to a non-blocking pipe that the front end's
 * poll() loop reads (docs/architecture.md, Threads). */
#ifndef ASYNCTOP_TUI_SIGNALS_H
#define ASYNCTOP_TUI_SIGNALS_H

#include <stdbool.h>

/* Installs the handlers for SIGINT, SIGTERM, SIGHUP, SIGQUIT (the stopping
 * signals), SIGWINCH, SIGTSTP, SIGCONT and SIGCHLD (not for a child that
 * merely stopped), and ignores SIGPIPE, remembering the previous
 * dispositions.  Returns the read end (non-blocking, close-on-exec), or -1
 * when the pipe cannot be made.  Once per process at a time. */
int signals_install(void);

/* Puts back the previous dispositions and closes the pipe; a no-op when
 * nothing is installed. */
void signals_restore(void);

/* True for the signals that end a run (INT, TERM, HUP, QUIT). */
bool signals_is_stop(int signo);

/* Stops this process as the default SIGTSTP would (the shell's job control
 * sees it), and returns once it is continued. */
void signals_stop_self(void);

#endif
