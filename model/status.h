/* One status enum for everything fallible in asynctop, with its messages.
 * STATUS_OK is 0; results come back through out-parameters. */
#ifndef ASYNCTOP_MODEL_STATUS_H
#define ASYNCTOP_MODEL_STATUS_H

#include <stddef.h>

#include "model/base.h"

/* X(NAME, message): the message is a short noun phrase, lower case. */
#define STATUS_LIST(X)                        \
	X(OK, "success")                      \
	X(NOMEM, "out of memory")             \
	X(LIMIT, "a limit was reached")       \
	X(INVAL, "invalid argument")          \
	X(MALFORMED, "malformed input")       \
	X(FOREIGN, "not an asynctop profile") \
	X(TOO_LARGE, "input too large")       \
	X(IO, "input/output error")           \
	X(EXISTS, "file exists")              \
	X(AGAIN, "try again")                 \
	X(EOF, "end of input")                \
	X(TIMEOUT, "timed out")               \
	X(STOPPED, "stopped on request")      \
	X(UNREACHABLE, "source unreachable")  \
	X(NO_ADAPTER, "no such adapter")      \
	X(EMPTY_WINDOW, "no task data in the window")

enum status {
#define STATUS_ENUM(name, msg) STATUS_##name,
	STATUS_LIST(STATUS_ENUM)
#undef STATUS_ENUM
	    STATUS_COUNT
};

/* The message of a status; never NULL, "unknown status" when out of range. */
const char *status_str(enum status st);

/* The enum constant's name without its prefix ("NOMEM"), for tests and logs. */
const char *status_name(enum status st);

/* Formats a one-line reason into err (when err and errsz are nonzero;
 * always NUL-terminated, cut to fit) and returns st, so that a failure
 * reads `return status_errf(err, errsz, STATUS_IO, "%s: %s", path, why);`. */
enum status status_errf(char *err, size_t errsz, enum status st,
                        const char *fmt, ...) PRINTF(4, 5);

#endif
