/* The reserved names table. */
#include "model/reserved.h"

#include <stdio.h>

static const struct strview names[RESERVED_COUNT] = {
#define RESERVED_VIEW(id, text) [RESERVED_##id] = { text, sizeof(text) - 1 },
	RESERVED_LIST(RESERVED_VIEW)
#undef RESERVED_VIEW
};

struct strview reserved_name(enum reserved r)
{
	if ((unsigned)r >= RESERVED_COUNT)
		return sv_n("", 0);
	return names[r];
}

size_t reserved_truncated(char *buf, size_t size, size_t dropped)
{
	int n = snprintf(buf, size, "[truncated %zu frame%s]", dropped,
	                 dropped == 1 ? "" : "s");

	if (n < 0)
		return 0;
	return (size_t)n < size ? (size_t)n : (size ? size - 1 : 0);
}
