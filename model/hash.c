/* Hash functions and the id index of hash.h. */
#include "model/hash.h"

#include <string.h>

#include "model/alloc.h"

#define K1 0x9e3779b97f4a7c15ull
#define K2 0xbf58476d1ce4e5b9ull
#define K3 0x94d049bb133111ebull

static inline uint64_t rotl(uint64_t x, unsigned r)
{
	return (x << r) | (x >> (64 - r));
}

uint64_t hash_mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= K2;
	x ^= x >> 27;
	x *= K3;
	x ^= x >> 31;
	return x;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
static inline uint64_t load(const unsigned char *s, size_t n)
{
	uint64_t w = 0;

	memcpy(&w, s, n);
	return w;
}

/* The last n < 8 bytes at s as a little-endian number, with fixed-size
 * loads: the 8 bytes ending at s + n when at least 8 were hashed (full),
 * else two loads that overlap. */
static inline uint64_t tail(const unsigned char *s, size_t n, bool full)
{
	if (n == 0)
		return 0;
	if (full)
		return load(s + n - 8, 8) >> (64 - 8 * n);
	if (n >= 4)
		return load(s, 4) | load(s + n - 4, 4) << (8 * (n - 4));
	if (n >= 2)
		return load(s, 2) | load(s + n - 2, 2) << (8 * (n - 2));
	return s[0];
}
#else
static uint64_t tail(const unsigned char *s, size_t n, bool full)
{
	uint64_t w = 0;

	(void)full;
	for (size_t i = 0; i < n; i++)
		w |= (uint64_t)s[i] << (8 * i);
	return w;
}
#endif

uint64_t hash_bytes(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = K1 ^ ((uint64_t)n * K2);
	bool full = n >= 8;
	uint64_t w;

	while (n >= 8) {
		memcpy(&w, s, 8);
		h = rotl(h ^ (w * K3), 31) * K1;
		s += 8;
		n -= 8;
	}
	h = rotl(h ^ (tail(s, n, full) * K3), 31) * K1;
	return hash_mix64(h);
}

void hash_table_init(struct hash_table *t)
{
	memset(t, 0, sizeof(*t));
}

void hash_table_fini(struct hash_table *t)
{
	mem_free(t->slots);
	hash_table_init(t);
}

static void place(struct hash_slot *slots, size_t mask, struct hash_slot s)
{
	size_t i = s.hash & mask;

	while (slots[i].id != 0)
		i = (i + 1) & mask;
	slots[i] = s;
}

enum status hash_table_reserve(struct hash_table *t, size_t more)
{
	size_t need, cap = t->cap ? t->cap : 16;
	struct hash_slot *ns;

	if (more > SIZE_MAX / 4 - t->n)
		return STATUS_NOMEM;
	need = t->n + more;
	while (need > cap / 4 * 3) {
		if (cap > SIZE_MAX / 2 / sizeof(*ns))
			return STATUS_NOMEM;
		cap *= 2;
	}
	if (cap == t->cap)
		return STATUS_OK;
	ns = mem_calloc(cap, sizeof(*ns));
	if (!ns)
		return STATUS_NOMEM;
	for (size_t i = 0; i < t->cap; i++) {
		if (t->slots[i].id != 0)
			place(ns, cap - 1, t->slots[i]);
	}
	mem_free(t->slots);
	t->slots = ns;
	t->cap = cap;
	return STATUS_OK;
}

void hash_table_insert(struct hash_table *t, uint32_t hash, uint32_t id,
                       const void *key)
{
	struct hash_slot s = { id, hash, key };

	place(t->slots, t->cap - 1, s);
	t->n++;
}

void hash_table_remove(struct hash_table *t, uint32_t hash, uint32_t id)
{
	size_t mask, i, j;

	if (t->cap == 0)
		return;
	mask = t->cap - 1;
	for (i = hash & mask; t->slots[i].id != id; i = (i + 1) & mask) {
		if (t->slots[i].id == 0)
			return;
	}
	/* Backward shift: pull later members of the run into the hole when
	 * their home slot does not lie cyclically in (hole, j]. */
	for (j = (i + 1) & mask; t->slots[j].id != 0; j = (j + 1) & mask) {
		size_t home = t->slots[j].hash & mask;
		if (((j - home) & mask) >= ((j - i) & mask)) {
			t->slots[i] = t->slots[j];
			i = j;
		}
	}
	memset(&t->slots[i], 0, sizeof(t->slots[i]));
	t->n--;
}

void hash_table_clear(struct hash_table *t)
{
	if (t->cap)
		memset(t->slots, 0, t->cap * sizeof(*t->slots));
	t->n = 0;
}

size_t hash_table_bytes(const struct hash_table *t)
{
	return t->cap * sizeof(*t->slots);
}
