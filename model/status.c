/* Messages and names of the status codes, generated from STATUS_LIST. */
#include "model/status.h"

#include <stdarg.h>
#include <stdio.h>

static const char *const messages[] = {
#define STATUS_MSG(name, msg) [STATUS_##name] = msg,
	STATUS_LIST(STATUS_MSG)
#undef STATUS_MSG
};

static const char *const names[] = {
#define STATUS_NAME(name, msg) [STATUS_##name] = #name,
	STATUS_LIST(STATUS_NAME)
#undef STATUS_NAME
};

const char *status_str(enum status st)
{
	if ((unsigned)st >= STATUS_COUNT)
		return "unknown status";
	return messages[st];
}

const char *status_name(enum status st)
{
	if ((unsigned)st >= STATUS_COUNT)
		return "UNKNOWN";
	return names[st];
}

enum status status_errf(char *err, size_t errsz, enum status st,
                        const char *fmt, ...)
{
	va_list ap;

	if (!err || errsz == 0)
		return st;
	va_start(ap, fmt);
	vsnprintf(err, errsz, fmt, ap);
	va_end(ap);
	return st;
}
