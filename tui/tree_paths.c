/* The tree's sets of paths: a sorted array, a batch merged in at once. */
#include "tui/tree_paths.h"

#include <stdlib.h>
#include <string.h>

#include "model/alloc.h"

void tree_paths_init(struct tree_paths *s, size_t max)
{
	memset(s, 0, sizeof(*s));
	s->max = max;
}

void tree_paths_fini(struct tree_paths *s)
{
	mem_free(s->v);
	mem_free(s->tmp);
	tree_paths_init(s, s->max);
}

void tree_paths_clear(struct tree_paths *s)
{
	s->n = s->sorted = 0;
}

/* Where path is, or would go, in the sorted v[0 .. sorted). */
static size_t at(const struct tree_paths *s, uint64_t path)
{
	size_t lo = 0, hi = s->sorted;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->v[mid] < path)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool tree_paths_has(const struct tree_paths *s, uint64_t path)
{
	size_t i = at(s, path);

	if (i < s->sorted && s->v[i] == path)
		return true;
	for (i = s->sorted; i < s->n; i++)
		if (s->v[i] == path)
			return true;
	return false;
}

bool tree_paths_add(struct tree_paths *s, uint64_t path)
{
	size_t i = at(s, path);

	if (i < s->sorted && s->v[i] == path)
		return true;
	if (s->n >= s->max ||
	    mem_grow(&s->v, &s->cap, s->n + 1, sizeof(*s->v)) ||
	    mem_grow(&s->tmp, &s->tmp_cap, s->n + 1, sizeof(*s->tmp)))
		return false;
	s->v[s->n++] = path;
	return true;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

void tree_paths_settle(struct tree_paths *s)
{
	size_t k = s->n - s->sorted, end = s->n, i = k, j = 0, out = 0;

	if (!k)
		return;
	/* the batch sorted into tmp and the sorted part moved up by k, then
	 * both merged into v from the front: out never passes i, so nothing
	 * is overwritten before it is read */
	memcpy(s->tmp, s->v + s->sorted, k * sizeof(*s->tmp));
	qsort(s->tmp, k, sizeof(*s->tmp), cmp_u64);
	memmove(s->v + k, s->v, s->sorted * sizeof(*s->v));
	while (i < end || j < k) {
		uint64_t x = j == k || (i < end && s->v[i] <= s->tmp[j])
		                 ? s->v[i++]
		                 : s->tmp[j++];

		if (!out || s->v[out - 1] != x)
			s->v[out++] = x;
	}
	s->n = s->sorted = out;
}

void tree_paths_forget(struct tree_paths *s, uint64_t path)
{
	size_t i;

	tree_paths_settle(s);
	i = at(s, path);
	if (i < s->sorted && s->v[i] == path) {
		memmove(s->v + i, s->v + i + 1, (s->n - i - 1) * sizeof(*s->v));
		s->n--;
		s->sorted--;
	}
}
