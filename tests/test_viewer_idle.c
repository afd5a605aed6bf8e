/* The viewer's work between keys, in the real loop (tmux): after a
 * weighting key behind a view, the loop makes the table's sort while no
 * key comes and says "idle done"; Esc then shows the table in that
 * weighting, its rows in order. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/buf.h"
#include "tests/tmux.h"
#include "tests/util.h"

#define WAIT_MS TMUX_WAIT_MS
#define KEY_MS  TMUX_KEY_MS

/* A screen_ok: the screen holds the text ctx. */
static bool shows(const struct buf *screen, const void *ctx)
{
	return screen->data && strstr(screen->data, ctx);
}

START_TEST(the_table_sorted_between_keys_shows_on_esc)
{
	const char *bin = getenv("ASYNCTOP_BIN");
	const char *data = getenv("ASYNCTOP_TESTDATA");
	struct tmux_events ev;
	struct tmux t;
	struct buf screen;
	char dir[512], cmd[4096], row[256];

	if (!bin || !*bin || access(bin, X_OK) || !data || !*data) {
		tu_skip("viewer_idle",
		        "ASYNCTOP_BIN or ASYNCTOP_TESTDATA is not set");
		return;
	}
	tu_mkdtemp(dir, sizeof(dir));
	tmux_events_open(&ev, dir);
	snprintf(
	    cmd, sizeof(cmd),
	    "exec env ASYNCTOP_TEST_EVENTS='%s' TERM=xterm-256color TZ=UTC '%s' -a replay -e '%s/pprof_small.pb' -d '%s'",
	    ev.fifo, bin, data, dir);
	buf_init(&screen);
	if (!tmux_start(&t, 100, 20, cmd)) {
		tu_skip("viewer_idle", "tmux is not installed");
		buf_fini(&screen);
		tmux_events_close(&ev);
		tu_rmtree(dir);
		return;
	}
	TMUX_WAIT(&ev, "window 1 committed", WAIT_MS);
	TMUX_WAIT(&ev, "drawn", WAIT_MS);
	/* the table by idle time: handle first */
	ck_assert(tmux_screen_until(&t, &ev, &screen, shows, "IDLE\xE2\x96\xBC",
	                            WAIT_MS));
	tmux_keys(&t, "t");
	TMUX_WAIT(&ev, "action tree", KEY_MS);
	TMUX_WAIT(&ev, "drawn", KEY_MS);
	/* wakes, behind the tree: the loop sorts the table between keys */
	tmux_keys(&t, "5");
	TMUX_WAIT(&ev, "action weight-wakes", KEY_MS);
	TMUX_WAIT(&ev, "idle done", WAIT_MS);
	tmux_keys(&t, "\033");
	TMUX_WAIT(&ev, "drawn", KEY_MS);
	ck_assert(tmux_screen_until(&t, &ev, &screen, shows,
	                            "WAKES\xE2\x96\xBC", WAIT_MS));
	/* the rows by wakes: idle (9), handle (2), serve (1), boot (0) */
	tmux_screen_row(&screen, 4, row, sizeof(row));
	ck_assert_msg(strstr(row, "idle \xE2\x86\x90 main"), "row: %s", row);
	tmux_screen_row(&screen, 5, row, sizeof(row));
	ck_assert_msg(strstr(row, "handle"), "row: %s", row);
	tmux_screen_row(&screen, 7, row, sizeof(row));
	ck_assert_msg(strstr(row, "boot"), "row: %s", row);
	tmux_end(&t);
	buf_fini(&screen);
	tmux_events_close(&ev);
	tu_rmtree(dir);
}
END_TEST

Suite *suite_viewer_idle(void);
Suite *suite_viewer_idle(void)
{
	Suite *s = suite_create("viewer_idle");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, the_table_sorted_between_keys_shows_on_esc);
	suite_add_tcase(s, tc);
	return s;
}
