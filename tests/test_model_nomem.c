/* The model under allocation failure: every allocation of a scenario
 * failing in turn, and a failed add or commit leaving the window usable. */
#include <check.h>
#include <stdio.h>

#include "model/alloc.h"
#include "model/model.h"
#include "tests/model_util.h"
#include "tests/util.h"

static enum status ok_or(enum status st)
{
	return st == STATUS_LIMIT || st == STATUS_EMPTY_WINDOW ? STATUS_OK : st;
}

static enum status torture_run(void *ctx)
{
	struct model_limits lim;
	struct model *m;
	const struct window *w;
	const char *comments[] = { "c1", "c2" };
	struct window_meta meta = { .source = "src",
		                    .reason = "why",
		                    .comments = comments,
		                    .ncomments = 2 };
	enum status st;

	(void)ctx;
	model_limits_default(&lim);
	lim.max_windows = 2;
	lim.max_stacks = 6;
	lim.max_depth = 3;
	lim.max_name = 8;
	st = model_new(&lim, &m);
	if (st != STATUS_OK)
		return st;
	for (int win = 0; win < 3; win++) {
		st = model_begin(m);
		if (st == STATUS_OK)
			st =
			    ok_or(tm_add(m, "main;serve;conn;read", "conn", 1));
		if (st == STATUS_OK)
			st = ok_or(tm_add(m, "", "", 2));
		if (st == STATUS_OK)
			st = ok_or(tm_add(m, "main;;x", "a very long name", 3));
		if (st == STATUS_OK && win != 1)
			st = ok_or(tm_add(m, "main;serve", "conn", 4));
		for (int i = 0; st == STATUS_OK && i < 6; i++) {
			char stack[16];
			snprintf(stack, sizeof(stack), "w%d;s%d", win, i);
			st = ok_or(tm_add(m, stack, "t", 5));
		}
		if (st == STATUS_OK)
			st = ok_or(model_commit(m, &meta, &w));
		if (st != STATUS_OK)
			break;
	}
	if (st == STATUS_OK) {
		ck_assert_uint_eq(model_window_count(m), 2);
		ck_assert_uint_eq(model_latest(m)->seq, 3);
		ck_assert_str_eq(model_latest(m)->meta.comments[1], "c2");
	}
	model_free(m);
	return st;
}

START_TEST(nomem_torture)
{
	ck_assert_uint_gt(tu_torture(torture_run, NULL), 20);
}
END_TEST

/* The fixture of the recovery tests: two known samples, then `fresh`
 * (new frames, stack and name), then one more. */
static void before(struct model **m)
{
	*m = tm_mk(0, 0, 0, 0, 0);
	ck_assert_int_eq(model_begin(*m), STATUS_OK);
	ck_assert_int_eq(tm_add(*m, "main;serve", "conn", 1), STATUS_OK);
	ck_assert_int_eq(tm_add(*m, "main;tick", "tick", 2), STATUS_OK);
}

static enum status fresh(struct model *m)
{
	return tm_add(m, "main;new;frames;here", "newname", 4);
}

static const char expect_fresh[] = "R main;new;frames;here t=2 v=8,40\n"
                                   "  newname t=2 v=8\n"
                                   "R main;serve t=1 v=1,5\n"
                                   "  conn t=1 v=1\n"
                                   "R main;tick t=1 v=2,10\n"
                                   "  tick t=1 v=2\n";

START_TEST(nomem_in_add_leaves_window_usable)
{
	struct model *m;
	const struct window *w;
	unsigned long total, i;
	uint32_t want_stack;

	before(&m);
	mem_count_reset();
	ck_assert_int_eq(fresh(m), STATUS_OK);
	total = mem_count();
	ck_assert_uint_gt(total, 4);
	ck_assert_int_eq(fresh(m), STATUS_OK);
	ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
	tm_check_dump(m, w, expect_fresh);
	want_stack = tm_row_stack(w, 0);
	model_free(m);

	for (i = 1; i <= total; i++) {
		struct model_stats st;
		enum status s;
		before(&m);
		mem_count_reset();
		mem_fail_at(i);
		s = fresh(m);
		mem_fail_at(0);
		ck_assert_int_eq(s, STATUS_NOMEM);
		tm_live(m, 3, 2, 2); /* as before the call */
		model_stats(m, &st);
		ck_assert_uint_eq(st.frames_reclaimed, 0);
		ck_assert_int_eq(fresh(m), STATUS_OK);
		ck_assert_int_eq(fresh(m), STATUS_OK);
		ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
		tm_check_dump(m, w, expect_fresh);
		ck_assert_uint_eq(w->stats.samples, 4);
		/* the failed call gave its numbers back */
		ck_assert_uint_eq(tm_row_stack(w, 0), want_stack);
		model_free(m);
	}
	mem_count_reset();
}
END_TEST

START_TEST(nomem_in_commit_keeps_window_open)
{
	struct model *m;
	const struct window *w;
	const char *comments[] = { "x" };
	struct window_meta meta = { .source = "s",
		                    .comments = comments,
		                    .ncomments = 1 };
	unsigned long total, i;

	before(&m);
	ck_assert_int_eq(fresh(m), STATUS_OK);
	mem_count_reset();
	ck_assert_int_eq(model_commit(m, &meta, &w), STATUS_OK);
	total = mem_count();
	ck_assert_uint_ge(total, 2);
	model_free(m);
	for (i = 1; i <= total; i++) {
		before(&m);
		ck_assert_int_eq(fresh(m), STATUS_OK);
		mem_count_reset();
		mem_fail_at(i);
		ck_assert_int_eq(model_commit(m, &meta, &w), STATUS_NOMEM);
		mem_fail_at(0);
		ck_assert_ptr_null(w);
		ck_assert_uint_eq(model_window_count(m), 0);
		/* still open: more samples, then the retry */
		ck_assert_int_eq(model_begin(m), STATUS_INVAL);
		ck_assert_int_eq(fresh(m), STATUS_OK);
		ck_assert_int_eq(model_commit(m, &meta, &w), STATUS_OK);
		ck_assert_uint_eq(w->seq, 1);
		tm_check_dump(m, w, expect_fresh);
		ck_assert_str_eq(w->meta.comments[0], "x");
		model_free(m);
	}
	/* or aborted */
	before(&m);
	mem_count_reset();
	mem_fail_at(1);
	ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_NOMEM);
	mem_fail_at(0);
	model_abort(m);
	tm_live(m, 0, 0, 0);
	model_free(m);
	mem_count_reset();
}
END_TEST

Suite *suite_model_nomem(void);
Suite *suite_model_nomem(void)
{
	Suite *s = suite_create("model_nomem");
	TCase *tc = tcase_create("nomem");

	tcase_add_test(tc, nomem_torture);
	tcase_add_test(tc, nomem_in_add_leaves_window_usable);
	tcase_add_test(tc, nomem_in_commit_keeps_window_open);
	suite_add_tcase(s, tc);
	return s;
}
