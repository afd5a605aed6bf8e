/* The bump allocator of arena.h. */
#include "model/arena.h"

#include <stdint.h>

#include "model/alloc.h"

struct arena_block {
	struct arena_block *next;
	size_t used, size; /* bytes after the header */
};

static size_t round_up(size_t n)
{
	return (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
}

void arena_init(struct arena *a, size_t block_size)
{
	a->head = NULL;
	a->block = block_size;
	a->nomem = false;
}

void *arena_alloc(struct arena *a, size_t n)
{
	struct arena_block *b = a->head;
	size_t hdr = round_up(sizeof(*b));

	if (n > SIZE_MAX - hdr - a->block - ARENA_ALIGN) {
		a->nomem = true;
		return NULL;
	}
	n = round_up(n ? n : 1);
	if (!b || b->size - b->used < n) {
		size_t size = n > a->block ? n : a->block;
		b = mem_alloc(hdr + size);
		if (!b) {
			a->nomem = true;
			return NULL;
		}
		b->next = a->head;
		b->used = 0;
		b->size = size;
		a->head = b;
	}
	b->used += n;
	return (char *)b + hdr + b->used - n;
}

void arena_fini(struct arena *a)
{
	while (a->head) {
		struct arena_block *next = a->head->next;
		mem_free(a->head);
		a->head = next;
	}
	a->nomem = false;
}
