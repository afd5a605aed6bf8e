/* Maps of model ids (never 0) to numbers, for the filter's index
 * (tui/view_search.c): an open-addressing table, and a map that keeps ids
 * met in order in pages indexed by id, as ids come in order of arrival,
 * with the table for the ids no page holds.  Either holds at most about 16
 * bytes an id (and some KiB), whatever the ids. */
#ifndef ASYNCTOP_TUI_VIEW_IDMAP_H
#define ASYNCTOP_TUI_VIEW_IDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/base.h"
#include "model/status.h"

struct view_slot {
	uint32_t id; /* 0: free */
	uint32_t val;
};

/* Zero-initialised: empty. */
struct view_table {
	struct view_slot *slot;
	size_t cap, n; /* cap = 1 << bits, at most half full */
	unsigned bits;
};

/* The slot of id in t (t->cap > 0): its own, or the free one it would
 * take (the caller then sets id, val and counts it in n).  Cannot fail. */
struct view_slot *vtable_at(const struct view_table *t, uint32_t id);
/* Makes room for n ids in t, rehashing (slots move).  STATUS_NOMEM
 * leaves t as it was. */
enum status vtable_reserve(struct view_table *t, size_t n) MUST_CHECK;
/* Empties t, keeping its room. */
void vtable_clear(struct view_table *t);
void vtable_fini(struct view_table *t);

/* Ids per page of a map. */
#define VMAP_BITS 9
#define VMAP_IDS  ((uint32_t)1 << VMAP_BITS)

/* Zero-initialised: empty.  Page i holds the values of ids base + i *
 * VMAP_IDS on; pages are made while they stay well filled (128 ids a page
 * on average, 2 KiB for 512 ids), and the page table short beside the ids
 * held (a pointer per 8 ids); the other ids go to rest. */
struct view_map {
	uint32_t base; /* a multiple of VMAP_IDS; set by the first page */
	bool based;
	uint32_t **page;
	size_t npage, live;
	size_t n; /* values set (the caller counts them) */
	struct view_table rest;
};

uint32_t *vmap_slow(struct view_map *mp, uint32_t id);

/* Where the value of id is kept in mp (0: none yet; the caller sets it,
 * and counts it in mp->n), valid until the next vmap_at or vmap_clear;
 * NULL without memory.  Mostly one load. */
static inline uint32_t *vmap_at(struct view_map *mp, uint32_t id)
{
	size_t i = (size_t)(id - mp->base) >> VMAP_BITS;

	if (id >= mp->base && i < mp->npage && mp->page[i])
		return &mp->page[i][id & (VMAP_IDS - 1)];
	return vmap_slow(mp, id);
}

/* Empties mp, freeing its pages; the next page sets the base again. */
void vmap_clear(struct view_map *mp);
void vmap_fini(struct view_map *mp);

#endif
