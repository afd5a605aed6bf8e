/* The comments asynctop adds to a live window before the model keeps it:
 * the source's own, then the version, the source, partial and dropped. */
#ifndef ASYNCTOP_TUI_COMMENTS_H
#define ASYNCTOP_TUI_COMMENTS_H

#include <stdbool.h>

#include "model/window.h"

/* The storage the comments of one window point into. */
struct comments {
	const char *v[64];
	char version[64], source[600], partial[320], dropped[64];
};

/* Sets *out to *in (borrowed) with the comments added, stored in c (which
 * must outlive *out; out->comments also borrow in's).  The source line is
 * "source: ADAPTER[ ENDPOINT]" (adapter NULL: "?"; endpoint NULL or empty:
 * none).  A replay window (replay true) is carried through as loaded.
 * Cannot fail; does not block. */
void comments_add(const struct window_meta *in, bool replay,
                  const char *adapter, const char *endpoint,
                  struct window_meta *out, struct comments *c);

#endif
