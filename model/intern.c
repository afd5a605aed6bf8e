/* Interned byte strings: paged slots indexed by id, a hash index by bytes. */
#include "model/intern.h"

#include <string.h>

#include "model/alloc.h"

struct key {
	const void *p;
	size_t len;
};

static void block_free(struct intern_slot *s)
{
	if (s->str)
		mem_free(s->str - sizeof(uint32_t) - s->xlen);
}

void intern_init(struct intern *t)
{
	memset(t, 0, sizeof(*t));
	t->next = 1;
	hash_table_init(&t->index);
}

void intern_fini(struct intern *t)
{
	for (size_t i = 0; i < t->npages; i++) {
		struct intern_page *pg = t->pages[i];
		if (!pg)
			continue;
		for (uint32_t j = 0; j < INTERN_PAGE; j++)
			block_free(&pg->slot[j]);
		mem_free(pg);
	}
	mem_free(t->pages);
	hash_table_fini(&t->index);
	intern_init(t);
}

/* The slot of an id known to be live. */
static inline struct intern_slot *slot_of(const struct intern *t, uint32_t id)
{
	return &t->pages[id >> INTERN_PAGE_BITS]->slot[id & (INTERN_PAGE - 1)];
}

struct intern_slot *intern_slot(const struct intern *t, uint32_t id)
{
	size_t pi = id >> INTERN_PAGE_BITS;
	struct intern_slot *s;

	if (id == 0 || id >= t->next || pi >= t->npages || !t->pages[pi])
		return NULL;
	s = slot_of(t, id);
	return s->str ? s : NULL;
}

struct strview intern_view(const struct intern *t, uint32_t id)
{
	const struct intern_slot *s = intern_slot(t, id);

	return s ? sv_n(s->str, s->len) : sv_n("", 0);
}

static bool key_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct key *k = ctx;

	(void)id;
	return intern_keylen(key) == k->len &&
	       (k->len == 0 || memcmp(key, k->p, k->len) == 0);
}

uint32_t intern_find(const struct intern *t, const void *p, size_t len)
{
	struct key k = { p, len };

	if (len > UINT32_MAX)
		return 0;
	return hash_table_find(&t->index, hash_fold32(hash_bytes(p, len)),
	                       key_eq, &k);
}

/* Makes sure the slot of id exists. */
static enum status page_for(struct intern *t, uint32_t id)
{
	size_t pi = id >> INTERN_PAGE_BITS, old = t->npages;
	struct intern_page *pg;

	if (pi >= t->npages) {
		if (mem_grow(&t->pages, &t->npages, pi + 1, sizeof(*t->pages)))
			return STATUS_NOMEM;
		memset(t->pages + old, 0,
		       (t->npages - old) * sizeof(*t->pages));
		t->bytes += (t->npages - old) * sizeof(*t->pages);
	}
	if (t->pages[pi])
		return STATUS_OK;
	pg = mem_calloc(1, sizeof(*pg));
	if (!pg)
		return STATUS_NOMEM;
	t->pages[pi] = pg;
	t->bytes += sizeof(*pg);
	return STATUS_OK;
}

static void page_free(struct intern *t, size_t pi)
{
	mem_free(t->pages[pi]);
	t->pages[pi] = NULL;
	t->bytes -= sizeof(struct intern_page);
}

enum status intern_put(struct intern *t, const void *p, size_t len,
                       const void *extra, size_t xlen, size_t cap, uint32_t *id,
                       bool *created)
{
	*created = false;
	if (len > UINT32_MAX - 1)
		return STATUS_INVAL;
	return intern_put_hashed(t, hash_fold32(hash_bytes(p, len)), p, len,
	                         extra, xlen, cap, id, created);
}

enum status intern_put_hashed(struct intern *t, uint32_t h, const void *p,
                              size_t len, const void *extra, size_t xlen,
                              size_t cap, uint32_t *id, bool *created)
{
	struct key k = { p, len };
	uint32_t n32, nid = t->next;
	size_t pi = nid >> INTERN_PAGE_BITS, size;
	struct intern_slot *s;
	char *block;

	*created = false;
	if (len > UINT32_MAX - 1 || xlen > UINT32_MAX - 1 ||
	    len + xlen > SIZE_MAX - 8)
		return STATUS_INVAL;
	*id = hash_table_find(&t->index, h, key_eq, &k);
	if (*id)
		return STATUS_OK;
	if (t->live >= cap || nid == UINT32_MAX)
		return STATUS_LIMIT;
	if (hash_table_reserve(&t->index, 1) || page_for(t, nid))
		return STATUS_NOMEM;
	size = xlen + sizeof(n32) + len + 1;
	block = mem_alloc(size);
	if (!block)
		return STATUS_NOMEM;
	n32 = (uint32_t)len;
	if (xlen)
		memcpy(block, extra, xlen);
	memcpy(block + xlen, &n32, sizeof(n32));
	if (len)
		memcpy(block + xlen + sizeof(n32), p, len);
	block[size - 1] = '\0';
	s = slot_of(t, nid);
	s->str = block + xlen + sizeof(n32);
	s->len = n32;
	s->hash = h;
	s->refs = 0;
	s->xlen = (uint32_t)xlen;
	t->pages[pi]->live++;
	hash_table_insert(&t->index, h, nid, s->str);
	t->live++;
	t->bytes += size;
	t->next = nid + 1;
	*id = nid;
	*created = true;
	return STATUS_OK;
}

void intern_ref(struct intern *t, uint32_t id)
{
	slot_of(t, id)->refs++;
}

bool intern_unref(struct intern *t, uint32_t id)
{
	struct intern_slot *s = slot_of(t, id);

	return --s->refs == 0;
}

void intern_remove(struct intern *t, uint32_t id, bool reclaimed)
{
	size_t pi = id >> INTERN_PAGE_BITS;
	struct intern_page *pg = t->pages[pi];
	struct intern_slot *s = &pg->slot[id & (INTERN_PAGE - 1)];

	hash_table_remove(&t->index, s->hash, id);
	t->bytes -= (size_t)s->xlen + sizeof(uint32_t) + s->len + 1;
	block_free(s);
	memset(s, 0, sizeof(*s));
	t->live--;
	if (reclaimed)
		t->reclaimed++;
	pg->live--;
	/* the page of the next id stays: new ids will land on it */
	if (pg->live == 0 && (t->next >> INTERN_PAGE_BITS) > pi)
		page_free(t, pi);
}

void intern_rollback(struct intern *t, uint32_t mark)
{
	bool all = true;

	for (uint32_t id = t->next; id-- > mark;) {
		struct intern_slot *s = intern_slot(t, id);
		if (s && s->refs == 0)
			intern_remove(t, id, false);
		else if (s)
			all = false;
	}
	if (all && mark < t->next)
		t->next = mark;
}
