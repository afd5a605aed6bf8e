/* The table's state: order by the weighting, selection kept by stack id
 * across re-sorts and new windows, clamped when its stack vanishes,
 * scrolling, and the case-insensitive filter over frames and task names. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "model/model.h"
#include "tests/util.h"
#include "tui/view.h"

/* One window: frames[i] (one frame, then "main" as root) with idle[i] and
 * busy[i]; n rows; task "task-i". */
static const struct window *commit(struct model *m, const char *const *leaf,
                                   const uint64_t *idle, const uint64_t *busy,
                                   size_t n)
{
	const struct window *w = NULL;

	ck_assert_int_eq(model_begin(m), STATUS_OK);
	for (size_t i = 0; i < n; i++) {
		struct strview f[2] = { sv_c("main"), sv_c(leaf[i]) };
		char task[32];
		struct sample s;

		snprintf(task, sizeof(task), "Task-%zu", i);
		memset(&s, 0, sizeof(s));
		s.frames = f;
		s.depth = 2;
		s.task = sv_c(task);
		s.m.v[METRIC_IDLE] = idle[i];
		s.m.v[METRIC_BUSY] = busy[i];
		s.tasks = 1;
		ck_assert_int_eq(model_add(m, &s), STATUS_OK);
	}
	ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
	return w;
}

static const char *leaf_at(const struct view *v, size_t pos)
{
	static char out[64];
	size_t depth;
	const uint32_t *st =
	    model_stack(v->m, v->w->rows[view_row_at(v, pos)].stack, &depth);
	struct strview f = model_frame(v->m, st[depth - 1]);

	snprintf(out, sizeof(out), "%.*s", (int)f.len, f.ptr);
	return out;
}

static const char *const leaves[] = { "a", "b", "c", "d", "e" };
static const uint64_t idle1[] = { 50, 40, 30, 20, 10 };
static const uint64_t busy1[] = { 1, 2, 3, 4, 5 };

START_TEST(view_order_and_selection_across_resort)
{
	struct model *m;
	struct view v;
	const struct window *w;

	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	w = commit(m, leaves, idle1, busy1, 5);
	view_init(&v, METRIC_IDLE);
	view_set_page(&v, 3);
	ck_assert_int_eq(view_build(&v, m, w), STATUS_OK);
	ck_assert_uint_eq(v.order.n, 5);
	ck_assert_str_eq(leaf_at(&v, 0), "a");
	ck_assert_str_eq(leaf_at(&v, 4), "e");
	ck_assert_uint_eq(v.sel, 0);
	view_move(&v, 1); /* select b */
	ck_assert_str_eq(leaf_at(&v, v.sel), "b");
	/* weight by busy: b moves to position 3, the selection follows */
	v.metric = METRIC_BUSY;
	ck_assert_int_eq(view_build(&v, m, w), STATUS_OK);
	ck_assert_str_eq(leaf_at(&v, 0), "e");
	ck_assert_uint_eq(v.sel, 3);
	ck_assert_str_eq(leaf_at(&v, v.sel), "b");
	/* scrolled so the selection shows on a 3-row page */
	ck_assert_uint_le(v.top, v.sel);
	ck_assert_uint_gt(v.top + v.page, v.sel);
	/* inverted: smallest first */
	v.ascending = true;
	ck_assert_int_eq(view_build(&v, m, w), STATUS_OK);
	ck_assert_str_eq(leaf_at(&v, 0), "a");
	ck_assert_str_eq(leaf_at(&v, v.sel), "b");
	ck_assert_uint_eq(v.sel, 1);
	view_fini(&v);
	model_free(m);
}
END_TEST

START_TEST(view_selection_across_windows)
{
	static const char *const l2[] = { "x", "c", "a" };
	static const uint64_t i2[] = { 100, 5, 1 };
	static const uint64_t b2[] = { 0, 0, 0 };
	static const char *const l3[] = { "y", "z" };
	struct model *m;
	struct view v;
	const struct window *w;

	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	w = commit(m, leaves, idle1, busy1, 5);
	view_init(&v, METRIC_IDLE);
	view_set_page(&v, 10);
	ck_assert_int_eq(view_build(&v, m, w), STATUS_OK);
	view_move(&v, 2); /* c */
	ck_assert_str_eq(leaf_at(&v, v.sel), "c");
	/* next window: c is at position 1 now, the selection stays on it */
	w = commit(m, l2, i2, b2, 3);
	ck_assert_int_eq(view_build(&v, m, w), STATUS_OK);
	ck_assert_str_eq(leaf_at(&v, v.sel), "c");
	ck_assert_uint_eq(v.sel, 1);
	view_move(&v, 1); /* a, the last */
	ck_assert_str_eq(leaf_at(&v, v.sel), "a");
	/* a vanishes: the position is kept, clamped to the rows */
	w = commit(m, l3, i2, b2, 2);
	ck_assert_int_eq(view_build(&v, m, w), STATUS_OK);
	ck_assert_uint_eq(v.sel, 1);
	ck_assert_str_eq(leaf_at(&v, v.sel), "z");
	/* no window */
	ck_assert_int_eq(view_build(&v, m, NULL), STATUS_OK);
	ck_assert_uint_eq(v.order.n, 0);
	view_move(&v, 1);
	ck_assert_uint_eq(v.sel, 0);
	view_fini(&v);
	model_free(m);
}
END_TEST

START_TEST(view_moves_clamp_and_scroll)
{
	char names[40][8];
	const char *l[40];
	uint64_t idle[40], busy[40];
	struct model *m;
	struct view v;
	const struct window *w;

	for (size_t i = 0; i < 40; i++) {
		snprintf(names[i], sizeof(names[i]), "f%02zu", i);
		l[i] = names[i];
		idle[i] = 1000 - i;
		busy[i] = i;
	}
	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	w = commit(m, l, idle, busy, 40);
	view_init(&v, METRIC_IDLE);
	view_set_page(&v, 10);
	ck_assert_int_eq(view_build(&v, m, w), STATUS_OK);
	view_move(&v, -5);
	ck_assert_uint_eq(v.sel, 0);
	view_move(&v, 12);
	ck_assert_uint_eq(v.sel, 12);
	ck_assert_uint_eq(v.top, 3);
	view_move(&v, 1000);
	ck_assert_uint_eq(v.sel, 39);
	ck_assert_uint_eq(v.top, 30);
	view_select(&v, 0);
	ck_assert_uint_eq(v.top, 0);
	view_scroll(&v, 5);
	ck_assert_uint_eq(v.top, 5);
	ck_assert_uint_eq(v.sel, 5); /* dragged along by the page */
	view_scroll(&v, 1000);
	ck_assert_uint_eq(v.top, 30);
	view_scroll(&v, -1000);
	ck_assert_uint_eq(v.top, 0);
	/* a smaller page keeps the selection shown */
	view_select(&v, 20);
	view_set_page(&v, 4);
	ck_assert_uint_le(v.top, 20);
	ck_assert_uint_gt(v.top + 4, 20);
	view_fini(&v);
	model_free(m);
}
END_TEST

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
	w = commit(m, l, idle, busy, 3);
	ck_assert(view_row_matches(m, w, 0, "", 0));
	view_init(&v, METRIC_IDLE);
	memcpy(v.filter, "pool", 5);
	v.filter_len = 4;
	ck_assert_int_eq(view_build(&v, m, w), STATUS_OK);
	ck_assert_uint_eq(v.order.n, 1);
	ck_assert_str_eq(leaf_at(&v, 0), "Pool::Worker");
	/* the root frame "main" matches all; a task name matches one */
	memcpy(v.filter, "MAIN", 5);
	ck_assert_int_eq(view_build(&v, m, w), STATUS_OK);
	ck_assert_uint_eq(v.order.n, 3);
	memcpy(v.filter, "task-1", 7);
	v.filter_len = 6;
	ck_assert_int_eq(view_build(&v, m, w), STATUS_OK);
	ck_assert_uint_eq(v.order.n, 1);
	ck_assert_str_eq(leaf_at(&v, 0), "db::reaper");
	memcpy(v.filter, "\xE6\x9C\xAC", 4);
	v.filter_len = 3;
	ck_assert_int_eq(view_build(&v, m, w), STATUS_OK);
	ck_assert_uint_eq(v.order.n, 1);
	memcpy(v.filter, "nothing", 8);
	v.filter_len = 7;
	ck_assert_int_eq(view_build(&v, m, w), STATUS_OK);
	ck_assert_uint_eq(v.order.n, 0);
	view_fini(&v);
	model_free(m);
}
END_TEST

/* A row of a test window: up to 4 frames root first, tasks' names. */
struct trow {
	const char *f[4];
	const char *task[3];
	uint64_t idle, busy;
};

static const struct window *commit_rows(struct model *m, const struct trow *t,
                                        size_t n)
{
	const struct window *w = NULL;

	ck_assert_int_eq(model_begin(m), STATUS_OK);
	for (size_t i = 0; i < n; i++) {
		struct strview f[4];
		size_t d = 0;

		while (d < 4 && t[i].f[d]) {
			f[d] = sv_c(t[i].f[d]);
			d++;
		}
		for (size_t k = 0; k < 3 && (k == 0 || t[i].task[k]); k++) {
			struct sample s;

			memset(&s, 0, sizeof(s));
			s.frames = f;
			s.depth = d;
			s.task = sv_c(t[i].task[k] ? t[i].task[k] : "t");
			s.m.v[METRIC_IDLE] = t[i].idle + k;
			s.m.v[METRIC_BUSY] = t[i].busy + 1;
			s.tasks = 1;
			ck_assert_int_eq(model_add(m, &s), STATUS_OK);
		}
	}
	ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
	return w;
}

static void set_filter(struct view *v, const char *f)
{
	size_t n = strlen(f);

	ck_assert_uint_lt(n, sizeof(v->filter));
	memcpy(v->filter, f, n + 1);
	v->filter_len = n;
}

/* The rows a filter keeps, checked one by one against view_row_matches
 * and in the order of the weighting (ties by row); returns how many. */
static size_t check_rows(const struct view *v)
{
	const struct window *w = v->w;
	uint32_t want[2048];
	size_t n = 0;

	ck_assert_uint_le(w->nrows, 2048);
	for (size_t r = 0; r < w->nrows; r++)
		if (view_row_matches(v->m, w, r, v->filter, v->filter_len))
			want[n++] = (uint32_t)r;
	/* insertion sort by the weighting, stable on row order */
	for (size_t i = 1; i < n; i++) {
		uint32_t x = want[i];
		uint64_t kx = w->rows[x].m.v[v->metric];
		size_t j = i;

		for (; j > 0; j--) {
			uint64_t kj = w->rows[want[j - 1]].m.v[v->metric];
			if (v->ascending ? kj <= kx : kj >= kx)
				break;
			want[j] = want[j - 1];
		}
		want[j] = x;
	}
	ck_assert_uint_eq(v->order.n, n);
	for (size_t i = 0; i < n; i++)
		ck_assert_uint_eq(v->order.idx[i], want[i]);
	return n;
}

/* Builds with filter f, checks the rows, returns how many it kept. */
static size_t kept(struct view *v, const struct model *m,
                   const struct window *w, const char *f)
{
	set_filter(v, f);
	ck_assert_int_eq(view_build(v, m, w), STATUS_OK);
	return check_rows(v);
}

START_TEST(view_filter_ascii_case)
{
	static const struct trow t[] = {
		{ { "main", "Pool::Worker" }, { "Task-A" }, 30, 1 },
		{ { "main", "db::REAPER" }, { "reaper" }, 20, 2 },
		{ { "main", "http:Handler" }, { "Serve-Index" }, 10, 3 },
	};
	struct model *m;
	struct view v;
	const struct window *w;

	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	w = commit_rows(m, t, 3);
	view_init(&v, METRIC_IDLE);
	ck_assert_uint_eq(kept(&v, m, w, "POOL"), 1);
	ck_assert_str_eq(leaf_at(&v, 0), "Pool::Worker");
	ck_assert_uint_eq(kept(&v, m, w, "rEaPeR"), 1);
	ck_assert_str_eq(leaf_at(&v, 0), "db::REAPER");
	ck_assert_uint_eq(kept(&v, m, w, "serve-INDEX"), 1);
	ck_assert_str_eq(leaf_at(&v, 0), "http:Handler");
	ck_assert_uint_eq(kept(&v, m, w, "::"), 2);
	ck_assert_str_eq(leaf_at(&v, 0), "Pool::Worker");
	ck_assert_str_eq(leaf_at(&v, 1), "db::REAPER");
	ck_assert_uint_eq(kept(&v, m, w, "MAIN"), 3);
	/* [ and ` sit next to the capitals: no false folds */
	ck_assert_uint_eq(kept(&v, m, w, "pool[:worker"), 0);
	ck_assert_uint_eq(kept(&v, m, w, "`"), 0);
	view_fini(&v);
	model_free(m);
}
END_TEST

START_TEST(view_filter_utf8_case)
{
	static const struct trow t[] = {
		{ { "\xC3\x84rger:\xC3\xB6"
		    "ffnen" },
		  { "x" },
		  60,
		  0 },
		{ { "\xD0\x9F\xD0\xA0\xD0\x98\xD0\x92\xD0\x95\xD0\xA2:"
		    "\xD0\xBC\xD0\xB8\xD1\x80" },
		  { "y" },
		  50,
		  0 },
		{ { "\xCE\xA3\xCE\x9F\xCE\xA6\xCE\x8A\xCE\x91" },
		  { "z" },
		  40,
		  0 },
		{ { "\xE6\x97\xA5\xE6\x9C\xAC:run" },
		  { "na\xC3\x8Fve" },
		  30,
		  0 },
		{ { "bad\xC3(" }, { "x\xFFy" }, 20, 0 },
		{ { "\xC3\x84x" }, { "w" }, 10, 0 },
	};
	struct model *m;
	struct view v;
	const struct window *w;

	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	w = commit_rows(m, t, 6);
	view_init(&v, METRIC_IDLE);
	/* Latin-1: a-umlaut and o-umlaut, either case */
	ck_assert_uint_eq(kept(&v, m, w, "\xC3\xA4rger"), 1);
	ck_assert_uint_eq(kept(&v, m, w, "\xC3\x84RGER:\xC3\x96"), 1);
	ck_assert_uint_eq(kept(&v, m, w, "\xC3\xA4"), 2);
	/* Cyrillic: privet, MIR */
	ck_assert_uint_eq(kept(&v, m, w,
	                       "\xD0\xBF\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5"
	                       "\xD1\x82"),
	                  1);
	ck_assert_uint_eq(kept(&v, m, w, "\xD0\x9C\xD0\x98\xD0\xA0"), 1);
	/* Greek sofia with the tonos, lower case */
	ck_assert_uint_eq(
	    kept(&v, m, w, "\xCF\x83\xCE\xBF\xCF\x86\xCE\xAF\xCE\xB1"), 1);
	ck_assert_str_eq(leaf_at(&v, 0),
	                 "\xCE\xA3\xCE\x9F\xCE\xA6\xCE\x8A\xCE\x91");
	/* final sigma folds like sigma */
	ck_assert_uint_eq(kept(&v, m, w, "\xCF\x82\xCE\xBF"), 1);
	/* no case: exact bytes; a task name: I-diaeresis folded */
	ck_assert_uint_eq(kept(&v, m, w, "\xE6\x9C\xAC:RUN"), 1);
	ck_assert_uint_eq(kept(&v, m, w, "NA\xC3\xAFVE"), 1);
	/* a different letter sharing the lead byte does not match */
	ck_assert_uint_eq(kept(&v, m, w, "\xC3\xA5rger"), 0);
	/* invalid UTF-8 is matched byte for byte, ASCII folded around it */
	ck_assert_uint_eq(kept(&v, m, w, "BAD\xC3("), 1);
	ck_assert_uint_eq(kept(&v, m, w, "X\xFFY"), 1);
	ck_assert_uint_eq(kept(&v, m, w, "\xC3"), 4);
	ck_assert_uint_eq(kept(&v, m, w, "\xFF"), 1);
	view_fini(&v);
	model_free(m);
}
END_TEST

/* Two UTF-8 bytes of code point c (0x80 .. 0x7FF) and a NUL into out. */
static void enc2(char *out, unsigned c)
{
	out[0] = (char)(0xC0 | c >> 6);
	out[1] = (char)(0x80 | (c & 0x3F));
	out[2] = '\0';
}

START_TEST(view_filter_case_pairs)
{
	/* capital, small: one of each rule of the fold */
	static const unsigned fold[][2] = {
		{ 0xC0, 0xE0 },   { 0xDE, 0xFE },   { 0x100, 0x101 },
		{ 0x136, 0x137 }, { 0x139, 0x13A }, { 0x147, 0x148 },
		{ 0x14A, 0x14B }, { 0x176, 0x177 }, { 0x178, 0xFF },
		{ 0x179, 0x17A }, { 0x17D, 0x17E }, { 0x386, 0x3AC },
		{ 0x388, 0x3AD }, { 0x38A, 0x3AF }, { 0x38C, 0x3CC },
		{ 0x38E, 0x3CD }, { 0x38F, 0x3CE }, { 0x391, 0x3B1 },
		{ 0x3AB, 0x3CB }, { 0x3C2, 0x3C3 }, { 0x400, 0x450 },
		{ 0x40F, 0x45F }, { 0x410, 0x430 }, { 0x42F, 0x44F },
		{ 0x460, 0x461 }, { 0x480, 0x481 }, { 0x48A, 0x48B },
		{ 0x4BE, 0x4BF }, { 0x4C0, 0x4CF }, { 0x4C1, 0x4C2 },
		{ 0x4CD, 0x4CE }, { 0x4D0, 0x4D1 }, { 0x52E, 0x52F },
		{ 0x531, 0x561 }, { 0x556, 0x586 },
	};
	/* left alone: not letters, or folds that change length */
	static const unsigned same[][2] = {
		{ 0xD7, 0xF7 },   { 0x130, 0x131 }, { 0x181, 0x253 },
		{ 0x138, 0x137 }, { 0xB5, 0x3BC },
	};
	const size_t nf = sizeof(fold) / sizeof(fold[0]);
	const size_t ns = sizeof(same) / sizeof(same[0]);
	char up[64][3], low[64][3];
	struct trow t[64];
	struct model *m;
	struct view v;
	const struct window *w;

	memset(t, 0, sizeof(t));
	for (size_t i = 0; i < nf + ns; i++) {
		const unsigned *p = i < nf ? fold[i] : same[i - nf];
		enc2(up[i], p[0]);
		enc2(low[i], p[1]);
		t[i].f[0] = up[i];
		t[i].idle = 100 - i;
	}
	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	w = commit_rows(m, t, nf + ns);
	view_init(&v, METRIC_IDLE);
	for (size_t i = 0; i < nf + ns; i++) {
		size_t n = kept(&v, m, w, low[i]);

		if (i < nf) {
			ck_assert_uint_eq(n, 1);
			ck_assert_str_eq(leaf_at(&v, 0), up[i]);
		}
		for (size_t k = 0; i >= nf && k < n; k++)
			ck_assert_str_ne(leaf_at(&v, k), up[i]);
		ck_assert_uint_eq(kept(&v, m, w, up[i]), 1);
		ck_assert_str_eq(leaf_at(&v, 0), up[i]);
	}
	view_fini(&v);
	model_free(m);
}
END_TEST

START_TEST(view_filter_bounds_and_controls)
{
	char longname[301], longfilter[VIEW_FILTER_MAX];
	struct trow t[] = {
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
	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	w = commit_rows(m, t, 5);
	view_init(&v, METRIC_IDLE);
	/* empty: every row, in the weighting's order */
	ck_assert_uint_eq(kept(&v, m, w, ""), 5);
	ck_assert_str_eq(leaf_at(&v, 0), "qz");
	/* never across two strings, of one row or of two */
	ck_assert_uint_eq(kept(&v, m, w, "zz"), 0);
	ck_assert_uint_eq(kept(&v, m, w, "qq"), 0);
	ck_assert_uint_eq(kept(&v, m, w, "bc"), 0);
	ck_assert_uint_eq(kept(&v, m, w, "da"), 0);
	ck_assert_uint_eq(kept(&v, m, w, "dm"), 0);
	ck_assert_uint_eq(kept(&v, m, w, "bd"), 0);
	ck_assert_uint_eq(kept(&v, m, w, "az"), 0);
	ck_assert_uint_eq(kept(&v, m, w, "qZ"), 1);
	ck_assert_str_eq(leaf_at(&v, 0), "qz");
	/* control characters are bytes like others */
	ck_assert_uint_eq(kept(&v, m, w, "[31mRED"), 1);
	ck_assert_uint_eq(kept(&v, m, w, "\x1b"), 1);
	ck_assert_uint_eq(kept(&v, m, w, "b\th"), 1);
	ck_assert_str_eq(leaf_at(&v, 0), "\x1b[31mred");
	/* the end of a long name; a filter longer than any name */
	ck_assert_uint_eq(kept(&v, m, w, "kNEEDLE"), 1);
	ck_assert_uint_eq(strlen(leaf_at(&v, 0)), 63); /* leaf_at cuts */
	memset(longfilter, 'k', sizeof(longfilter) - 1);
	longfilter[sizeof(longfilter) - 1] = '\0';
	ck_assert_uint_eq(kept(&v, m, w, longfilter), 1);
	longfilter[0] = 'q';
	ck_assert_uint_eq(kept(&v, m, w, longfilter), 0);
	ck_assert_uint_eq(v.order.n, 0);
	ck_assert_uint_eq(kept(&v, m, w, ""), 5);
	view_fini(&v);
	model_free(m);
}
END_TEST

START_TEST(view_filter_narrow_then_widen)
{
	struct trow t[12];
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
	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	w = commit_rows(m, t, 12);
	view_init(&v, METRIC_IDLE);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		ck_assert_uint_eq(kept(&v, m, w, steps[i]), want[i]);
	ck_assert_str_eq(leaf_at(&v, 0), "fn10");
	view_fini(&v);
	model_free(m);
}
END_TEST

START_TEST(view_filter_weighting_and_clear)
{
	struct trow t[40];
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
	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	w = commit_rows(m, t, 40);
	view_init(&v, METRIC_IDLE);
	view_set_page(&v, 5);
	ck_assert_uint_eq(kept(&v, m, w, "WORK"), 26);
	view_move(&v, 3);
	{
		uint32_t sel = v.sel_stack;
		v.metric = METRIC_BUSY;
		ck_assert_uint_eq(kept(&v, m, w, "WORK"), 26);
		ck_assert_uint_eq(v.sel_stack, sel);
		ck_assert_uint_eq(v.w->rows[view_row_at(&v, v.sel)].stack, sel);
		v.ascending = true;
		ck_assert_uint_eq(kept(&v, m, w, "WORK"), 26);
		ck_assert_uint_eq(v.w->rows[view_row_at(&v, v.sel)].stack, sel);
	}
	/* typing after a change of weighting: narrower, wider, other */
	ck_assert_uint_eq(kept(&v, m, w, "WORK1"), 8);
	ck_assert_uint_eq(kept(&v, m, w, "WOR"), 26);
	v.metric = METRIC_IDLE;
	ck_assert_uint_eq(kept(&v, m, w, "I"), 40);
	ck_assert_uint_eq(kept(&v, m, w, "WORK2"), 8);
	/* cleared: the same rows and order as a view that never filtered */
	ck_assert_uint_eq(kept(&v, m, w, ""), 40);
	view_init(&fresh, METRIC_IDLE);
	fresh.ascending = true;
	ck_assert_int_eq(view_build(&fresh, m, w), STATUS_OK);
	ck_assert_uint_eq(fresh.order.n, 40);
	ck_assert_mem_eq(fresh.order.idx, v.order.idx,
	                 40 * sizeof(*v.order.idx));
	/* and filtering again after the clear */
	ck_assert_uint_eq(kept(&v, m, w, "idle3"), 5);
	view_fini(&fresh);
	view_fini(&v);
	model_free(m);
}
END_TEST

/* Window k: n rows; stacks shift by `shift` rows a window (new ones come,
 * old ones go), task names are new every window. */
static const struct window *churn(struct model *m, size_t k, size_t n,
                                  size_t shift)
{
	static char leaf[1500][32], task[1500][32];
	static struct trow t[1500];

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
	return commit_rows(m, t, n);
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
		ck_assert_uint_eq(kept(&v, m, w, "reap_"), 40);
		ck_assert_uint_eq(kept(&v, m, w, "reap_1"), check_rows(&v));
		ck_assert_uint_eq(kept(&v, m, w, "REQ-"), 200);
		ck_assert_uint_eq(kept(&v, m, w, "pool"), 100);
		ck_assert_uint_eq(kept(&v, m, w, "req-3-1"), k == 3 ? 111 : 0);
	}
	/* the filter stays on while every stack changes, many times over
	 * (the index starts over when mostly stale) */
	set_filter(&v, "SERVE_");
	for (size_t k = 0; k < 10; k++) {
		w = churn(m, 10 + k, 1500, 1500);
		ck_assert_int_eq(view_build(&v, m, w), STATUS_OK);
		ck_assert_uint_eq(check_rows(&v), 1200);
	}
	ck_assert_uint_eq(kept(&v, m, w, ""), 1500);
	view_fini(&v);
	model_free(m);
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
	struct trow t[64];
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
		w = commit_rows(m, t, 64);
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
			(void)kept(&v, m, w, f);
		}
	}
	view_fini(&v);
	model_free(m);
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
		for (size_t i = 0; i < sizeof(fs) / sizeof(fs[0]); i++) {
			set_filter(&v, fs[i]);
			if (view_build(&v, m, w) != STATUS_OK) {
				ck_assert_uint_eq(v.order.n, 0);
				c->failed++;
				st = STATUS_NOMEM;
				if (view_build(&v, m, w) != STATUS_OK)
					break;
			}
			mark += check_rows(&v);
		}
		ck_assert_uint_gt(mark, 0);
	}
	view_fini(&v);
	model_free(m);
	return st;
}

START_TEST(view_filter_allocation_failures)
{
	struct torture_ctx c = { 0 };

	ck_assert_uint_gt(tu_torture(filter_torture, &c), 5);
	ck_assert_uint_gt(c.failed, 5);
}
END_TEST

Suite *suite_view(void);
Suite *suite_view(void)
{
	Suite *s = suite_create("view");
	TCase *tc = tcase_create("view");

	tcase_add_test(tc, view_order_and_selection_across_resort);
	tcase_add_test(tc, view_selection_across_windows);
	tcase_add_test(tc, view_moves_clamp_and_scroll);
	tcase_add_test(tc, view_filter_frames_and_tasks);
	tcase_add_test(tc, view_filter_ascii_case);
	tcase_add_test(tc, view_filter_utf8_case);
	tcase_add_test(tc, view_filter_case_pairs);
	tcase_add_test(tc, view_filter_bounds_and_controls);
	tcase_add_test(tc, view_filter_narrow_then_widen);
	tcase_add_test(tc, view_filter_weighting_and_clear);
	tcase_add_test(tc, view_filter_across_windows);
	tcase_add_test(tc, view_filter_random_against_oracle);
	tcase_add_test(tc, view_filter_allocation_failures);
	suite_add_tcase(s, tc);
	return s;
}
