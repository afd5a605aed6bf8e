/* The exit statuses of asynctop, one table with the meaning of each
 * (docs/asynctop.1, EXIT STATUS).  When several apply, the first of this
 * order wins: a signal, usage, error, unreachable, no data, success. */
#ifndef ASYNCTOP_TUI_EXIT_H
#define ASYNCTOP_TUI_EXIT_H

#define ASYNCTOP_EXIT_LIST(X)                                                                       \
	X(OK, 0,                                                                                    \
	  "success: every window asked for was saved, or the source or program ended")              \
	X(ERROR, 1,                                                                                 \
	  "an I/O error, a bad or missing replay file, or another failure")                         \
	X(USAGE, 2,                                                                                 \
	  "a usage error, an unknown adapter, a COMMAND that cannot start, no terminal to draw on") \
	X(UNREACHABLE, 3,                                                                           \
	  "the source was unreachable before any data, or COMMAND never became ready")              \
	X(NO_DATA, 4, "no window had data")                                                         \
	X(SIGNAL, 128,                                                                              \
	  "ended by a signal: 128 plus its number (130 for SIGINT)")

enum asynctop_exit {
#define ASYNCTOP_EXIT_ENUM(id, code, text) EXIT_##id = code,
	ASYNCTOP_EXIT_LIST(ASYNCTOP_EXIT_ENUM)
#undef ASYNCTOP_EXIT_ENUM
};

#endif
