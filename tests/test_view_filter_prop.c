/* Property: the filter's fast paths (the index of tui/view_search.c, and
 * what it keeps from key to key and window to window; and the scan without
 * it of a key that finds the index far from built, keys pasted at once)
 * keep exactly the rows that view_row_matches, the straightforward
 * matcher, keeps: on random
 * windows sharing and churning stacks, under random keys typed and erased,
 * with case folding, UTF-8 (whole, cut, stray bytes), hostile names
 * (control bytes, names cut at the model's bound), several task names per
 * row, the grouping split by name, and ids far apart; with the index
 * built in part between keys, before the filter's first key or after it
 * (its sort of the rows in parts too; then a key, which scans or builds
 * on from there, or a new window, the other one evicted or not).
 * The maps of ids under the index are checked against a plain array. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "tests/util.h"
#include "tests/view_util.h"
#include "tui/view.h"
#include "tui/view_idmap.h"
#include "tui/view_search.h"

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Pieces of names and filters: ASCII of both cases, letters that fold in
 * two bytes, a lead or continuation byte alone, three bytes, controls. */
static const char *const piece[] = {
	"a",        "A",        "k",
	"K",        "_",        ":",
	"\xC3\xA4", "\xC3\x84", "\xC3",
	"\x84",     "\xCF\x83", "\xCE\xA3",
	"\xCF\x82", "\xD0\x96", "\xD0\xB6",
	"\xD4\xB1", "\xD5\xA1", "\xE6\x97\xA5",
	"\x01",     "\x7F",     "\xFF",
	" ",        "Z",        "[",
	"@",
};
#define NPIECE (sizeof(piece) / sizeof(piece[0]))

/* Up to max bytes of 1 .. pieces random pieces into out (NUL-ended). */
static void word(uint64_t *x, char *out, size_t max, size_t pieces)
{
	size_t len = 0, n = 1 + rnd(x) % pieces;

	for (size_t i = 0; i < n; i++) {
		const char *p = piece[rnd(x) % NPIECE];
		size_t pl = strlen(p);

		if (len + pl >= max)
			break;
		memcpy(out + len, p, pl);
		len += pl;
	}
	out[len] = '\0';
}

/* qsort's order for check_rows: by the weighting, ties by row. */
static const struct view *by_view;

static int by_key(const void *pa, const void *pb)
{
	const struct window *w = by_view->w;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	uint64_t ka = w->rows[a].m.v[by_view->metric];
	uint64_t kb = w->rows[b].m.v[by_view->metric];

	if (ka != kb)
		return (ka < kb) == by_view->ascending ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* The rows v keeps are those view_row_matches keeps, in the weighting's
 * order (ties by row): the positions in place (all, or those about the
 * page of a build that found no full order) are the full sort's. */
static void check_rows(const struct view *v)
{
	const struct window *w = v->w;
	uint32_t *want;
	size_t n = 0, end;

	if (w->nrows <= 2048) {
		(void)vu_check_rows(v);
		return;
	}
	want = malloc(w->nrows * sizeof(*want));
	ck_assert_ptr_nonnull(want);
	for (size_t r = 0; r < w->nrows; r++)
		if (view_row_matches(v->m, w, r, v->filter, v->filter_len))
			want[n++] = (uint32_t)r;
	by_view = v;
	qsort(want, n, sizeof(*want), by_key);
	ck_assert_uint_eq(v->order.n, n);
	end = n < v->top + v->page ? n : v->top + v->page;
	ck_assert_uint_le(v->in_lo, v->top);
	ck_assert_uint_ge(v->in_hi, end);
	ck_assert(!n || (v->sel >= v->in_lo && v->sel < v->in_hi));
	for (size_t i = v->in_lo; i < n && i < v->in_hi; i++)
		ck_assert_uint_eq(v->order.idx[i], want[i]);
	free(want);
}

/* Filter keys answered by a scan without the index, and with it. */
static size_t scanned, indexed;

static void build_check(struct view *v, const struct model *m,
                        const struct window *w)
{
	bool far = v->filter_len && (!v->ix || view_index_far(v->ix, m, w));
	bool before = v->ix && view_index_scanned(v->ix, m, w);

	ck_assert_int_eq(view_build(v, m, w), STATUS_OK);
	check_rows(v);
	/* a key far from the index took the scan, and only such a key */
	if (far) {
		ck_assert(view_index_scanned(v->ix, m, w));
		scanned++;
	} else if (v->filter_len) {
		ck_assert(!v->ix || view_index_scanned(v->ix, m, w) == before);
		indexed++;
	}
}

/* The frames of stacks: a pool the stacks share. */
#define NFRAME 160
#define NNAME  24

struct pools {
	char frame[NFRAME][40];
	char name[NNAME][24];
};

/* Stack j's frames (root first, 1 .. 6 of them) and a leaf of its own
 * one time in three; the same j gives the same stack. */
static size_t stack_of(const struct pools *p, size_t j, struct strview *f,
                       char *leaf, size_t size)
{
	uint64_t x = 0x9E3779B97F4A7C15u ^ (j * 0xBF58476D1CE4E5B9u);
	size_t d = 1 + rnd(&x) % 6;

	for (size_t k = 0; k < d; k++)
		f[k] = sv_c(p->frame[rnd(&x) % NFRAME]);
	if (rnd(&x) % 3 == 0) {
		snprintf(leaf, size, "%sLeaf_%zu", p->frame[j % NFRAME], j);
		f[d++] = sv_c(leaf);
	}
	return d;
}

/* A window of n rows, stacks from..from + span (drawn at random), each
 * with 1 .. 3 task names of the pool. */
static const struct window *commit(struct model *m, const struct pools *p,
                                   uint64_t *x, size_t n, size_t from,
                                   size_t span)
{
	const struct window *w = NULL;

	ck_assert_int_eq(model_begin(m), STATUS_OK);
	for (size_t i = 0; i < n; i++) {
		struct strview f[8];
		char leaf[96];
		size_t d =
		    stack_of(p, from + rnd(x) % span, f, leaf, sizeof(leaf));
		size_t tasks = 1 + rnd(x) % 3;

		for (size_t k = 0; k < tasks; k++) {
			struct sample s;
			enum status st;

			memset(&s, 0, sizeof(s));
			s.frames = f;
			s.depth = d;
			s.task = sv_c(p->name[rnd(x) % NNAME]);
			s.m.v[METRIC_IDLE] = 1 + rnd(x) % 1000;
			s.m.v[METRIC_BUSY] = 1 + rnd(x) % 1000;
			s.tasks = 1;
			st = model_add(m, &s);
			ck_assert(st == STATUS_OK || st == STATUS_LIMIT);
		}
	}
	ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
	return w;
}

/* The next filter: a piece typed, one or more erased, or a part of a
 * frame, its case flipped here and there. */
static void next_filter(uint64_t *x, const struct pools *p, char *f,
                        size_t size)
{
	size_t len = strlen(f), r = rnd(x) % 10;

	if (r < 4 && len) {
		f[len - 1 - rnd(x) % len] = '\0';
	} else if (r < 8) {
		const char *pc = piece[rnd(x) % NPIECE];

		if (len + strlen(pc) < size)
			memcpy(f + len, pc, strlen(pc) + 1);
	} else {
		const char *fr = p->frame[rnd(x) % NFRAME];
		size_t fl = strlen(fr), at = fl ? rnd(x) % fl : 0;
		size_t n = fl - at < 6 ? fl - at : 1 + rnd(x) % 6;

		memcpy(f, fr + at, n);
		f[n] = '\0';
		for (size_t i = 0; i < n; i++)
			if (rnd(x) % 2 && f[i] >= 'a' && f[i] <= 'z')
				f[i] = (char)(f[i] - 32);
	}
}

/* The work between keys on w: none, a few steps of a few frames each (a
 * part of the index), or steps until it is whole, which it then is. */
static size_t idle_partial; /* times the index was left in part */

static void idle_steps(struct view *v, const struct model *m,
                       const struct window *w, uint64_t *x)
{
	size_t how = rnd(x) % 3, n = 1 + rnd(x) % 4, i = 0;

	if (!how)
		return;
	while (view_idle_wanted(v, m, w) && (how == 2 || i < n)) {
		ck_assert_int_eq(view_idle_step(v, m, w, 1 + rnd(x) % 300),
		                 STATUS_OK);
		ck_assert_uint_lt(++i, 100000);
	}
	if (how == 2)
		ck_assert(!view_idle_wanted(v, m, w));
	else if (i > 1 && view_idle_wanted(v, m, w))
		idle_partial++;
}

START_TEST(view_filter_prop_random_windows)
{
	struct model_limits lim;
	struct pools *p = calloc(1, sizeof(*p));
	uint64_t x = 0x2545F4914F6CDD1Du + (uint64_t)_i * 7919u;
	char f[48] = "";
	struct model *m;
	struct view v;

	ck_assert_ptr_nonnull(p);
	model_limits_default(&lim);
	lim.max_name = 32; /* longer names are cut, UTF-8 or not */
	/* two of the runs keep two windows: a window whose index was begun
	 * goes while another is indexed */
	if (_i >= 2)
		lim.max_windows = 2;
	ck_assert_int_eq(model_new(&lim, &m), STATUS_OK);
	for (size_t i = 0; i < NFRAME; i++)
		word(&x, p->frame[i], sizeof(p->frame[i]), 9);
	for (size_t i = 0; i < NNAME; i++)
		word(&x, p->name[i], sizeof(p->name[i]), 4);
	view_init(&v, METRIC_IDLE);
	for (size_t k = 0; k < 24; k++) {
		/* the stacks drift: some stay, some go, some come */
		const struct window *w =
		    commit(m, p, &x, 100 + rnd(&x) % 400, k * 40, 600);

		/* a part of its index between keys, then, one time in
		 * three, a new window before the next key */
		idle_steps(&v, m, w, &x);
		if (rnd(&x) % 3 == 0) {
			w = commit(m, p, &x, 100 + rnd(&x) % 400, k * 40 + 20,
			           600);
			idle_steps(&v, m, w, &x);
		}
		/* the filter of the last window, on this one */
		vu_set_filter(&v, f);
		build_check(&v, m, w);
		for (size_t step = 0; step < 12; step++) {
			next_filter(&x, p, f, sizeof(f));
			vu_set_filter(&v, f);
			/* between keys (the index is whole unless the
			 * filter is empty) */
			idle_steps(&v, m, w, &x);
			build_check(&v, m, w);
		}
		if (k % 4 == 3) {
			const struct window *g;
			struct grouping by = { .key = GROUP_SPAWN,
				               .by_name = true };

			ck_assert_int_eq(model_group(m, w, by, &g), STATUS_OK);
			idle_steps(&v, m, g, &x);
			build_check(&v, m, g);
			next_filter(&x, p, f, sizeof(f));
			vu_set_filter(&v, f);
			build_check(&v, m, g);
			build_check(&v, m, w);
			model_group_free(g);
		}
	}
	/* past the sort, some rows and not all */
	ck_assert_uint_gt(idle_partial, 0);
	/* the index answered (a scan, when a key finds it far from built:
	 * a seed's chance here, view_filter_prop_pasted's own case) */
	ck_assert_uint_gt(indexed, 0);
	view_fini(&v);
	model_free(m);
	free(p);
}
END_TEST

/* The scan alone (view_index_scan), on the rows a random bit set names,
 * or on every row: each row it looks at gets view_row_matches's answer,
 * the others keep their bit. */
static void scan_check(const struct model *m, const struct window *w,
                       const char *f, uint64_t *x)
{
	size_t words = (w->nrows + 63) / 64, len = strlen(f);
	uint64_t *bits = calloc(words, sizeof(*bits));
	uint64_t *was = calloc(words, sizeof(*was));
	char fold[48];
	struct view_index *ix;

	ck_assert_ptr_nonnull(bits);
	ck_assert_ptr_nonnull(was);
	ck_assert_int_eq(view_index_new(&ix), STATUS_OK);
	vsearch_fold_span(sv_c(f), 0, len, fold);
	for (int how = VSEARCH_ALL; how <= VSEARCH_CLEAR; how++) {
		for (size_t i = 0; i < words; i++)
			bits[i] = was[i] = how == VSEARCH_ALL ? 0 : rnd(x);
		ck_assert_int_eq(view_index_scan(ix, m, w, fold, len, bits,
		                                 (enum vsearch_rows)how),
		                 STATUS_OK);
		for (size_t r = 0; r < w->nrows; r++) {
			bool b = vsearch_bit(was, r),
			     looked = how == VSEARCH_ALL ||
			              (how == VSEARCH_SET) == b;

			ck_assert_int_eq(
			    vsearch_bit(bits, r),
			    looked ? view_row_matches(m, w, r, f, len) : b);
		}
	}
	view_index_free(ix);
	free(bits);
	free(was);
}

/* Keys pasted after '/' (no step between them): each new viewer's first
 * key is answered by a scan of the window without the index (from
 * nothing, or beside a build that steps began), the next one builds the
 * index, and the rows are those of view_row_matches; then the steps build
 * what is left and the keys use it.  Over windows of deep stacks sharing
 * prefixes (a hit there, or a miss, is the next row's too), split by name
 * (rows of one stack), and more rows than the scan's slots of frames; the
 * scan alone on the rows a narrowed or widened filter looks at too. */
START_TEST(view_filter_prop_pasted)
{
	struct model_limits lim;
	struct pools *p = calloc(1, sizeof(*p));
	uint64_t x = 0x9FB21C651E98DF25u + (uint64_t)_i * 104729u;
	struct model *m;

	ck_assert_ptr_nonnull(p);
	model_limits_default(&lim);
	lim.max_name = 32;
	ck_assert_int_eq(model_new(&lim, &m), STATUS_OK);
	for (size_t i = 0; i < NFRAME; i++)
		word(&x, p->frame[i], sizeof(p->frame[i]), 9);
	for (size_t i = 0; i < NNAME; i++)
		word(&x, p->name[i], sizeof(p->name[i]), 4);
	scanned = indexed = 0;
	for (size_t k = 0; k < 6; k++) {
		/* a large window now and then: its frames outnumber the
		 * scan's slots */
		size_t n = k % 3 == 2 ? 12000 : 200 + rnd(&x) % 800;
		const struct window *w =
		    commit(m, p, &x, n, k * 500, k % 3 == 2 ? 20000 : 900);
		const struct window *g = NULL;
		struct grouping by = { .key = GROUP_SPAWN, .by_name = true };
		char f[48] = "";
		struct view v;

		if (k % 2) {
			ck_assert_int_eq(model_group(m, w, by, &g), STATUS_OK);
			w = g;
		}
		view_init(&v, METRIC_IDLE);
		ck_assert_int_eq(view_build(&v, m, w), STATUS_OK);
		/* a build begun by a few steps, one time in three */
		for (size_t i = 0, s = rnd(&x) % 3 ? 0 : 2; i < s; i++)
			ck_assert_int_eq(view_idle_step(&v, m, w, 16),
			                 STATUS_OK);
		for (size_t key = 0; key < 10; key++) {
			next_filter(&x, p, f, sizeof(f));
			vu_set_filter(&v, f);
			build_check(&v, m, w);
			if (key < 3 && f[0])
				scan_check(m, w, f, &x);
		}
		while (view_idle_wanted(&v, m, w))
			ck_assert_int_eq(view_idle_step(&v, m, w, 4096),
			                 STATUS_OK);
		for (size_t key = 0; key < 4; key++) {
			next_filter(&x, p, f, sizeof(f));
			vu_set_filter(&v, f);
			build_check(&v, m, w);
		}
		view_fini(&v);
		if (g)
			model_group_free(g);
	}
	ck_assert_uint_ge(scanned, 3);
	ck_assert_uint_gt(indexed, 30);
	model_free(m);
	free(p);
}
END_TEST

/* A window of n stacks "root; S<j>_<tag>" for j in js (or 0 .. n - 1),
 * task "t<j>". */
static const struct window *commit_ids(struct model *m, const size_t *js,
                                       size_t n, const char *tag)
{
	const struct window *w = NULL;

	ck_assert_int_eq(model_begin(m), STATUS_OK);
	for (size_t i = 0; i < n; i++) {
		size_t j = js ? js[i] : i;
		char leaf[48], task[24];
		struct strview f[2];
		struct sample s;

		snprintf(leaf, sizeof(leaf), "S%zu_%s", j, tag);
		snprintf(task, sizeof(task), "t%zu", j % 977);
		f[0] = sv_c("root");
		f[1] = sv_c(leaf);
		memset(&s, 0, sizeof(s));
		s.frames = f;
		s.depth = 2;
		s.task = sv_c(task);
		s.m.v[METRIC_IDLE] = 1 + j;
		s.tasks = 1;
		ck_assert_int_eq(model_add(m, &s), STATUS_OK);
	}
	ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
	return w;
}

/* Stacks met far apart (every 301st of 60,000 ids): the index starts over
 * on ids its pages cannot hold densely, and still keeps the right rows. */
START_TEST(view_filter_prop_sparse_ids)
{
	static const char *const fs[] = { "S1",  "s12", "S12_",   "T9",
		                          "_a",  "_B",  "ROOT",   "s2",
		                          "zzz", "1_",  "s59701", "t1" };
	size_t js[400], n = 0;
	struct model *m;
	struct view v;
	const struct window *w;

	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	view_init(&v, METRIC_IDLE);
	w = commit_ids(m, NULL, 60000, "a");
	vu_set_filter(&v, "s5999");
	build_check(&v, m, w);
	ck_assert_uint_eq(v.order.n, 11);
	for (size_t j = 0; j < 60000 && n < 400; j += 301)
		js[n++] = j;
	w = commit_ids(m, js, n, "a");
	for (size_t i = 0; i < sizeof(fs) / sizeof(fs[0]); i++) {
		vu_set_filter(&v, fs[i]);
		build_check(&v, m, w);
	}
	/* new ids on top of the sparse ones, then the sparse ones alone */
	w = commit_ids(m, js, n, "b");
	for (size_t i = 0; i < sizeof(fs) / sizeof(fs[0]); i++) {
		vu_set_filter(&v, fs[i]);
		build_check(&v, m, w);
	}
	vu_set_filter(&v, "_B");
	build_check(&v, m, w);
	ck_assert_uint_eq(v.order.n, n);
	view_fini(&v);
	model_free(m);
}
END_TEST

/* The map of ids gives back what was set, dense or sparse, with pages
 * only while they are well filled. */
START_TEST(view_filter_prop_idmap)
{
	enum { N = 20000 };
	static uint32_t id[N], val[N];
	struct view_map mp;
	uint64_t x = 0x853C49E6748FEA9Bu;

	memset(&mp, 0, sizeof(mp));
	for (int round = 0; round < 3; round++) {
		for (size_t i = 0; i < N; i++) {
			uint32_t *e;
			bool again;

			/* dense runs, then ids far apart, then anywhere */
			id[i] = round == 0 ? (uint32_t)(5000000 - i)
			        : round == 1
			            ? (uint32_t)(1 + i * 4099)
			            : (uint32_t)(1 + rnd(&x) % 0xFFFFFFFEu);
			e = vmap_at(&mp, id[i]);
			ck_assert_ptr_nonnull(e);
			again = *e != 0;
			if (!again) {
				*e = (uint32_t)i + 1;
				mp.n++;
			}
			val[i] = *e;
		}
		for (size_t i = 0; i < N; i++) {
			uint32_t *e = vmap_at(&mp, id[i]);

			ck_assert_ptr_nonnull(e);
			ck_assert_uint_eq(*e, val[i]);
		}
		ck_assert_uint_le(mp.live, mp.n / 128 + 64);
		ck_assert_uint_le(mp.npage, 2 * (mp.n / 8 + 4096));
		vmap_clear(&mp);
		ck_assert_uint_eq(mp.live, 0);
	}
	vmap_fini(&mp);
}
END_TEST

Suite *suite_view_filter_prop(void);
Suite *suite_view_filter_prop(void)
{
	Suite *s = suite_create("view_filter_prop");
	TCase *tc = tcase_create("prop");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, view_filter_prop_random_windows, 0, 4);
	tcase_add_loop_test(tc, view_filter_prop_pasted, 0, TU_PROP_RUNS(3));
	tcase_add_test(tc, view_filter_prop_sparse_ids);
	tcase_add_test(tc, view_filter_prop_idmap);
	suite_add_tcase(s, tc);
	return s;
}
