/* Hashing and an open-addressing index of uint32 ids, foundation code that
 * every folder may use.  The index stores ids, 32 bits of their hash and an
 * opaque key pointer; the owner compares keys, so one index serves strings,
 * stacks, (stack, name) pairs and the pprof encoder's tables. */
#ifndef ASYNCTOP_MODEL_HASH_H
#define ASYNCTOP_MODEL_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/base.h"
#include "model/status.h"

/* A 64-bit hash of n bytes of p (a multiply-rotate mix, 8 bytes a step). */
uint64_t hash_bytes(const void *p, size_t n);
/* A 64-bit finalising mix of one integer key. */
uint64_t hash_mix64(uint64_t x);

/* A 32-bit hash of a 32-bit key (a multiplicative mix), inline for lookups
 * of integer ids in hot loops; hash_mix64 mixes better but is a call. */
static inline uint32_t hash_u32(uint32_t x)
{
	return (uint32_t)(((uint64_t)x * 0x9e3779b97f4a7c15ull) >> 32);
}

/* The 32 bits the index keeps: both the probe start and the tag. */
static inline uint32_t hash_fold32(uint64_t h)
{
	return (uint32_t)(h ^ (h >> 32));
}

struct hash_slot {
	uint32_t id; /* 0: empty */
	uint32_t hash;
	const void *key; /* the owner's, for eq without another lookup */
};

/* Linear probing, load at most 3/4, deletion by backward shift (no
 * tombstones).  Capacity is 0 or a power of two. */
struct hash_table {
	struct hash_slot *slots;
	size_t cap, n;
};

void hash_table_init(struct hash_table *t);
void hash_table_fini(struct hash_table *t);
/* Makes room for `more` insertions without further allocation, doubling
 * (and rehashing) as needed.  STATUS_NOMEM leaves t as it was. */
enum status hash_table_reserve(struct hash_table *t, size_t more) MUST_CHECK;
/* Inserts id (nonzero, not present) under hash, with key (borrowed, may be
 * NULL); room must be reserved. */
void hash_table_insert(struct hash_table *t, uint32_t hash, uint32_t id,
                       const void *key);
/* Removes id, stored under hash; no-op when absent. */
void hash_table_remove(struct hash_table *t, uint32_t hash, uint32_t id);
/* Forgets every id; keeps the memory. */
void hash_table_clear(struct hash_table *t);
/* Bytes of slot storage. */
size_t hash_table_bytes(const struct hash_table *t);

typedef bool (*hash_eq_fn)(const void *ctx, uint32_t id, const void *key);

/* The id stored under hash for which eq(ctx, id) holds, or 0.  Inline so
 * that a known eq is inlined into the probe loop. */
static inline uint32_t hash_table_find(const struct hash_table *t,
                                       uint32_t hash, hash_eq_fn eq,
                                       const void *ctx)
{
	size_t mask, i;

	if (t->cap == 0)
		return 0;
	mask = t->cap - 1;
	for (i = hash & mask; t->slots[i].id != 0; i = (i + 1) & mask) {
		if (t->slots[i].hash == hash &&
		    eq(ctx, t->slots[i].id, t->slots[i].key))
			return t->slots[i].id;
	}
	return 0;
}

#endif
