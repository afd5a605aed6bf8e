/* The building of a committed window from the open window's entries
 * (internal to model/): canonical order, the one block, the references. */
#ifndef ASYNCTOP_MODEL_COMMIT_H
#define ASYNCTOP_MODEL_COMMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/base.h"
#include "model/intern.h"
#include "model/model.h"
#include "model/ring.h"
#include "model/status.h"

/* What a commit reads.  The entries hold no references; the built window
 * takes one per entry on its stacks and its name. */
struct commit_in {
	const struct fold_entry *ent; /* the open window, in arrival order */
	size_t nent;
	const struct extras *xs; /* the entries' figures (fold_entry.xi) */
	size_t nxs;
	struct intern *stacks, *names;
	const struct window_priv *prev; /* the newest kept window, or NULL */
	size_t max_name;                /* the cut of meta strings */
	bool any_parked;     /* false: every entry's parked is not_parked */
	uint32_t not_parked; /* the pinned "[not parked]" stack */
	struct window_stats stats;
};

/* Builds the window of in with meta (borrowed; copied).  Nothing is taken
 * unless it succeeds; STATUS_NOMEM otherwise.  *out is one block, freed
 * with mem_free once its references are dropped. */
enum status commit_build(const struct commit_in *in,
                         const struct window_meta *meta,
                         struct window_priv **out) MUST_CHECK;

#endif
