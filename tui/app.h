/* The live viewer: its state (model, view, mode, status), the actions of
 * the keymap, the worker's messages, and the single poll() loop over the
 * tty, the signal self-pipe, the worker and the saver (app_loop.c).
 * Only the main thread touches any of it (docs/design.md §1). */
#ifndef ASYNCTOP_TUI_APP_H
#define ASYNCTOP_TUI_APP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "adapters/adapter.h"
#include "adapters/worker.h"
#include "model/base.h"
#include "model/buf.h"
#include "model/metric.h"
#include "model/model.h"
#include "model/order.h"
#include "model/sample.h"
#include "model/status.h"
#include "tui/builder.h"
#include "tui/cli.h"
#include "tui/comments.h"
#include "tui/grouped.h"
#include "tui/keymap.h"
#include "tui/render.h"
#include "tui/table_sort.h"
#include "tui/view.h"
#include "tui/view_compare.h"
#include "tui/view_detail.h"
#include "tui/view_flame.h"
#include "tui/view_tree.h"
#include "tui/warn.h"

struct saver;
struct saver_result;

/* Windows whose warnings the viewer keeps besides the shown one's: the
 * groupings toggled through (a, n) and back. */
#define APP_WARN_PREV 3

/* What the viewer was asked for (copied from struct opts). */
struct app_opts {
	const char *prog;
	const char *adapter;  /* the adapter's name, for titles and files */
	const char *endpoint; /* what the header shows ("" for none) */
	const char *also;     /* appended to an unreachable error, or NULL */
	uint64_t window_ns;
	bool window_clamped;
	uint64_t refresh_ns; /* 1/HZ */
	enum metric metric;
	const char *save_dir; /* "." by default */
	size_t history;       /* windows kept */
	uint64_t exit_after;  /* windows; 0: never */
	bool replay;          /* a finite source: header says REPLAY */
	int events;           /* test event channel, -1 for none */
	struct warn_cfg warn; /* zero: the defaults */
};

enum app_mode {
	APP_LIVE,    /* the newest complete window */
	APP_PAUSED,  /* frozen on one window; new ones go to history */
	APP_HISTORY, /* stepping with [ ] */
};

/* What the body shows: the table, or a view of the shown window. */
enum app_body {
	APP_BODY_TABLE,
	APP_BODY_DETAIL,  /* the row of body_stack */
	APP_BODY_COMPARE, /* against the marked window, or the one before */
	APP_BODY_TREE,
	APP_BODY_FLAME,
	APP_BODY_WARN, /* the shown window's warnings (W) */
};

/* Where the window being taken in is (app_intake.c). */
enum app_intake_phase {
	APP_INTAKE_NONE,
	APP_INTAKE_FOLD,    /* model_add, a slice between polls */
	APP_INTAKE_BUILD,   /* model_build_run on the builder thread */
	APP_INTAKE_RECLAIM, /* evicted windows released, a slice a time */
};

/* Reactions of an action, for the loop. */
enum app_react {
	APP_REDRAW = 1u << 0,
	APP_QUIT = 1u << 1,
	APP_SUSPEND = 1u << 2,
	APP_REPAINT = 1u << 3, /* clear the terminal and draw everything */
};

struct app {
	struct app_opts o;
	struct model *m;
	struct model *pm; /* the window in progress (its own ids) */
	struct view v;
	struct view pv; /* the view of pm */
	struct saver *saver;
	enum app_mode mode;
	uint64_t shown;     /* seq of the shown window, when not LIVE */
	uint64_t arrived;   /* windows arrived while not LIVE */
	uint64_t committed; /* windows committed (exit-after counts them) */
	bool in_progress;   /* 'o': show the window in progress */
	bool have_progress; /* pm holds a window in progress */
	bool help, editing;
	size_t help_top; /* first help line shown (the help scrolls) */
	enum app_body body;
	/* a weighting key came behind a view: the table sorts when it shows */
	bool table_stale;
	/* a key typed or erased in the filter's prompt: the rows are
	 * filtered when next read (app_view), so keys pasted at once filter
	 * once, for the text they leave */
	bool filter_stale;
	uint32_t body_stack; /* the detail's row */
	uint32_t body_name;  /* and its name, split by name */
	/* the model those ids are of: the window in progress is folded into
	 * a model of its own, whose ids differ ('o' moves the detail) */
	const struct model *body_m;
	size_t body_top;   /* the view's first line shown (it scrolls) */
	uint64_t mark_seq; /* the window m marked for compare, 0: none */
	struct compare cmp;
	/* the rows: by spawn stack (zero) or parked-at, split by name or not
	 * ('a', 'n'); the shown window and compare's base so grouped, a few
	 * kept windows' groupings held */
	struct grouping group;
	bool group_chosen; /* a or n pressed: a file's grouping is not taken */
	struct grouped grouped;
	struct warnings warn; /* of the shown window */
	/* of the windows shown before it, the oldest at warn_at (a grouping
	 * toggled back finds its warnings); forgotten at each commit
	 * (stuck-idle reads the history) */
	struct warnings warn_prev[APP_WARN_PREV];
	size_t warn_at;
	struct spark spark; /* the detail's row across the kept windows */
	struct detail_cache dcache; /* the detail's row's others and tasks */
	/* the table's order the next key most likely shows, made between
	 * keys (app_idle); idle_nomem: the window it found no memory for */
	struct table_sort tsort;
	struct view_tag idle_nomem;
	struct view_tag idle_cmp_nomem; /* the base it could not pair */
	/* = was used: compare's rows are paired between keys under every
	 * grouping from then on (before, only under a grouping of its own,
	 * whose base a key would derive too) */
	bool cmp_used;
	size_t idle_rows; /* a step's rows; 0: TABLE_SORT_STEP (tests) */
	/* the least rows of a window whose filter index is made before '/';
	 * 0: APP_IDLE_FILTER_ROWS (tests) */
	size_t idle_filter_rows;
	struct tree tree; /* also what flame lays out */
	struct flame flame;
	bool done; /* the worker ended */
	enum source_state state;
	bool have_state;
	uint64_t retry_at_ns; /* monotonic: the next attempt (RETRYING) */
	uint64_t since_ns; /* monotonic start of the window being collected */
	uint64_t now_ns;
	char title[512];
	char error[2048]; /* the last source error, worded (body / status) */
	bool error_bad;   /* unreachable or lost */
	enum status error_st; /* of the last source error */
	char status[4400];
	bool status_error;
	uint64_t status_until_ns; /* monotonic: a brief status clears then */
	char notice[256];
	char message[2048]; /* body text for the shown empty window */
	/* The window being taken in by slices (set builder to take windows
	 * so): its message (owned), samples fed, build, meta with comments */
	struct builder *builder;
	uint64_t slice_ns; /* a slice's length; 0: APP_SLICE_NS */
	enum app_intake_phase phase;
	struct worker_msg *in_msg;
	size_t in_fed;
	bool in_open; /* its window is open in m (the first slice opens it) */
	struct model_build *in_build;
	struct window_meta in_meta;
	struct comments in_c;
	struct order in_order;   /* its rows sorted by the builder */
	struct warnings in_warn; /* and its warnings */
	struct builder_derive in_derive;
	size_t rows, cols; /* last rendered size */
	unsigned flags;    /* enum utf8_flags for the terminal */
};

/* Sets up a's state for o (copied; its strings borrowed): models bounded
 * by o->history, the view, no source yet.  STATUS_NOMEM.  Does not block. */
enum status app_init(struct app *a, const struct app_opts *o) MUST_CHECK;
/* Frees what app_init and later calls made (not a source or saver). */
void app_fini(struct app *a);

/* Takes one message of the worker (borrowed): folds windows into the
 * model (comments added as record does), progress into the in-progress
 * model, states and errors into the header and status line. */
void app_take(struct app *a, const struct worker_msg *msg);

/* With a builder set, a WORKER_WINDOW message is taken in by steps
 * (docs/design.md §15): app_intake takes msg over (true) and app_step
 * advances it by a slice of at most about APP_SLICE_NS of the main
 * thread's time (the fold, then the build on the builder thread, then
 * the release of evicted windows); the window shows once it is whole.
 * Without a builder app_intake returns false: app_take it. */
#define APP_SLICE_NS ((uint64_t)5000000u)
bool app_intake(struct app *a, struct worker_msg *msg);
/* Advances the intake; enum app_react flags. */
unsigned app_step(struct app *a);
/* A window is being taken in: the loop holds the worker's next messages. */
bool app_busy(const struct app *a);
/* app_step has main-thread work now (else it waits for the builder's fd
 * or the saver's). */
bool app_step_ready(const struct app *a);
/* Ends the intake at once (quitting): waits for a build, keeps its
 * window, drops a fold.  Blocks for the build. */
void app_intake_stop(struct app *a);
/* What a commit does to the viewer (app.c). */
void app_after_commit(struct app *a, uint64_t index);
/* The history's oldest windows up to seq oldest (excluded) were evicted
 * (model_reclaim): what was derived from them goes, and a shown one is
 * replaced by the oldest kept (app.c). */
void app_evicted(struct app *a, uint64_t oldest);

/* Commits samples (borrowed) as a window with meta (borrowed), as a
 * WORKER_WINDOW message would; for tests and replay-like feeds.
 * Returns the model's status (STATUS_EMPTY_WINDOW is kept, not an error). */
enum status app_commit(struct app *a, const struct sample *s, size_t n,
                       const struct window_meta *meta) MUST_CHECK;

/* The views' actions (detail, compare, mark, tree and its expansion) and
 * up/down/page/top/bottom inside a view (act one of ACTION_UP to
 * ACTION_BOTTOM); enum app_react flags.  app_views.c. */
unsigned app_view_action(struct app *a, enum action act);
unsigned app_view_move(struct app *a, enum action act, long page);
/* A key the shown view takes before the keymap (the tree's and the
 * flame's arrows, the flame's Enter and Esc); 0 when it does not. */
unsigned app_view_key(struct app *a, int key);

/* Maps a key (enum key or code point) to an action, or edits the filter
 * while its prompt is open; returns enum app_react flags. */
unsigned app_key(struct app *a, int key);
/* Does one action; returns enum app_react flags. */
unsigned app_do(struct app *a, enum action act);
/* A mouse event at (x, y): button 1 press, or the wheel (dir -1 up,
 * +1 down, 0 for a click).  Returns enum app_react flags. */
unsigned app_mouse(struct app *a, size_t x, size_t y, int wheel);

/* Sets the clock the header's progress uses (monotonic ns); a brief
 * status (app_saved) whose time is up is cleared. */
void app_set_now(struct app *a, uint64_t now_ns);

/* How long "saved PATH" stays on the status line. */
#define APP_BRIEF_NS ((uint64_t)5 * 1000000000u)

/* The saver finished a save (res borrowed): "saved PATH" for
 * APP_BRIEF_NS from now, or the error (which stays). */
void app_saved(struct app *a, const struct saver_result *res);

/* Sets the status line (printf-style); it stays until replaced. */
void app_set_status(struct app *a, bool error, const char *fmt, ...)
    PRINTF(3, 4);

/* adapter_format_error with %g in the C locale (as record does). */
void app_word_error(struct app *a, const struct adapter_error *e,
                    double seconds, char *dst, size_t size);

/* The window in progress is what shows ('o' on, with figures). */
bool app_showing_progress(const struct app *a);
/* The view and model of what shows (the in-progress ones under 'o').
 * app_view first brings the view's rows up to date when a weighting key
 * behind a view (the table showing now) or a filter key left them stale:
 * everything that reads the rows reads them through it. */
struct view *app_view(struct app *a);
const struct model *app_model(const struct app *a);

/* When the screen next changes by itself between refreshes (the "retrying
 * in N s" countdown ticks, a brief status clears), in monotonic ns; UINT64_MAX
 * when nothing counts down.  The loop redraws then, so a slow -r still counts
 * each second. */
uint64_t app_next_change(const struct app *a);

/* The shown window in the shown grouping (as app_regroup last derived
 * it), or NULL. */
const struct window *app_shown(const struct app *a);
/* The kept window app_shown groups, or NULL. */
const struct window *app_kept(const struct app *a);
/* Derives the shown window's grouping when it is not at hand (once per
 * window and grouping).  On failure the status line says so and the
 * window shows ungrouped. */
void app_regroup(struct app *a);

/* The kept window compare measures w (a window of a's model, borrowed)
 * against: the marked one (*marked), or the kept window before w; NULL
 * for none.  Cannot fail. */
const struct window *app_compare_base(const struct app *a,
                                      const struct window *w, bool *marked);

/* Work done between keys (app_idle.c, docs/design.md §14): what the
 * next key most likely needs, made a step at a time so that a key never
 * waits long for it, and exact whether it finished or not.
 * app_idle_pending: there is some now (the loop then polls without
 * waiting, and steps while no input comes; not while a window is taken
 * in).  app_idle: one step, reading or moving at most about
 * TABLE_SORT_STEP rows (idle_rows when set), or for the filter's index
 * about APP_IDLE_FRAMES frames (a row is one; a millisecond or two at
 * 100,000 stacks).  Neither changes what shows. */
#define APP_IDLE_FRAMES ((size_t)65536)
/* Before any '/', the filter's index is made between keys, after all
 * else, for a shown window of APP_IDLE_FILTER_ROWS rows up to
 * APP_IDLE_FILTER_MOST (docs/design.md §14: below, a key without it takes
 * about 2 ms; above, a huge window, every viewer would pay 100 MB for it
 * at a million rows). */
#define APP_IDLE_FILTER_ROWS ((size_t)16384)
#define APP_IDLE_FILTER_MOST ((size_t)262144)
bool app_idle_pending(const struct app *a);
void app_idle(struct app *a);

/* Renders the screen (sized cols x rows in s).  STATUS_NOMEM. */
enum status app_render(struct app *a, struct screen *s) MUST_CHECK;

/* The save file name of docs/design.md §11 for window w into dst:
 * DIR/asynctop-ADAPTER-YYYYmmddTHHMMSSZ-wN.pb.gz, or with metric (>= 0)
 * DIR/...-wN-METRIC.collapsedstack.txt.  STATUS_INVAL when dst is short. */
enum status app_save_path(char *dst, size_t size, const char *dir,
                          const char *adapter, const struct window *w,
                          int metric) MUST_CHECK;

/* Runs the viewer as o (borrowed) says with the adapters of reg: opens the
 * source, starts its worker, and runs the loop on /dev/tty, or, with
 * --dump-screen, headless until --exit-after windows (or the source's
 * end), then prints the screen as text on stdout.  Returns an exit status
 * (enum asynctop_exit).  *abandoned as record_run.  Blocks until quit. */
int app_run(const struct opts *o, const struct adapter_registry *reg,
            int events, bool *abandoned);

#endif
