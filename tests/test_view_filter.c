/* The table's filter over frames and task names: what it keeps and in
 * which order, never across two strings, control bytes and long names,
 * typed and erased key by key, across a change of weighting and across
 * windows, against an oracle on random names, and under allocation
 * failure.  Its case folding is test_view_filter_case.c's. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "model/model.h"
#include "tests/util.h"
#include "tests/view_util.h"
#include "tui/view.h"

START_TEST(view_filter_frames_and_tasks)
{
	static const char *const l[] = { "Pool::Worker", "db::reaper",
		                         "\xE6\x97\xA5\xE6\x9C\xAC" };
	static const uint64_t idle[] = { 3, 2, 1 };
	static const uint64_t busy[] = { 0, 0, 0 };
	struct model *m;
	struct view v;
	const struct window *w;

	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	w = vu_commit(m, l, idle, busy, 3);
	ck_assert(view_row_matches(m, w, 0, "", 0));
	view_init(&v, METRIC_IDLE);
	memcpy(v.filter, "pool", 5);
	v.filter_len = 4;
	ck_assert_int_eq(view_build(&v, m, w), STATUS_OK);
	ck_assert_uint_eq(v.order.n, 1);
	ck_assert_str_eq(VU_LEAF_AT(&v, 0), "Pool::Worker");
	/* the root frame "main" matches all; a task name matches one */
	memcpy(v.filter, "MAIN", 5);
	ck_assert_int_eq(view_build(&v, m, w), STATUS_OK);
	ck_assert_uint_eq(v.order.n, 3);
	memcpy(v.filter, "task-1", 7);
	v.filter_len = 6;
	ck_assert_int_eq(view_build(&v, m, w), STATUS_OK);
	ck_assert_uint_eq(v.order.n, 1);
	ck_assert_str_eq(VU_LEAF_AT(&v, 0), "db::reaper");
	memcpy(v.filter, "\xE6\x9C\xAC", 4);
	v.filter_len = 3;
	ck_assert_int_eq(view_build(&v, m, w), STATUS_OK);
	ck_assert_uint_eq(v.order.n, 1);
	memcpy(v.filter, "nothing", 8);
	v.filter_len = 7;
	ck_assert_int_eq(view_build(&v, m, w), STATUS_OK);
	ck_assert_uint_eq(v.order.n, 0);
	vu_close(m, &v);
}
END_TEST

START_TEST(view_filter_bounds_and_controls)
{
	char longname[301], longfilter[VIEW_FILTER_MAX];
	struct vu_row t[] = {
		{ { "qz" }, { "a" }, 50, 0 },
		{ { "zq" }, { "b" }, 40, 0 },
		{ { "main", "\x1b[31mred" }, { "tab\there" }, 30, 0 },
		{ { "main", longname }, { "c" }, 20, 0 },
		{ { "ab", "cd" }, { "d" }, 10, 0 },
	};
	struct model *m;
	struct view v;
	const struct window *w;

	memset(longname, 'k', 300);
	memcpy(longname + 294, "needle", 6);
	longname[300] = '\0';
	w = vu_open_rows(&m, &v, t, 5);
	/* empty: every row, in the weighting's order */
	ck_assert_uint_eq(vu_kept(&v, m, w, ""), 5);
	ck_assert_str_eq(VU_LEAF_AT(&v, 0), "qz");
	/* never across two strings, of one row or of two */
	ck_assert_uint_eq(vu_kept(&v, m, w, "zz"), 0);
	ck_assert_uint_eq(vu_kept(&v, m, w, "qq"), 0);
	ck_assert_uint_eq(vu_kept(&v, m, w, "bc"), 0);
	ck_assert_uint_eq(vu_kept(&v, m, w, "da"), 0);
	ck_assert_uint_eq(vu_kept(&v, m, w, "dm"), 0);
	ck_assert_uint_eq(vu_kept(&v, m, w, "bd"), 0);
	ck_assert_uint_eq(vu_kept(&v, m, w, "az"), 0);
	ck_assert_uint_eq(vu_kept(&v, m, w, "qZ"), 1);
	ck_assert_str_eq(VU_LEAF_AT(&v, 0), "qz");
	/* control characters are bytes like others */
	ck_assert_uint_eq(vu_kept(&v, m, w, "[31mRED"), 1);
	ck_assert_uint_eq(vu_kept(&v, m, w, "\x1b"), 1);
	ck_assert_uint_eq(vu_kept(&v, m, w, "b\th"), 1);
	ck_assert_str_eq(VU_LEAF_AT(&v, 0), "\x1b[31mred");
	/* the end of a long name; a filter longer than any name */
	ck_assert_uint_eq(vu_kept(&v, m, w, "kNEEDLE"), 1);
	ck_assert_uint_eq(strlen(VU_LEAF_AT(&v, 0)), 63); /* VU_LEAF_AT cuts */
	memset(longfilter, 'k', sizeof(longfilter) - 1);
	longfilter[sizeof(longfilter) - 1] = '\0';
	ck_assert_uint_eq(vu_kept(&v, m, w, longfilter), 1);
	longfilter[0] = 'q';
	ck_assert_uint_eq(vu_kept(&v, m, w, longfilter), 0);
	ck_assert_uint_eq(v.order.n, 0);
	ck_assert_uint_eq(vu_kept(&v, m, w, ""), 5);
	vu_close(m, &v);
}
END_TEST

START_TEST(view_filter_narrow_then_widen)
{
	struct vu_row t[12];
	char leaf[12][16], task[12][16];
	static const char *const steps[] = {
		"t",       "ta",     "tas",   "task",   "task-",   "task-1",
		"task-11", "task-1", "task-", "task",   "ta",      "t",
		"",        "k-1",    "zz",    "task-1", "TASK-10",
	};
	static const size_t want[] = { 12, 12, 12, 12, 12, 3, 1, 3, 12,
		                       12, 12, 12, 12, 3,  0, 3, 1 };
	struct model *m;
	struct view v;
	const struct window *w;

	memset(t, 0, sizeof(t));
	for (size_t i = 0; i < 12; i++) {
		snprintf(leaf[i], sizeof(leaf[i]), "fn%zu", i);
		snprintf(task[i], sizeof(task[i]), "Task-%zu", i);
		t[i].f[0] = "main";
		t[i].f[1] = leaf[i];
		t[i].task[0] = task[i];
		t[i].idle = (i * 7) % 12;
		t[i].busy = i;
	}
	w = vu_open_rows(&m, &v, t, 12);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		ck_assert_uint_eq(vu_kept(&v, m, w, steps[i]), want[i]);
	ck_assert_str_eq(VU_LEAF_AT(&v, 0), "fn10");
	vu_close(m, &v);
}
END_TEST

START_TEST(view_filter_weighting_and_clear)
{
	struct vu_row t[40];
	char leaf[40][16];
	struct model *m;
	struct view v, fresh;
	const struct window *w;

	memset(t, 0, sizeof(t));
	for (size_t i = 0; i < 40; i++) {
		snprintf(leaf[i], sizeof(leaf[i]), "%s%zu",
		         i % 3 ? "work" : "idle", i);
		t[i].f[0] = "main";
		t[i].f[1] = leaf[i];
		t[i].idle = (i * 17) % 23;
		t[i].busy = (i * 5) % 7; /* ties: row order decides */
	}
	w = vu_open_rows(&m, &v, t, 40);
	view_set_page(&v, 5);
	ck_assert_uint_eq(vu_kept(&v, m, w, "WORK"), 26);
	view_move(&v, 3);
	{
		uint32_t sel = v.sel_stack;
		v.metric = METRIC_BUSY;
		ck_assert_uint_eq(vu_kept(&v, m, w, "WORK"), 26);
		ck_assert_uint_eq(v.sel_stack, sel);
		ck_assert_uint_eq(v.w->rows[view_row_at(&v, v.sel)].stack, sel);
		v.ascending = true;
		ck_assert_uint_eq(vu_kept(&v, m, w, "WORK"), 26);
		ck_assert_uint_eq(v.w->rows[view_row_at(&v, v.sel)].stack, sel);
	}
	/* typing after a change of weighting: narrower, wider, other */
	ck_assert_uint_eq(vu_kept(&v, m, w, "WORK1"), 8);
	ck_assert_uint_eq(vu_kept(&v, m, w, "WOR"), 26);
	v.metric = METRIC_IDLE;
	ck_assert_uint_eq(vu_kept(&v, m, w, "I"), 40);
	ck_assert_uint_eq(vu_kept(&v, m, w, "WORK2"), 8);
	/* cleared: the same rows and order as a view that never filtered */
	ck_assert_uint_eq(vu_kept(&v, m, w, ""), 40);
	view_init(&fresh, METRIC_IDLE);
	fresh.ascending = true;
	ck_assert_int_eq(view_build(&fresh, m, w), STATUS_OK);
	ck_assert_uint_eq(fresh.order.n, 40);
	ck_assert_mem_eq(fresh.order.idx, v.order.idx,
	                 40 * sizeof(*v.order.idx));
	/* and filtering again after the clear */
	ck_assert_uint_eq(vu_kept(&v, m, w, "idle3"), 5);
	view_fini(&fresh);
	vu_close(m, &v);
}
END_TEST

/* Window k: n rows; stacks shift by `shift` rows a window (new ones come,
 * old ones go), task names are new every window. */
static const struct window *churn(struct model *m, size_t k, size_t n,
                                  size_t shift)
{
	static char leaf[1500][32], task[1500][32];
	static struct vu_row t[1500];

	ck_assert_uint_le(n, 1500);
	memset(t, 0, sizeof(t));
	for (size_t i = 0; i < n; i++) {
		size_t id = i + k * shift;
		snprintf(leaf[i], sizeof(leaf[i]), "%s_%zu",
		         id % 5 ? "Serve" : "Reap", id);
		snprintf(task[i], sizeof(task[i]), "req-%zu-%zu", k, i);
		t[i].f[0] = "main";
		t[i].f[1] = id % 2 ? "pool" : "loop";
		t[i].f[2] = leaf[i];
		t[i].task[0] = task[i];
		t[i].idle = (id * 7919) % 1000;
		t[i].busy = id % 13;
	}
	return vu_commit_rows(m, t, n);
}

START_TEST(view_filter_across_windows)
{
	struct model_limits lim;
	struct model *m;
	struct view v;
	const struct window *w;

	model_limits_default(&lim);
	lim.max_windows = 2;
	ck_assert_int_eq(model_new(&lim, &m), STATUS_OK);
	view_init(&v, METRIC_IDLE);
	view_set_page(&v, 10);
	/* a few stacks come and go each window: the rows stay right */
	for (size_t k = 0; k < 6; k++) {
		w = churn(m, k, 200, 7);
		ck_assert_uint_eq(vu_kept(&v, m, w, "reap_"), 40);
		ck_assert_uint_eq(vu_kept(&v, m, w, "reap_1"),
		                  vu_check_rows(&v));
		ck_assert_uint_eq(vu_kept(&v, m, w, "REQ-"), 200);
		ck_assert_uint_eq(vu_kept(&v, m, w, "pool"), 100);
		ck_assert_uint_eq(vu_kept(&v, m, w, "req-3-1"),
		                  k == 3 ? 111 : 0);
	}
	/* the filter stays on while every stack changes, many times over
	 * (the index starts over when mostly stale) */
	vu_set_filter(&v, "SERVE_");
	for (size_t k = 0; k < 10; k++) {
		w = churn(m, 10 + k, 1500, 1500);
		ck_assert_int_eq(view_build(&v, m, w), STATUS_OK);
		ck_assert_uint_eq(vu_check_rows(&v), 1200);
	}
	ck_assert_uint_eq(vu_kept(&v, m, w, ""), 1500);
	vu_close(m, &v);
}
END_TEST

/* Differential: random names over a tricky alphabet and random filters,
 * typed and erased like keys, against view_row_matches. */
START_TEST(view_filter_random_against_oracle)
{
	static const char *const alpha[] = {
		"a",        "A",        "b",        "B",
		"\xC3\xA4", "\xC3\x84", "\xC3",     "\x84",
		"\xCF\x83", "\xCE\xA3", "\xCF\x82", "\xE6\x97\xA5",
		"\n",       ":",        "z",
	};
	const size_t na = sizeof(alpha) / sizeof(alpha[0]);
	char names[64][24];
	struct vu_row t[64];
	uint64_t x = 0x9E3779B97F4A7C15u;
	struct model *m;
	struct view v;

	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	view_init(&v, METRIC_IDLE);
	for (size_t round = 0; round < 6; round++) {
		const struct window *w;
		char f[24] = "";
		size_t flen = 0;

		memset(t, 0, sizeof(t));
		for (size_t i = 0; i < 64; i++) {
			size_t len = 0;
			for (size_t c = 0; c < 5; c++) {
				const char *a;
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				a = alpha[x % na];
				memcpy(names[i] + len, a, strlen(a));
				len += strlen(a);
			}
			snprintf(names[i] + len, sizeof(names[i]) - len, "%zu",
			         i);
			t[i].f[0] = "root";
			t[i].f[1] = names[i];
			t[i].idle = x % 50;
		}
		w = vu_commit_rows(m, t, 64);
		for (size_t step = 0; step < 40; step++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			if (x % 3 == 0 && flen) {
				flen -= 1 + (x >> 8) % flen;
			} else if (flen < 12) {
				const char *a = alpha[(x >> 8) % na];
				memcpy(f + flen, a, strlen(a));
				flen += strlen(a);
			}
			f[flen] = '\0';
			(void)vu_kept(&v, m, w, f);
		}
	}
	vu_close(m, &v);
}
END_TEST

struct torture_ctx {
	unsigned failed;
};

/* Filters across windows with one allocation failing somewhere: the build
 * that fails leaves no rows, and the next one is right. */
static enum status filter_torture(void *ctx)
{
	struct torture_ctx *c = ctx;
	static const char *const fs[] = { "s",     "se", "serve_1",
		                          "serve", "",   "reap" };
	enum status st = STATUS_OK;
	struct model *m;
	struct view v;

	if (model_new(NULL, &m) != STATUS_OK)
		return STATUS_NOMEM;
	view_init(&v, METRIC_IDLE);
	for (size_t k = 0; k < 3; k++) {
		const struct window *w = NULL;
		size_t mark = 0;

		if (model_begin(m) != STATUS_OK) {
			st = STATUS_NOMEM;
			break;
		}
		for (size_t i = 0; i < 30 && st == STATUS_OK; i++) {
			char leaf[32];
			struct strview f[2];
			struct sample s;
			enum status a;

			snprintf(leaf, sizeof(leaf), "Serve_%zu", i + 10 * k);
			f[0] = sv_c("main");
			f[1] = sv_c(leaf);
			memset(&s, 0, sizeof(s));
			s.frames = f;
			s.depth = 2;
			s.task = sv_c(leaf);
			s.m.v[METRIC_IDLE] = i;
			s.tasks = 1;
			a = model_add(m, &s);
			if (a != STATUS_OK)
				st = a;
		}
		if (st == STATUS_OK && model_commit(m, NULL, &w) != STATUS_OK)
			st = STATUS_NOMEM;
		if (st != STATUS_OK) {
			model_abort(m);
			break;
		}
		/* the index between keys, in steps: without memory it is
		 * left to the keys, which find the same rows */
		for (size_t n = 0; view_idle_wanted(&v, m, w); n++) {
			ck_assert_uint_lt(n, 1000);
			if (view_idle_step(&v, m, w, 7) != STATUS_OK) {
				ck_assert(!view_idle_wanted(&v, m, w));
				c->failed++;
			}
		}
		for (size_t i = 0; i < sizeof(fs) / sizeof(fs[0]); i++) {
			vu_set_filter(&v, fs[i]);
			if (view_build(&v, m, w) != STATUS_OK) {
				ck_assert_uint_eq(v.order.n, 0);
				c->failed++;
				st = STATUS_NOMEM;
				if (view_build(&v, m, w) != STATUS_OK)
					break;
			}
			mark += vu_check_rows(&v);
		}
		ck_assert_uint_gt(mark, 0);
	}
	vu_close(m, &v);
	return st;
}

START_TEST(view_filter_allocation_failures)
{
	struct torture_ctx c = { 0 };

	ck_assert_uint_gt(tu_torture(filter_torture, &c), 5);
	ck_assert_uint_gt(c.failed, 5);
}
END_TEST

Suite *suite_view_filter(void);
Suite *suite_view_filter(void)
{
	Suite *s = suite_create("view_filter");
	TCase *tc = tcase_create("view");

	tcase_add_test(tc, view_filter_frames_and_tasks);
	tcase_add_test(tc, view_filter_bounds_and_controls);
	tcase_add_test(tc, view_filter_narrow_then_widen);
	tcase_add_test(tc, view_filter_weighting_and_clear);
	tcase_add_test(tc, view_filter_across_windows);
	tcase_add_test(tc, view_filter_random_against_oracle);
	tcase_add_test(tc, view_filter_allocation_failures);
	suite_add_tcase(s, tc);
	return s;
}
