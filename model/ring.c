/* The ring of kept windows: a circular array that doubles when full. */
#include "model/ring.h"

#include <string.h>

#include "model/alloc.h"

void ring_init(struct ring *r)
{
	memset(r, 0, sizeof(*r));
}

void ring_fini(struct ring *r)
{
	for (size_t i = 0; i < r->count; i++)
		mem_free(ring_at(r, i));
	mem_free(r->slot);
	ring_init(r);
}

enum status ring_reserve(struct ring *r)
{
	struct window_priv **ns;
	size_t ncap;

	if (r->count < r->cap)
		return STATUS_OK;
	if (r->cap > SIZE_MAX / 2 / sizeof(*ns))
		return STATUS_NOMEM;
	ncap = r->cap ? r->cap * 2 : 8;
	ns = mem_realloc_array(NULL, ncap, sizeof(*ns));
	if (!ns)
		return STATUS_NOMEM;
	for (size_t i = 0; i < r->count; i++)
		ns[i] = ring_at(r, i);
	mem_free(r->slot);
	r->slot = ns;
	r->cap = ncap;
	r->head = 0;
	return STATUS_OK;
}

void ring_push(struct ring *r, struct window_priv *w)
{
	r->slot[(r->head + r->count) % r->cap] = w;
	r->count++;
	r->bytes += w->pub.bytes;
}

struct window_priv *ring_pop(struct ring *r)
{
	struct window_priv *w;

	if (r->count == 0)
		return NULL;
	w = r->slot[r->head];
	r->head = (r->head + 1) % r->cap;
	r->count--;
	r->bytes -= w->pub.bytes;
	return w;
}

struct window_priv *ring_at(const struct ring *r, size_t i)
{
	return i < r->count ? r->slot[(r->head + i) % r->cap] : NULL;
}

size_t ring_bytes(const struct ring *r)
{
	return size_add_sat(r->bytes, r->cap * sizeof(*r->slot));
}
