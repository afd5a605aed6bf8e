/* The ring of kept windows (internal to model/): committed windows, the
 * oldest first, each one block that begins with struct window_priv.  The
 * ring only holds them; the model decides what enters and what leaves. */
#ifndef ASYNCTOP_MODEL_RING_H
#define ASYNCTOP_MODEL_RING_H

#include <stddef.h>
#include <stdint.h>

#include "model/base.h"
#include "model/model.h"
#include "model/status.h"

/* A committed window: this struct, then rows, entries, the entries'
 * figures, the by-id index, the comment pointers and the meta strings, in
 * one block. */
struct window_priv {
	struct window pub;
	const uint32_t *byid; /* row indices, ascending (stack, name) */
};

struct ring {
	struct window_priv **slot; /* slot[(head + i) % cap], 0 the oldest */
	size_t cap, head, count;
	size_t bytes; /* the windows' bytes */
};

void ring_init(struct ring *r);
/* Frees every window and the slots. */
void ring_fini(struct ring *r);
/* Room for one more window; STATUS_NOMEM leaves r as it was. */
enum status ring_reserve(struct ring *r) MUST_CHECK;
/* Appends w as the newest (room reserved). */
void ring_push(struct ring *r, struct window_priv *w);
/* Removes the oldest and returns it (the caller frees it); NULL when
 * empty. */
struct window_priv *ring_pop(struct ring *r);
/* The i-th kept window, 0 the oldest; NULL past the end. */
struct window_priv *ring_at(const struct ring *r, size_t i);
/* The windows' bytes and the slots'. */
size_t ring_bytes(const struct ring *r);

#endif
