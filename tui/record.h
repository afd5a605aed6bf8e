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

/* Exit statuses of asynctop (decisions §4); the first that applies wins:
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

/* The test event channel (decisions §9): opens $ASYNCTOP_TEST_EVENTS for
 * writing (a FIFO, which blocks until a reader has it open, or a file,
 * created and appended to).  Returns the fd, or -1 when the variable is not
 * set or the open failed (then a warning prefixed with prog goes to
 * stderr).  Blocks on a FIFO without a reader. */
int record_events_open(const char *prog);

/* Writes one event line (printf-style; a newline inside becomes a space)
 * to fd in one write; nothing when fd is -1.  Errors are ignored. */
void record_event(int fd, const char *fmt, ...) PRINTF(2, 3);

/* Runs `record` as o (borrowed) says, with the adapters of reg (borrowed).
 * Writes errors as paragraphs on stderr, files as -o says (text may go to
 * stdout), and test events to events (-1: none; see record_events_open):
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

/* The file name of window number k for output path (borrowed): when
 * numbered, "-%04u" goes before the extension, which starts at the first
 * '.' of the base name that is not its first character ("out.pb.gz" ->
 * "out-0001.pb.gz", "dir.d/out" -> "dir.d/out-0001"); otherwise path
 * itself.  STATUS_INVAL when dst (size bytes) is too small. */
enum status record_path(char *dst, size_t size, const char *path, bool numbered,
                        uint64_t k) MUST_CHECK;

#endif
