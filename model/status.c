/* Messages and names of the status codes, generated from STATUS_LIST. */
#include "model/status.h"

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
