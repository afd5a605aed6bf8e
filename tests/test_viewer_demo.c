/* The real binary's live viewer on the bundled demo shop
 * (`asynctop -w 1 -- python3 adapters/asyncio/demo/shop.py`): in tmux, the
 * weighting (keys and a mouse click) puts each question's designed family
 * first, history steps, S and C save files that go tool pprof and the Go
 * checker accept, o shows the window in progress; on a pseudo-terminal
 * with job control, SIGTSTP restores the terminal and SIGCONT redraws. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "model/base.h"
#include "model/buf.h"
#include "model/metric.h"
#include "tests/tmux.h"
#include "tests/util.h"

#define DEMO_MS     30000 /* for the demo to start, or a window to come */
#define COLS        160
#define ROWS        30
#define EXIT_AFTER  "60" /* windows: the viewer ends itself if we die */
#define CHILD_LIMIT 90   /* seconds: the job shell's own bound */

/* ---- what runs, and its clean-up should a check fail -------------------- */

struct demo {
	char dir[512];   /* private: the event FIFO, saves/, tmp/ */
	char saves[600]; /* -d */
	char tmp[600];   /* the viewer's TMPDIR: the launcher's log */
	char shop[4096];
	char agent[4096]; /* ASYNCTOP_AGENT_PATH: any BUILD finds the agent */
	const char *bin;
	char leader[METRIC_COUNT][64]; /* the designed first row's leaf */
	struct tmux_events ev;
};

/* Removes what a run left in d's directories. */
static void remove_dirs(const char *dir, const char *tmp, const char *saves)
{
	DIR *dp = opendir(tmp);
	struct dirent *e;
	char sub[1024];

	/* a viewer that did not end leaves its launch directory behind */
	while (dp && (e = readdir(dp)) != NULL) {
		if (strncmp(e->d_name, "asynctop-launch-", 16))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", tmp, e->d_name);
		tu_rmtree(sub);
	}
	if (dp)
		closedir(dp);
	tu_rmtree(tmp);
	tu_rmtree(saves);
	tu_rmtree(dir);
}

/* A guardian: a process of its own that ends what a test started (the
 * tmux server t, the job shell pid) and removes d's files when the test
 * process dies: a failed check _exits, a timeout kills its process group.
 * Told that all went well, it just ends. */
struct guardian {
	int fd; /* write end of its pipe: a byte, or EOF when we die */
	pid_t pid;
};

static void guardian_cleans(const struct demo *d, const struct tmux *t,
                            pid_t shell)
{
	if (t) {
		pid_t pid = fork();
		if (pid == 0) {
			int fd = open("/dev/null", O_RDWR);
			if (fd >= 0) {
				dup2(fd, 1);
				dup2(fd, 2);
			}
			execlp("tmux", "tmux", "-L", t->sock, "kill-server",
			       (char *)NULL);
			_exit(127);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
		if (t->path[0])
			unlink(t->path);
	}
	/* the job shell's end hangs up the viewer, which ends the demo */
	if (shell > 0)
		kill(shell, SIGTERM);
	remove_dirs(d->dir, d->tmp, d->saves);
}

static void guardian_start(struct guardian *g, const struct demo *d,
                           const struct tmux *t, pid_t shell)
{
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(fcntl(p[1], F_SETFD, FD_CLOEXEC), 0);
	fflush(NULL);
	g->pid = fork();
	ck_assert_int_ge(g->pid, 0);
	if (g->pid == 0) {
		char c;
		ssize_t n;

		setpgid(0, 0); /* not killed with the test's group (below) */
		for (int fd = 3; fd < 1024; fd++)
			if (fd != p[0])
				close(fd); /* the pty master, the FIFO */
		do
			n = read(p[0], &c, 1);
		while (n < 0 && errno == EINTR);
		if (n != 1)
			guardian_cleans(d, t, shell);
		_exit(0);
	}
	/* as the child does: in its group before Check's killpg can come */
	setpgid(g->pid, g->pid);
	close(p[0]);
	g->fd = p[1];
}

/* All went well: the guardian ends without touching anything. */
static void guardian_done(struct guardian *g)
{
	ck_assert_int_eq(write(g->fd, "k", 1), 1);
	close(g->fd);
	while (waitpid(g->pid, NULL, 0) < 0)
		ck_assert_int_eq(errno, EINTR);
}

/* The line of shop.py holding needle (1 first). */
static int line_of(const char *text, const char *needle)
{
	const char *at = strstr(text, needle);
	int n = 1;

	ck_assert_msg(at != NULL, "shop.py has no '%s'", needle);
	for (const char *p = text; p < at; p++)
		n += *p == '\n';
	return n;
}

/* A family's leaf frame is the line that spawns it, found by its text as
 * .ci/check-demo finds it, so that editing the demo breaks nothing. */
static void find_leaders(struct demo *d)
{
	static const struct {
		enum metric m;
		const char *func, *spawn;
	} fam[] = {
		{ METRIC_IDLE, "main", "create_task(db_worker(" },
		{ METRIC_BUSY, "storefront", "group.create_task(checkout(" },
		{ METRIC_SCHED, "main", "create_task(report_metrics(" },
		{ METRIC_POLLS, "main", "create_task(cache_poller(" },
		{ METRIC_WAKES, "main", "create_task(cache_poller(" },
	};
	struct buf text;

	buf_init(&text);
	ck_assert_int_eq(tu_read_file(d->shop, &text), STATUS_OK);
	for (size_t i = 0; i < ARRAY_SIZE(fam); i++)
		snprintf(d->leader[fam[i].m], sizeof(d->leader[0]),
		         "shop:%s:%d", fam[i].func,
		         line_of(buf_cstr(&text), fam[i].spawn));
	buf_fini(&text);
}

/* False (with the reason printed) when the demo cannot run here. */
static bool demo_init(struct demo *d, const char *test)
{
	const char *src = getenv("ASYNCTOP_SRC");

	memset(d, 0, sizeof(*d));
	d->bin = getenv("ASYNCTOP_BIN");
	if (!d->bin || !*d->bin || access(d->bin, X_OK) || !src || !*src) {
		tu_skip(test, "ASYNCTOP_BIN/ASYNCTOP_SRC not set (make "
		              "test-run sets them)");
		return false;
	}
	if (!tmux_on_path("python3")) {
		tu_skip(test, "no python3 on PATH");
		return false;
	}
	snprintf(d->shop, sizeof(d->shop), "%s/adapters/asyncio/demo/shop.py",
	         src);
	snprintf(d->agent, sizeof(d->agent), "%s/adapters/asyncio", src);
	find_leaders(d);
	tu_mkdtemp(d->dir, sizeof(d->dir));
	snprintf(d->saves, sizeof(d->saves), "%s/saves", d->dir);
	snprintf(d->tmp, sizeof(d->tmp), "%s/tmp", d->dir);
	ck_assert_int_eq(mkdir(d->saves, 0700), 0);
	ck_assert_int_eq(mkdir(d->tmp, 0700), 0);
	tmux_events_open(&d->ev, d->dir);
	return true;
}

static void demo_fini(struct demo *d)
{
	tmux_events_close(&d->ev);
	remove_dirs(d->dir, d->tmp, d->saves);
}

/* Copies the event line at offset at of seen (NUL-terminated, cut to
 * size) into dst; returns the offset of the next line, or 0 when the line
 * is not whole yet. */
static size_t event_line(const struct tmux_events *e, size_t at, char *dst,
                         size_t size)
{
	const char *p = e->seen.data + at;
	const char *nl;

	if (at >= e->seen.len)
		return 0;
	nl = memchr(p, '\n', e->seen.len - at);
	if (!nl)
		return 0;
	snprintf(dst, size, "%.*s", (int)(nl - p), p);
	return at + (size_t)(nl - p) + 1;
}

/* The number of the last "window K committed" event in seen[0, to). */
static unsigned long last_window(const struct tmux_events *e, size_t to)
{
	unsigned long k = 0, v;
	char line[256], word[16];

	for (size_t at = 0, next; at < to; at = next) {
		next = event_line(e, at, line, sizeof(line));
		if (!next)
			break;
		if (sscanf(line, "window %lu %15s", &v, word) == 2 &&
		    !strcmp(word, "committed"))
			k = v;
	}
	return k;
}

/* Waits until window n was committed (whatever was matched since). */
static void wait_windows(struct tmux_events *e, unsigned long n)
{
	uint64_t until = tmux_now_ms() + DEMO_MS;

	while (last_window(e, e->seen.len) < n) {
		ck_assert_msg(tmux_now_ms() < until,
		              "window %lu never came; events:\n%s", n,
		              tmux_tail(&e->seen, 1500));
		tmux_events_pump(e, 100);
	}
}

/* Waits for the first window; fails at once, with the viewer's stderr,
 * when the viewer ends before it (no agent, no python3 3.11+, ...). */
static void wait_first_window(struct demo *d)
{
	uint64_t until = tmux_now_ms() + DEMO_MS;
	char errp[700];
	struct buf err;

	snprintf(errp, sizeof(errp), "%s/stderr", d->dir);
	buf_init(&err);
	while (!tmux_events_between(&d->ev, 0, d->ev.seen.len,
	                            "window 1 committed")) {
		bool ended =
		    tmux_events_between(&d->ev, 0, d->ev.seen.len, "exit *");

		if (ended || tmux_now_ms() >= until) {
			(void)tu_read_file(errp, &err);
			ck_abort_msg(
			    "%s; the last events:\n%s\nits stderr:\n%s",
			    ended ? "the viewer ended before its first "
			            "window"
			          : "no first window",
			    tmux_tail(&d->ev.seen, 600), tmux_tail(&err, 1000));
		}
		tmux_events_pump(&d->ev, 100);
	}
	buf_fini(&err);
	TMUX_WAIT(&d->ev, "window 1 committed", TMUX_WAIT_MS);
}

/* The pid in the first event "WORD PID" seen; 0 when none. */
static long event_pid(const struct tmux_events *e, const char *word)
{
	size_t wl = strlen(word);
	char line[256];
	long v;

	for (size_t at = 0; (at = event_line(e, at, line, sizeof(line)));)
		if (!strncmp(line, word, wl) && line[wl] == ' ' &&
		    sscanf(line + wl, " %ld", &v) == 1)
			return v;
	return 0;
}

/* Reads every event written by now, and what the terminal (drain) has. */
static void drain(struct tmux_events *e)
{
	size_t seen, out;

	do {
		seen = e->seen.len;
		out = e->out.len;
		tmux_events_pump(e, 0);
	} while (e->seen.len != seen || e->out.len != out);
}

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

	wait_windows(&d->ev, 3);
	press(d, t, "[", "history-back");
	/* the events are in the viewer's order: the newest window when the
	 * key was taken is the last committed before its action */
	s.index = last_window(&d->ev, d->ev.pos) - 1;
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
	drain(&d->ev);
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
		for (size_t r = 0; r < ROWS && !found; r++) {
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

/* The demo has something true for each view: by parked-at stack the
 * database pool's workers queue on the ledger's lock; the search indexer's
 * 70 ms step and the poller's self-wakes are warned of; the detail, the
 * tree, the flame and compare each show their title. */
static void check_views(struct demo *d, struct tmux *t, struct buf *screen)
{
	static const char *const parked[] = { "by parked-at", "PARKED AT",
		                              "Lock.acquire", NULL };
	static const char *const warned[] = { "WARNINGS", "long-poll",
		                              "shop:search_indexer", NULL };
	static const char *const spawn[] = { "SPAWN STACK", NULL };
	static const char *const table[] = { "PARKED AT STACK", NULL };
	static const char *const detail[] = { " DETAIL", "Parked at: ", NULL };
	static const char *const tree[] = { " TREE ", NULL };
	static const char *const flame[] = { " FLAME", NULL };
	static const char *const compare[] = { " COMPARE", NULL };

	expect_key(d, t, screen, "a", "group-parked", parked);
	expect_key(d, t, screen, "W", "warnings", warned);
	expect_key(d, t, screen, "\033", NULL, table);
	expect_key(d, t, screen, "a", "group-parked", spawn);
	expect_key(d, t, screen, "d", "detail", detail);
	expect_key(d, t, screen, "\033", NULL, spawn);
	expect_key(d, t, screen, "t", "tree", tree);
	expect_key(d, t, screen, "t", "tree", spawn);
	expect_key(d, t, screen, "f", "flame", flame);
	expect_key(d, t, screen, "\033", NULL, spawn);
	expect_key(d, t, screen, "=", "compare", compare);
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
	    d.ev.fifo, d.agent, d.tmp, d.bin, EXIT_AFTER, d.saves, d.shop,
	    d.dir);
	ck_assert(n > 0 && (size_t)n < sizeof(cmd));
	if (!tmux_start(&t, COLS, ROWS, cmd)) {
		tu_skip("demo_tmux", "tmux is not installed");
		demo_fini(&d);
		return;
	}
	guardian_start(&g, &d, &t, 0);
	buf_init(&screen);
	wait_first_window(&d);
	demo = event_pid(&d.ev, "launched");
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

/* ---- suspend and resume on a pseudo-terminal with job control ----------- */

static volatile sig_atomic_t shell_timed_out;

static void on_alarm(int sig)
{
	(void)sig;
	shell_timed_out = 1;
}

/* One event line from the job shell into the FIFO (one write). */
static void shell_say(int fd, const char *fmt, ...) PRINTF(2, 3);
static void shell_say(int fd, const char *fmt, ...)
{
	char line[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > 0 && write(fd, line, (size_t)n) < 0)
		_exit(124);
}

/* In a forked child: what an interactive shell does for a foreground job.
 * It leads a session on the pty, runs the viewer as a job in a process
 * group of its own that owns the terminal (so that SIGTSTP stops it: a
 * session leader's group is orphaned and would ignore it), and reports
 * "job PID", "job stopped SIG", "job continued" and "job exited N" on the
 * event FIFO.  Exits with the viewer's status. */
static void job_shell(const struct demo *d, const struct tmux_pty *pty)
{
	struct sigaction sa;
	int tty, ev, st;
	pid_t job;

	setsid();
	tty = open(pty->name, O_RDWR);
	if (tty < 0 || ioctl(tty, TIOCSCTTY, 0) < 0)
		_exit(125);
	close(pty->master);
	close(d->ev.fd);
	ev = open(d->ev.fifo, O_WRONLY | O_CLOEXEC);
	if (ev < 0)
		_exit(125);
	job = fork();
	if (job < 0)
		_exit(125);
	if (job == 0) {
		char errp[700];
		const char *argv[] = { d->bin,         "-w",       "1",
			               "--exit-after", EXIT_AFTER, "-d",
			               d->saves,       "--",       "python3",
			               d->shop,        NULL };
		struct sigaction ign, old;
		int fd;

		setpgid(0, 0);
		memset(&ign, 0, sizeof(ign));
		ign.sa_handler = SIG_IGN;
		sigaction(SIGTTOU, &ign, &old);
		if (tcsetpgrp(tty, getpid()) < 0)
			_exit(126);
		sigaction(SIGTTOU, &old, NULL);
		snprintf(errp, sizeof(errp), "%s/stderr", d->dir);
		fd = open("/dev/null", O_RDWR);
		if (fd < 0 || dup2(fd, 0) < 0 || dup2(fd, 1) < 0)
			_exit(126);
		fd = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || dup2(fd, 2) < 0)
			_exit(126);
		close(tty);
		setenv("ASYNCTOP_TEST_EVENTS", d->ev.fifo, 1);
		setenv("ASYNCTOP_AGENT_PATH", d->agent, 1);
		setenv("TERM", "xterm-256color", 1);
		setenv("LC_ALL", "C.UTF-8", 1);
		setenv("TMPDIR", d->tmp, 1);
		unsetenv("NO_COLOR");
		execv(d->bin, (char *const *)(uintptr_t)argv);
		_exit(127);
	}
	setpgid(job, job);
	shell_say(ev, "job %ld\n", (long)job);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL); /* no SA_RESTART: waitpid returns */
	alarm(CHILD_LIMIT);
	for (;;) {
		if (waitpid(job, &st, WUNTRACED | WCONTINUED) < 0) {
			if (errno != EINTR)
				_exit(125);
			if (shell_timed_out) { /* the test is gone */
				kill(job, SIGTERM);
				kill(job, SIGCONT);
			}
			continue;
		}
		if (WIFSTOPPED(st)) {
			shell_say(ev, "job stopped %d\n", WSTOPSIG(st));
		} else if (WIFCONTINUED(st)) {
			shell_say(ev, "job continued\n");
		} else if (WIFEXITED(st)) {
			shell_say(ev, "job exited %d\n", WEXITSTATUS(st));
			_exit(WEXITSTATUS(st));
		} else if (WIFSIGNALED(st)) {
			shell_say(ev, "job exited %d\n", 128 + WTERMSIG(st));
			_exit(128 + WTERMSIG(st));
		}
	}
}

/* The last of the sequences a or b in s: 'a', 'b', or 0 for neither. */
static char last_of(const char *s, const char *a, const char *b)
{
	const char *la = NULL, *lb = NULL;

	for (const char *p = strstr(s, a); p; p = strstr(p + 1, a))
		la = p;
	for (const char *p = strstr(s, b); p; p = strstr(p + 1, b))
		lb = p;
	if (!la && !lb)
		return 0;
	return la && (!lb || la > lb) ? 'a' : 'b';
}

#define SMCUP "\033[?1049h" /* enter the alternate screen */
#define RMCUP "\033[?1049l" /* leave it */
#define CIVIS "\033[?25l"   /* hide the cursor */
#define CNORM "\033[?25h"   /* show it */

/* Waits until the terminal's output since mark switched last to the
 * alternate screen with the cursor hidden (drawing true), or to the
 * normal screen with the cursor shown (false), and holds text (NULL: any).
 * Written data reaches the master a moment later, hence the wait. */
static bool term_shows(struct tmux_events *e, size_t mark, bool drawing,
                       const char *text)
{
	uint64_t until = tmux_now_ms() + TMUX_WAIT_MS;
	char want = drawing ? 'a' : 'b';

	for (;;) {
		const char *out = buf_cstr(&e->out) + mark;

		if (last_of(out, SMCUP, RMCUP) == want &&
		    last_of(out, CIVIS, CNORM) == want &&
		    (!text || strstr(out, text)))
			return true;
		if (tmux_now_ms() >= until)
			return false;
		tmux_events_pump(e, 50);
	}
}

/* The state letter of /proc/PID/stat ('T' stopped), or 0. */
static char proc_state(long pid)
{
	char path[64], text[512];
	struct buf b;
	const char *close;
	char st = 0;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	buf_init(&b);
	if (tu_read_file(path, &b) == STATUS_OK && b.len < sizeof(text)) {
		memcpy(text, b.data, b.len);
		text[b.len] = '\0';
		close = strrchr(text, ')');
		if (close && close[1] == ' ')
			st = close[2];
	}
	buf_fini(&b);
	return st;
}

/* Waits until the launched program is stopped (or running again). */
static void expect_child(struct demo *d, long child, bool stopped)
{
	uint64_t until = tmux_now_ms() + TMUX_WAIT_MS;

	while ((proc_state(child) == 'T') != stopped) {
		ck_assert_msg(tmux_now_ms() < until,
		              "the program (pid %ld) is %s", child,
		              stopped ? "still running" : "still stopped");
		tmux_events_pump(&d->ev, 20);
	}
}

/* The pid of the launched program, from the events read so far. */
static long launched_pid(struct demo *d)
{
	const char *s = buf_cstr(&d->ev.seen), *at;

	for (at = strstr(s, "launched "); at; at = strstr(at + 1, "launched "))
		if (at == s || at[-1] == '\n')
			return strtol(at + 9, NULL, 10);
	return 0;
}

/* The viewer stopped, with the terminal as the shell needs it. */
static void expect_stopped(struct demo *d, const struct tmux_pty *pty,
                           size_t mark)
{
	char want[32];

	snprintf(want, sizeof(want), "job stopped %d", SIGTSTP);
	TMUX_WAIT(&d->ev, want, TMUX_WAIT_MS);
	/* canonical and echoing, and since the mark the alternate screen
	 * left and the cursor shown */
	tmux_assert_restored(pty, buf_cstr(&d->ev.out));
	ck_assert_msg(term_shows(&d->ev, mark, false, NULL),
	              "the terminal was not restored before the stop");
}

/* SIGCONT: the viewer takes the terminal back, redraws all of it, and
 * answers keys. */
static void expect_resumed(struct demo *d, pid_t viewer,
                           const struct tmux_pty *pty, const char *key,
                           const char *act)
{
	size_t mark;
	char want[64];

	drain(&d->ev);
	mark = d->ev.out.len;
	ck_assert_int_eq(kill(viewer, SIGCONT), 0);
	/* stopped, the viewer wrote nothing: its next drawing is after */
	TMUX_WAIT(&d->ev, "drawn", TMUX_WAIT_MS);
	ck_assert_msg(term_shows(&d->ev, mark, true, d->leader[METRIC_IDLE]),
	              "the screen was not drawn again after SIGCONT");
	ck_assert_int_eq(write(pty->master, key, strlen(key)),
	                 (ssize_t)strlen(key));
	snprintf(want, sizeof(want), "action %s", act);
	TMUX_WAIT(&d->ev, want, TMUX_WAIT_MS);
	TMUX_WAIT(&d->ev, "drawn", TMUX_WAIT_MS);
}

START_TEST(demo_pty_suspend_resume)
{
	struct demo d;
	struct guardian g;
	struct tmux_pty pty;
	char line[64];
	pid_t shell, viewer;
	long child;
	uint64_t until;
	int status;
	size_t mark;

	if (!demo_init(&d, "demo_pty_suspend"))
		return;
	tmux_pty_open(&pty, COLS, ROWS);
	d.ev.drain = pty.master;
	fflush(NULL);
	shell = fork();
	ck_assert_int_ge(shell, 0);
	if (shell == 0)
		job_shell(&d, &pty);
	guardian_start(&g, &d, NULL, shell);
	ck_assert(
	    tmux_events_wait(&d.ev, "job *", TMUX_WAIT_MS, line, sizeof(line)));
	viewer = (pid_t)strtol(line + 4, NULL, 10);
	ck_assert_int_gt(viewer, 0);
	wait_first_window(&d);
	TMUX_WAIT(&d.ev, "drawn", TMUX_WAIT_MS);
	child = launched_pid(&d);
	ck_assert_int_gt(child, 0);

	/* kill -TSTP, as from another terminal: the program (in a process
	 * group of its own) stops and goes on with the viewer */
	drain(&d.ev);
	mark = d.ev.out.len;
	ck_assert_int_eq(kill(viewer, SIGTSTP), 0);
	expect_stopped(&d, &pty, mark);
	expect_child(&d, child, true);
	expect_resumed(&d, viewer, &pty, "p", "weight-polls");
	expect_child(&d, child, false);

	/* Ctrl-Z, a key in raw mode */
	drain(&d.ev);
	mark = d.ev.out.len;
	ck_assert_int_eq(write(pty.master, "\032", 1), 1);
	TMUX_WAIT(&d.ev, "action suspend", TMUX_WAIT_MS);
	expect_stopped(&d, &pty, mark);
	expect_child(&d, child, true);
	expect_resumed(&d, viewer, &pty, "b", "weight-busy");
	expect_child(&d, child, false);

	ck_assert_int_eq(write(pty.master, "q", 1), 1);
	TMUX_WAIT(&d.ev, "exit 0", DEMO_MS);
	TMUX_WAIT(&d.ev, "job exited 0", DEMO_MS);
	until = tmux_now_ms() + TMUX_WAIT_MS;
	while (waitpid(shell, &status, WNOHANG) == 0) {
		ck_assert_msg(tmux_now_ms() < until, "the job shell stayed");
		tmux_events_pump(&d.ev, 50);
	}
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert(term_shows(&d.ev, 0, false, NULL));
	tmux_assert_restored(&pty, buf_cstr(&d.ev.out));
	guardian_done(&g);
	tmux_pty_close(&pty);
	demo_fini(&d);
}
END_TEST

Suite *suite_viewer_demo(void);
Suite *suite_viewer_demo(void)
{
	Suite *s = suite_create("viewer_demo");
	TCase *tc = tcase_create("viewer_demo");

	tcase_set_timeout(tc, 150);
	tcase_add_test(tc, demo_tmux_weighting_history_saving_progress);
	tcase_add_test(tc, demo_pty_suspend_resume);
	suite_add_tcase(s, tc);
	return s;
}
