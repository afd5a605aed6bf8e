/* The live viewer end to end in tmux, synchronised on the test event
 * channel: over replay files, weighting reorders the rows, history steps
 * and S and C save what pprof_load reads back; LC_ALL=C gives ASCII
 * glyphs only; a real terminal's key sequences open the filter and each
 * view and quit; and the embedding example, built as an embedder would,
 * gets the viewer.  On a pseudo-terminal: test_viewer_e2e_pty.c. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "encode/pprof.h"
#include "encode/save.h"
#include "model/buf.h"
#include "model/model.h"
#include "tests/tmux.h"
#include "tests/util.h"

#define WAIT_MS TMUX_WAIT_MS
#define KEY_MS  TMUX_KEY_MS
#define SEC     ((int64_t)1000000000)
#define T0      ((int64_t)1700000000 * SEC)

/* The leaf of the first table row in a captured screen. */
static void first_leaf(const struct buf *screen, char *dst, size_t size)
{
	ck_assert_msg(tmux_first_leaf(screen, dst, size),
	              "no table row in:\n%s", screen->data);
}

struct prow {
	const char *leaf;
	uint64_t idle, busy, polls;
};

static void write_profile(const char *path, const struct prow *rows, size_t n,
                          int64_t start)
{
	struct model *m;
	struct buf enc;
	struct window_meta meta;
	const struct window *w;
	char err[256];

	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	ck_assert_int_eq(model_begin(m), STATUS_OK);
	for (size_t i = 0; i < n; i++) {
		struct strview f[2] = { sv_c("app:main"), sv_c(rows[i].leaf) };
		struct sample s;

		memset(&s, 0, sizeof(s));
		s.frames = f;
		s.depth = 2;
		s.task = sv_c("t");
		s.m.v[METRIC_IDLE] = rows[i].idle;
		s.m.v[METRIC_BUSY] = rows[i].busy;
		s.m.v[METRIC_POLLS] = rows[i].polls;
		s.tasks = 1;
		ck_assert_int_eq(model_add(m, &s), STATUS_OK);
	}
	memset(&meta, 0, sizeof(meta));
	meta.time_nanos = start;
	meta.duration_nanos = 5 * SEC;
	ck_assert_int_eq(model_commit(m, &meta, &w), STATUS_OK);
	buf_init(&enc);
	ck_assert_int_eq(pprof_encode(m, w, NULL, &enc), STATUS_OK);
	ck_assert_int_eq(
	    save_file(path, enc.data, enc.len, NULL, NULL, 0, err, sizeof(err)),
	    STATUS_OK);
	buf_fini(&enc);
	model_free(m);
}

struct counted {
	size_t samples;
	int64_t time;
};

static enum status count_sample(void *ctx, const struct sample *s)
{
	(void)s;
	((struct counted *)ctx)->samples++;
	return STATUS_OK;
}

static enum status count_meta(void *ctx, const struct window_meta *m)
{
	((struct counted *)ctx)->time = m->time_nanos;
	return STATUS_OK;
}

/* One saved profile of a replay directory: its rows and its start. */
struct pfile {
	const struct prow *rows;
	size_t n;
	int64_t start;
};

/* The real viewer in tmux (100x30) replaying files written into
 * DIR/data, saving into DIR/saves. */
struct replay_run {
	char dir[512], data[640], saves[640];
	struct tmux_events ev;
	struct tmux t;
	struct buf screen;
};

/* Writes the n files into r->data and starts the viewer on them, with the
 * `env` words env (may be "") before its own settings.  False, the test
 * skipped as name, without the binary or tmux. */
static bool replay_run_start(struct replay_run *r, const char *name,
                             const struct pfile *files, size_t n,
                             const char *env)
{
	const char *bin = getenv("ASYNCTOP_BIN");
	char cmd[4096], path[1024];

	if (!bin || !*bin || access(bin, X_OK)) {
		tu_skip(name, "ASYNCTOP_BIN is not set");
		return false;
	}
	tu_mkdtemp(r->dir, sizeof(r->dir));
	snprintf(r->data, sizeof(r->data), "%s/data", r->dir);
	snprintf(r->saves, sizeof(r->saves), "%s/saves", r->dir);
	ck_assert_int_eq(mkdir(r->data, 0700), 0);
	ck_assert_int_eq(mkdir(r->saves, 0700), 0);
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%zu.pb.gz", r->data, i + 1);
		write_profile(path, files[i].rows, files[i].n, files[i].start);
	}
	tmux_events_open(&r->ev, r->dir);
	snprintf(
	    cmd, sizeof(cmd),
	    "exec env %s ASYNCTOP_TEST_EVENTS='%s' TERM=xterm-256color TZ=UTC '%s' -a replay -e '%s' -d '%s'",
	    env, r->ev.fifo, bin, r->data, r->saves);
	buf_init(&r->screen);
	if (!tmux_start(&r->t, 100, 30, cmd)) {
		tu_skip(name, "tmux is not installed");
		buf_fini(&r->screen);
		tmux_events_close(&r->ev);
		tu_rmtree(r->saves);
		tu_rmtree(r->data);
		tu_rmtree(r->dir);
		return false;
	}
	return true;
}

static void replay_run_end(struct replay_run *r)
{
	tmux_end(&r->t);
	buf_fini(&r->screen);
	tmux_events_close(&r->ev);
	tu_rmtree(r->saves);
	tu_rmtree(r->data);
	tu_rmtree(r->dir);
}

/* A screen_ok: the screen holds the text ctx. */
static bool shows(const struct buf *screen, const void *ctx)
{
	return screen->data && strstr(screen->data, ctx);
}

START_TEST(e2e_tmux_replay_weighting_history_save)
{
	static const struct prow w1[] = { { "idler", 900, 1, 1 },
		                          { "spinner", 10, 800, 500 },
		                          { "mid", 50, 50, 50 } };
	static const struct prow w2[] = { { "idler", 800, 2, 2 },
		                          { "spinner", 20, 700, 400 } };
	static const struct pfile files[] = { { w1, 3, T0 },
		                              { w2, 2, T0 + 5 * SEC },
		                              { w1, 3, T0 + 10 * SEC } };
	char leaf[128], line[1024], err[256];
	struct replay_run r;
	struct buf col;
	struct counted c;
	struct sample_sink sink = { count_sample, count_meta, &c };

	if (!replay_run_start(&r, "e2e_tmux_replay", files, ARRAY_SIZE(files),
	                      ""))
		return;
	TMUX_WAIT(&r.ev, "window 3 committed", WAIT_MS);
	TMUX_WAIT(&r.ev, "drawn", WAIT_MS);
	tmux_capture(&r.t, &r.screen);
	ck_assert_msg(strstr(r.screen.data, "REPLAY") &&
	                  strstr(r.screen.data, "window 3/3"),
	              "%s", r.screen.data);
	first_leaf(&r.screen, leaf, sizeof(leaf));
	ck_assert_str_eq(leaf, "idler");
	/* weight by busy: the rows reorder */
	tmux_keys(&r.t, "b");
	TMUX_WAIT(&r.ev, "action weight-busy", KEY_MS);
	TMUX_WAIT(&r.ev, "drawn", KEY_MS);
	tmux_capture(&r.t, &r.screen);
	first_leaf(&r.screen, leaf, sizeof(leaf));
	ck_assert_str_eq(leaf, "spinner");
	ck_assert_ptr_nonnull(strstr(r.screen.data, "BUSY\xE2\x96\xBC"));
	/* history: one window back */
	tmux_keys(&r.t, "[");
	TMUX_WAIT(&r.ev, "action history-back", KEY_MS);
	TMUX_WAIT(&r.ev, "drawn", KEY_MS);
	tmux_capture(&r.t, &r.screen);
	ck_assert_msg(strstr(r.screen.data, "window 2/3") &&
	                  strstr(r.screen.data, "HISTORY"),
	              "%s", r.screen.data);
	ck_assert_ptr_null(strstr(r.screen.data, " mid"));
	/* save it: a pprof file pprof_load accepts, of window 2 */
	tmux_keys(&r.t, "S");
	ck_assert(
	    tmux_events_wait(&r.ev, "saved *", WAIT_MS, line, sizeof(line)));
	ck_assert_ptr_nonnull(strstr(line, "/asynctop-replay-"
	                                   "20231114T221325Z-w2.pb.gz"));
	memset(&c, 0, sizeof(c));
	ck_assert_msg(pprof_load(line + 6, NULL, &sink, err, sizeof(err)) ==
	                  STATUS_OK,
	              "%s: %s", line + 6, err);
	ck_assert_uint_eq(c.samples, 2);
	ck_assert_int_eq(c.time, T0 + 5 * SEC);
	/* again: never an overwrite, a -2 name */
	tmux_keys(&r.t, "S");
	ck_assert(
	    tmux_events_wait(&r.ev, "saved *", WAIT_MS, line, sizeof(line)));
	ck_assert_ptr_nonnull(strstr(line, "-w2-2.pb.gz"));
	/* collapsed stacks of the busy weighting */
	tmux_keys(&r.t, "C");
	ck_assert(
	    tmux_events_wait(&r.ev, "saved *", WAIT_MS, line, sizeof(line)));
	ck_assert_ptr_nonnull(strstr(line, "-w2-busy.collapsedstack.txt"));
	buf_init(&col);
	ck_assert_int_eq(tu_read_file(line + 6, &col), STATUS_OK);
	ck_assert_str_eq(buf_cstr(&col), "app:main;spinner 700\n"
	                                 "app:main;idler 2\n");
	buf_fini(&col);
	/* the status line shows it once tmux has read the next frame */
	ck_assert_msg(
	    tmux_screen_until(&r.t, &r.ev, &r.screen, shows, "saved ", WAIT_MS),
	    "%s", r.screen.data);
	tmux_keys(&r.t, "q");
	TMUX_WAIT(&r.ev, "exit 0", WAIT_MS);
	replay_run_end(&r);
}
END_TEST

/* A screen is pure ASCII and has no '?' but the ones named in allowed
 * (each occurrence of each allowed string holds one). */
static void assert_ascii_screen(const struct buf *screen,
                                const char *const *allowed)
{
	size_t q = 0, want = 0;

	for (size_t i = 0; i < screen->len; i++) {
		ck_assert_msg((unsigned char)screen->data[i] < 0x80,
		              "non-ASCII in the C locale:\n%s", screen->data);
		q += screen->data[i] == '?';
	}
	for (; *allowed; allowed++)
		for (const char *p = screen->data; (p = strstr(p, *allowed));
		     p++)
			want++;
	ck_assert_msg(q == want, "%zu '?' where %zu were expected:\n%s", q,
	              want, screen->data);
}

/* LC_ALL=C on a real terminal: the viewer picks the ASCII glyphs once, so
 * the header's separators, the sort mark, the bars, the footer's arrows
 * and the help's key names are all ASCII, never '?'. */
START_TEST(e2e_tmux_c_locale_ascii_glyphs)
{
	static const struct prow w1[] = { { "idler", 900, 1, 1 },
		                          { "spinner", 10, 800, 500 } };
	static const char *const main_q[] = { "? Help", NULL };
	static const char *const help_q[] = { "?, F1", "? or Esc", "? Help",
		                              NULL };
	static const struct pfile files[] = { { w1, 2, T0 },
		                              { w1, 2, T0 + 5 * SEC } };
	struct replay_run r;

	if (!replay_run_start(&r, "e2e_tmux_c_locale", files, ARRAY_SIZE(files),
	                      "-u LANGUAGE LC_ALL=C LANG=C"))
		return;
	TMUX_WAIT(&r.ev, "window 2 committed", WAIT_MS);
	TMUX_WAIT(&r.ev, "drawn", WAIT_MS);
	tmux_capture(&r.t, &r.screen);
	ck_assert_msg(strstr(r.screen.data, " - REPLAY") &&
	                  strstr(r.screen.data, "IDLEv") &&
	                  strstr(r.screen.data, "STACK (leaf < root)") &&
	                  strstr(r.screen.data, "###") &&
	                  strstr(r.screen.data, "<> Cycle"),
	              "%s", r.screen.data);
	assert_ascii_screen(&r.screen, main_q);
	tmux_keys(&r.t, "?");
	TMUX_WAIT(&r.ev, "action help", WAIT_MS);
	TMUX_WAIT(&r.ev, "drawn", WAIT_MS);
	tmux_capture(&r.t, &r.screen);
	ck_assert_msg(strstr(r.screen.data, "Right, >") &&
	                  strstr(r.screen.data, "Up, k") &&
	                  strstr(r.screen.data, "(more: Down or PgDn"),
	              "%s", r.screen.data);
	assert_ascii_screen(&r.screen, help_q);
	tmux_keys(&r.t, "q");
	TMUX_WAIT(&r.ev, "exit 0", WAIT_MS);
	replay_run_end(&r);
}
END_TEST

/* Sends bytes, waits for the action and the drawing after it, captures. */
static void key_then_screen(struct tmux *t, struct tmux_events *ev,
                            const char *bytes, const char *action,
                            struct buf *screen)
{
	char want[64];

	tmux_bytes(t, bytes, strlen(bytes));
	snprintf(want, sizeof(want), "action %s", action);
	TMUX_WAIT(ev, want, WAIT_MS);
	TMUX_WAIT(ev, "drawn", WAIT_MS);
	tmux_capture(t, screen);
}

/* The views and the htop keys through a real terminal's key sequences:
 * F3 opens the filter, Enter the detail, = compare, t the tree, f the
 * flame, and F10 quits. */
START_TEST(e2e_tmux_views_and_htop_keys)
{
	static const struct prow w1[] = { { "idler", 900, 1, 1 },
		                          { "spinner", 10, 800, 500 } };
	static const struct pfile files[] = { { w1, 1, T0 },
		                              { w1, 2, T0 + 5 * SEC } };
	struct replay_run r;

	if (!replay_run_start(&r, "e2e_tmux_views", files, ARRAY_SIZE(files),
	                      ""))
		return;
	TMUX_WAIT(&r.ev, "window 2 committed", WAIT_MS);
	TMUX_WAIT(&r.ev, "drawn", WAIT_MS);
	key_then_screen(&r.t, &r.ev, "\x1bOR", "filter", &r.screen);
	ck_assert_msg(strstr(r.screen.data, "filter: _"), "%s", r.screen.data);
	tmux_bytes(&r.t, "\x1b", 1);
	TMUX_WAIT(&r.ev, "drawn", WAIT_MS);
	key_then_screen(&r.t, &r.ev, "\r", "detail", &r.screen);
	ck_assert_msg(strstr(r.screen.data, "DETAIL") &&
	                  strstr(r.screen.data, "Spawn stack, root first"),
	              "%s", r.screen.data);
	key_then_screen(&r.t, &r.ev, "=", "compare", &r.screen);
	ck_assert_msg(strstr(r.screen.data, "COMPARE") &&
	                  strstr(r.screen.data, "new   spinner"),
	              "%s", r.screen.data);
	key_then_screen(&r.t, &r.ev, "t", "tree", &r.screen);
	ck_assert_msg(strstr(r.screen.data, "TREE") &&
	                  strstr(r.screen.data, "app:main"),
	              "%s", r.screen.data);
	key_then_screen(&r.t, &r.ev, "f", "flame", &r.screen);
	ck_assert_msg(strstr(r.screen.data, "FLAME") &&
	                  strstr(r.screen.data, "all"),
	              "%s", r.screen.data);
	tmux_bytes(&r.t, "\x1b[21~", 5);
	TMUX_WAIT(&r.ev, "action quit", WAIT_MS);
	TMUX_WAIT(&r.ev, "exit 0", WAIT_MS);
	replay_run_end(&r);
}
END_TEST

START_TEST(e2e_tmux_embed_example_gets_the_viewer)
{
	const char *bin = getenv("ASYNCTOP_BIN");
	const char *src = getenv("ASYNCTOP_SRC");
	char build[512], work[512], script[700], cmd[4096], leaf[128];
	struct tmux_events ev;
	struct tmux t;
	struct buf screen;
	struct stat sb;
	const char *slash;

	if (!bin || !src || !*bin || !*src) {
		tu_skip("e2e_tmux_embed", "ASYNCTOP_BIN/ASYNCTOP_SRC not set");
		return;
	}
	slash = strrchr(bin, '/');
	snprintf(build, sizeof(build), "%.*s", (int)(slash - bin), bin);
	snprintf(script, sizeof(script), "%s/asynctop.pc", build);
	if (stat(script, &sb) != 0) {
		tu_skip("e2e_tmux_embed", "no asynctop.pc in the build");
		return;
	}
	tu_mkdtemp(work, sizeof(work));
	/* builds docs/examples/embed.c as an embedder would (embed.sh) */
	{
		char ssh[700];
		const char *argv[] = { "sh", ssh, build, src, work, NULL };
		snprintf(ssh, sizeof(ssh), "%s/tests/embed.sh", src);
		ck_assert_int_eq(tmux_run(argv, NULL), 0);
	}
	tmux_events_open(&ev, work);
	snprintf(cmd, sizeof(cmd),
	         "exec env ASYNCTOP_TEST_EVENTS='%s' TERM=xterm-256color "
	         "'%s/embed' -w 0.3 --exit-after 4 -d '%s'",
	         ev.fifo, work, work);
	if (!tmux_start(&t, 100, 30, cmd)) {
		tu_skip("e2e_tmux_embed", "tmux is not installed");
		tmux_events_close(&ev);
		tu_rmtree(work);
		return;
	}
	buf_init(&screen);
	TMUX_WAIT(&ev, "window 2 committed", WAIT_MS);
	tmux_keys(&t, "p");
	TMUX_WAIT(&ev, "action weight-polls", KEY_MS);
	TMUX_WAIT(&ev, "drawn", KEY_MS);
	tmux_capture(&t, &screen);
	ck_assert_msg(strstr(screen.data, "toyexec sim://local") &&
	                  strstr(screen.data, "connected") &&
	                  strstr(screen.data, "POLLS\xE2\x96\xBC"),
	              "%s", screen.data);
	first_leaf(&screen, leaf, sizeof(leaf));
	ck_assert_str_eq(leaf, "conn::handle");
	ck_assert_ptr_nonnull(strstr(screen.data, "metrics::flusher"));
	TMUX_WAIT(&ev, "exit 0", WAIT_MS);
	tmux_end(&t);
	buf_fini(&screen);
	tmux_events_close(&ev);
	tu_rmtree(work);
}
END_TEST

Suite *suite_viewer_e2e_tmux(void);
Suite *suite_viewer_e2e_tmux(void)
{
	Suite *s = suite_create("viewer_e2e_tmux");
	TCase *tc = tcase_create("viewer_e2e");

	tcase_set_timeout(tc, 90);
	tcase_add_test(tc, e2e_tmux_replay_weighting_history_save);
	tcase_add_test(tc, e2e_tmux_embed_example_gets_the_viewer);
	tcase_add_test(tc, e2e_tmux_c_locale_ascii_glyphs);
	tcase_add_test(tc, e2e_tmux_views_and_htop_keys);
	suite_add_tcase(s, tc);
	return s;
}
