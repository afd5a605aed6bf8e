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
#include "tui/exit.h"

/* Runs `record` as o (borrowed) says, with the adapters of reg (borrowed).
 * Writes errors as paragraphs on stderr, files as -o says (text may go to
 * stdout), and test events to events (-1: none; see events_open_channel
 * in tui/events.h):
 * "state S", "window K committed", "window K empty", "saved PATH",
 * "signal N", "error MESSAGE", one per line (the caller adds "exit N").
 * Installs the signal self-pipe (tui/signals.h) for its duration and puts
 * the previous dispositions back before returning.  Blocks until the
 * windows asked for are saved, the source ends, or a signal; returns
 * an exit status (enum asynctop_exit).  *abandoned is set when the source would
 * not stop (a second signal, or 5 s after a stop request): its worker thread is
 * then left running, and the adapter and reg must not be freed. */
int record_run(const struct opts *o, const struct adapter_registry *reg,
               int events, bool *abandoned);

#endif
