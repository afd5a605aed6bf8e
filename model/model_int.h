/* Internals shared by model.c (interning, adding, reading) and commit.c
 * (commit, the ring, eviction).  Not for use outside model/. */
#ifndef ASYNCTOP_MODEL_MODEL_INT_H
#define ASYNCTOP_MODEL_MODEL_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/intern.h"
#include "model/model.h"

/* A committed window, allocated as one block: this struct, then rows,
 * entries, the by-id index, the comment pointers and the meta strings. */
struct window_priv {
	struct window pub;
	const uint32_t *byid; /* row indices, ascending stack id */
};

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
	/* The ring: ring[(head + i) % ring_cap] for i < count, 0 the oldest. */
	struct window_priv **ring;
	size_t ring_cap, head, count;
	size_t win_bytes;
	uint64_t committed, evicted;
	/* The open window: its entries in order of arrival, found by (stack,
	 * name) through an open-addressing index.  They hold no references
	 * until commit, which adds them per distinct stack and name. */
	bool open;
	struct fold_entry *ent;
	size_t ent_cap, nent;
	struct fold_slot *idx;
	size_t idx_cap; /* 0 or a power of two; load at most 3/4 */
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

/* A hint to fetch the cache line of p, to overlap memory misses. */
static inline void model_prefetch(const void *p)
{
#if defined(__GNUC__) || defined(__clang__)
	__builtin_prefetch(p);
#else
	(void)p;
#endif
}

/* The canonical order on two stack keys (see model_stack_cmp). */
int model_key_cmp(const char *a, const char *b);
/* Drops the references of a committed window's entries, reclaiming what
 * nothing uses any more. */
void model_unref_window(struct model *m, const struct window *w);
/* The i-th kept window, 0 the oldest. */
struct window_priv *model_ring_at(const struct model *m, size_t i);
/* Length of p cut to at most max bytes without splitting a UTF-8 sequence
 * that starts before the cut. */
size_t model_utf8_cut(const char *p, size_t len, size_t max);
/* Bytes accounted against mem_budget. */
size_t model_bytes_used(const struct model *m);

#endif
