/* The table's order put in place in part (tui/view.c, model/order.c): a
 * key that finds no full order at hand sorts only the positions about the
 * selection's page.  order_range and order_rank give order_build's
 * positions, ties included, for keys wide, narrow, equal and skewed, of
 * every row or of the rows a bitmap keeps; a view, without a filter or
 * with one, shows after any move, weighting, filter, new window or full
 * order adopted exactly what a view that sorts all shows (the same
 * filter with a full order of the window at hand: it picks the rows out
 * of it); and in the viewer, over random keys (the filter's among them)
 * with idle steps before, between and after them and windows arriving
 * mid-way, the page, the selection and the row count are the full sort's. */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "model/order.h"
#include "tests/screen_util.h"
#include "tests/view_util.h"
#include "tui/app.h"
#include "tui/keymap.h"
#include "tui/view.h"

static uint64_t next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* A value of distribution d: wide, a few (ties), all equal, mostly 0. */
static uint64_t value(uint64_t *x, unsigned d)
{
	uint64_t r = next(x);

	switch (d % 4) {
	case 0:
		return r % 5000000000u;
	case 1:
		return 1000 * (r % 4);
	case 2:
		return 7;
	default:
		return r % 10 ? 0 : r % 100000;
	}
}

/* n rows "main;lI" (as vu_commit makes them), idle of distribution d
 * and busy of d + 1, leaves shifted by shift (another window shares
 * most of them). */
static const struct window *commit_n(struct model *m, uint64_t *x, size_t n,
                                     unsigned d, size_t shift)
{
	static char names[2048][8];
	static const char *leaf[2048];
	static uint64_t idle[2048], busy[2048];

	ck_assert_uint_le(n, 2048);
	for (size_t i = 0; i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "l%zu", i + shift);
		leaf[i] = names[i];
		idle[i] = value(x, d);
		busy[i] = value(x, d + 1);
	}
	return vu_commit(m, leaf, idle, busy, n);
}

/* bits[r] set for about one row in three (none, all, for s 1, 2). */
static void random_bits(uint64_t *x, uint64_t *bits, size_t n, int s)
{
	memset(bits, 0, (n + 63) / 64 * sizeof(*bits));
	for (size_t r = 0; r < n; r++)
		if (s == 2 || (s == 0 && next(x) % 3 == 0))
			bits[r / 64] |= (uint64_t)1 << (r % 64);
}

static bool keep_bit(void *ctx, const struct window *w, size_t row)
{
	(void)w;
	return (((const uint64_t *)ctx)[row / 64] >> (row % 64)) & 1;
}

/* The keys of the rows bits keeps (or of every row, one time in two)
 * narrowed to a random part of them (order_keys_narrow): range, rank and
 * sort are order_build's of that part.  The ranges made in part. */
static size_t narrowed(struct order *o, struct order *ref,
                       const struct window *w, enum metric key, bool desc,
                       uint64_t *x, uint64_t *bits)
{
	size_t n = 0, kept = 0, got = 0;

	if (next(x) % 2)
		ck_assert_int_eq(order_keys(o, w, key, desc), STATUS_OK);
	else
		ck_assert_int_eq(order_keys_in(o, w, key, desc, bits),
		                 STATUS_OK);
	for (size_t r = 0; r < w->nrows; r++)
		if (next(x) % 4 == 0)
			bits[r / 64] &= ~((uint64_t)1 << (r % 64));
	for (size_t r = 0; r < w->nrows; r++)
		n += keep_bit(bits, w, r);
	ck_assert_int_eq(order_keys_narrow(o, bits, &kept), STATUS_OK);
	ck_assert_uint_eq(kept, n);
	ck_assert_uint_eq(o->n, n);
	ck_assert_int_eq(order_build(ref, w, key, desc, keep_bit, bits),
	                 STATUS_OK);
	for (int t = 0; n && t < 10; t++) {
		size_t lo = next(x) % n, from = 0, to;
		size_t hi = lo + 1 + next(x) % 64;

		hi = hi < n ? hi : n;
		to = order_range(o, lo, hi, &from);
		if (!to)
			continue;
		got++;
		for (size_t i = from; i < to; i++)
			ck_assert_uint_eq(o->idx[i], ref->idx[i]);
	}
	for (size_t i = 0; i < n; i++)
		ck_assert_uint_eq(order_rank(o, ref->idx[i]), i);
	order_sort(o);
	ck_assert_mem_eq(o->idx, ref->idx, n * sizeof(*o->idx));
	return got;
}

/* order_keys_in of the rows bits keeps (random, none, all for s 0, 1,
 * 2): o's range, rank and sort are order_build's with those rows kept;
 * a row not kept has no rank.  The ranges made in part. */
static size_t subset(struct order *o, struct order *ref, const struct window *w,
                     enum metric key, bool desc, uint64_t *x, uint64_t *bits,
                     int s)
{
	size_t n, got = 0;

	random_bits(x, bits, w->nrows, s);
	ck_assert_int_eq(order_build(ref, w, key, desc, keep_bit, bits),
	                 STATUS_OK);
	ck_assert_int_eq(order_keys_in(o, w, key, desc, bits), STATUS_OK);
	n = o->n;
	ck_assert_uint_eq(n, ref->n);
	for (int t = 0; n && t < 20; t++) {
		size_t lo = next(x) % n, from = 0, to;
		size_t hi = lo + 1 + next(x) % 64;

		hi = hi < n ? hi : n;
		to = order_range(o, lo, hi, &from);
		if (!to)
			continue;
		got++;
		ck_assert_uint_le(from, lo);
		ck_assert_uint_ge(to, hi);
		for (size_t i = from; i < to; i++)
			ck_assert_uint_eq(o->idx[i], ref->idx[i]);
	}
	for (size_t i = 0; i < n; i++)
		ck_assert_uint_eq(order_rank(o, ref->idx[i]), i);
	for (size_t r = 0; r < w->nrows; r++)
		if (!keep_bit(bits, w, r))
			ck_assert_uint_eq(order_rank(o, r), SIZE_MAX);
	order_sort(o);
	ck_assert_mem_eq(o->idx, ref->idx, n * sizeof(*o->idx));
	return got + narrowed(o, ref, w, key, desc, x, bits);
}

START_TEST(range_and_rank_are_the_sort)
{
	struct model *m;
	struct order o, ref;
	uint64_t x = 0x2545F4914F6CDD1Du, bits[2048 / 64];
	size_t in_part = 0, sub_part = 0;

	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	order_init(&o);
	order_init(&ref);
	for (unsigned d = 0; d < 4; d++) {
		size_t n = 300 + next(&x) % 1700;
		const struct window *w = commit_n(m, &x, n, d, 0);

		for (int k = 0; k < 2; k++) {
			for (int desc = 0; desc < 2; desc++) {
				enum metric key = k ? METRIC_BUSY : METRIC_IDLE;

				ck_assert_int_eq(
				    order_build(&ref, w, key, desc, NULL, NULL),
				    STATUS_OK);
				ck_assert_int_eq(order_keys(&o, w, key, desc),
				                 STATUS_OK);
				ck_assert_uint_eq(o.n, n);
				ck_assert_uint_eq(order_rank(&o, n), SIZE_MAX);
				for (int t = 0; t < 20; t++) {
					size_t lo = next(&x) % n, from = 0, to;
					size_t hi = lo + 1 + next(&x) % 64;

					hi = hi < n ? hi : n;
					to = order_range(&o, lo, hi, &from);
					if (!to)
						continue;
					in_part++;
					ck_assert_uint_le(from, lo);
					ck_assert_uint_ge(to, hi);
					ck_assert_uint_le(to - from, n / 4);
					for (size_t i = from; i < to; i++)
						ck_assert_uint_eq(o.idx[i],
						                  ref.idx[i]);
				}
				for (size_t i = 0; i < n; i += 1 + n / 50)
					ck_assert_uint_eq(
					    order_rank(&o, ref.idx[i]), i);
				order_sort(&o);
				ck_assert_mem_eq(o.idx, ref.idx,
				                 n * sizeof(*o.idx));
				for (int s = 0; s < 3; s++)
					sub_part += subset(&o, &ref, w, key,
					                   desc, &x, bits, s);
			}
		}
	}
	/* the wide and narrow keys were selected, not all sorted */
	ck_assert_uint_gt(in_part, 40);
	ck_assert_uint_gt(sub_part, 20);
	order_fini(&o);
	order_fini(&ref);
	model_free(m);
}
END_TEST

/* v (sorted in part) shows what f (the same filter, sorted whole: see
 * build_ref) shows. */
static void same_views(const struct view *v, const struct view *f)
{
	size_t n = v->order.n, end;

	ck_assert_uint_eq(n, f->order.n);
	ck_assert_uint_eq(v->sel, f->sel);
	ck_assert_uint_eq(v->top, f->top);
	if (!n)
		return;
	ck_assert_uint_eq(v->sel_stack, f->sel_stack);
	end = v->top + v->page < n ? v->top + v->page : n;
	ck_assert_uint_le(v->in_lo, v->top);
	ck_assert_uint_ge(v->in_hi, end);
	for (size_t pos = v->top; pos < end; pos++)
		ck_assert_uint_eq(view_row_at(v, pos), view_row_at(f, pos));
	ck_assert_uint_eq(view_row_at(v, v->sel), view_row_at(f, v->sel));
}

/* f built on w as a view that sorts all: the full order of w handed to
 * it first (as the steps between keys do), which a build without a
 * filter takes and one with a filter picks its rows out of. */
static void build_ref(struct view *f, struct order *o, const struct model *m,
                      const struct window *w)
{
	ck_assert_int_eq(
	    order_build(o, w, f->metric, !f->ascending, NULL, NULL), STATUS_OK);
	view_adopt_order(f, w, o);
	ck_assert_int_eq(view_build(f, m, w), STATUS_OK);
	ck_assert(!view_partial(f, w));
}

/* The filters of the test below: hits a third of the rows, fewer, a
 * few, all, none. */
static const char *const filters[] = { "l1", "l2", "l19", "7", "l", "zz" };

START_TEST(a_view_in_part_shows_the_full_sort)
{
	struct model *m;
	struct view v[2], f[2];
	struct order o;
	const struct window *w;
	uint64_t x = 0x9E3779B97F4A7C15u + (uint64_t)_i * 7919u;
	size_t parts[2] = { 0, 0 };

	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	order_init(&o);
	for (int k = 0; k < 2; k++) {
		view_init(&v[k], METRIC_IDLE);
		view_init(&f[k], METRIC_IDLE);
	}
	/* v[0], f[0]: no filter; v[1], f[1]: a filter */
	vu_set_filter(&v[1], "l1");
	vu_set_filter(&f[1], "l1");
	w = commit_n(m, &x, 1500, 0, 0);
	for (int k = 0; k < 2; k++) {
		ck_assert_int_eq(view_build(&v[k], m, w), STATUS_OK);
		build_ref(&f[k], &o, m, w);
	}
	for (int round = 0; round < 400; round++) {
		long page = (long)v[0].page, d = (long)(next(&x) % 3000);
		unsigned op = (unsigned)(next(&x) % 11);
		const char *fl = filters[next(&x) % 6];

		for (int k = 0; k < 2; k++) {
			struct view *a = &v[k], *b = &f[k];

			switch (op) {
			case 0: /* a move of a row or a page, either way */
			case 1:
				d = op ? page : 1;
				d = round % 2 ? d : -d;
				view_move(a, d);
				view_move(b, d);
				break;
			case 2: /* End, or a click anywhere */
				view_select(a, round % 3 ? (size_t)d
				                         : a->order.n - 1);
				view_select(b, round % 3 ? (size_t)d
				                         : b->order.n - 1);
				break;
			case 3: /* the wheel */
				view_scroll(a,
				            round % 2 ? d % 200 : -(d % 200));
				view_scroll(b,
				            round % 2 ? d % 200 : -(d % 200));
				break;
			case 4: /* the terminal resized */
				view_set_page(a, 1 + (size_t)d % 60);
				view_set_page(b, a->page);
				break;
			case 5: /* a weighting key, or I */
				if (round % 3)
					a->metric = a->metric == METRIC_IDLE
					                ? METRIC_BUSY
					                : METRIC_IDLE;
				else
					a->ascending = !a->ascending;
				b->metric = a->metric;
				b->ascending = a->ascending;
				ck_assert_int_eq(view_build(a, m, w),
				                 STATUS_OK);
				build_ref(b, &o, m, w);
				break;
			case 6: /* the full order made between keys, adopted */
				ck_assert_int_eq(order_build(&o, w, a->metric,
				                             !a->ascending,
				                             NULL, NULL),
				                 STATUS_OK);
				view_adopt_order(a, w, &o);
				ck_assert(!view_partial(a, w));
				break;
			case 7: /* another filter */
				if (k) {
					vu_set_filter(a, fl);
					vu_set_filter(b, fl);
				}
				ck_assert_int_eq(view_build(a, m, w),
				                 STATUS_OK);
				build_ref(b, &o, m, w);
				break;
			default: /* the same window again */
				ck_assert_int_eq(view_build(a, m, w),
				                 STATUS_OK);
				build_ref(b, &o, m, w);
				break;
			}
			parts[k] += view_partial(a, w);
			same_views(a, b);
		}
		if (op == 8) { /* a new window, its rows shifted, sizes, ties */
			w = commit_n(m, &x, 260 + next(&x) % 1700,
			             (unsigned)(next(&x) % 4), next(&x) % 300);
			for (int k = 0; k < 2; k++) {
				ck_assert_int_eq(view_build(&v[k], m, w),
				                 STATUS_OK);
				build_ref(&f[k], &o, m, w);
				same_views(&v[k], &f[k]);
			}
		}
	}
	ck_assert_uint_gt(parts[0], 50);
	ck_assert_uint_gt(parts[1], 10); /* fewer rows: sorted all more often */
	for (int k = 0; k < 2; k++) {
		view_complete(&v[k]);
		ck_assert(!view_partial(&v[k], w));
		same_views(&v[k], &f[k]);
		view_fini(&f[k]);
	}
	order_fini(&o);
	view_fini(&v[1]);
	vu_close(m, &v[0]);
}
END_TEST

/* A full order handed to a view showing a filter's hits in part is taken
 * only for the hits the part read: with the match bitmap changed since
 * (one hit fewer), the part stays as it was; as it was, the hits are
 * picked out of it whole. */
START_TEST(hits_of_another_match_are_not_taken)
{
	struct model *m;
	struct view v, f;
	struct order o;
	const struct window *w;
	uint64_t x = 0x5851F42D4C957F2Du;
	size_t in_lo, in_hi, hit;

	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	order_init(&o);
	view_init(&v, METRIC_IDLE);
	view_init(&f, METRIC_IDLE);
	vu_set_filter(&v, "l1");
	vu_set_filter(&f, "l1");
	w = commit_n(m, &x, 1500, 0, 0);
	ck_assert_int_eq(view_build(&v, m, w), STATUS_OK);
	build_ref(&f, &o, m, w);
	ck_assert(view_partial(&v, w));
	in_lo = v.in_lo;
	in_hi = v.in_hi;
	hit = v.order.idx[v.sel];
	v.match[hit / 64] ^= (uint64_t)1 << (hit % 64);
	ck_assert_int_eq(order_build(&o, w, v.metric, !v.ascending, NULL, NULL),
	                 STATUS_OK);
	view_adopt_order(&v, w, &o);
	ck_assert(view_partial(&v, w));
	ck_assert_uint_eq(v.in_lo, in_lo);
	ck_assert_uint_eq(v.in_hi, in_hi);
	same_views(&v, &f);
	v.match[hit / 64] ^= (uint64_t)1 << (hit % 64);
	ck_assert_int_eq(order_build(&o, w, v.metric, !v.ascending, NULL, NULL),
	                 STATUS_OK);
	view_adopt_order(&v, w, &o);
	ck_assert(!view_partial(&v, w));
	ck_assert_uint_eq(v.order.n, f.order.n);
	ck_assert_mem_eq(v.order.idx, f.order.idx,
	                 f.order.n * sizeof(*f.order.idx));
	order_fini(&o);
	view_fini(&f);
	vu_close(m, &v);
}
END_TEST

/* A window of n stacks of 2 or 3 frames out of a few, a task name out of
 * three, each parked at one of a few stacks; values with ties. */
static void commit_app(struct app *a, uint64_t *x, size_t n, int64_t start)
{
	static const char *const names[] = { "worker", "fetch", "retry" };
	static const char *const waits[] = { "asyncio:sleep:1", "lock:acq:2",
		                             "queue:get:3", "io:read:4" };
	struct sample *s = calloc(n, sizeof(*s));
	struct strview *f = calloc(3 * n, sizeof(*f));
	struct strview *pk = calloc(n, sizeof(*pk));
	char(*leaf)[24] = calloc(n, sizeof(*leaf));
	struct window_meta meta = { .time_nanos = start,
		                    .duration_nanos = 5 * SEC };
	unsigned d = (unsigned)(next(x) % 4);

	ck_assert(s && f && pk && leaf);
	for (size_t i = 0; i < n; i++) {
		size_t depth = 2 + next(x) % 2;

		snprintf(leaf[i], sizeof(leaf[i]), "h:%zu", next(x) % (2 * n));
		f[3 * i] = sv_c("app:main:1");
		f[3 * i + 1] = sv_c(next(x) % 2 ? "pool:run:7" : "db:q:2");
		f[3 * i + depth - 1] = sv_c(leaf[i]);
		pk[i] = sv_c(waits[next(x) % 4]);
		s[i].frames = f + 3 * i;
		s[i].depth = depth;
		s[i].task = sv_c(names[next(x) % 3]);
		s[i].tasks = 1 + next(x) % 3;
		s[i].parked = pk + i;
		s[i].parked_depth = 1;
		for (int k = 0; k < METRIC_COUNT; k++)
			s[i].m.v[k] = value(x, d + (unsigned)k) + 1;
	}
	ck_assert_int_eq(app_commit(a, s, n, &meta), STATUS_OK);
	free(s);
	free(f);
	free(pk);
	free(leaf);
}

static bool keep_match(void *ctx, const struct window *w, size_t row)
{
	const struct view *v = ctx;

	return view_row_matches(v->m, w, row, v->filter, v->filter_len);
}

/* The table's page, selection and row count are the full sort's (of the
 * rows the filter keeps); true when v held only a part. */
static bool check_page(struct app *a)
{
	const struct window *w = app_shown(a);
	struct view *v = &a->v;
	struct order ref;
	size_t end;
	bool part;

	if (a->body != APP_BODY_TABLE || !w || w->empty)
		return false;
	order_init(&ref);
	ck_assert_int_eq(
	    order_build(&ref, w, v->metric, !v->ascending, keep_match, v),
	    STATUS_OK);
	ck_assert_uint_eq(v->order.n, ref.n);
	if (!ref.n) {
		order_fini(&ref);
		return false;
	}
	ck_assert_uint_lt(v->sel, ref.n);
	end = v->top + v->page < ref.n ? v->top + v->page : ref.n;
	for (size_t pos = v->top; pos < end; pos++)
		ck_assert_uint_eq(view_row_at(v, pos), ref.idx[pos]);
	ck_assert_uint_eq(view_row_at(v, v->sel), ref.idx[v->sel]);
	part = view_partial(v, w);
	order_fini(&ref);
	return part;
}

START_TEST(keys_before_during_and_after_the_steps)
{
	static const int keys[] = {
		'1',   '2',    '5',     'I',     'a',    'n',     '=',
		't',   KC_ESC, KC_PGDN, KC_PGUP, KC_END, KC_HOME, KC_DOWN,
		KC_UP, '[',    ']',     'L',     KC_ESC, KC_PGDN
	};
	/* filters typed at once, now and then (none, one time in three):
	 * hits about a third of the rows, some, all of them */
	static const char *const typed[] = { "/h:1", "/fetch", "/:2", "/h:" };
	struct app a;
	struct screen scr;
	uint64_t x = 0xD1B54A32D192ED03u;
	size_t parts = 0, finished = 0, filtered = 0;

	su_app(&a);
	ck_assert_int_eq(screen_init(&scr, 80, 24), STATUS_OK);
	commit_app(&a, &x, 1200, T0);
	for (int round = 0; round < 500; round++) {
		int key = keys[next(&x) % (sizeof(keys) / sizeof(keys[0]))];
		const char *t = typed[next(&x) % 4];
		bool was = view_partial(&a.v, app_shown(&a));

		a.idle_rows = 1 + next(&x) % 600;
		/* the operator's pause: none, a few steps, or all of them;
		 * now and then a window arriving mid-way */
		for (size_t i = next(&x) % 3 ? next(&x) % 6 : 1000;
		     i > 0 && app_idle_pending(&a); i--) {
			app_idle(&a);
			if (next(&x) % 40 == 0)
				commit_app(&a, &x, 300 + next(&x) % 1500,
				           T0 + round * 5 * SEC);
		}
		finished += was && !view_partial(&a.v, app_shown(&a));
		if (round % 4 == 0) {
			/* Esc out of the prompt, the view, the filter */
			for (int i = 0; i < 4 && (a.v.filter_len ||
			                          a.body != APP_BODY_TABLE);
			     i++)
				(void)app_key(&a, KC_ESC);
			for (t = next(&x) % 3 ? t : ""; *t; t++)
				(void)app_key(&a, (unsigned char)*t);
			if (a.editing)
				(void)app_key(&a, KC_ENTER);
		} else {
			(void)app_key(&a, key);
		}
		ck_assert_int_eq(app_render(&a, &scr), STATUS_OK);
		if (check_page(&a)) {
			parts++;
			filtered += a.v.filter_len > 0;
		}
	}
	/* keys answered in part, with a filter and without, and the steps
	 * finished such sorts */
	ck_assert_uint_gt(parts - filtered, 10);
	ck_assert_uint_gt(filtered, 10);
	ck_assert_uint_gt(finished, 5);
	screen_fini(&scr);
	app_fini(&a);
}
END_TEST

Suite *suite_view_part(void);
Suite *suite_view_part(void)
{
	Suite *s = suite_create("view_part");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, range_and_rank_are_the_sort);
	tcase_add_loop_test(tc, a_view_in_part_shows_the_full_sort, 0, 3);
	tcase_add_test(tc, hits_of_another_match_are_not_taken);
	tcase_add_test(tc, keys_before_during_and_after_the_steps);
	suite_add_tcase(s, tc);
	return s;
}
