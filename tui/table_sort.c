/* The table's sort in steps: order_build's LSD radix sort of (key, row)
 * with each pass cut into runs of rows taken in turn, which keeps it
 * stable, so the order is the one order_build gives. */
#include "tui/table_sort.h"

#include <string.h>

#include "model/alloc.h"
#include "model/sort.h"
#include "tui/view_search.h"

/* Up to this many rows sort_radix sorts by insertion: sorted in one go. */
#define SMALL 24

void table_sort_init(struct table_sort *t)
{
	memset(t, 0, sizeof(*t));
	order_init(&t->o);
}

void table_sort_fini(struct table_sort *t)
{
	order_fini(&t->o);
	mem_free(t->keys);
	mem_free(t->tkeys);
	mem_free(t->tvals);
	table_sort_init(t);
}

void table_sort_forget(struct table_sort *t)
{
	t->phase = TABLE_SORT_NONE;
	t->tag.ok = false;
	t->o.n = 0;
}

bool table_sort_done(const struct table_sort *t, const struct window *w,
                     enum metric key, bool descending)
{
	return t->phase == TABLE_SORT_DONE && w && view_tag_holds(&t->tag, w) &&
	       t->o.key == key && t->o.descending == descending;
}

static enum status start(struct table_sort *t, const struct window *w,
                         enum metric key, bool descending)
{
	size_t n = w->nrows;

	t->phase = TABLE_SORT_NONE;
	t->tag.ok = false;
	t->o.n = 0;
	if (mem_grow(&t->o.idx, &t->o.cap, n, sizeof(*t->o.idx)) ||
	    mem_grow(&t->keys, &t->keys_cap, n, sizeof(*t->keys)) ||
	    mem_grow(&t->tkeys, &t->tkeys_cap, n, sizeof(*t->tkeys)) ||
	    mem_grow(&t->tvals, &t->tvals_cap, n, sizeof(*t->tvals)))
		return STATUS_NOMEM;
	t->o.key = key;
	t->o.descending = descending;
	view_tag_set(&t->tag, w);
	t->phase = TABLE_SORT_KEYS;
	t->at = 0;
	t->diff = 0;
	return STATUS_OK;
}

/* The keys of every row read: the passes to make, as sort_radix makes
 * them (only the bytes where keys differ), or done. */
static void keys_read(struct table_sort *t, size_t n)
{
	t->npass = 0;
	t->q = 0;
	t->at = 0;
	if (n <= SMALL) {
		sort_radix(t->keys, t->o.idx, t->tkeys, t->tvals, n);
		t->phase = TABLE_SORT_DONE;
		return;
	}
	for (unsigned p = 0; p < 8; p++)
		if ((t->diff >> (8 * p)) & 0xff)
			t->pass[t->npass++] = p;
	memset(t->count, 0, sizeof(t->count));
	t->phase = t->npass ? TABLE_SORT_COUNT : TABLE_SORT_DONE;
}

/* Each pass's counts made into where its digits start. */
static void counted(struct table_sort *t)
{
	for (unsigned q = 0; q < t->npass; q++) {
		size_t sum = 0;

		for (unsigned d = 0; d < 256; d++) {
			size_t c = t->count[q][d];

			t->count[q][d] = sum;
			sum += c;
		}
	}
	t->phase = TABLE_SORT_PASS;
	t->at = 0;
}

/* The last pass made: the rows in order are where it left them. */
static void passed(struct table_sort *t)
{
	if (t->npass % 2) {
		uint32_t *v = t->o.idx;
		uint64_t *k = t->keys;
		size_t vc = t->o.cap, kc = t->keys_cap;

		t->o.idx = t->tvals;
		t->o.cap = t->tvals_cap;
		t->tvals = v;
		t->tvals_cap = vc;
		t->keys = t->tkeys;
		t->keys_cap = t->tkeys_cap;
		t->tkeys = k;
		t->tkeys_cap = kc;
	}
	t->phase = TABLE_SORT_DONE;
}

/* Rows [from, to) of pass q moved: from keys and o.idx to their copies
 * on even passes, back on odd ones. */
static void move(struct table_sort *t, size_t from, size_t to)
{
	bool even = t->q % 2 == 0;
	const uint64_t *sk = even ? t->keys : t->tkeys;
	const uint32_t *sv = even ? t->o.idx : t->tvals;
	uint64_t *dk = even ? t->tkeys : t->keys;
	uint32_t *dv = even ? t->tvals : t->o.idx;
	size_t *c = t->count[t->q];
	unsigned shift = 8 * t->pass[t->q];

	for (size_t i = from; i < to; i++) {
		size_t at = c[(sk[i] >> shift) & 0xff]++;

		dk[at] = sk[i];
		dv[at] = sv[i];
	}
}

/* Up to budget rows of the phase t is in (at least one). */
static size_t step(struct table_sort *t, const struct window *w, size_t budget)
{
	size_t n = w->nrows, from = t->at;
	size_t to = n - from < budget ? n : from + budget;

	switch (t->phase) {
	case TABLE_SORT_KEYS:
		for (size_t r = from; r < to; r++) {
			uint64_t v = w->rows[r].m.v[t->o.key];

			/* ~v sorts descending; ties stay by row ascending */
			t->keys[r] = t->o.descending ? ~v : v;
			t->o.idx[r] = (uint32_t)r;
			t->diff |= t->keys[r] ^ t->keys[0];
		}
		t->at = to;
		if (to == n)
			keys_read(t, n);
		break;
	case TABLE_SORT_COUNT:
		for (size_t i = from; i < to; i++)
			for (unsigned q = 0; q < t->npass; q++)
				t->count[q][(t->keys[i] >> (8 * t->pass[q])) &
				            0xff]++;
		t->at = to;
		if (to == n)
			counted(t);
		break;
	case TABLE_SORT_PASS:
		move(t, from, to);
		t->at = to;
		if (to < n)
			break;
		t->at = 0;
		if (++t->q == t->npass)
			passed(t);
		break;
	default:
		break;
	}
	return to - from;
}

enum status table_sort_step(struct table_sort *t, const struct window *w,
                            enum metric key, bool descending, size_t budget,
                            bool *done)
{
	*done = false;
	if (!w || (unsigned)key >= METRIC_COUNT || w->nrows > UINT32_MAX)
		return STATUS_INVAL;
	if (t->phase == TABLE_SORT_NONE || !view_tag_holds(&t->tag, w) ||
	    t->o.key != key || t->o.descending != descending) {
		enum status st = start(t, w, key, descending);

		if (st != STATUS_OK)
			return st;
	}
	if (!budget)
		budget = 1;
	while (t->phase != TABLE_SORT_DONE) {
		size_t did = step(t, w, budget);

		if (did >= budget)
			break;
		budget -= did;
	}
	if (t->phase == TABLE_SORT_DONE) {
		t->o.n = w->nrows;
		*done = true;
	}
	return STATUS_OK;
}
