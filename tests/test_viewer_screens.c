/* Golden screens of the viewer, rendered headless at pinned sizes (80x24
 * and a narrow 50x16) from scripted windows and actions: long, CJK, emoji
 * and hostile frame names, history, help, filter, no data, unreachable;
 * and the real binary's --dump-screen over replay files (REPLAY header).
 * ASYNCTOP_UPDATE_GOLDEN=1 rewrites the files tests/data/screens/NAME.screen.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "encode/pprof.h"
#include "encode/save.h"
#include "encode/utf8.h"
#include "model/model.h"
#include "tests/screen_util.h"
#include "tests/util.h"
#include "tui/app.h"
#include "tui/saver.h"
#include "tui/screen_dump.h"

#define FFFD "\xEF\xBF\xBD"
#define HOSTILE_SHOWN                                                     \
	"evil" FFFD "]0;pwned" FFFD FFFD "[2J" FFFD "31m" FFFD FFFD "nex" \
	"t" FFFD

static const struct su_row win1[] = {
	{ { "app:main:88", "pool:worker:42" },
	  "worker",
	  { 250200000000u, 12100000, 3400000, 50, 50 },
	  50 },
	{ { "app:main:88", "app:poll_backend:31" },
	  "poller",
	  { 5000000000u, 200000, 100000, 17, 17 },
	  1 },
	{ { "app:main:91", "app:spin:12" },
	  "spinner",
	  { 2010000000u, 2960000000u, 41000000, 50100, 50100 },
	  1 },
	{ { "app:main:93",
	    "a_really_long_module_name.with.many.parts:"
	    "an_even_longer_function_name_that_never_ends:1234" },
	  "long",
	  { 1000000, 1000, 1000, 3, 3 },
	  2 },
	{ { "main", "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E:\xE5\x87\xA6\xE7"
	            "\x90\x86:7" },
	  "\xE3\x82\xBF\xE3\x82\xB9\xE3\x82\xAF",
	  { 700000000, 3000000, 10000, 9, 9 },
	  3 },
	{ { "main", "\xF0\x9F\x9A\x80 launch:\xF0\x9F\x94\xA5:1" },
	  "emoji",
	  { 400000000, 50000000, 20000, 120, 118 },
	  1 },
	{ { "main", "evil\x1b]0;pwned\x07\x1b[2J\x9b"
	            "31m\r\nnext\xff" },
	  "bad\x1b[5mtask",
	  { 300000000, 1000, 0, 1, 1 },
	  1 },
};

static const struct su_row win2[] = {
	{ { "app:main:88", "pool:worker:42" },
	  "worker",
	  { 240000000000u, 9000000, 2000000, 40, 41 },
	  48 },
	{ { "app:main:91", "app:spin:12" },
	  "spinner",
	  { 1000000000u, 3990000000u, 60000000, 70000, 70000 },
	  1 },
	{ { "main", "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E:\xE5\x87\xA6\xE7"
	            "\x90\x86:7" },
	  "\xE3\x82\xBF\xE3\x82\xB9\xE3\x82\xAF",
	  { 800000000, 1000000, 10000, 4, 4 },
	  3 },
};

/* The leaf of the first body row of a's screen (the text after SHARE). */
static void first_row(struct app *a, char *dst, size_t size)
{
	struct buf out;
	const char *p;
	int line = 0;

	buf_init(&out);
	ck_assert_int_eq(screen_dump(a, 100, 24, &out), STATUS_OK);
	buf_cstr(&out);
	p = out.data;
	while (line < RENDER_TOP_ROWS && (p = strchr(p, '\n')))
		p++, line++;
	ck_assert_ptr_nonnull(p);
	p = strstr(p, "%  ");
	ck_assert_ptr_nonnull(p);
	p += 3;
	snprintf(dst, size, "%.*s", (int)(strcspn(p, " \n")), p);
	buf_fini(&out);
}

START_TEST(screens_live_and_weighting)
{
	struct app a;
	char r[128];

	su_app(&a);
	su_commit(&a, win1, ARRAY_SIZE(win1), T0);
	first_row(&a, r, sizeof(r));
	ck_assert_str_eq(r, "pool:worker:42");
	app_do(&a, ACTION_DOWN);
	su_golden(&a, 80, 24, "live_80x24");
	su_golden(&a, 50, 16, "live_50x16");
	su_golden(&a, 120, 30, "live_120x30");
	/* busy: the spinner leads; the selection stays on its stack */
	ck_assert_uint_eq(app_key(&a, 'b'), APP_REDRAW);
	first_row(&a, r, sizeof(r));
	ck_assert_str_eq(r, "app:spin:12");
	ck_assert_uint_eq(a.v.sel, 4);
	su_golden(&a, 80, 24, "busy_80x24");
	app_key(&a, 'p');
	first_row(&a, r, sizeof(r));
	ck_assert_str_eq(r, "app:spin:12");
	{
		/* a weighted count's title keeps a gap before it */
		struct buf out;

		buf_init(&out);
		ck_assert_int_eq(screen_dump(&a, 80, 24, &out), STATUS_OK);
		buf_cstr(&out);
		ck_assert_ptr_nonnull(
		    strstr(out.data, "SCHED POLLS\xE2\x96\xBC  WAKES TASKS"));
		app_key(&a, 'w');
		buf_reset(&out);
		ck_assert_int_eq(screen_dump(&a, 80, 24, &out), STATUS_OK);
		buf_cstr(&out);
		ck_assert_ptr_nonnull(
		    strstr(out.data, "SCHED  POLLS WAKES\xE2\x96\xBC TASKS"));
		buf_fini(&out);
		app_key(&a, 'p');
	}
	app_key(&a, 'I');
	first_row(&a, r, sizeof(r));
	/* the hostile name, every control replaced by U+FFFD */
	ck_assert_msg(!strncmp(r, HOSTILE_SHOWN, strlen(HOSTILE_SHOWN)), "%s",
	              r);
	app_key(&a, KC_LEFT);
	ck_assert_int_eq(a.v.metric, METRIC_SCHED);
	/* mouse on the 80x24 screen last rendered (100x24 by first_row): a
	 * click on the BUSY title weights by busy, a click on a row selects
	 * it, the wheel moves */
	ck_assert_uint_eq(app_mouse(&a, LAYOUT_DURATION_COLS + 2, 3, 0),
	                  APP_REDRAW);
	ck_assert_int_eq(a.v.metric, METRIC_BUSY);
	app_key(&a, 'I');
	ck_assert_uint_eq(app_mouse(&a, 60, RENDER_TOP_ROWS + 3, 0),
	                  APP_REDRAW);
	ck_assert_uint_eq(a.v.sel, 3);
	app_mouse(&a, 0, 10, 1);
	ck_assert_uint_eq(a.v.sel, 6);
	app_mouse(&a, 0, 10, -1);
	ck_assert_uint_eq(a.v.sel, 3);
	ck_assert_uint_eq(app_mouse(&a, 5, 0, 0), 0);
	app_fini(&a);
}
END_TEST

/* The header line of a's screen at 100 columns. */
static void first_line(struct app *a, char *dst, size_t size)
{
	struct buf out;

	buf_init(&out);
	ck_assert_int_eq(screen_dump(a, 100, 24, &out), STATUS_OK);
	buf_cstr(&out);
	snprintf(dst, size, "%.*s", (int)strcspn(out.data, "\n"), out.data);
	buf_fini(&out);
}

START_TEST(screens_history_pause_and_eviction)
{
	struct app a;
	char line[512];

	su_app(&a);
	su_commit(&a, win1, ARRAY_SIZE(win1), T0);
	su_commit(&a, win2, ARRAY_SIZE(win2), T0 + 5 * SEC);
	ck_assert_uint_eq(app_shown(&a)->seq, 2);
	app_key(&a, '[');
	ck_assert_int_eq(a.mode, APP_HISTORY);
	ck_assert_uint_eq(app_shown(&a)->seq, 1);
	su_commit(&a, win2, ARRAY_SIZE(win2), T0 + 10 * SEC);
	su_golden(&a, 80, 24, "history_80x24");
	app_key(&a, '[');
	ck_assert_uint_eq(app_shown(&a)->seq, 1);
	ck_assert_str_eq(a.status, "this is the oldest kept window");
	app_key(&a, ']');
	ck_assert_uint_eq(app_shown(&a)->seq, 2);
	app_key(&a, 'L');
	ck_assert_int_eq(a.mode, APP_LIVE);
	ck_assert_uint_eq(app_shown(&a)->seq, 3);
	app_key(&a, ' ');
	ck_assert_int_eq(a.mode, APP_PAUSED);
	su_commit(&a, win1, ARRAY_SIZE(win1), T0 + 15 * SEC);
	ck_assert_uint_eq(app_shown(&a)->seq, 3);
	su_golden(&a, 80, 24, "paused_80x24");
	app_key(&a, ' ');
	ck_assert_int_eq(a.mode, APP_LIVE);
	ck_assert_uint_eq(app_shown(&a)->seq, 4);
	/* o with no partial figures yet: on, says so, shows the finished
	 * window marked; a window coming leaves it on; [ leaves it */
	app_key(&a, 'o');
	ck_assert(a.in_progress);
	ck_assert_ptr_nonnull(strstr(a.status, "first partial figures"));
	ck_assert_uint_eq(app_shown(&a)->seq, 4);
	first_line(&a, line, sizeof(line));
	ck_assert_ptr_nonnull(strstr(line, "LIVE \xC2\xB7 o: waiting"));
	su_commit(&a, win2, ARRAY_SIZE(win2), T0 + 20 * SEC);
	ck_assert(a.in_progress);
	ck_assert_uint_eq(app_shown(&a)->seq, 5);
	app_key(&a, '[');
	ck_assert(!a.in_progress);
	ck_assert_uint_eq(app_shown(&a)->seq, 4);
	first_line(&a, line, sizeof(line));
	ck_assert_ptr_null(strstr(line, "o: waiting"));
	app_fini(&a);
}
END_TEST

START_TEST(screens_eviction_moves_to_oldest)
{
	struct app a;
	struct app_opts o;
	struct buf out;
	char line[512];

	buf_init(&out);

	su_app(&a);
	o = a.o;
	app_fini(&a);
	o.history = 2;
	ck_assert_int_eq(app_init(&a, &o), STATUS_OK);
	su_commit(&a, win1, ARRAY_SIZE(win1), T0);
	su_commit(&a, win2, ARRAY_SIZE(win2), T0 + 5 * SEC);
	app_key(&a, '[');
	ck_assert_uint_eq(app_shown(&a)->seq, 1);
	app_key(&a, 'm');
	ck_assert_uint_eq(a.mark_seq, 1);
	su_commit(&a, win2, ARRAY_SIZE(win2), T0 + 10 * SEC);
	ck_assert_uint_eq(app_shown(&a)->seq, 2);
	ck_assert_ptr_nonnull(strstr(a.notice, "left the history"));
	/* the mark went with its window, and says so; the header numbers
	 * the window as compare and the saves do, and where it stands */
	ck_assert_uint_eq(a.mark_seq, 0);
	ck_assert_ptr_nonnull(
	    strstr(a.status, "marked window 1 left the history"));
	first_line(&a, line, sizeof(line));
	ck_assert_ptr_nonnull(strstr(line, "window 2, 1/2 kept"));
	app_key(&a, 'L');
	app_key(&a, '=');
	su_screen(&a, 100, 24, &out);
	ck_assert_ptr_nonnull(
	    strstr(out.data, "window 3 against the previous window 2"));
	first_line(&a, line, sizeof(line));
	ck_assert_ptr_nonnull(strstr(line, "window 3, 2/2 kept"));
	buf_fini(&out);
	app_fini(&a);
}
END_TEST

START_TEST(screens_empty_help_filter)
{
	struct app a;

	su_app(&a);
	su_commit(&a, win1, ARRAY_SIZE(win1), T0);
	su_commit(&a, NULL, 0, T0 + 5 * SEC);
	ck_assert(app_shown(&a)->empty);
	su_golden(&a, 80, 24, "empty_80x24");
	app_key(&a, '[');
	app_key(&a, '?');
	su_golden(&a, 80, 24, "help_80x24");
	app_key(&a, '?');
	app_key(&a, '/');
	ck_assert(a.editing);
	app_key(&a, 'W');
	app_key(&a, 'o');
	app_key(&a, 'r');
	su_golden(&a, 80, 24, "filter_typing_80x24");
	app_key(&a, KC_ENTER);
	ck_assert(!a.editing);
	ck_assert_uint_eq(a.v.order.n, 1);
	su_golden(&a, 80, 24, "filter_80x24");
	app_key(&a, KC_ESC);
	ck_assert_uint_eq(a.v.order.n, ARRAY_SIZE(win1));
	app_fini(&a);
}
END_TEST

START_TEST(screens_unreachable_and_states)
{
	struct app a;
	struct worker_msg msg;

	su_app(&a);
	ck_assert_uint_eq(app_next_change(&a), UINT64_MAX);
	memset(&msg, 0, sizeof(msg));
	msg.kind = WORKER_STATE;
	msg.state = SOURCE_RETRYING;
	msg.retry_in_ns = 5 * SEC;
	/* told 0.1 s into the window; su_golden() renders at 2.6 s: 2.5 s are
	 * left, shown as 3 s */
	app_set_now(&a, a.since_ns + SEC / 10);
	app_take(&a, &msg);
	/* the countdown ticks from 5 to 4 s when 4 s are left */
	ck_assert_uint_eq(app_next_change(&a), a.since_ns + SEC / 10 + SEC);
	app_set_now(&a, a.since_ns + 5 * SEC);
	ck_assert_uint_eq(app_next_change(&a), a.since_ns + SEC / 10 + 5 * SEC);
	app_set_now(&a, a.since_ns + 6 * SEC);
	ck_assert_uint_eq(app_next_change(&a), UINT64_MAX);
	app_set_now(&a, a.since_ns + SEC / 10);
	msg.kind = WORKER_ERROR;
	msg.err.st = STATUS_UNREACHABLE;
	snprintf(msg.err.detail, sizeof(msg.err.detail),
	         "connect: connection refused");
	snprintf(msg.err.remediation, sizeof(msg.err.remediation),
	         "start the service with TOY_PROFILING=1");
	app_take(&a, &msg);
	su_golden(&a, 80, 24, "unreachable_80x24");
	/* a window makes it connected again */
	su_commit(&a, win2, ARRAY_SIZE(win2), T0);
	ck_assert(a.have_state);
	ck_assert_int_eq(a.state, SOURCE_CONNECTED);
	ck_assert_uint_eq(app_next_change(&a), UINT64_MAX);
	su_golden(&a, 80, 24, "connected_80x24");
	app_fini(&a);
}
END_TEST

START_TEST(screens_save_names)
{
	struct app a;
	char p[512];

	su_app(&a);
	su_commit(&a, win1, ARRAY_SIZE(win1), T0);
	ck_assert_int_eq(
	    app_save_path(p, sizeof(p), "/d", "toyexec", app_shown(&a), -1),
	    STATUS_OK);
	ck_assert_str_eq(p, "/d/asynctop-toyexec-20231114T221320Z-w1.pb.gz");
	ck_assert_int_eq(app_save_path(p, sizeof(p), "/d", "toyexec",
	                               app_shown(&a), METRIC_BUSY),
	                 STATUS_OK);
	ck_assert_str_eq(p, "/d/asynctop-toyexec-20231114T221320Z-w1-busy."
	                    "collapsedstack.txt");
	ck_assert_int_eq(
	    app_save_path(p, 20, "/d", "toyexec", app_shown(&a), -1),
	    STATUS_INVAL);
	/* without a saver, S says so rather than crash */
	app_key(&a, 'S');
	ck_assert_str_eq(a.status, "saving is not available");
	ck_assert(a.status_error);
	app_fini(&a);
}
END_TEST

static void ascii_check_sizes(struct app *a, const char *what)
{
	su_ascii_check(a, 80, 24, what);
	su_ascii_check(a, 50, 16, what);
	su_ascii_check(a, 160, 45, what);
}

/* Every screen in the C locale: live (both sort arrows), paused with new
 * windows, history, help (both pages), filter prompt and filter, empty,
 * 'o' waiting, unreachable and retrying, a status with an ellipsis, and
 * the title's separators. */
START_TEST(screens_c_locale_every_glyph_ascii)
{
	struct app a;
	struct worker_msg msg;

	su_app(&a);
	ascii_check_sizes(&a, "waiting");
	su_commit(&a, win1, 4, T0);
	ascii_check_sizes(&a, "live");
	app_key(&a, 'I');
	ascii_check_sizes(&a, "inverted");
	app_key(&a, ' ');
	su_commit(&a, win1, 4, T0 + 5 * SEC);
	ascii_check_sizes(&a, "paused, 1 new");
	app_key(&a, '[');
	ascii_check_sizes(&a, "history");
	app_key(&a, '?');
	ascii_check_sizes(&a, "help");
	app_key(&a, KC_PGDN);
	ascii_check_sizes(&a, "help, scrolled");
	app_key(&a, '?');
	app_key(&a, '/');
	app_key(&a, 'w');
	ascii_check_sizes(&a, "filter prompt");
	app_key(&a, KC_ENTER);
	ascii_check_sizes(&a, "filter");
	app_key(&a, KC_ESC);
	app_key(&a, 'L');
	app_key(&a, 'o');
	ascii_check_sizes(&a, "o waiting");
	app_set_status(&a, false, "saving\xE2\x80\xA6 ./x.pb.gz");
	ascii_check_sizes(&a, "saving");
	su_commit(&a, NULL, 0, T0 + 10 * SEC);
	ascii_check_sizes(&a, "empty");
	memset(&msg, 0, sizeof(msg));
	msg.kind = WORKER_STATE;
	msg.state = SOURCE_RETRYING;
	msg.retry_in_ns = 5 * SEC;
	app_take(&a, &msg);
	msg.kind = WORKER_ERROR;
	msg.err.st = STATUS_UNREACHABLE;
	app_take(&a, &msg);
	ascii_check_sizes(&a, "unreachable");
	a.flags = UTF8_ASCII;
	su_golden(&a, 80, 24, "unreachable_ascii_80x24");
	app_fini(&a);
}
END_TEST

/* The footer keeps "? Help" and "q Quit" at every width, the others going
 * first; replay offers no Live or Pause; one name per idea. */
START_TEST(screens_footer_keeps_help_and_quit)
{
	struct app a;
	struct buf out;

	buf_init(&out);
	su_app(&a);
	su_commit(&a, win1, ARRAY_SIZE(win1), T0);
	for (size_t cols = RENDER_MIN_COLS; cols <= 200; cols++) {
		const char *last;

		buf_reset(&out);
		ck_assert_int_eq(screen_dump(&a, cols, 24, &out), STATUS_OK);
		buf_cstr(&out);
		out.data[out.len - 1] = '\0';
		last = strrchr(out.data, '\n') + 1;
		ck_assert_msg(!strncmp(last, "? Help", 6), "%zu: %s", cols,
		              last);
		ck_assert_msg(strstr(last, "q Quit"), "%zu: %s", cols, last);
		ck_assert_ptr_null(strstr(last, "Find"));
		ck_assert_ptr_null(strstr(last, "Folded"));
		if (cols >= 80)
			ck_assert_msg(strstr(last, "/ Filter"), "%s", last);
		if (cols >= 120)
			ck_assert_msg(strstr(last, "C Collapsed"), "%s", last);
	}
	a.o.replay = true;
	buf_reset(&out);
	ck_assert_int_eq(screen_dump(&a, 200, 24, &out), STATUS_OK);
	buf_cstr(&out);
	ck_assert_ptr_nonnull(strstr(out.data, "? Help"));
	ck_assert_ptr_null(strstr(out.data, "L Live"));
	ck_assert_ptr_null(strstr(out.data, "Space Pause"));
	buf_fini(&out);
	app_fini(&a);
}
END_TEST

/* ] onto the newest window is live again (and on from a pause). */
START_TEST(screens_forward_onto_newest_is_live)
{
	struct app a;

	su_app(&a);
	su_commit(&a, win1, ARRAY_SIZE(win1), T0);
	su_commit(&a, win2, ARRAY_SIZE(win2), T0 + 5 * SEC);
	app_key(&a, '[');
	ck_assert_int_eq(a.mode, APP_HISTORY);
	ck_assert_uint_eq(app_key(&a, ']'), APP_REDRAW);
	ck_assert_int_eq(a.mode, APP_LIVE);
	su_commit(&a, win1, ARRAY_SIZE(win1), T0 + 10 * SEC);
	ck_assert_uint_eq(app_shown(&a)->seq, 3);
	app_key(&a, ' ');
	ck_assert_int_eq(a.mode, APP_PAUSED);
	su_commit(&a, win2, ARRAY_SIZE(win2), T0 + 15 * SEC);
	app_key(&a, ']');
	ck_assert_int_eq(a.mode, APP_LIVE);
	ck_assert_uint_eq(app_shown(&a)->seq, 4);
	app_key(&a, ']');
	ck_assert_int_eq(a.mode, APP_LIVE);
	/* F10 quits and F3 filters, as in htop */
	ck_assert_uint_eq(app_key(&a, KC_F10), APP_QUIT);
	app_key(&a, KC_F3);
	ck_assert(a.editing);
	app_fini(&a);
}
END_TEST

/* "saved PATH" clears APP_BRIEF_NS later (injected clock), and the loop is
 * told when; an error stays. */
START_TEST(screens_saved_status_clears)
{
	struct app a;
	struct saver_result res;
	uint64_t t0 = 1000 * (uint64_t)SEC;

	su_app(&a);
	memset(&res, 0, sizeof(res));
	snprintf(res.written, sizeof(res.written), "./a.pb.gz");
	app_set_now(&a, t0);
	app_saved(&a, &res);
	ck_assert_str_eq(a.status, "saved ./a.pb.gz");
	ck_assert_uint_ge(app_next_change(&a), t0 + APP_BRIEF_NS);
	ck_assert_uint_le(app_next_change(&a), t0 + APP_BRIEF_NS + 1);
	app_set_now(&a, t0 + APP_BRIEF_NS - 1);
	ck_assert_str_eq(a.status, "saved ./a.pb.gz");
	app_set_now(&a, t0 + APP_BRIEF_NS + 1);
	ck_assert_str_eq(a.status, "");
	ck_assert_uint_eq(app_next_change(&a), UINT64_MAX);
	res.st = STATUS_IO;
	snprintf(res.err, sizeof(res.err), "disk full");
	app_saved(&a, &res);
	app_set_now(&a, t0 + 100 * APP_BRIEF_NS);
	ck_assert_str_eq(a.status, "cannot save: disk full");
	ck_assert(a.status_error);
	/* a later status is not cut short by an earlier save's clock */
	res.st = STATUS_OK;
	app_saved(&a, &res);
	app_set_status(&a, false, "this is the oldest kept window");
	app_set_now(&a, t0 + 200 * APP_BRIEF_NS);
	ck_assert_str_eq(a.status, "this is the oldest kept window");
	app_fini(&a);
}
END_TEST

/* Writes window rows as a pprof file in dir. */
static void write_profile(const char *dir, const char *name,
                          const struct su_row *rows, size_t n, int64_t start)
{
	struct app a;
	struct buf enc;
	char path[1024], err[256];

	su_app(&a);
	su_commit(&a, rows, n, start);
	buf_init(&enc);
	ck_assert_int_eq(pprof_encode(a.m, app_shown(&a), NULL, &enc),
	                 STATUS_OK);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	ck_assert_int_eq(
	    save_file(path, enc.data, enc.len, NULL, NULL, 0, err, sizeof(err)),
	    STATUS_OK);
	buf_fini(&enc);
	app_fini(&a);
}

/* Runs asynctop with argv (argv[0] is the binary) in UTC, without the test
 * event channel; its screen (stdout) into out; returns its exit status. */
static int run_dump(const char *const *argv, struct buf *out)
{
	static const char *const unset[] = { "ASYNCTOP_TEST_EVENTS", NULL };
	static const char *const set[] = { "TZ=UTC", NULL };
	const struct tu_proc p = { .env_unset = unset, .env_set = set };
	struct tu_run r;
	int code;

	tu_run_init(&r);
	tu_run(&r, &p, argv);
	code = r.code;
	buf_reset(out);
	ck_assert_int_eq(buf_add(out, r.out.data, r.out.len), STATUS_OK);
	buf_cstr(out);
	tu_run_fini(&r);
	return code;
}

START_TEST(screens_replay_dump_binary)
{
	const char *bin = getenv("ASYNCTOP_BIN");
	const char *data = getenv("ASYNCTOP_TESTDATA");
	const char *update = getenv("ASYNCTOP_UPDATE_GOLDEN");
	char dir[512], golden_path[1024];
	struct buf have, want;

	if (!bin || !*bin || access(bin, X_OK) || !data) {
		tu_skip("screens_replay_dump_binary",
		        "ASYNCTOP_BIN is not set (run via make)");
		return;
	}
	tu_mkdtemp(dir, sizeof(dir));
	write_profile(dir, "b.pb.gz", win2, ARRAY_SIZE(win2), T0 + 5 * SEC);
	write_profile(dir, "a.pb.gz", win1, ARRAY_SIZE(win1), T0);
	buf_init(&have);
	buf_init(&want);
	{
		const char *argv[] = { bin,     "-a", "replay", "-e",
			               dir,     "-m", "busy",   "--dump-screen",
			               "80x24", NULL };
		ck_assert_int_eq(run_dump(argv, &have), 0);
	}
	ck_assert_ptr_nonnull(strstr(have.data, "REPLAY"));
	ck_assert_ptr_nonnull(strstr(have.data, "window 2/2"));
	ck_assert_ptr_nonnull(strstr(have.data, "BUSY\xE2\x96\xBC"));
	snprintf(golden_path, sizeof(golden_path),
	         "%s/screens/replay_80x24.screen", data);
	if (update && *update)
		ck_assert_int_eq(
		    tu_write_file(golden_path, have.data, have.len), STATUS_OK);
	ck_assert_int_eq(tu_read_file(golden_path, &want), STATUS_OK);
	buf_cstr(&want);
	/* the header names the temporary directory: compare from line 2 */
	ck_assert_str_eq(strchr(have.data, '\n'), strchr(want.data, '\n'));
	buf_fini(&have);
	buf_fini(&want);
	tu_rmtree(dir);
}
END_TEST

/* Line 2 of a's screen at 100 columns. */
static void second_line(struct app *a, char *dst, size_t size)
{
	struct buf out;
	const char *l2;

	buf_init(&out);
	ck_assert_int_eq(screen_dump(a, 100, 24, &out), STATUS_OK);
	buf_cstr(&out);
	l2 = strchr(out.data, '\n');
	l2 = l2 ? l2 + 1 : "";
	snprintf(dst, size, "%.*s", (int)strcspn(l2, "\n"), l2);
	buf_fini(&out);
}

/* A failure that is retried (here malformed data, which is not
 * "unreachable") stops the collecting until the retry is due: line 2 must
 * not say "collecting" meanwhile. */
START_TEST(screens_not_collecting_while_retrying)
{
	struct worker_msg err = { .kind = WORKER_ERROR, .index = 2 };
	struct worker_msg retry = { .kind = WORKER_STATE,
		                    .index = 2,
		                    .state = SOURCE_RETRYING,
		                    .retry_in_ns = 4 * SEC };
	struct app a;
	char line[512];

	su_app(&a);
	su_commit(&a, win1, ARRAY_SIZE(win1), T0);
	err.err.st = STATUS_MALFORMED;
	snprintf(err.err.detail, sizeof(err.err.detail), "a bad frame");
	app_take(&a, &err);
	app_take(&a, &retry);
	app_set_now(&a, 1001 * SEC);
	second_line(&a, line, sizeof(line));
	ck_assert_msg(strstr(line, "not collecting: waiting for the source"),
	              "%s", line);
	/* due: the next window runs, counted from when it was due */
	app_set_now(&a, 1006 * SEC);
	second_line(&a, line, sizeof(line));
	ck_assert_msg(strstr(line, "collecting") && !strstr(line, "not "), "%s",
	              line);
	ck_assert_msg(strstr(line, " 2.00s / 5.00s") != NULL, "%s", line);
	app_fini(&a);
}
END_TEST

/* A live source that never delivers ends --dump-screen at its first
 * failure, with status 3 and the screen saying why and when it retries:
 * a path nobody serves (unreachable), and a socket that accepts but never
 * answers (timed out after the 2 s reply timeout). */
START_TEST(screens_dump_ends_at_first_failure)
{
	const char *bin = getenv("ASYNCTOP_BIN");
	char dir[512], sock[700];
	struct buf have;

	if (!bin || !*bin || access(bin, X_OK)) {
		tu_skip("screens_dump_ends_at_first_failure",
		        "ASYNCTOP_BIN is not set (run via make)");
		return;
	}
	tu_mkdtemp(dir, sizeof(dir));
	snprintf(sock, sizeof(sock), "%s/a.sock", dir);
	buf_init(&have);
	{
		const char *argv[] = {
			bin,  "-a", "asyncio",       "-e",    sock,
			"-w", "30", "--dump-screen", "80x14", NULL
		};
		int fd;

		ck_assert_int_eq(run_dump(argv, &have), 3);
		ck_assert_ptr_nonnull(
		    strstr(have.data, "unreachable \xC2\xB7 retrying in 1 s"));
		ck_assert_ptr_nonnull(strstr(have.data, "not reachable at"));
		ck_assert_ptr_nonnull(strstr(
		    have.data, "not collecting: waiting for the source"));
		ck_assert_ptr_nonnull(strstr(have.data, "opt in"));

		/* now something listens there, and never answers */
		fd = tu_listen_unix(sock);
		ck_assert_int_eq(run_dump(argv, &have), 3);
		close(fd);
	}
	ck_assert_ptr_nonnull(
	    strstr(have.data, "not answering \xC2\xB7 retrying in 1 s"));
	ck_assert_ptr_nonnull(strstr(have.data, "timed out"));
	buf_fini(&have);
	tu_rmtree(dir);
}
END_TEST

/* The status line is one line: an error's lines (its detail, then its
 * remedy) run on with " · ", their indentation dropped. */
START_TEST(screens_status_is_one_line)
{
	struct app a;

	su_app(&a);
	app_set_status(&a, true, "%s",
	               "the source failed\n  do this\nthen that\n");
	ck_assert_str_eq(
	    a.status, "the source failed \xC2\xB7 do this \xC2\xB7 then that");
	ck_assert(a.status_error);
	app_fini(&a);
}
END_TEST

Suite *suite_viewer_screens(void);
Suite *suite_viewer_screens(void)
{
	Suite *s = suite_create("viewer_screens");
	TCase *tc = tcase_create("viewer_screens");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, screens_live_and_weighting);
	tcase_add_test(tc, screens_history_pause_and_eviction);
	tcase_add_test(tc, screens_eviction_moves_to_oldest);
	tcase_add_test(tc, screens_empty_help_filter);
	tcase_add_test(tc, screens_unreachable_and_states);
	tcase_add_test(tc, screens_save_names);
	tcase_add_test(tc, screens_c_locale_every_glyph_ascii);
	tcase_add_test(tc, screens_footer_keeps_help_and_quit);
	tcase_add_test(tc, screens_forward_onto_newest_is_live);
	tcase_add_test(tc, screens_saved_status_clears);
	tcase_add_test(tc, screens_replay_dump_binary);
	tcase_add_test(tc, screens_dump_ends_at_first_failure);
	tcase_add_test(tc, screens_not_collecting_while_retrying);
	tcase_add_test(tc, screens_status_is_one_line);
	suite_add_tcase(s, tc);
	return s;
}
