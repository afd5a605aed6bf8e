/* The model's state (internal to model/): model.c interns and folds,
 * keep.c keeps built windows and releases evicted ones. */
#ifndef ASYNCTOP_MODEL_MODEL_INT_H
#define ASYNCTOP_MODEL_MODEL_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/intern.h"
#include "model/model.h"
#include "model/ring.h"

/* Pinned stacks and frames, outside the caps: [other], [not parked]. */
#define PINNED 2

/* A slot of the open window's index: its entry + 1 (0: empty) and the
 * entry's hash (fold_hash in model.c). */
struct fold_slot {
	uint32_t ent;
	uint32_t hash;
};

struct model {
	struct model_limits lim;
	struct intern frames, names, stacks;
	uint32_t other_stack, other_name; /* pinned, outside the caps */
	uint32_t other_hash;              /* other_stack's hash */
	uint32_t not_parked;              /* pinned, outside the caps */
	struct ring ring;
	uint64_t committed, evicted;
	/* A window left the ring but still holds its references; they are
	 * dropped a slice at a time (model_reclaim), its rows from rrow on. */
	struct window_priv *retired;
	size_t rrow;
	bool building; /* the open window is being built (model_build) */
	/* The open window: its entries in order of arrival, found by (stack,
	 * parked, name) through an open-addressing index.  They hold no
	 * references until commit, which adds them per distinct stack and name.
	 */
	bool open;
	struct fold_entry *ent;
	size_t ent_cap, nent;
	struct extras *xs; /* the figures of entries that know any */
	size_t xs_cap, nxs;
	struct fold_slot *idx;
	size_t idx_cap;  /* 0 or a power of two; load at most 3/4 */
	bool any_parked; /* an entry is parked somewhere known */
	struct window_stats cur;
	/* Scratch of model_add: the sample's frames as kept, their ids, the
	 * stack's key text, and the depth cap's marker. */
	struct strview *views;
	uint32_t *ids;
	size_t views_cap, ids_cap;
	char *text;
	size_t text_cap;
	char mark[64];
};

/* Drops stack id (its frames' references with it); count: as reclaimed. */
void model_stack_release(struct model *m, uint32_t id, bool count);
/* Bytes accounted against mem_budget: the windows and the strings. */
size_t model_bytes_used(const struct model *m);

#endif
