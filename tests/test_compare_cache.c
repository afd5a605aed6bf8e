/* The viewer's shortcuts against the full derivation, on random windows:
 * the groupings it holds (tui/grouped.c) read as model_group derives them
 * afresh, for the shown window and compare's base, under every grouping,
 * against the previous window and a marked one, while the history evicts;
 * and compare's rows selected for a page are, in order, the first rows of
 * the full sort; the same with compare's rows paired a step at a time
 * between keys. */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "model/alloc.h"
#include "model/model.h"
#include "tests/model_util.h"
#include "tests/screen_util.h"
#include "tests/util.h"
#include "tui/app.h"
#include "tui/grouped.h"
#include "tui/keymap.h"
#include "tui/view_compare.h"

static uint64_t next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* The same rows: stacks, names, sums and entries. */
static void same_window(const struct window *a, const struct window *b)
{
	ck_assert_uint_eq(a->nrows, b->nrows);
	ck_assert_uint_eq(a->nentries, b->nentries);
	ck_assert(grouping_eq(a->group, b->group));
	for (size_t r = 0; r < a->nrows; r++) {
		const struct fold_row *x = &a->rows[r], *y = &b->rows[r];

		ck_assert_uint_eq(x->stack, y->stack);
		ck_assert_uint_eq(x->name, y->name);
		ck_assert_uint_eq(x->first, y->first);
		ck_assert_uint_eq(x->count, y->count);
		ck_assert_uint_eq(x->tasks, y->tasks);
		ck_assert_mem_eq(&x->m, &y->m, sizeof(x->m));
	}
	for (size_t i = 0; i < a->nentries; i++) {
		ck_assert_uint_eq(a->entries[i].stack, b->entries[i].stack);
		ck_assert_uint_eq(a->entries[i].parked, b->entries[i].parked);
		ck_assert_uint_eq(a->entries[i].name, b->entries[i].name);
	}
}

/* The first n rows of c's order are those of ref's, in the same order. */
static void same_order(const struct compare *c, const struct compare *ref,
                       size_t n)
{
	ck_assert_uint_eq(c->n, ref->n);
	ck_assert_uint_le(n, c->sorted);
	for (size_t i = 0; i < n; i++) {
		const struct cmp_row *x = &c->rows[c->order[i]];
		const struct cmp_row *y = &ref->rows[ref->order[i]];

		ck_assert_uint_eq(c->order[i], ref->order[i]);
		ck_assert_uint_eq(x->stack, y->stack);
		ck_assert_uint_eq(x->name, y->name);
		ck_assert_uint_eq(x->now, y->now);
		ck_assert_uint_eq(x->then, y->then);
		ck_assert_uint_eq(x->mag, y->mag);
		ck_assert_int_eq(x->fall, y->fall);
	}
}

/* A window of up to SU_ROWS samples: stacks of 1 to 3 frames out of a
 * few, so rows come and go between windows; a few names; parked-at stacks
 * or none; values out of a few, so changes tie. */
static void commit_random(struct app *a, uint64_t *x, int64_t start)
{
	static const char *const fr[] = { "app:main:1", "pool:run:7",
		                          "db:query:12", "net:read:3",
		                          "lock:wait:9" };
	static const char *const names[] = { "worker", "fetch", "", "retry" };
	static const char *const waits[] = { "asyncio:sleep:1", "lock:acq:2",
		                             "queue:get:3" };
	struct su_row rows[SU_ROWS];
	struct su_more more[SU_ROWS];
	size_t n = 1 + next(x) % SU_ROWS;

	memset(rows, 0, sizeof(rows));
	memset(more, 0, sizeof(more));
	for (size_t i = 0; i < n; i++) {
		size_t d = 1 + next(x) % 3;

		for (size_t k = 0; k < d; k++)
			rows[i].frames[k] = fr[next(x) % 5];
		rows[i].task = names[next(x) % 4];
		rows[i].tasks = 1 + next(x) % 3;
		for (int m = 0; m < METRIC_COUNT; m++)
			rows[i].v[m] = (next(x) % 4) * 1000000;
		if (next(x) % 4) {
			more[i].parked[0] = waits[next(x) % 3];
			more[i].parked[1] = next(x) % 2 ? "lock:inner:5" : NULL;
		}
	}
	su_commit_more(a, rows, more, n, start);
}

/* An app as su_app makes it, with a history of three windows, so that
 * windows, the marked one among them, leave it. */
static void app_short(struct app *a)
{
	struct app_opts o;

	memset(&o, 0, sizeof(o));
	o.prog = "asynctop";
	o.adapter = "toyexec";
	o.endpoint = "sim://prop";
	o.window_ns = 5 * SEC;
	o.refresh_ns = SEC;
	o.save_dir = ".";
	o.history = 3;
	o.events = -1;
	ck_assert_int_eq(app_init(a, &o), STATUS_OK);
	app_set_now(a, 1000 * SEC);
}

/* The window compare should take as the base of the kept window w: the
 * marked one, else the one before w; NULL for none. */
static const struct window *base_of(const struct app *a, const struct window *w)
{
	const struct model *m = a->m;
	const struct window *b =
	    a->mark_seq != w->seq ? model_window_seq(m, a->mark_seq) : NULL;

	return b ? b : model_window_seq(m, w->seq - 1);
}

/* What a holds agrees with the full derivation: the shown window, every
 * grouping held (its window still kept), and compare's base and order. */
static void check_app(struct app *a)
{
	const struct model *m = a->m;
	const struct window *kept = app_kept(a), *fresh, *base, *b;
	struct compare ref;

	for (size_t i = 0; i < GROUPED_SLOTS; i++) {
		const struct grouped_slot *s = &a->grouped.slot[i];

		if (!s->w)
			continue;
		ck_assert_ptr_eq(model_window_seq(s->m, s->seq), s->src);
		ck_assert_int_eq(model_group(s->m, s->src, s->g, &fresh),
		                 STATUS_OK);
		same_window(s->w, fresh);
		model_group_free(fresh);
	}
	ck_assert_ptr_nonnull(kept);
	ck_assert_int_eq(model_group(m, kept, a->group, &fresh), STATUS_OK);
	same_window(app_shown(a), fresh);
	b = base_of(a, kept);
	if (a->body != APP_BODY_COMPARE || !b) {
		model_group_free(fresh);
		return;
	}
	ck_assert(a->cmp.built);
	ck_assert_uint_eq(a->cmp.cur_seq, kept->seq);
	ck_assert_uint_eq(a->cmp.base_seq, b->seq);
	ck_assert_int_eq(model_group(m, b, a->group, &base), STATUS_OK);
	same_window(a->cmp.base, base);
	compare_init(&ref);
	ck_assert_int_eq(
	    compare_build(&ref, m, fresh, base, a->v.metric, a->v.ascending),
	    STATUS_OK);
	same_order(&a->cmp, &ref, a->cmp.sorted);
	compare_fini(&ref);
	model_group_free(base);
	model_group_free(fresh);
}

START_TEST(held_groupings_are_the_full_derivation)
{
	static const int keys[] = { 'a', 'n', '[', ']', 'm',     '=',    KC_ESC,
		                    'L', '1', '3', 'I', KC_PGDN, KC_END, '=' };
	struct app a;
	struct screen scr;
	uint64_t x = 0x9E3779B97F4A7C15u;
	size_t compared = 0, marked = 0, evicted = 0;

	app_short(&a);
	ck_assert_int_eq(screen_init(&scr, 80, 24), STATUS_OK);
	for (int round = 0; round < 60; round++) {
		commit_random(&a, &x, T0 + round * 5 * SEC);
		for (int k = 0; k < 8; k++) {
			(void)app_key(&a, keys[next(&x) % ARRAY_SIZE(keys)]);
			ck_assert_int_eq(app_render(&a, &scr), STATUS_OK);
			check_app(&a);
			if (a.body != APP_BODY_COMPARE ||
			    !base_of(&a, app_kept(&a)))
				continue;
			compared++;
			marked += a.cmp.base_seq == a.mark_seq;
		}
		evicted = model_window(a.m, 0)->seq - 1;
	}
	/* the keys did what the property is about */
	ck_assert_uint_gt(compared, 20);
	ck_assert_uint_gt(marked, 2);
	ck_assert_uint_gt(evicted, 50);
	ck_assert_uint_gt(a.grouped.derived, 10);
	screen_fini(&scr);
	app_fini(&a);
}
END_TEST

/* The same property with the viewer's idle steps (of a random number of
 * rows) between keys: compare's rows paired a step at a time under a
 * grouping, a window arriving or the weighting changing mid-way, read as
 * the full derivation; and = found them paired. */
START_TEST(rows_paired_between_keys_are_the_full_derivation)
{
	static const int keys[] = { 'a',    'n', '[', ']', 'm', '=',
		                    KC_ESC, 'L', '1', '3', 'I', '=' };
	struct app a;
	struct screen scr;
	uint64_t x = 0xD1B54A32D192ED03u;
	size_t found = 0;

	app_short(&a);
	ck_assert_int_eq(screen_init(&scr, 80, 24), STATUS_OK);
	for (int round = 0; round < 60; round++) {
		commit_random(&a, &x, T0 + round * 5 * SEC);
		for (int k = 0; k < 8; k++) {
			int key = keys[next(&x) % ARRAY_SIZE(keys)];
			const struct window *w = app_shown(&a), *b;
			bool marked;

			a.idle_rows = 1 + next(&x) % 24;
			for (size_t i = next(&x) % 12; i > 0; i--)
				app_idle(&a);
			b = w ? app_compare_base(&a, w, &marked) : NULL;
			b = b ? grouped_peek(&a.grouped, a.m, b, a.group)
			      : NULL;
			found += key == '=' && a.body != APP_BODY_COMPARE &&
			         b &&
			         !grouping_eq(
			             a.group,
			             (struct grouping){ .key = GROUP_SPAWN }) &&
			         compare_paired(&a.cmp, w, b);
			(void)app_key(&a, key);
			ck_assert_int_eq(app_render(&a, &scr), STATUS_OK);
			check_app(&a);
		}
	}
	ck_assert_uint_gt(found, 3);
	screen_fini(&scr);
	app_fini(&a);
}
END_TEST

/* Windows of n stacks out of 3n / 2, values out of a few (ties). */
static const struct window *commit_many(struct model *m, uint64_t *x, size_t n)
{
	const struct window *w = NULL;
	struct window_meta meta = { .duration_nanos = 1000000000 };

	ck_assert_int_eq(model_begin(m), STATUS_OK);
	for (size_t i = 0; i < n; i++) {
		char st[64];
		struct metrics v;

		snprintf(st, sizeof(st), "app:main:1;mod_%u:h:%u",
		         (unsigned)(next(x) % 7),
		         (unsigned)(next(x) % (3 * n / 2)));
		for (int k = 0; k < METRIC_COUNT; k++)
			v.v[k] = next(x) % 5;
		ck_assert_int_eq(tm_add_m(m, st, i % 3 ? "w" : "f", v, 1),
		                 STATUS_OK);
	}
	ck_assert_int_eq(model_commit(m, &meta, &w), STATUS_OK);
	return w;
}

START_TEST(selected_rows_are_the_first_of_the_sort)
{
	static const size_t needs[] = {
		0, 1, 21, 45, CMP_SELECT - 1, CMP_SELECT, 1000, 1024, 2055
	};
	struct model *m = tm_mk(4, 0, 0, 0, 0);
	uint64_t x = 12345;
	const struct window *base = commit_many(m, &x, 6000);
	const struct window *cur = commit_many(m, &x, 6000);
	size_t selected = 0;

	for (int metric = 0; metric < METRIC_COUNT; metric++)
		for (int asc = 0; asc < 2; asc++) {
			struct compare c, ref;

			compare_init(&c);
			compare_init(&ref);
			ck_assert_int_eq(compare_build(&ref, m, cur, base,
			                               (enum metric)metric,
			                               asc),
			                 STATUS_OK);
			ck_assert_uint_eq(ref.sorted, ref.n);
			/* a growing need, as paging down asks */
			for (size_t i = 0; i < ARRAY_SIZE(needs); i++) {
				ck_assert_int_eq(
				    compare_build_top(&c, m, cur, base,
				                      (enum metric)metric, asc,
				                      needs[i]),
				    STATUS_OK);
				selected += c.sorted < c.n;
				same_order(&c, &ref, c.sorted);
				ck_assert_uint_ge(c.sorted, needs[i]);
			}
			/* past what was selected: all of them */
			ck_assert_int_eq(compare_build_top(&c, m, cur, base,
			                                   (enum metric)metric,
			                                   asc, SIZE_MAX),
			                 STATUS_OK);
			ck_assert_uint_eq(c.sorted, c.n);
			same_order(&c, &ref, c.n);
			compare_fini(&c);
			compare_fini(&ref);
		}
	/* the selection ran, not only the sort */
	ck_assert_uint_gt(selected, METRIC_COUNT * 2);
	model_free(m);
}
END_TEST

/* Split by name a step at a time (steps of 1 entry up, another window's
 * split begun first, or no memory mid-way): the window model_group
 * derives at once. */
START_TEST(split_by_steps_is_the_derivation_at_once)
{
	static const size_t budgets[] = { 1, 3, 50, 1000, SIZE_MAX };
	static const struct grouping byname = { .key = GROUP_SPAWN,
		                                .by_name = true };
	struct model *m = tm_mk(4, 0, 0, 0, 0);
	uint64_t x = 4242;
	const struct window *w0 = commit_many(m, &x, 2000);
	const struct window *w1 = commit_many(m, &x, 3000);
	struct group_step st = { .src = NULL };
	size_t stepped = 0, failed = 0;

	for (size_t b = 0; b < ARRAY_SIZE(budgets); b++)
		for (int round = 0; round < 4; round++) {
			const struct window *w = round % 2 ? w0 : w1, *fresh,
			                    *got = NULL, *o;
			size_t steps = 0;

			/* part of another window's split first (counted,
			 * and some of its rows made) */
			o = w == w0 ? w1 : w0;
			ck_assert_int_eq(model_split_step(m, o, &st,
			                                  o->nentries + 300,
			                                  &got),
			                 STATUS_OK);
			ck_assert_ptr_null(got);
			ck_assert_ptr_nonnull(st.wp);
			if (round == 3) {
				/* no memory on the way: nothing held, and it
				 * begins again */
				mem_fail_at(1);
				while (model_split_step(m, w, &st, budgets[b],
				                        &got) == STATUS_OK)
					ck_assert_ptr_null(got);
				mem_fail_at(0);
				ck_assert_ptr_null(st.wp);
				failed++;
			}
			while (!got) {
				ck_assert_int_eq(model_split_step(m, w, &st,
				                                  budgets[b],
				                                  &got),
				                 STATUS_OK);
				ck_assert_uint_lt(++steps, 100000);
			}
			stepped += steps > 10;
			ck_assert_int_eq(model_group(m, w, byname, &fresh),
			                 STATUS_OK);
			same_window(got, fresh);
			ck_assert_uint_eq(got->seq, w->seq);
			ck_assert_uint_eq(got->bytes, fresh->bytes);
			for (size_t r = 0; r < w->nrows * 2; r += 7)
				ck_assert_uint_eq(
				    window_find_row(got, (uint32_t)r % 4096),
				    window_find_row(fresh, (uint32_t)r % 4096));
			model_group_free(fresh);
			model_group_free(got);
		}
	/* a grouping not made by steps, and a window not kept */
	{
		const struct window *got;

		ck_assert_int_eq(model_split_step(m, NULL, &st, 1, &got),
		                 STATUS_INVAL);
	}
	group_step_fini(&st);
	ck_assert_uint_gt(stepped, 4);
	ck_assert_uint_eq(failed, ARRAY_SIZE(budgets));
	model_free(m);
}
END_TEST

/* Paired a step at a time (steps of 1 row up), begun in one weighting
 * and built in another, or begun on other windows: the rows and order of
 * the build at once. */
START_TEST(rows_paired_by_steps_are_the_build_at_once)
{
	static const size_t budgets[] = { 1, 5, 333, 4096, SIZE_MAX };
	struct model *m = tm_mk(4, 0, 0, 0, 0);
	uint64_t x = 777;
	const struct window *w0 = commit_many(m, &x, 3000);
	const struct window *base = commit_many(m, &x, 3000);
	const struct window *cur = commit_many(m, &x, 3000);
	size_t stepped = 0;

	for (size_t b = 0; b < ARRAY_SIZE(budgets); b++)
		for (int metric = 0; metric < METRIC_COUNT; metric++) {
			enum metric begun =
			    (enum metric)((metric + (int)b) % METRIC_COUNT);
			struct compare c, ref;
			bool done = false;
			size_t steps = 0;

			compare_init(&c);
			compare_init(&ref);
			ck_assert_int_eq(compare_build(&ref, m, cur, base,
			                               (enum metric)metric,
			                               b % 2),
			                 STATUS_OK);
			/* half a pairing of other windows first */
			ck_assert_int_eq(compare_pair_step(&c, m, base, w0,
			                                   begun, false, 2000,
			                                   &done),
			                 STATUS_OK);
			ck_assert(!done);
			done = false;
			while (!done) {
				ck_assert_int_eq(
				    compare_pair_step(&c, m, cur, base, begun,
				                      false, budgets[b], &done),
				    STATUS_OK);
				ck_assert_uint_lt(++steps, 100000);
			}
			stepped += steps > 10;
			ck_assert(compare_paired(&c, cur, base));
			ck_assert(!compare_paired(&c, base, w0));
			ck_assert_int_eq(compare_build(&c, m, cur, base,
			                               (enum metric)metric,
			                               b % 2),
			                 STATUS_OK);
			same_order(&c, &ref, c.n);
			compare_fini(&c);
			compare_fini(&ref);
		}
	ck_assert_uint_gt(stepped, METRIC_COUNT);
	model_free(m);
}
END_TEST

Suite *suite_compare_cache(void);
Suite *suite_compare_cache(void)
{
	Suite *s = suite_create("compare_cache");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, held_groupings_are_the_full_derivation);
	tcase_add_test(tc, selected_rows_are_the_first_of_the_sort);
	tcase_add_test(tc, rows_paired_between_keys_are_the_full_derivation);
	tcase_add_test(tc, rows_paired_by_steps_are_the_build_at_once);
	tcase_add_test(tc, split_by_steps_is_the_derivation_at_once);
	suite_add_tcase(s, tc);
	return s;
}
