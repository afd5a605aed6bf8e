/* The viewer's key benchmark (make bench), split by idea:
 * tests/bench_viewer.c has main and the table's and the filter's keys,
 * tests/bench_viewer_util.c the windows it commits, the clock, the timed
 * keys and the operator's pause, and tests/bench_viewer_filter.c, _views.c
 * and _tree.c a group of views each (a new tests/bench_viewer_*.c links in
 * by itself).  Every block prints "name value" lines, best of runs, which
 * tests/bench/report.sh reads into docs/performance.md: a new block adds
 * names, it never renames or reorders those printed before. */
#ifndef ASYNCTOP_TESTS_BENCH_VIEWER_H
#define ASYNCTOP_TESTS_BENCH_VIEWER_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"
#include "tui/app.h"
#include "tui/render.h"

/* Room for a generated frame name, NUL included. */
#define BV_NAME 48

/* ---- the windows (tests/bench_viewer_util.c) ---- */

/* What makes the windows: bv_fill commits one and moves it on. */
struct bv_gen {
	size_t stacks, depth;
	uint64_t x;     /* xorshift state of the metrics */
	size_t windows; /* committed so far: shifts the leaves */
	size_t names;   /* stack i has 1 + i % names task names (0: one) */
};

/* A screen and the generator of the windows it shows. */
struct bv_scr {
	struct screen *scr;
	struct bv_gen *g;
};

/* The next of the xorshift64 sequence in *x (never 0 when *x is not). */
uint64_t bv_xorshift(uint64_t *x);

/* Commits a window of g->stacks stacks of g->depth frames (>= 3): a shared
 * root, then depth - 2 middle frames out of 200, then a leaf of its own
 * ("module_M:handler_I:L", I shifted by 5% of the stacks a window); task
 * "worker", or with g->names a sample per name (names_of, out of
 * task_names); new metrics. */
int bv_fill(struct app *a, struct bv_gen *g);

/* The options of a bench viewer. */
void bv_opts(struct app_opts *o);

/* ---- the clock ---- */

/* The monotonic clock in ms. */
double bv_now_ms(void);

/* The thread's CPU time in ms: a step's own cost, whatever the load
 * takes from it (a key waits for a step only as long as it runs). */
double bv_cpu_ms(void);

/* The smaller of cur and t: a best-of figure updated. */
double bv_best(double cur, double t);

/* ---- keys and the operator's pause ---- */

/* The n keys k, then a render of scr: 0, or -1 when it cannot be drawn. */
int bv_keys(struct app *a, struct screen *scr, const int *k, size_t n);

/* One timed step: keys, then a render; the time into *fig when better. */
int bv_timed(struct app *a, struct screen *scr, const int *k, size_t n,
             double *fig);

/* A window arriving while paused, then 'L': the view's work of a new
 * window (refresh_view) and a render, without the model's fold of it. */
int bv_arrival(struct app *a, struct screen *scr, struct bv_gen *g,
               double *fig);

/* The operator's pause between two keys: the viewer's idle steps, run
 * as the loop runs them while no key comes, until it has nothing left to
 * do; the longest step's CPU time into *step when longer. */
void bv_pause_idle(struct app *a, double *step);

/* The viewer's work between keys, as its loop does it while no key
 * comes: steps until none is left (at most 1000); the longest step into
 * *step when better. */
int bv_idle(struct app *a, double *step);

/* The key of the weighting after the shown one: always a change. */
int bv_other_weighting(const struct app *a);

/* Key into, then a change of weighting, the operator's pause (the idle
 * steps run, the longest into *step), then key back timed into *fig. */
int bv_key_after_pause(struct app *a, struct screen *scr, int into, int back,
                       double *step, double *fig);

/* ---- the filter (tests/bench_viewer_filter.c) ---- */

/* Backspace on a window that came filtered by typed, after the operator's
 * pause between '/' and the key (the idle steps, the longest into *step):
 * the time of the key and its render into *fig when better.  Esc ends
 * the filter. */
int bv_back_after_pause(struct app *a, struct screen *scr, struct bv_gen *g,
                        const char *typed, double *fig, double *step);

/* The filter's very first key, best of runs (bench times it once): each
 * run a viewer of its own shows its first window, then '/' opens the
 * filter, the viewer works between keys (the filter's index, in steps),
 * and a letter filters.  Then the same with '/' and the letter at once,
 * nothing between them, after the operator's pause on the window (the
 * idle steps run, the longest into *longest: the index made before '/'
 * when the window is large).  And '/' with a word pasted (its keys at
 * once, one screen drawn after them), after that pause, and with none:
 * the keys come with the window, and the word finds no index.  Prints
 * viewer_filter_{very_first_key_best,very_first_key_no_idle_best,
 * pasted_word_best,pasted_word_no_pause_best,slash,index_idle_step}_TAG_ms.
 */
int bv_very_first(size_t stacks, size_t depth, int runs, const char *tag,
                  double *longest);

/* What every viewer pays between keys for a window that arrives, no
 * filter on and the table shown (the filter's index of a large window,
 * made before '/'): the CPU time of the idle steps until none is left,
 * best of runs windows.  Prints viewer_idle_cpu_per_window_TAG_ms. */
int bv_idle_per_window(struct app *a, struct screen *scr, struct bv_gen *g,
                       int runs, const char *tag);

/* ---- the views and the groupings (tests/bench_viewer_views.c) ---- */

/* A view's keys at this size (issue 13 aims at 10 ms): open it from the
 * table, a weighting key inside it, Esc back; each with its render, best
 * of runs; and Esc back after the operator's pause (the idle steps run,
 * the longest into *step).  Prints
 * viewer_view_NAME_{open,weight,back,back_after_pause}_TAG_ms. */
int bv_view_keys(struct app *a, struct screen *scr, int runs, int open,
                 const char *name, const char *tag, double *step);

/* a and n: the grouping derived (model_group) and the rows sorted and
 * drawn; a weighting key under it (nothing derived again); back to the
 * default, at once and after the operator's pause (the idle steps run,
 * the longest into *step).  The groupings the viewer holds are dropped
 * before each run, so that a and n derive as on a window not grouped
 * before.  Prints viewer_group_{parked,name,weight,back,
 * back_after_pause,parked_detail}_TAG_ms. */
int bv_group_keys(struct app *a, struct screen *scr, int runs, const char *tag,
                  double *step);

/* Exploring under a grouping (issue 13's 10 ms): compare split by task
 * name (=, a weighting key, Esc, each timed; the base held from when it
 * was shown, as after a new window; and cold, =, with the base derived
 * for it), the detail by parked-at stack with its sparkline over the kept
 * windows (d, a weighting key), and the flame's first draw of a window it
 * has not laid out (f after a window arrived); = held and cold again
 * after the operator's pause (the idle steps run, the longest into
 * *step).  Prints viewer_explore_{compare_name_open,compare_name_weight,
 * compare_name_back,compare_name_cold_open,compare_name_open_after_pause,
 * compare_name_cold_open_after_pause,detail_parked_open,
 * detail_parked_weight,flame_first}_TAG_ms. */
int bv_explore_keys(struct app *a, struct bv_scr *sg, int runs, const char *tag,
                    double *step);

/* The detail of one row that folds every entry of the window: a window
 * of 100,000 tasks of one spawn stack, each parked at a stack of its
 * own (d, a weighting key, Esc).  Prints
 * viewer_detail_big_row_{open,weight}_ms. */
int bv_big_row(int runs, size_t cols, size_t rows);

/* ---- the tree (tests/bench_viewer_tree.c) ---- */

/* The tree with everything expanded (* on its top frame): every stack
 * shows, each level sorted; then a weighting key re-sorts what the page
 * shows, and the other keys through the expanded tree (PgDn, End, Home,
 * - and + on the top frame, Esc back). */
int bv_tree_all(struct app *a, struct screen *scr, int runs, const char *tag);

/* t, then * on a window that just arrived, none of its frames made yet
 * (best of runs, each on a new window); and * after the operator's pause
 * after t (the idle steps run, the longest into *step).  Prints
 * viewer_view_tree_{open,expand_all}_new_window_TAG_ms and
 * viewer_view_tree_expand_all_new_window_after_pause_TAG_ms. */
int bv_tree_new_window(struct app *a, struct bv_scr *sg, int runs,
                       const char *tag, double *step);

/* The tree split by task name (n then t): every stack of a window has 1
 * to 3 task names (of 8), so a frame's leaves are runs of rows, not a row
 * each.  Each run on a window just arrived (g->names set for the block):
 * t, * on it (none of its frames made), a weighting key with everything
 * expanded, End; then on another, * after the operator's pause after t
 * (the idle steps run, the longest into *step); n again after.  Prints
 * viewer_view_tree_name_{open_new_window,expand_all_new_window,
 * expand_all_new_window_after_pause,all_weight,all_end}_TAG_ms. */
int bv_tree_by_name(struct app *a, struct bv_scr *sg, int runs, const char *tag,
                    double *step);

#endif
