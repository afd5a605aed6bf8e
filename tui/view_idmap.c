/* Maps of model ids to numbers: a table, and pages indexed by id. */
#include "tui/view_idmap.h"

#include <string.h>

#include "model/alloc.h"

struct view_slot *vtable_at(const struct view_table *t, uint32_t id)
{
	size_t h = (uint32_t)(id * 2654435769u) >> (32 - t->bits);

	while (t->slot[h].id && t->slot[h].id != id)
		h = (h + 1) & (t->cap - 1);
	return &t->slot[h];
}

enum status vtable_reserve(struct view_table *t, size_t n)
{
	size_t cap = (size_t)1 << 10, ocap = t->cap;
	unsigned bits = 10;
	struct view_slot *os = t->slot;

	if (n <= ocap / 2)
		return STATUS_OK;
	while (cap / 2 < n) {
		if (bits == 31)
			return STATUS_NOMEM;
		cap *= 2;
		bits++;
	}
	t->slot = mem_calloc(cap, sizeof(*t->slot));
	if (!t->slot) {
		t->slot = os;
		return STATUS_NOMEM;
	}
	t->cap = cap;
	t->bits = bits;
	for (size_t i = 0; i < ocap; i++)
		if (os[i].id)
			*vtable_at(t, os[i].id) = os[i];
	mem_free(os);
	return STATUS_OK;
}

void vtable_clear(struct view_table *t)
{
	if (t->cap)
		memset(t->slot, 0, t->cap * sizeof(*t->slot));
	t->n = 0;
}

void vtable_fini(struct view_table *t)
{
	mem_free(t->slot);
	memset(t, 0, sizeof(*t));
}

/* Copies into the new page i the values the table holds for its ids
 * (they stay there unread: the page is read first). */
static void take_rest(struct view_map *mp, size_t i)
{
	const struct view_table *t = &mp->rest;
	uint32_t lo = mp->base + (uint32_t)(i << VMAP_BITS);

	if (!t->n)
		return;
	if (t->cap <= 4 * VMAP_IDS) {
		for (size_t k = 0; k < t->cap; k++) {
			uint32_t id = t->slot[k].id;

			if (id >= lo && id - lo < VMAP_IDS)
				mp->page[i][id - lo] = t->slot[k].val;
		}
		return;
	}
	for (uint32_t k = 0; k < VMAP_IDS; k++) {
		const struct view_slot *e;

		if (lo + k == 0)
			continue;
		e = vtable_at(t, lo + k);
		if (e->id)
			mp->page[i][k] = e->val;
	}
}

/* Grows the page table to hold page i (mp->base's), or, for an id below
 * the base, moves the base down to it; false when the table would grow
 * long beside the ids held (of ids far apart) or without memory. */
static bool table_room(struct view_map *mp, uint32_t id)
{
	size_t most = mp->n / 8 + 4096, down = 0, need, n;
	uint32_t **t;

	if (id < mp->base)
		down = (mp->base - (id & ~(VMAP_IDS - 1))) >> VMAP_BITS;
	need = down ? mp->npage + down
	            : ((size_t)(id - mp->base) >> VMAP_BITS) + 1;
	if (need > most)
		return false;
	if (need <= mp->npage && !down)
		return true;
	n = mp->npage ? mp->npage : 64;
	while (n < need)
		n *= 2;
	t = mem_realloc_array(mp->page, n, sizeof(*t));
	if (!t)
		return false;
	memset(t + mp->npage, 0, (n - mp->npage) * sizeof(*t));
	if (down) {
		memmove(t + down, t, mp->npage * sizeof(*t));
		memset(t, 0, down * sizeof(*t));
		mp->base -= (uint32_t)(down << VMAP_BITS);
	}
	mp->page = t;
	mp->npage = n;
	return true;
}

/* Whether id may have a page of its own (made now): the page table and
 * the pages stay small beside the ids held (pages of sparse ids would
 * not). */
static bool page_room(struct view_map *mp, uint32_t id)
{
	size_t i;

	if (!mp->based) {
		mp->base = id & ~(VMAP_IDS - 1);
		mp->based = true;
	}
	if (mp->live >= mp->n / 128 + 64 || !table_room(mp, id))
		return false;
	i = (size_t)(id - mp->base) >> VMAP_BITS;
	mp->page[i] = mem_calloc(VMAP_IDS, sizeof(**mp->page));
	if (!mp->page[i])
		return false;
	mp->live++;
	take_rest(mp, i);
	return true;
}

uint32_t *vmap_slow(struct view_map *mp, uint32_t id)
{
	struct view_table *t = &mp->rest;
	struct view_slot *e;

	if (page_room(mp, id))
		return vmap_at(mp, id);
	if (t->cap) {
		e = vtable_at(t, id);
		if (e->id)
			return &e->val;
	}
	if (vtable_reserve(t, t->n + 1) != STATUS_OK)
		return NULL;
	e = vtable_at(t, id);
	e->id = id;
	e->val = 0;
	t->n++;
	return &e->val;
}

void vmap_clear(struct view_map *mp)
{
	for (size_t i = 0; i < mp->npage; i++) {
		mem_free(mp->page[i]);
		mp->page[i] = NULL;
	}
	mp->live = mp->n = 0;
	mp->based = false;
	vtable_clear(&mp->rest);
}

void vmap_fini(struct view_map *mp)
{
	vmap_clear(mp);
	mem_free(mp->page);
	vtable_fini(&mp->rest);
	memset(mp, 0, sizeof(*mp));
}
