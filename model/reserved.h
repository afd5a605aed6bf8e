/* Reserved frame and task names (docs/design.md §4).  The model applies them,
 * once, so every writer sees the same stacks and totals agree. */
#ifndef ASYNCTOP_MODEL_RESERVED_H
#define ASYNCTOP_MODEL_RESERVED_H

#include <stddef.h>

#include "model/strview.h"

/* X(ID, text) */
#define RESERVED_LIST(X)                                                      \
	X(NO_STACK, "[no spawn stack]")          /* a sample with depth 0 */  \
	X(OTHER, "[other]")                      /* past a stack/frame cap */ \
	X(UNKNOWN_FRAME, "[unknown]")            /* an empty frame */         \
	X(SPAWN_UNKNOWN, "[spawn site unknown]") /* adapters: no site */      \
	X(UNNAMED, "<unnamed>")                  /* an empty task name */     \
	X(NOT_PARKED, "[not parked]")            /* no parked-at stack */

enum reserved {
#define RESERVED_ENUM(id, text) RESERVED_##id,
	RESERVED_LIST(RESERVED_ENUM)
#undef RESERVED_ENUM
	    RESERVED_COUNT
};

/* The reserved text, as a view of static storage. */
struct strview reserved_name(enum reserved r);

/* The root-side marker of a stack cut at the depth cap, "[truncated N
 * frames]", written into buf (NUL-terminated); returns its length. */
size_t reserved_truncated(char *buf, size_t size, size_t dropped);

#endif
