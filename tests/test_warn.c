/* The warning rules on hand-made windows: each rule fires on the row it
 * describes and on no other, at its thresholds (unknown figures never
 * fire), the streak of stuck-idle counts kept windows, and memory
 * failures leave nothing half evaluated. */
#include <check.h>
#include <string.h>

#include "model/model.h"
#include "tests/util.h"
#include "tui/warn.h"

#define MS ((uint64_t)1000000)

struct one {
	const char *leaf;
	uint64_t v[METRIC_COUNT];
	struct extras x;
};

/* Commits one window of rows (spawn stack "main;LEAF"). */
static const struct window *commit(struct model *m, const struct one *rows,
                                   size_t n)
{
	const struct window *w = NULL;
	struct window_meta meta = { .duration_nanos = 5000 * MS };

	ck_assert_int_eq(model_begin(m), STATUS_OK);
	for (size_t i = 0; i < n; i++) {
		struct strview f[2] = { sv_c("main"), sv_c(rows[i].leaf) };
		struct sample s = { .frames = f,
			            .depth = 2,
			            .task = sv_c("t"),
			            .tasks = 1,
			            .x = rows[i].x };
		memcpy(s.m.v, rows[i].v, sizeof(s.m.v));
		ck_assert_int_eq(model_add(m, &s), STATUS_OK);
	}
	ck_assert_int_eq(model_commit(m, &meta, &w), STATUS_OK);
	return w;
}

/* The rule that fired on the row of leaf, or WARN_COUNT; *count gets how
 * many fired there. */
static enum warn_rule fired(const struct warnings *ws, const struct model *m,
                            const char *leaf, size_t *count)
{
	enum warn_rule r = WARN_COUNT;

	*count = 0;
	for (size_t i = 0; i < ws->n; i++) {
		size_t depth = 0;
		const uint32_t *f =
		    model_stack(m, ws->w->rows[ws->v[i].row].stack, &depth);
		struct strview s = model_frame(m, f[depth - 1]);

		if (s.len == strlen(leaf) && !memcmp(s.ptr, leaf, s.len)) {
			r = ws->v[i].rule;
			(*count)++;
		}
	}
	return r;
}

#define KNOW(e, val)                                                   \
	{                                                              \
		.v = { [EXTRA_##e] = (val) }, .known = 1u << EXTRA_##e \
	}

static const struct warn_cfg cfg = { .poll_ns = 50 * MS, .idle_windows = 3 };

START_TEST(warn_each_rule_on_its_row)
{
	static const struct one rows[] = {
		{ "calm",
		  { 10 * MS, 10 * MS, 1 * MS, 20, 20 },
		  { .known = 0 } },
		{ "hog", { 0, 900 * MS, 0, 3, 3 }, KNOW(MAX_POLL, 120 * MS) },
		{ "short", { 0, 90 * MS, 0, 3, 3 }, KNOW(MAX_POLL, 49 * MS) },
		{ "stuck_in_step",
		  { 0, 80 * MS, 0, 1, 1 },
		  KNOW(POLL_NOW, 60 * MS) },
		{ "lost", { 5000 * MS, 0, 0, 0, 0 }, KNOW(NO_WAKER, 2) },
		{ "woken", { 5000 * MS, 0, 0, 0, 0 }, KNOW(NO_WAKER, 0) },
		{ "yielder",
		  { 1 * MS, 5 * MS, 1 * MS, 40, 40 },
		  KNOW(SELF_WAKES, 31) },
		{ "half",
		  { 1 * MS, 5 * MS, 1 * MS, 40, 40 },
		  KNOW(SELF_WAKES, 20) },
		{ "few",
		  { 1 * MS, 5 * MS, 1 * MS, 8, 8 },
		  KNOW(SELF_WAKES, 8) },
		{ "storm",
		  { 1 * MS, 5 * MS, 1 * MS, 20, 900 },
		  { .known = 0 } },
		{ "busy_waker",
		  { 1 * MS, 5 * MS, 1 * MS, 30, 100 },
		  { .known = 0 } },
	};
	struct model *m;
	struct warnings ws;
	const struct window *w;
	size_t c;
	char fig[128];

	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	warn_init(&ws);
	w = commit(m, rows, ARRAY_SIZE(rows));
	ck_assert_int_eq(warn_eval(&ws, m, w, &cfg), STATUS_OK);
	ck_assert_int_eq(fired(&ws, m, "hog", &c), WARN_LONG_POLL);
	ck_assert_uint_eq(c, 1);
	warn_figure(&ws.v[0], fig, sizeof(fig));
	ck_assert_str_eq(fig, "longest poll 120.0ms (threshold 50.0ms)");
	ck_assert_int_eq(fired(&ws, m, "short", &c), WARN_COUNT);
	ck_assert_int_eq(fired(&ws, m, "stuck_in_step", &c), WARN_LONG_POLL);
	ck_assert_int_eq(fired(&ws, m, "lost", &c), WARN_NO_WAKER);
	ck_assert_int_eq(fired(&ws, m, "woken", &c), WARN_COUNT);
	ck_assert_int_eq(fired(&ws, m, "yielder", &c), WARN_SELF_WAKES);
	ck_assert_int_eq(fired(&ws, m, "half", &c), WARN_COUNT);
	ck_assert_int_eq(fired(&ws, m, "few", &c), WARN_COUNT);
	ck_assert_int_eq(fired(&ws, m, "storm", &c), WARN_WAKE_STORM);
	ck_assert_int_eq(fired(&ws, m, "busy_waker", &c), WARN_COUNT);
	/* unknown figures never fire, and one window is no streak */
	ck_assert_int_eq(fired(&ws, m, "calm", &c), WARN_COUNT);
	ck_assert_uint_eq(ws.n, 5);
	ck_assert_uint_eq(ws.rule_count[WARN_LONG_POLL], 2);
	ck_assert_uint_eq(ws.rule_count[WARN_STUCK_IDLE], 0);
	/* the marker bits follow the warnings */
	for (size_t r = 0; r < w->nrows; r++) {
		bool any = false;
		for (size_t i = 0; i < ws.n; i++)
			any |= ws.v[i].row == r;
		ck_assert(warn_row(&ws, r) == any);
	}
	ck_assert(!warn_row(&ws, w->nrows + 100));
	/* a lower threshold catches the short poll too */
	{
		struct warn_cfg low = { .poll_ns = 40 * MS, .idle_windows = 3 };
		ck_assert_int_eq(warn_eval(&ws, m, w, &low), STATUS_OK);
		ck_assert_uint_eq(ws.rule_count[WARN_LONG_POLL], 3);
	}
	warn_fini(&ws);
	model_free(m);
}
END_TEST

START_TEST(warn_stuck_idle_counts_windows)
{
	static const struct one idle[] = {
		{ "stuck", { 5000 * MS, 0, 0, 0, 0 }, { .known = 0 } },
		{ "ticks", { 4000 * MS, 1 * MS, 0, 1, 1 }, { .known = 0 } },
	};
	static const struct one woke[] = {
		{ "stuck", { 4000 * MS, 1 * MS, 0, 1, 1 }, { .known = 0 } },
	};
	struct model *m;
	struct warnings ws;
	const struct window *w, *g;
	size_t c;

	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	warn_init(&ws);
	(void)commit(m, woke, 1);
	(void)commit(m, idle, 2);
	w = commit(m, idle, 2);
	ck_assert_int_eq(warn_eval(&ws, m, w, &cfg), STATUS_OK);
	ck_assert_int_eq(fired(&ws, m, "stuck", &c), WARN_COUNT);
	w = commit(m, idle, 2);
	ck_assert_int_eq(warn_eval(&ws, m, w, &cfg), STATUS_OK);
	ck_assert_int_eq(fired(&ws, m, "stuck", &c), WARN_STUCK_IDLE);
	ck_assert_uint_eq(ws.v[0].figure, 3);
	ck_assert_int_eq(fired(&ws, m, "ticks", &c), WARN_COUNT);
	/* the same window again: kept, not evaluated again */
	ck_assert_int_eq(warn_eval(&ws, m, w, &cfg), STATUS_OK);
	ck_assert_uint_eq(ws.n, 1);
	/* by parked-at stack the kept windows say nothing: no streak */
	ck_assert_int_eq(
	    model_group(m, w, (struct grouping){ .key = GROUP_PARKED }, &g),
	    STATUS_OK);
	ck_assert_int_eq(warn_eval(&ws, m, g, &cfg), STATUS_OK);
	ck_assert_uint_eq(ws.n, 0);
	model_group_free(g);
	warn_fini(&ws);
	model_free(m);
}
END_TEST

struct nomem_ctx {
	struct model *m;
	const struct window *w;
};

static enum status eval_fresh(void *p)
{
	struct nomem_ctx *c = p;
	struct warnings ws;
	enum status st;

	warn_init(&ws);
	st = warn_eval(&ws, c->m, c->w, &cfg);
	ck_assert(st == STATUS_OK || (!ws.ok && ws.n == 0));
	if (st == STATUS_OK)
		ck_assert_uint_eq(ws.n, 2);
	warn_fini(&ws);
	return st;
}

START_TEST(warn_out_of_memory)
{
	static const struct one rows[] = {
		{ "hog", { 0, 900 * MS, 0, 3, 3 }, KNOW(MAX_POLL, 120 * MS) },
		{ "lost", { 5000 * MS, 0, 0, 0, 0 }, KNOW(NO_WAKER, 1) },
	};
	struct nomem_ctx c;

	ck_assert_int_eq(model_new(NULL, &c.m), STATUS_OK);
	c.w = commit(c.m, rows, ARRAY_SIZE(rows));
	ck_assert_uint_gt(tu_torture(eval_fresh, &c), 0);
	model_free(c.m);
}
END_TEST

Suite *suite_warn(void);
Suite *suite_warn(void)
{
	Suite *s = suite_create("warn");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, warn_each_rule_on_its_row);
	tcase_add_test(tc, warn_stuck_idle_counts_windows);
	tcase_add_test(tc, warn_out_of_memory);
	suite_add_tcase(s, tc);
	return s;
}
