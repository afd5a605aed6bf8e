/* The comments added to live windows (record and the viewer alike). */
#include "tui/comments.h"

#include <inttypes.h>
#include <stdio.h>

#include "model/base.h"

#ifndef ASYNCTOP_VERSION
#define ASYNCTOP_VERSION "unknown"
#endif

void comments_add(const struct window_meta *in, bool replay,
                  const char *adapter, const char *endpoint,
                  struct window_meta *out, struct comments *c)
{
	size_t n = 0;

	*out = *in;
	if (replay)
		return;
	for (size_t i = 0; i < in->ncomments && n < ARRAY_SIZE(c->v) - 4; i++)
		c->v[n++] = in->comments[i];
	snprintf(c->version, sizeof(c->version), "asynctop %s",
	         ASYNCTOP_VERSION);
	c->v[n++] = c->version;
	snprintf(c->source, sizeof(c->source), "source: %s%s%s",
	         adapter ? adapter : "?", endpoint && *endpoint ? " " : "",
	         endpoint ? endpoint : "");
	c->v[n++] = c->source;
	if (in->partial) {
		snprintf(c->partial, sizeof(c->partial), "partial: %s",
		         in->reason && *in->reason ? in->reason : "cut short");
		c->v[n++] = c->partial;
	}
	if (in->dropped) {
		snprintf(c->dropped, sizeof(c->dropped),
		         "dropped: %" PRIu64 " records", in->dropped);
		c->v[n++] = c->dropped;
	}
	out->comments = c->v;
	out->ncomments = n;
}
