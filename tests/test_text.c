/* encode/text: golden reports at width 0 and 80, section order, top N,
 * hostile names, merging, ASCII mode, empty windows, torture. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "encode/text.h"
#include "encode/utf8.h"
#include "model/buf.h"
#include "model/model.h"
#include "tests/model_util.h"
#include "tests/util.h"

#define US  UINT64_C(1000)
#define MS  UINT64_C(1000000)
#define SEC UINT64_C(1000000000)

struct fx_sample {
	const char *frames[3]; /* root first, NULL-terminated */
	const char *task;
	uint64_t tasks;
	uint64_t v[METRIC_COUNT];
};

static const struct fx_sample fixture[] = {
	{ { "app:main:88", "pool:worker:42" },
	  "worker",
	  50,
	  { 250200 * MS, 12100 * US, 3400 * US, 50, 50 } },
	{ { "app:main:90", "app:poll_backend:31" },
	  "poller",
	  1,
	  { 5 * SEC, 200 * US, 100 * US, 17, 17 } },
	{ { "app:main:91", "app:spin:12" },
	  "spin",
	  1,
	  { 2010 * MS, 2960 * MS, 41 * MS, 50100, 50100 } },
	{ { "app:main:92", "app:idle_only:7" }, "lazy", 1, { 1000 } },
};

static const char golden0[] =
    "window 1  2024-05-01T12:00:00Z  5.00s  tasks 53  stacks 4\n"
    "source: asyncio pid 4242\n"
    "total  idle 4m17.2s  busy 2.97s  sched 44.5ms  polls 50.2k  wakes "
    "50.2k\n"
    "\n"
    "top 10 by idle\n"
    "   IDLE     BUSY    SCHED   POLLS   WAKES  TASKS  STACK (leaf ← root)\n"
    "4m10.2s   12.1ms    3.4ms      50      50     50  pool:worker:42 ← "
    "app:main:88\n"
    "  5.00s  200.0us  100.0us      17      17      1  app:poll_backend:31 "
    "← app:main:90\n"
    "  2.01s    2.96s   41.0ms   50.1k   50.1k      1  app:spin:12 ← "
    "app:main:91\n"
    "  1.0us        0        0       0       0      1  app:idle_only:7 ← "
    "app:main:92\n"
    "\n"
    "top 10 by busy\n"
    "   IDLE     BUSY    SCHED   POLLS   WAKES  TASKS  STACK (leaf ← root)\n"
    "  2.01s    2.96s   41.0ms   50.1k   50.1k      1  app:spin:12 ← "
    "app:main:91\n"
    "4m10.2s   12.1ms    3.4ms      50      50     50  pool:worker:42 ← "
    "app:main:88\n"
    "  5.00s  200.0us  100.0us      17      17      1  app:poll_backend:31 "
    "← app:main:90\n"
    "\n"
    "top 10 by scheduled\n"
    "   IDLE     BUSY    SCHED   POLLS   WAKES  TASKS  STACK (leaf ← root)\n"
    "  2.01s    2.96s   41.0ms   50.1k   50.1k      1  app:spin:12 ← "
    "app:main:91\n"
    "4m10.2s   12.1ms    3.4ms      50      50     50  pool:worker:42 ← "
    "app:main:88\n"
    "  5.00s  200.0us  100.0us      17      17      1  app:poll_backend:31 "
    "← app:main:90\n"
    "\n"
    "top 10 by polls\n"
    "   IDLE     BUSY    SCHED   POLLS   WAKES  TASKS  STACK (leaf ← root)\n"
    "  2.01s    2.96s   41.0ms   50.1k   50.1k      1  app:spin:12 ← "
    "app:main:91\n"
    "4m10.2s   12.1ms    3.4ms      50      50     50  pool:worker:42 ← "
    "app:main:88\n"
    "  5.00s  200.0us  100.0us      17      17      1  app:poll_backend:31 "
    "← app:main:90\n"
    "\n"
    "top 10 by wakes\n"
    "   IDLE     BUSY    SCHED   POLLS   WAKES  TASKS  STACK (leaf ← root)\n"
    "  2.01s    2.96s   41.0ms   50.1k   50.1k      1  app:spin:12 ← "
    "app:main:91\n"
    "4m10.2s   12.1ms    3.4ms      50      50     50  pool:worker:42 ← "
    "app:main:88\n"
    "  5.00s  200.0us  100.0us      17      17      1  app:poll_backend:31 "
    "← app:main:90\n";

/* At 80 columns only the poll_backend stack (33 columns) is cut, to 30. */
#define POLLER_80 "app:poll_backend:31 ← app:mai…"

static const char *const meta_partial_reason = "application exited";

static const struct window *build_meta(struct model **m,
                                       const struct fx_sample *f, size_t n,
                                       const struct window_meta *meta)
{
	const struct window *w = NULL;

	ck_assert_int_eq(model_new(NULL, m), STATUS_OK);
	ck_assert_int_eq(model_begin(*m), STATUS_OK);
	for (size_t i = 0; i < n; i++)
		tm_add_frames(*m, f[i].frames, ARRAY_SIZE(f[i].frames),
		              f[i].task, f[i].v, f[i].tasks);
	ck_assert_int_eq(model_commit(*m, meta, &w), STATUS_OK);
	ck_assert_ptr_nonnull(w);
	return w;
}

static void std_meta(struct window_meta *meta)
{
	memset(meta, 0, sizeof(*meta));
	meta->time_nanos = INT64_C(1714564800) * 1000000000;
	meta->duration_nanos = 5000000000;
	meta->source = "asyncio pid 4242";
}

static const struct window *build(struct model **m, const struct fx_sample *f,
                                  size_t n)
{
	struct window_meta meta;

	std_meta(&meta);
	return build_meta(m, f, n, &meta);
}

static void encode(const struct model *m, const struct window *w,
                   const struct text_opts *o, struct buf *out)
{
	buf_init(out);
	ck_assert_int_eq(text_encode(m, w, o, out), STATUS_OK);
	ck_assert(utf8_valid(buf_view(out)));
}

/* Replaces every occurrence of from by to in the C string s (into out). */
static void replace(struct buf *out, const char *s, const char *from,
                    const char *to)
{
	const char *p;
	size_t n = strlen(from);

	buf_init(out);
	while ((p = strstr(s, from)) != NULL) {
		buf_add(out, s, (size_t)(p - s));
		buf_adds(out, to);
		s = p + n;
	}
	buf_adds(out, s);
}

/* Each line of s is at most cols wide, and no control byte but '\n'. */
static void check_lines(const char *s, size_t cols)
{
	while (*s) {
		const char *nl = strchr(s, '\n');

		ck_assert_ptr_nonnull(nl);
		ck_assert_msg(utf8_width(sv_n(s, (size_t)(nl - s))) <= cols,
		              "line too wide: %.*s", (int)(nl - s), s);
		for (const char *c = s; c < nl; c++) {
			unsigned char b = (unsigned char)*c;
			ck_assert_msg(b >= 0x20 && b != 0x7F,
			              "control byte %02x", b);
			/* C1 controls are U+0080-009F: C2 80 .. C2 9F */
			if (b == 0xC2 && c + 1 < nl)
				ck_assert((unsigned char)c[1] >= 0xA0 ||
				          (unsigned char)c[1] < 0x80);
		}
		s = nl + 1;
	}
}

START_TEST(golden_width0)
{
	struct model *m;
	const struct window *w = build(&m, fixture, ARRAY_SIZE(fixture));
	struct buf out;

	encode(m, w, NULL, &out);
	ck_assert_str_eq(buf_cstr(&out), golden0);
	buf_fini(&out);
	model_free(m);
}
END_TEST

START_TEST(golden_width80)
{
	struct model *m;
	const struct window *w = build(&m, fixture, ARRAY_SIZE(fixture));
	struct text_opts o;
	struct buf out, want;

	text_opts_default(&o);
	o.width = 80;
	encode(m, w, &o, &out);
	replace(&want, golden0, "app:poll_backend:31 ← app:main:90", POLLER_80);
	ck_assert_str_eq(buf_cstr(&out), buf_cstr(&want));
	check_lines(buf_cstr(&out), 80);
	buf_fini(&want);
	buf_fini(&out);
	model_free(m);
}
END_TEST

START_TEST(narrow_widths)
{
	struct model *m;
	const struct window *w = build(&m, fixture, ARRAY_SIZE(fixture));
	struct text_opts o;
	struct buf out;

	text_opts_default(&o);
	for (o.width = 51; o.width <= 90; o.width++) {
		encode(m, w, &o, &out);
		check_lines(buf_cstr(&out), o.width);
		buf_fini(&out);
	}
	/* below the numeric columns: the table overflows, never crashes */
	o.width = 20;
	encode(m, w, &o, &out);
	ck_assert_ptr_nonnull(strstr(buf_cstr(&out), "      1  …\n"));
	ck_assert_ptr_nonnull(strstr(buf_cstr(&out), "\ntop 10 by idle\n"));
	ck_assert_int_eq(strncmp(buf_cstr(&out), "window 1  2024-05-0…\n",
	                         strlen("window 1  2024-05-0…\n")),
	                 0);
	buf_fini(&out);
	model_free(m);
}
END_TEST

START_TEST(order_and_top)
{
	struct model *m;
	const struct window *w = build(&m, fixture, ARRAY_SIZE(fixture));
	struct text_opts o;
	struct buf out;
	const char *s, *t[5];

	text_opts_default(&o);
	o.first = METRIC_SCHED;
	o.top = 2;
	encode(m, w, &o, &out);
	s = buf_cstr(&out);
	t[0] = strstr(s, "\ntop 2 by scheduled\n");
	t[1] = strstr(s, "\ntop 2 by polls\n");
	t[2] = strstr(s, "\ntop 2 by wakes\n");
	t[3] = strstr(s, "\ntop 2 by idle\n");
	t[4] = strstr(s, "\ntop 2 by busy\n");
	for (int i = 0; i < 5; i++)
		ck_assert_ptr_nonnull(t[i]);
	for (int i = 1; i < 5; i++)
		ck_assert(t[i - 1] < t[i]);
	/* the idle section keeps its two largest: worker, then poller */
	ck_assert_ptr_nonnull(
	    strstr(t[3], "pool:worker:42 ← app:main:88\n  5.00s"));
	s = strstr(t[3], "app:spin:12"); /* not before the busy section */
	ck_assert(s == NULL || s > t[4]);
	buf_fini(&out);

	o.top = 0; /* every row */
	encode(m, w, &o, &out);
	ck_assert_ptr_nonnull(strstr(buf_cstr(&out), "\nall stacks by idle\n"));
	ck_assert_ptr_nonnull(strstr(buf_cstr(&out), "app:idle_only:7"));
	buf_fini(&out);
	model_free(m);
}
END_TEST

/* The stacks of a section (titled title), in order, one per line. */
static void section_stacks(const char *s, const char *title, struct buf *b)
{
	const char *p = strstr(s, title);

	ck_assert_ptr_nonnull(p);
	p = strchr(p + strlen(title), '\n') + 1; /* skip the headings */
	buf_init(b);
	while (*p && *p != '\n') {
		const char *nl = strchr(p, '\n'), *sp = nl;

		while (sp > p && sp[-1] != ' ')
			sp--;
		buf_add(b, sp, (size_t)(nl - sp) + 1);
		p = nl + 1;
	}
}

/* Choosing the top N (a heap) gives the head of the full sort, ties
 * broken by stack text. */
START_TEST(top_n_matches_full_sort)
{
	struct fx_sample f[60];
	char names[60][8];
	struct model *m;
	const struct window *w;
	struct text_opts o;
	struct buf all, top, a, t;
	const char *s;
	uint64_t prev = UINT64_MAX;

	for (int i = 0; i < 60; i++) {
		snprintf(names[i], sizeof(names[i]), "f%02d", (i * 17) % 60);
		memset(&f[i], 0, sizeof(f[i]));
		f[i].frames[0] = names[i];
		f[i].task = "t";
		f[i].tasks = 1;
		f[i].v[METRIC_IDLE] = 1 + (uint64_t)(i * 7) % 5;
		f[i].v[METRIC_POLLS] = (uint64_t)i % 3; /* a third are 0 */
	}
	w = build(&m, f, 60);
	text_opts_default(&o);
	o.top = 0;
	encode(m, w, &o, &all);
	o.top = 7;
	encode(m, w, &o, &top);
	section_stacks(buf_cstr(&all), "\nall stacks by idle\n", &a);
	section_stacks(buf_cstr(&top), "\ntop 7 by idle\n", &t);
	ck_assert_uint_eq(a.len, 60 * 4);
	ck_assert_uint_eq(t.len, 7 * 4);
	ck_assert_int_eq(memcmp(a.data, t.data, t.len), 0);
	/* the full list: idle descending, then name ascending */
	s = a.data;
	for (int i = 0; i < 60; i++, s += 4) {
		int id = (s[1] - '0') * 10 + (s[2] - '0'), k;
		for (k = 0; k < 59 && (k * 17) % 60 != id; k++)
			;
		ck_assert_int_eq((k * 17) % 60, id);
		ck_assert_uint_le(f[k].v[METRIC_IDLE], prev);
		if (i > 0 && f[k].v[METRIC_IDLE] == prev)
			ck_assert_int_lt(memcmp(s - 4, s, 3), 0);
		prev = f[k].v[METRIC_IDLE];
	}
	buf_fini(&a);
	buf_fini(&t);
	section_stacks(buf_cstr(&all), "\nall stacks by polls\n", &a);
	section_stacks(buf_cstr(&top), "\ntop 7 by polls\n", &t);
	ck_assert_uint_eq(a.len, 40 * 4);
	ck_assert_int_eq(memcmp(a.data, t.data, t.len), 0);
	buf_fini(&a);
	buf_fini(&t);
	buf_fini(&all);
	buf_fini(&top);
	model_free(m);
}
END_TEST

START_TEST(missing_metric_partial_header)
{
	const struct fx_sample f[] = {
		{ { "r", "only_idle" }, "t", 3, { 12 * SEC } },
	};
	struct window_meta meta;
	struct model *m;
	const struct window *w;
	struct buf out;

	std_meta(&meta);
	meta.partial = true;
	meta.reason = meta_partial_reason;
	meta.time_nanos = 0;
	meta.source = NULL;
	meta.duration_nanos = 3 * 1000000000LL + 250000000LL;
	w = build_meta(&m, f, 1, &meta);
	encode(m, w, NULL, &out);
	ck_assert_str_eq(
	    buf_cstr(&out),
	    "window 1  3.25s  tasks 3  stacks 1\n"
	    "partial: application exited\n"
	    "total  idle 12.00s  busy 0  sched 0  polls 0  wakes 0\n"
	    "\n"
	    "top 10 by idle\n"
	    "   IDLE     BUSY    SCHED   POLLS   WAKES  TASKS  STACK (leaf ← "
	    "root)\n"
	    " 12.00s        0        0       0       0      3  only_idle ← r\n"
	    "\n"
	    "top 10 by busy\n"
	    "(no tasks with busy)\n"
	    "\n"
	    "top 10 by scheduled\n"
	    "(no tasks with scheduled)\n"
	    "\n"
	    "top 10 by polls\n"
	    "(no tasks with polls)\n"
	    "\n"
	    "top 10 by wakes\n"
	    "(no tasks with wakes)\n");
	buf_fini(&out);
	model_free(m);
}
END_TEST

START_TEST(hostile_names)
{
	const struct fx_sample f[] = {
		{ { "app:main:1", "evil\x1b[2J\nname\x9b" }, "t", 1, { 7 } },
		{ { "a\nb" }, "t", 1, { 5 } },
		{ { "a\rb" }, "t", 2, { 4 } },
		{ { "\xE4\xB8\xAD\xE6\x96\x87\xE5\xAD\x97\xF0\x9F\xA6\x80"
		    "\xE4\xB8\xAD\xE6\x96\x87\xE5\xAD\x97\xE4\xB8\xAD\xE6\x96"
		    "\x87\xE5\xAD\x97\xE4\xB8\xAD\xE6\x96\x87" },
		  "t",
		  1,
		  { 3 } },
	};
	struct window_meta meta;
	struct model *m;
	const struct window *w;
	struct text_opts o;
	struct buf out;
	const char *s;

	std_meta(&meta);
	meta.source = "replay \x1b]0;pwned\x07.pb.gz";
	w = build_meta(&m, f, ARRAY_SIZE(f), &meta);
	encode(m, w, NULL, &out);
	s = buf_cstr(&out);
	check_lines(s, SIZE_MAX);
	ck_assert_ptr_nonnull(strstr(s, "\nsource: replay �]0;pwned�.pb.gz\n"));
	ck_assert_ptr_nonnull(strstr(s, "  evil�[2J�name� ← app:main:1\n"));
	/* "a\nb" and "a\rb" read the same: one row, 3 tasks */
	ck_assert_ptr_nonnull(strstr(s, "      3  a�b\n"));
	ck_assert_ptr_nonnull(strstr(s, "  tasks 5  stacks 3\n"));
	buf_fini(&out);

	/* at 60 columns the wide characters are never split */
	text_opts_default(&o);
	o.width = 60;
	encode(m, w, &o, &out);
	check_lines(buf_cstr(&out), 60);
	ck_assert_ptr_nonnull(strstr(buf_cstr(&out), "  中文字🦀…\n"));
	buf_fini(&out);
	model_free(m);
}
END_TEST

/* A frame holding the separator reads like a two-frame stack: merged. */
START_TEST(separator_in_frame)
{
	const struct fx_sample f[] = {
		{ { "y", "x" }, "t", 1, { 7 } },
		{ { "x ← y" }, "t", 2, { 5 } },
		{ { "z" }, "t", 1, { 1 } },
	};
	struct model *m;
	const struct window *w = build(&m, f, ARRAY_SIZE(f));
	struct buf out;

	encode(m, w, NULL, &out);
	ck_assert_ptr_nonnull(strstr(buf_cstr(&out), "  tasks 4  stacks 2\n"));
	ck_assert_ptr_nonnull(strstr(buf_cstr(&out),
	                             "\n   12ns        0        0       0 "
	                             "      0      3  x ← y\n"));
	buf_fini(&out);
	model_free(m);
}
END_TEST

START_TEST(ascii_mode)
{
	const struct fx_sample f[] = {
		{ { "app:main:1", "\xE4\xB8\xAD:2" }, "t", 1, { 7 } },
	};
	struct model *m;
	const struct window *w = build(&m, f, 1);
	struct text_opts o;
	struct buf out;
	const char *s;

	text_opts_default(&o);
	o.ascii = true;
	encode(m, w, &o, &out);
	s = buf_cstr(&out);
	for (const char *c = s; *c; c++)
		ck_assert_int_lt((unsigned char)*c, 0x80);
	ck_assert_ptr_nonnull(strstr(s, "TASKS  STACK (leaf <- root)\n"));
	ck_assert_ptr_nonnull(strstr(s, "  ?:2 <- app:main:1\n"));
	buf_fini(&out);
	model_free(m);
}
END_TEST

START_TEST(empty_and_bad_arguments)
{
	struct model *m;
	struct window_meta meta;
	const struct window *w = NULL;
	struct text_opts o;
	struct buf out;

	memset(&meta, 0, sizeof(meta));
	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	ck_assert_int_eq(model_begin(m), STATUS_OK);
	ck_assert_int_eq(model_commit(m, &meta, &w), STATUS_EMPTY_WINDOW);
	buf_init(&out);
	ck_assert_int_eq(text_encode(m, w, NULL, &out), STATUS_EMPTY_WINDOW);
	ck_assert_uint_eq(out.len, 0);
	text_opts_default(&o);
	o.first = (enum metric)5;
	ck_assert_int_eq(text_encode(m, w, &o, &out), STATUS_INVAL);
	ck_assert_int_eq(text_encode(NULL, w, NULL, &out), STATUS_INVAL);
	buf_fini(&out);
	model_free(m);
}
END_TEST

struct enc_ctx {
	const struct model *m;
	const struct window *w;
	const struct text_opts *o;
};

static enum status run_encode(void *ctx)
{
	struct enc_ctx *c = ctx;
	struct buf out;
	enum status st;

	buf_init(&out);
	st = text_encode(c->m, c->w, c->o, &out);
	if (st == STATUS_OK)
		ck_assert_str_eq(buf_cstr(&out), golden0);
	buf_fini(&out);
	return st;
}

START_TEST(torture)
{
	struct model *m;
	struct enc_ctx c = { 0 };

	c.w = build(&m, fixture, ARRAY_SIZE(fixture));
	c.m = m;
	ck_assert_uint_gt(tu_torture(run_encode, &c), 0);
	model_free(m);
}
END_TEST

Suite *suite_text(void);
Suite *suite_text(void)
{
	Suite *s = suite_create("text");
	TCase *tc = tcase_create("text");

	tcase_add_test(tc, golden_width0);
	tcase_add_test(tc, golden_width80);
	tcase_add_test(tc, narrow_widths);
	tcase_add_test(tc, order_and_top);
	tcase_add_test(tc, top_n_matches_full_sort);
	tcase_add_test(tc, missing_metric_partial_header);
	tcase_add_test(tc, hostile_names);
	tcase_add_test(tc, separator_in_frame);
	tcase_add_test(tc, ascii_mode);
	tcase_add_test(tc, empty_and_bad_arguments);
	tcase_add_test(tc, torture);
	suite_add_tcase(s, tc);
	return s;
}
