/* Interned byte strings with uint32 ids and reference counts (internal to
 * model/).  The model keeps three: frames, task names, and stacks (keyed by
 * their serialised text, with their frame ids as extra bytes).  Ids start at
 * 1, follow the order of arrival and are never reused; 0 is never an id. */
#ifndef ASYNCTOP_MODEL_INTERN_H
#define ASYNCTOP_MODEL_INTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "model/base.h"
#include "model/hash.h"
#include "model/status.h"
#include "model/strview.h"

/* One allocation per id: [extra: xlen bytes][uint32 len][key: len][NUL].
 * The slot points at the key; the length before it lets a probe compare
 * keys without touching the slot. */
struct intern_slot {
	char *str; /* the key; NULL once the id is reclaimed (or never was) */
	uint32_t len;  /* key bytes */
	uint32_t hash; /* hash_fold32 of the key */
	size_t refs;   /* references held by the owner's objects */
	uint32_t xlen; /* extra bytes before the length */
};

/* Slots live in pages of INTERN_PAGE ids; a page whose ids are all
 * reclaimed (and that no new id will use) is freed. */
#define INTERN_PAGE_BITS 8
#define INTERN_PAGE      ((uint32_t)1 << INTERN_PAGE_BITS)

struct intern_page {
	size_t live;
	struct intern_slot slot[INTERN_PAGE];
};

struct intern {
	struct intern_page **pages;
	size_t npages; /* length of pages[] */
	uint32_t next; /* the next id to assign */
	size_t live;   /* ids with a string */
	uint64_t reclaimed;
	size_t bytes; /* blocks, pages and page table (see intern_bytes) */
	struct hash_table index;
};

/* Bytes accounted to t: blocks, pages, page table and hash table. */
static inline size_t intern_bytes(const struct intern *t)
{
	return t->bytes + hash_table_bytes(&t->index);
}

/* The key length stored just before a key. */
static inline uint32_t intern_keylen(const char *key)
{
	uint32_t n;

	memcpy(&n, key - sizeof(n), sizeof(n));
	return n;
}

void intern_init(struct intern *t);
/* Frees every block and slot. */
void intern_fini(struct intern *t);

/* The id of len bytes of p, or 0 when not interned. */
uint32_t intern_find(const struct intern *t, const void *p, size_t len);

/* The id of len bytes of p (borrowed, copied when new, with xlen bytes of
 * extra stored before it).  A new id starts with no reference; *created
 * says whether it is new.  STATUS_LIMIT when it is new and `cap` ids are
 * live already or ids ran out; STATUS_NOMEM leaves t as it was. */
enum status intern_put(struct intern *t, const void *p, size_t len,
                       const void *extra, size_t xlen, size_t cap, uint32_t *id,
                       bool *created) MUST_CHECK;

/* intern_put under a hash the owner computed: for a table whose keys are
 * hashed another way than hash_bytes (every id of t must then be put this
 * way, and found with hash_table_find on t->index). */
enum status intern_put_hashed(struct intern *t, uint32_t hash, const void *p,
                              size_t len, const void *extra, size_t xlen,
                              size_t cap, uint32_t *id,
                              bool *created) MUST_CHECK;

/* The slot of a live id, or NULL. */
struct intern_slot *intern_slot(const struct intern *t, uint32_t id);
/* The key of a live id, or the empty view. */
struct strview intern_view(const struct intern *t, uint32_t id);

/* Adds a reference to a live id. */
void intern_ref(struct intern *t, uint32_t id);
/* Drops one; true when none is left (the caller then removes the id). */
bool intern_unref(struct intern *t, uint32_t id);
/* Frees a live id's block; `reclaimed` counts it in t->reclaimed.  The id
 * is never given again. */
void intern_remove(struct intern *t, uint32_t id, bool reclaimed);
/* Undoes a failed operation: removes the unreferenced ids from mark on and,
 * when none of them is left, gives their numbers back (nobody saw them). */
void intern_rollback(struct intern *t, uint32_t mark);

#endif
