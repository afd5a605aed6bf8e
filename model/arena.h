/* A bump allocator for objects freed all at once: blocks come from mem_*
 * (so allocation-failure tests reach them) and never move, so pointers
 * into the arena stay valid until arena_fini. */
#ifndef ASYNCTOP_MODEL_ARENA_H
#define ASYNCTOP_MODEL_ARENA_H

#include <stdbool.h>
#include <stddef.h>

#include "model/base.h"

struct arena_block;

struct arena {
	struct arena_block *head; /* the newest block; older ones follow */
	size_t block;             /* bytes of a new block, at least */
	bool nomem;               /* an allocation failed */
};

/* Every allocation is aligned for any object type. */
#define ARENA_ALIGN 16

/* An empty arena whose blocks hold block_size bytes (a request larger than
 * that gets a block of its own size).  Allocates nothing. */
void arena_init(struct arena *a, size_t block_size);

/* n bytes (0 is taken as 1), aligned to ARENA_ALIGN, valid until
 * arena_fini.  NULL when the block cannot be allocated or the size
 * overflows; a->nomem then says so.  Does not block. */
void *arena_alloc(struct arena *a, size_t n) MUST_CHECK;

/* Frees every block; a is left as after arena_init (same block size). */
void arena_fini(struct arena *a);

#endif
