/* The real binary's live viewer on the bundled demo shop in tmux
 * (`asynctop -w 1 -- python3 adapters/asyncio/demo/shop.py`): the
 * weighting (keys and a mouse click) puts each question's designed family
 * first, history steps, S and C save files that go tool pprof and the Go
 * checker accept, o shows the window in progress, and each view shows
 * what the demo holds for it.  On a pseudo-terminal with job control:
 * test_viewer_demo_pty.c. */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/base.h"
#include "model/buf.h"
#include "model/metric.h"
#include "tests/demo_util.h"
#include "tests/tmux.h"
#include "tests/util.h"

/* ---- screens ---------------------------------------------------------- */

#define EXPECT_SCREEN(t, e, screen, ok, ctx, what)                       \
	ck_assert_msg(                                                   \
	    tmux_screen_until((t), (e), (screen), (ok), (ctx), DEMO_MS), \
	    "the screen never showed %s:\n%s", (what), buf_cstr(screen))

/* The header's "window A/B" and mode; false when it shows another. */
static bool header(const struct buf *screen, unsigned long *a, unsigned long *b,
                   const char *mode)
{
	char row[1024];
	const char *w;

	tmux_screen_row(screen, 0, row, sizeof(row));
	w = strstr(row, "window ");
	return w && sscanf(w, "window %lu/%lu", a, b) == 2 &&
	       strstr(w, mode) != NULL;
}

static bool is_live(const struct buf *screen, const void *ctx)
{
	unsigned long a, b;

	(void)ctx;
	return header(screen, &a, &b, "LIVE") && a == b;
}

/* The title of metric m marked as the weighting (UTF-8 or ASCII arrow). */
static bool weighted(const struct buf *screen, enum metric m)
{
	char row[1024], want[32];

	tmux_screen_row(screen, 3, row, sizeof(row));
	snprintf(want, sizeof(want), "%s\xE2\x96\xBC", metric_header(m));
	if (strstr(row, want))
		return true;
	snprintf(want, sizeof(want), "%sv", metric_header(m));
	return strstr(row, want) != NULL;
}

struct leads {
	enum metric m;
	const char *leaf;
};

static bool leads(const struct buf *screen, const void *ctx)
{
	const struct leads *l = ctx;
	char leaf[128];

	return weighted(screen, l->m) &&
	       tmux_first_leaf(screen, leaf, sizeof(leaf)) &&
	       !strcmp(leaf, l->leaf);
}

/* Weights by m with key (NULL: a click on m's column title) and waits for
 * m's designed family to lead the rows. */
static void weigh(struct demo *d, struct tmux *t, struct buf *screen,
                  enum metric m, const char *key)
{
	struct leads l = { m, d->leader[m] };
	char want[64], what[128];

	if (key) {
		tmux_keys(t, key);
	} else {
		char row[1024], click[32];
		const char *at;
		int x = 1, n;

		tmux_capture(t, screen);
		tmux_screen_row(screen, 3, row, sizeof(row));
		at = strstr(row, metric_header(m));
		ck_assert_msg(at != NULL, "no %s title:\n%s", metric_header(m),
		              buf_cstr(screen));
		for (const char *p = row; p < at; p++)
			x += ((unsigned char)*p & 0xC0) != 0x80; /* columns */
		/* xterm SGR reports (1006): press and release, 1-based */
		n = snprintf(click, sizeof(click), "\033[<0;%d;4M\033[<0;%d;4m",
		             x + 1, x + 1);
		tmux_bytes(t, click, (size_t)n);
	}
	snprintf(want, sizeof(want), "action weight-%s", metric_name(m));
	TMUX_WAIT(&d->ev, want, TMUX_WAIT_MS);
	snprintf(what, sizeof(what), "%s weighted and led by %s",
	         metric_header(m), l.leaf);
	EXPECT_SCREEN(t, &d->ev, screen, leads, &l, what);
}

/* ---- the weighting, history, saving, the window in progress (tmux) ------ */

static void check_weighting(struct demo *d, struct tmux *t, struct buf *screen)
{
	static const struct {
		enum metric m;
		const char *key; /* NULL: a mouse click on the title */
	} steps[] = {
		{ METRIC_BUSY, "b" },  { METRIC_SCHED, "s" },
		{ METRIC_POLLS, "p" }, { METRIC_WAKES, "w" },
		{ METRIC_IDLE, "i" },  { METRIC_BUSY, NULL },
		{ METRIC_SCHED, "3" }, { METRIC_POLLS, "4" },
		{ METRIC_WAKES, "5" }, { METRIC_BUSY, "2" },
		{ METRIC_IDLE, "1" },  { METRIC_POLLS, "p" },
	};
	struct leads first = { METRIC_IDLE, d->leader[METRIC_IDLE] };
	char top[METRIC_COUNT][128];

	/* idle is the first weighting; each metric then puts its family
	 * first, so the rows reorder */
	EXPECT_SCREEN(t, &d->ev, screen, leads, &first,
	              "idle led by db_worker");
	ck_assert(tmux_first_leaf(screen, top[METRIC_IDLE], sizeof(top[0])));
	for (size_t i = 0; i < ARRAY_SIZE(steps); i++) {
		weigh(d, t, screen, steps[i].m, steps[i].key);
		ck_assert(
		    tmux_first_leaf(screen, top[steps[i].m], sizeof(top[0])));
	}
	ck_assert_str_ne(top[METRIC_IDLE], top[METRIC_BUSY]);
	ck_assert_str_ne(top[METRIC_IDLE], top[METRIC_POLLS]);
	ck_assert_str_ne(top[METRIC_BUSY], top[METRIC_POLLS]);
	ck_assert_str_ne(top[METRIC_SCHED], top[METRIC_POLLS]);
}

struct shown {
	unsigned long index;
	const char *mode;
};

static bool shows(const struct buf *screen, const void *ctx)
{
	const struct shown *s = ctx;
	unsigned long a, b;

	return header(screen, &a, &b, s->mode) && a == s->index && a <= b;
}

/* Presses key and waits for its action to be taken. */
static void press(struct demo *d, struct tmux *t, const char *key,
                  const char *act)
{
	char want[64];

	tmux_keys(t, key);
	snprintf(want, sizeof(want), "action %s", act);
	TMUX_WAIT(&d->ev, want, TMUX_WAIT_MS);
}

static void expect_shown(struct demo *d, struct tmux *t, struct buf *screen,
                         const struct shown *s)
{
	char what[64];

	snprintf(what, sizeof(what), "window %lu (%s)", s->index, s->mode);
	EXPECT_SCREEN(t, &d->ev, screen, shows, s, what);
}

/* Runs argv; its stdout into out; the exit status. */
static int run_out(const char *const *argv, struct buf *out)
{
	buf_reset(out);
	return tmux_run(argv, out);
}

static void check_pprof(const char *path, const char *collapsed,
                        const char *metric)
{
	const char *checker = getenv("ASYNCTOP_PPROFCHECK");
	struct buf out, want;

	buf_init(&out);
	buf_init(&want);
	if (tmux_on_path("go")) {
		const char *argv[] = { "go",    "tool",
			               "pprof", "-symbolize=none",
			               "-raw",  path,
			               NULL };
		ck_assert_int_eq(run_out(argv, &out), 0);
		ck_assert_msg(
		    strstr(buf_cstr(&out), "idle/nanoseconds[dflt]\n") != NULL,
		    "go tool pprof -raw %s:\n%s", path, buf_cstr(&out));
		ck_assert_ptr_nonnull(strstr(buf_cstr(&out), "shop:main:"));
	} else {
		tu_skip("demo_tmux (go tool pprof)", "go is not on PATH");
	}
	if (checker && *checker && !access(checker, X_OK)) {
		const char *argv[] = { checker, path, NULL };
		const char *fold[] = { checker, "-fold", metric, path, NULL };

		ck_assert_int_eq(run_out(argv, &out), 0);
		ck_assert_msg(!strncmp(buf_cstr(&out), "ok: ", 4), "%s",
		              buf_cstr(&out));
		/* the collapsed save of the same window is pprof's folding
		 * of it by the same metric */
		ck_assert_int_eq(run_out(fold, &out), 0);
		ck_assert_int_eq(tu_read_file(collapsed, &want), STATUS_OK);
		ck_assert_str_eq(buf_cstr(&want), buf_cstr(&out));
	} else {
		tu_skip("demo_tmux (pprofcheck)",
		        "ASYNCTOP_PPROFCHECK is not an executable (go or "
		        "golang-github-google-pprof-dev missing?)");
	}
	buf_fini(&out);
	buf_fini(&want);
}

static bool says_saved(const struct buf *screen, const void *ctx)
{
	char want[1100];

	snprintf(want, sizeof(want), "saved %s", (const char *)ctx);
	return screen->data && strstr(screen->data, want) != NULL;
}

/* S and C on the shown window (index, weighted by polls). */
static void check_saving(struct demo *d, struct tmux *t, struct buf *screen,
                         unsigned long index)
{
	char line[1100], pb[1100], col[1100], want[128];
	struct stat sb;
	struct buf text;

	tmux_keys(t, "S");
	ck_assert(
	    tmux_events_wait(&d->ev, "saved *", DEMO_MS, line, sizeof(line)));
	snprintf(pb, sizeof(pb), "%s", line + 6);
	snprintf(want, sizeof(want), "-w%lu.pb.gz", index);
	ck_assert_msg(
	    !strncmp(pb, d->saves, strlen(d->saves)) &&
	        !strncmp(pb + strlen(d->saves), "/asynctop-asyncio-", 18) &&
	        strlen(pb) > strlen(want) &&
	        !strcmp(pb + strlen(pb) - strlen(want), want),
	    "saved %s, expected %s/asynctop-asyncio-…%s", pb, d->saves, want);
	ck_assert_int_eq(stat(pb, &sb), 0);
	ck_assert(S_ISREG(sb.st_mode) && sb.st_size > 0);
	EXPECT_SCREEN(t, &d->ev, screen, says_saved, pb, "the saved path");

	tmux_keys(t, "C");
	ck_assert(
	    tmux_events_wait(&d->ev, "saved *", DEMO_MS, line, sizeof(line)));
	snprintf(col, sizeof(col), "%s", line + 6);
	snprintf(want, sizeof(want), "-w%lu-polls.collapsedstack.txt", index);
	ck_assert_msg(strlen(col) > strlen(want) &&
	                  !strcmp(col + strlen(col) - strlen(want), want),
	              "saved %s, expected …%s", col, want);
	EXPECT_SCREEN(t, &d->ev, screen, says_saved, col, "the saved path");
	/* its first line is the polls leader's stack: root;...;LEAF N */
	buf_init(&text);
	ck_assert_int_eq(tu_read_file(col, &text), STATUS_OK);
	{
		const char *first = buf_cstr(&text);
		size_t len = strcspn(first, "\n");
		const char *leaf = first + len;

		while (leaf > first && leaf[-1] != ';')
			leaf--;
		ck_assert_msg(!strncmp(leaf, d->leader[METRIC_POLLS],
		                       strlen(d->leader[METRIC_POLLS])) &&
		                  leaf[strlen(d->leader[METRIC_POLLS])] == ' ',
		              "%s:\n%s", col, first);
	}
	buf_fini(&text);
	check_pprof(pb, col, "polls");
}

/* [ [ ] step through the kept windows, S and C save the shown one, L goes
 * back to live. */
static void check_history(struct demo *d, struct tmux *t, struct buf *screen)
{
	struct shown s = { 0, "HISTORY" };

	demo_wait_windows(&d->ev, 3);
	press(d, t, "[", "history-back");
	/* the events are in the viewer's order: the newest window when the
	 * key was taken is the last committed before its action */
	s.index = demo_last_window(&d->ev, d->ev.pos) - 1;
	ck_assert_uint_ge(s.index, 2);
	expect_shown(d, t, screen, &s);
	press(d, t, "[", "history-back");
	s.index--;
	expect_shown(d, t, screen, &s);
	press(d, t, "]", "history-forward");
	s.index++;
	expect_shown(d, t, screen, &s);
	check_saving(d, t, screen, s.index);
	press(d, t, "L", "live");
	EXPECT_SCREEN(t, &d->ev, screen, is_live, NULL, "LIVE");
}

static bool in_progress(const struct buf *screen, const void *ctx)
{
	char row[1024], leaf[128];

	(void)ctx;
	tmux_screen_row(screen, 0, row, sizeof(row));
	return strstr(row, "window in progress") && strstr(row, "so far") &&
	       tmux_first_leaf(screen, leaf, sizeof(leaf));
}

/* 'o' is on and this window has no partial figures yet: the finished
 * window shows, marked. */
static bool progress_waiting(const struct buf *screen, const void *ctx)
{
	char row[1024];

	(void)ctx;
	tmux_screen_row(screen, 0, row, sizeof(row));
	return strstr(row, "o: waiting") != NULL;
}

/* LIVE, with 'o' off. */
static bool live_plain(const struct buf *screen, const void *ctx)
{
	return is_live(screen, ctx) && !progress_waiting(screen, ctx);
}

/* o is a mode: on, the window in progress shows from its first partial
 * figures, and it stays on across windows (the finished window shows,
 * marked "o: waiting", until the next one has figures); o goes back. */
static void check_progress(struct demo *d, struct tmux *t, struct buf *screen)
{
	EXPECT_SCREEN(t, &d->ev, screen, live_plain, NULL, "LIVE");
	tmux_keys(t, "o");
	TMUX_WAIT(&d->ev, "action in-progress", TMUX_WAIT_MS);
	EXPECT_SCREEN(t, &d->ev, screen, in_progress, NULL,
	              "the window in progress");
	/* a window ends after that: the first drawing after it, and every
	 * later one, is still of the window in progress or waiting for it */
	demo_drain(&d->ev);
	d->ev.pos = d->ev.seen.len;
	TMUX_WAIT(&d->ev, "window *", DEMO_MS);
	TMUX_WAIT(&d->ev, "drawn", TMUX_WAIT_MS);
	tmux_capture(t, screen);
	ck_assert_msg(in_progress(screen, NULL) ||
	                  progress_waiting(screen, NULL),
	              "o went off when a window ended:\n%s", buf_cstr(screen));
	EXPECT_SCREEN(t, &d->ev, screen, in_progress, NULL,
	              "the next window in progress");
	tmux_keys(t, "o");
	TMUX_WAIT(&d->ev, "action in-progress", TMUX_WAIT_MS);
	EXPECT_SCREEN(t, &d->ev, screen, live_plain, NULL, "LIVE, o off");
}

/* Every string of ctx (NULL-terminated) is on one of the screen's rows. */
static bool shows_all(const struct buf *screen, const void *ctx)
{
	const char *const *want = ctx;
	char row[1024];

	for (; *want; want++) {
		bool found = false;
		for (size_t r = 0; r < DEMO_ROWS && !found; r++) {
			tmux_screen_row(screen, r, row, sizeof(row));
			found = strstr(row, *want) != NULL;
		}
		if (!found)
			return false;
	}
	return true;
}

/* Presses key, waits for its action (act; NULL for Esc, sent as its byte),
 * then for a screen showing want. */
static void expect_key(struct demo *d, struct tmux *t, struct buf *screen,
                       const char *key, const char *act,
                       const char *const *want)
{
	if (act)
		press(d, t, key, act);
	else /* Esc is no action of the keymap: no event to wait for */
		tmux_bytes(t, key, strlen(key));
	EXPECT_SCREEN(t, &d->ev, screen, shows_all, want, want[0]);
}

/* The flame's body begins with the frame ctx (the one it is zoomed into,
 * or all): the row under its title. */
static bool flame_from(const struct buf *screen, const void *ctx)
{
	char row[1024], want[256];

	snprintf(want, sizeof(want), "\xE2\x96\x95%s\xE2\x94\x80",
	         (const char *)ctx);
	for (size_t r = 0; r + 1 < DEMO_ROWS; r++) {
		tmux_screen_row(screen, r, row, sizeof(row));
		if (strncmp(row, " FLAME", 6) != 0)
			continue;
		tmux_screen_row(screen, r + 1, row, sizeof(row));
		return strncmp(row, want, strlen(want)) == 0;
	}
	return false;
}

/* The demo has something true for each view: by parked-at stack the
 * database pool's workers queue on the ledger's lock; the search indexer's
 * 70 ms step and the poller's self-wakes are warned of; the tree expands
 * all below its top frame (the storefront's checkout is three calls down)
 * and collapses it; the flame zooms into a frame and out (the body then
 * begins with that frame, not with all); n splits rows
 * by the demo's task names; m marks a window that = then compares with. */
static void check_views(struct demo *d, struct tmux *t, struct buf *screen)
{
	static const char *const parked[] = { "by parked-at", "PARKED AT",
		                              "Lock.acquire", NULL };
	static const char *const warned[] = { "WARNINGS", "long-poll",
		                              "shop:search_indexer",
		                              "self-wakes", NULL };
	static const char *const spawn[] = { "SPAWN STACK", NULL };
	static const char *const table[] = { "PARKED AT STACK", NULL };
	static const char *const detail[] = { " DETAIL", "Parked at: ", NULL };
	static const char *const tree[] = { " TREE ", NULL };
	static const char *const tree_all[] = { " TREE ", "shop:checkout:130",
		                                NULL };
	static const char *const tree_shut[] = {
		" TREE ", "\xE2\x96\xB8 shop:[module]:219", NULL
	};
	static const char *const flame[] = { " FLAME", "shop:run:190", NULL };
	static const char *const compare[] = { " COMPARE", NULL };
	static const char *const named[] = { "by spawn+name",
		                             "db-worker: ", NULL };
	static const char *const marked[] = { "marked: = compares", NULL };
	static const char *const against[] = { " COMPARE",
		                               "against the marked window",
		                               NULL };

	expect_key(d, t, screen, "a", "group-parked", parked);
	expect_key(d, t, screen, "W", "warnings", warned);
	expect_key(d, t, screen, "\033", NULL, table);
	expect_key(d, t, screen, "a", "group-parked", spawn);
	expect_key(d, t, screen, "d", "detail", detail);
	expect_key(d, t, screen, "\033", NULL, spawn);
	expect_key(d, t, screen, "t", "tree", tree);
	expect_key(d, t, screen, "*", "tree-expand-all", tree_all);
	expect_key(d, t, screen, "-", "tree-collapse", tree_shut);
	expect_key(d, t, screen, "t", "tree", spawn);
	expect_key(d, t, screen, "f", "flame", flame);
	expect_key(d, t, screen, "j", "down", flame);
	/* zoomed into the frame below all, the one j selects, and out */
	tmux_bytes(t, "\r", 1);
	EXPECT_SCREEN(t, &d->ev, screen, flame_from, "shop:[module]:219",
	              "the flame zoomed into shop:[module]:219");
	tmux_bytes(t, "\033", 1);
	EXPECT_SCREEN(t, &d->ev, screen, flame_from, "all",
	              "the flame zoomed out to all");
	expect_key(d, t, screen, "\033", NULL, spawn);
	expect_key(d, t, screen, "=", "compare", compare);
	expect_key(d, t, screen, "=", "compare", spawn);
	expect_key(d, t, screen, "n", "group-name", named);
	expect_key(d, t, screen, "n", "group-name", spawn);
	expect_key(d, t, screen, "m", "mark", marked);
	expect_key(d, t, screen, "=", "compare", against);
	expect_key(d, t, screen, "=", "compare", spawn);
}

START_TEST(demo_tmux_weighting_history_saving_progress)
{
	struct demo d;
	struct guardian g;
	struct tmux t;
	struct buf screen;
	char cmd[16384];
	long demo;
	int n;

	if (!demo_init(&d, "demo_tmux"))
		return;
	n = snprintf(
	    cmd, sizeof(cmd),
	    "exec env ASYNCTOP_TEST_EVENTS='%s' ASYNCTOP_AGENT_PATH='%s' "
	    "TERM=xterm-256color LC_ALL=C.UTF-8 TMPDIR='%s' '%s' -w 1 "
	    "-r 10 --exit-after %s -d '%s' -- python3 '%s' "
	    "2>'%s/stderr'",
	    d.ev.fifo, d.agent, d.tmp, d.bin, DEMO_EXIT_AFTER, d.saves, d.shop,
	    d.dir);
	ck_assert(n > 0 && (size_t)n < sizeof(cmd));
	if (!tmux_start(&t, DEMO_COLS, DEMO_ROWS, cmd)) {
		tu_skip("demo_tmux", "tmux is not installed");
		demo_fini(&d);
		return;
	}
	guardian_start(&g, &d, &t, 0);
	buf_init(&screen);
	demo_wait_first_window(&d);
	demo = demo_event_pid(&d.ev, "launched");
	ck_assert_int_gt(demo, 0);

	check_weighting(&d, &t, &screen);

	check_history(&d, &t, &screen);
	check_progress(&d, &t, &screen);
	check_views(&d, &t, &screen);

	/* q ends the viewer, which ends the demo */
	tmux_keys(&t, "q");
	TMUX_WAIT(&d.ev, "ended *", DEMO_MS);
	TMUX_WAIT(&d.ev, "exit 0", DEMO_MS);
	ck_assert_int_eq(kill((pid_t)demo, 0), -1);
	ck_assert_int_eq(errno, ESRCH);
	tmux_end(&t);
	guardian_done(&g);
	buf_fini(&screen);
	demo_fini(&d);
}
END_TEST

Suite *suite_viewer_demo_tmux(void);
Suite *suite_viewer_demo_tmux(void)
{
	Suite *s = suite_create("viewer_demo_tmux");
	TCase *tc = tcase_create("viewer_demo");

	tcase_set_timeout(tc, 150);
	tcase_add_test(tc, demo_tmux_weighting_history_saving_progress);
	suite_add_tcase(s, tc);
	return s;
}
