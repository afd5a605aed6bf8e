/* `asynctop record`: collect windows from one adapter on a worker thread,
 * fold each into the model, and save it (pprof, collapsed or text), in one
 * poll() loop over the worker's pipe and a signal self-pipe. */
#ifndef ASYNCTOP_TUI_RECORD_H
#define ASYNCTOP_TUI_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "adapters/adapter.h"
#include "model/base.h"
#include "model/status.h"
#include "tui/cli.h"

/* Exit statuses of asynctop (docs/design.md §5); the first that applies wins:
 * a signal: 128 + its number, so 130 for SIGINT; usage, error, unreachable,
 * no data, success. */
enum record_exit {
	RECORD_EXIT_OK = 0,
	RECORD_EXIT_ERROR = 1, /* I/O, bad or missing replay file, other */
	RECORD_EXIT_USAGE = 2, /* usage, unknown adapter, no COMMAND */
	RECORD_EXIT_UNREACHABLE = 3, /* source unreachable before any data */
	RECORD_EXIT_NO_DATA = 4,     /* no window had data */
	RECORD_EXIT_SIGNAL = 128,    /* + the signal number */
};

/* Runs `record` as o (borrowed) says, with the adapters of reg (borrowed).
 * Writes errors as paragraphs on stderr, files as -o says (text may go to
 * stdout), and test events to events (-1: none; see events_open_channel
 * in tui/events.h):
 * "state S", "window K committed", "window K empty", "saved PATH",
 * "signal N", "error MESSAGE", one per line (the caller adds "exit N").
 * Installs handlers for SIGINT, SIGTERM and SIGHUP and ignores SIGPIPE for
 * its duration, restoring the previous dispositions before returning. * Blocks
 * until the windows asked for are saved, the source ends, or a signal; returns
 * an exit status (enum record_exit).  *abandoned is set when the source would
 * not stop (a second signal, or 5 s after a stop request): its worker thread is
 * then left running, and the adapter and reg must not be freed. */
int record_run(const struct opts *o, const struct adapter_registry *reg,
               int events, bool *abandoned);

#endif
