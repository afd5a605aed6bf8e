/* The model's parked-at stacks and optional figures: folding rules,
 * "unknown" against zero, groupings derived from a kept window and
 * checked against windows computed by hand, caps, reclaiming, and
 * allocation failure. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "model/alloc.h"
#include "model/extras.h"
#include "model/model.h"
#include "model/order.h"
#include "tests/model_util.h"
#include "tests/util.h"

/* Figures with the given known bits: value v[e] for each. */
static struct extras xs(uint32_t known, uint64_t self_wakes, uint64_t max_poll)
{
	struct extras x = { .known = known };

	x.v[EXTRA_SELF_WAKES] = self_wakes;
	x.v[EXTRA_MAX_POLL] = max_poll;
	return x;
}

#define SW (1u << EXTRA_SELF_WAKES)
#define MP (1u << EXTRA_MAX_POLL)

static void stack_text(const struct model *m, uint32_t id, char *out,
                       size_t size)
{
	size_t depth, at = 0;
	const uint32_t *f = model_stack(m, id, &depth);

	out[0] = '\0';
	for (size_t i = 0; i < depth && at < size; i++) {
		struct strview v = model_frame(m, f[i]);
		at += (size_t)snprintf(out + at, size - at, "%s%.*s",
		                       i ? ";" : "", (int)v.len, v.ptr);
	}
}

/* w as text: per row "stack[/name] t=TASKS idle=IDLE", then per entry
 * "  name @other idle=IDLE". */
static void check_dump(const struct model *m, const struct window *w,
                       const char *want)
{
	char got[4096], s[256];
	size_t at = 0;

	got[0] = '\0';
	for (size_t r = 0; r < w->nrows; r++) {
		const struct fold_row *row = &w->rows[r];
		struct strview n = model_name(m, row->name);
		stack_text(m, row->stack, s, sizeof(s));
		at += (size_t)snprintf(
		    got + at, sizeof(got) - at, "%s%s%.*s t=%llu idle=%llu\n",
		    s, row->name ? "/" : "", (int)n.len, n.ptr,
		    (unsigned long long)row->tasks,
		    (unsigned long long)row->m.v[METRIC_IDLE]);
		for (uint32_t i = row->first; i < row->first + row->count;
		     i++) {
			const struct fold_entry *e = &w->entries[i];
			n = model_name(m, e->name);
			stack_text(m, window_other_stack(w, e), s, sizeof(s));
			at += (size_t)snprintf(
			    got + at, sizeof(got) - at,
			    "  %.*s @%s idle=%llu\n", (int)n.len, n.ptr, s,
			    (unsigned long long)e->m.v[METRIC_IDLE]);
		}
	}
	ck_assert_str_eq(got, want);
}

START_TEST(extras_fold_by_their_rule)
{
	struct extras a = { .known = 0 }, b = xs(SW | MP, 3, 10);

	extras_add(&a, &b);
	ck_assert_uint_eq(a.known, SW | MP);
	b = xs(SW | MP, 4, 7);
	extras_add(&a, &b);
	ck_assert_uint_eq(a.v[EXTRA_SELF_WAKES], 7); /* SUM */
	ck_assert_uint_eq(a.v[EXTRA_MAX_POLL], 10);  /* MAX */
	/* a fold that does not know a figure leaves it as it was */
	b = xs(0, 100, 100);
	extras_add(&a, &b);
	ck_assert_uint_eq(a.v[EXTRA_SELF_WAKES], 7);
	ck_assert_uint_eq(a.v[EXTRA_MAX_POLL], 10);
	/* sums saturate */
	b = xs(SW, UINT64_MAX, 0);
	extras_add(&a, &b);
	ck_assert_uint_eq(a.v[EXTRA_SELF_WAKES], UINT64_MAX);
	/* bits past the known figures are dropped */
	b = xs(0x80000000u | SW, 1, 0);
	extras_add(&a, &b);
	ck_assert_uint_eq(a.known, SW | MP);
	extras_clean(&b);
	ck_assert_uint_eq(b.known, SW);
	b = xs(MP, 9, 5);
	extras_clean(&b); /* an unknown figure's value is zeroed */
	ck_assert_uint_eq(b.v[EXTRA_SELF_WAKES], 0);
	ck_assert_str_eq(extra_name(EXTRA_MAX_POLL), "max_poll");
	ck_assert_str_eq(extra_unit(EXTRA_MAX_POLL), "nanoseconds");
	ck_assert(extra_is_max(EXTRA_POLL_NOW));
	ck_assert(!extra_is_max(EXTRA_WAKERS));
}
END_TEST

START_TEST(unknown_is_not_zero)
{
	struct model *m = tm_mk(0, 0, 0, 0, 0);
	const struct window *w;
	struct extras x;
	uint64_t v;

	ck_assert_int_eq(model_begin(m), STATUS_OK);
	x = xs(SW | MP, 2, 10);
	ck_assert_int_eq(tm_add_p(m, "main;serve", "h;Lock", "c", 1, &x),
	                 STATUS_OK);
	x = xs(MP, 0, 30);
	ck_assert_int_eq(tm_add_p(m, "main;serve", "h;Lock", "c", 1, &x),
	                 STATUS_OK);
	/* same spawn stack and name, not parked, nothing known */
	ck_assert_int_eq(tm_add_p(m, "main;serve", NULL, "c", 1, NULL),
	                 STATUS_OK);
	/* known zero */
	x = xs(SW, 0, 0);
	ck_assert_int_eq(tm_add_p(m, "main;other", "h;Lock", "d", 1, &x),
	                 STATUS_OK);
	ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
	ck_assert_uint_eq(w->nrows, 2);
	ck_assert_uint_eq(w->nentries, 3);
	check_dump(m, w,
	           "main;other t=1 idle=1\n"
	           "  d @h;Lock idle=1\n"
	           "main;serve t=3 idle=3\n"
	           "  c @[not parked] idle=1\n"
	           "  c @h;Lock idle=2\n");
	/* "[not parked]" sorts before "h;Lock" ('[' < 'h') */
	ck_assert_uint_eq(w->entries[1].parked, model_not_parked(m));
	ck_assert_uint_eq(window_extras(w, &w->entries[1])->known, 0);
	ck_assert(!extras_get(window_extras(w, &w->entries[1]),
	                      EXTRA_SELF_WAKES, &v));
	ck_assert(
	    extras_get(window_extras(w, &w->entries[2]), EXTRA_SELF_WAKES, &v));
	ck_assert_uint_eq(v, 2);
	ck_assert(
	    extras_get(window_extras(w, &w->entries[2]), EXTRA_MAX_POLL, &v));
	ck_assert_uint_eq(v, 30);
	ck_assert(
	    extras_get(window_extras(w, &w->entries[0]), EXTRA_SELF_WAKES, &v));
	ck_assert_uint_eq(v, 0);
	ck_assert(!extras_get(window_extras(w, &w->entries[0]), EXTRA_MAX_POLL,
	                      NULL));
	/* only the entries that know a figure store figures */
	ck_assert_uint_eq(w->nextras, 2);
	/* rows fold their entries the same way */
	ck_assert_uint_eq(w->rows[1].x.known, SW | MP);
	ck_assert_uint_eq(w->rows[1].x.v[EXTRA_MAX_POLL], 30);
	ck_assert_uint_eq(w->rows[0].x.known, SW);
	model_free(m);
}
END_TEST

/* The hand-computed window of the grouping tests. */
static const struct window *four(struct model *m)
{
	const struct window *w;

	ck_assert_int_eq(model_begin(m), STATUS_OK);
	ck_assert_int_eq(tm_add_p(m, "main;a", "x;lock", "t1", 1, NULL),
	                 STATUS_OK);
	ck_assert_int_eq(tm_add_p(m, "main;a", "x;sleep", "t2", 2, NULL),
	                 STATUS_OK);
	ck_assert_int_eq(tm_add_p(m, "main;b", "x;lock", "t1", 4, NULL),
	                 STATUS_OK);
	ck_assert_int_eq(tm_add_p(m, "main;b", NULL, "t3", 8, NULL), STATUS_OK);
	ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
	return w;
}

START_TEST(groupings_derive_from_the_window)
{
	struct model *m = tm_mk(0, 0, 0, 0, 0);
	const struct window *w = four(m), *g;
	struct grouping by;

	check_dump(m, w,
	           "main;a t=2 idle=3\n"
	           "  t1 @x;lock idle=1\n"
	           "  t2 @x;sleep idle=2\n"
	           "main;b t=2 idle=12\n"
	           "  t1 @x;lock idle=4\n"
	           "  t3 @[not parked] idle=8\n");
	/* the default grouping is the window itself */
	ck_assert_int_eq(model_group(m, w, (struct grouping){ 0 }, &g),
	                 STATUS_OK);
	ck_assert_ptr_eq(g, w);
	model_group_free(g);

	by = (struct grouping){ .key = GROUP_PARKED };
	ck_assert_int_eq(model_group(m, w, by, &g), STATUS_OK);
	check_dump(m, g,
	           "[not parked] t=1 idle=8\n"
	           "  t3 @main;b idle=8\n"
	           "x;lock t=2 idle=5\n"
	           "  t1 @main;a idle=1\n"
	           "  t1 @main;b idle=4\n"
	           "x;sleep t=1 idle=2\n"
	           "  t2 @main;a idle=2\n");
	ck_assert_uint_eq(g->seq, w->seq);
	ck_assert_uint_eq(g->total.v[METRIC_IDLE], w->total.v[METRIC_IDLE]);
	ck_assert_uint_eq(g->tasks, 4);
	ck_assert_uint_eq(window_find_row(g, model_not_parked(m)), 0);
	ck_assert_uint_eq(window_find_row(g, w->rows[0].stack), SIZE_MAX);
	{
		/* the order of tui/ works on a derived window unchanged */
		struct order o;
		order_init(&o);
		ck_assert_int_eq(
		    order_build(&o, g, METRIC_IDLE, true, NULL, NULL),
		    STATUS_OK);
		ck_assert_uint_eq(o.n, 3);
		ck_assert_uint_eq(o.idx[0], 0); /* idle 8 */
		ck_assert_uint_eq(o.idx[1], 1); /* idle 5 */
		order_fini(&o);
	}
	model_group_free(g);

	by = (struct grouping){ .key = GROUP_SPAWN, .by_name = true };
	ck_assert_int_eq(model_group(m, w, by, &g), STATUS_OK);
	check_dump(m, g,
	           "main;a/t1 t=1 idle=1\n"
	           "  t1 @x;lock idle=1\n"
	           "main;a/t2 t=1 idle=2\n"
	           "  t2 @x;sleep idle=2\n"
	           "main;b/t1 t=1 idle=4\n"
	           "  t1 @x;lock idle=4\n"
	           "main;b/t3 t=1 idle=8\n"
	           "  t3 @[not parked] idle=8\n");
	/* split by name, a stack's first row by name id: t1 came first */
	ck_assert_uint_eq(window_find_row(g, g->rows[2].stack), 2);
	model_group_free(g);

	by = (struct grouping){ .key = GROUP_PARKED, .by_name = true };
	ck_assert_int_eq(model_group(m, w, by, &g), STATUS_OK);
	check_dump(m, g,
	           "[not parked]/t3 t=1 idle=8\n"
	           "  t3 @main;b idle=8\n"
	           "x;lock/t1 t=2 idle=5\n"
	           "  t1 @main;a idle=1\n"
	           "  t1 @main;b idle=4\n"
	           "x;sleep/t2 t=1 idle=2\n"
	           "  t2 @main;a idle=2\n");
	/* a derived window is no kept window: it cannot be grouped again */
	{
		const struct window *g2;
		ck_assert_int_eq(model_group(m, g, by, &g2), STATUS_INVAL);
		ck_assert_ptr_null(g2);
	}
	model_group_free(g);
	by.key = (enum group_key)7;
	ck_assert_int_eq(model_group(m, w, by, &g), STATUS_INVAL);
	model_group_free(NULL);
	model_free(m);
}
END_TEST

START_TEST(parked_caps_and_hostile_samples)
{
	/* stacks: one spawn stack and one parked-at stack fit */
	struct model *m = tm_mk(0, 2, 0, 3, 0);
	const struct window *w;
	struct strview f = sv_c("f");
	struct sample s = {
		.frames = &f, .depth = 1, .m = tm_vals(1), .parked_depth = 2
	};

	ck_assert_int_eq(model_begin(m), STATUS_OK);
	ck_assert_int_eq(model_add(m, &s), STATUS_INVAL); /* parked NULL */
	ck_assert_int_eq(tm_add_p(m, "a", "p", "t", 1, NULL), STATUS_OK);
	/* a new parked-at stack past the cap: [other], counted */
	ck_assert_int_eq(tm_add_p(m, "a", "q", "t", 1, NULL), STATUS_LIMIT);
	/* past the depth cap: cut from the root like a spawn stack */
	ck_assert_int_eq(tm_add_p(m, "a", "p1;p2;p3;p4;p5", "u", 1, NULL),
	                 STATUS_LIMIT);
	ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
	ck_assert_uint_eq(w->stats.other, 2);
	ck_assert_uint_eq(w->stats.truncated, 1);
	check_dump(m, w,
	           "a t=3 idle=3\n"
	           "  t @[other] idle=1\n"
	           "  t @p idle=1\n"
	           "  u @[other] idle=1\n");
	model_free(m);

	m = tm_mk(0, 0, 0, 3, 0);
	ck_assert_int_eq(model_begin(m), STATUS_OK);
	ck_assert_int_eq(tm_add_p(m, "a", "p1;p2;p3;p4;p5", "u", 1, NULL),
	                 STATUS_OK);
	ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
	ck_assert_uint_eq(w->stats.truncated, 1);
	check_dump(m, w,
	           "a t=1 idle=1\n  u @[truncated 3 frames];p4;p5 idle=1\n");
	model_free(m);
}
END_TEST

START_TEST(parked_stacks_are_reclaimed)
{
	struct model *m = tm_mk(1, 0, 0, 0, 0);
	const struct window *w;

	ck_assert_int_eq(model_begin(m), STATUS_OK);
	ck_assert_int_eq(tm_add_p(m, "a", "p;q", "t", 1, NULL), STATUS_OK);
	ck_assert_int_eq(tm_add_p(m, "p;q", "a", "t", 1, NULL), STATUS_OK);
	ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
	tm_live(m, 3, 2, 1);
	ck_assert_int_eq(model_begin(m), STATUS_OK);
	ck_assert_int_eq(tm_add_p(m, "b", NULL, "t", 1, NULL), STATUS_OK);
	ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
	tm_live(m, 1, 1, 1);
	ck_assert_int_eq(model_begin(m), STATUS_OK);
	ck_assert_int_eq(tm_add_p(m, "b", "p;q", "t", 1, NULL), STATUS_OK);
	model_abort(m); /* what only the open window used goes */
	tm_live(m, 1, 1, 1);
	model_free(m);
}
END_TEST

static enum status ok_or(enum status st)
{
	return st == STATUS_LIMIT || st == STATUS_EMPTY_WINDOW ? STATUS_OK : st;
}

static enum status torture_run(void *ctx)
{
	struct model_limits lim;
	struct model *m;
	const struct window *w = NULL, *g;
	struct extras x = xs(SW | MP, 1, 2);
	enum status st;

	(void)ctx;
	model_limits_default(&lim);
	lim.max_windows = 2;
	lim.max_stacks = 8;
	lim.max_depth = 3;
	st = model_new(&lim, &m);
	if (st != STATUS_OK)
		return st;
	for (int win = 0; st == STATUS_OK && win < 3; win++) {
		st = model_begin(m);
		for (int i = 0; st == STATUS_OK && i < 5; i++) {
			char sp[16], pk[16];
			snprintf(sp, sizeof(sp), "m;s%d", i % 3);
			snprintf(pk, sizeof(pk), "w%d;p%d;q;r", win, i);
			st = ok_or(
			    tm_add_p(m, sp, i == 4 ? NULL : pk, "t", 1, &x));
		}
		if (st == STATUS_OK)
			st = ok_or(model_commit(m, NULL, &w));
	}
	for (int k = 0; st == STATUS_OK && k < 3; k++) {
		struct grouping by = { .key = k ? GROUP_PARKED : GROUP_SPAWN,
			               .by_name = k != 1 };
		st = model_group(m, w, by, &g);
		if (st == STATUS_OK) {
			ck_assert_uint_eq(g->total.v[METRIC_IDLE],
			                  w->total.v[METRIC_IDLE]);
			model_group_free(g);
		}
	}
	model_free(m);
	return st;
}

START_TEST(parked_under_allocation_failure)
{
	ck_assert_uint_gt(tu_torture(torture_run, NULL), 20);
}
END_TEST

Suite *suite_model_parked(void);
Suite *suite_model_parked(void)
{
	Suite *s = suite_create("model_parked");
	TCase *tc = tcase_create("parked");

	tcase_add_test(tc, extras_fold_by_their_rule);
	tcase_add_test(tc, unknown_is_not_zero);
	tcase_add_test(tc, groupings_derive_from_the_window);
	tcase_add_test(tc, parked_caps_and_hostile_samples);
	tcase_add_test(tc, parked_stacks_are_reclaimed);
	tcase_add_test(tc, parked_under_allocation_failure);
	suite_add_tcase(s, tc);
	return s;
}
