/* The model: interned frames, stacks and task names, windows folded per
 * (spawn stack, parked-at stack, task name), any grouping derived from a
 * kept window, and the ring of kept windows.
 *
 * Owned and touched by the main thread only (docs/design.md §1).  Numbers and
 * ids only: no formatting, no UI settings.  Ids are uint32, assigned in order
 * of arrival, never reused within a model's life (selections hold them). */
#ifndef ASYNCTOP_MODEL_MODEL_H
#define ASYNCTOP_MODEL_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/base.h"
#include "model/metric.h"
#include "model/sample.h"
#include "model/status.h"
#include "model/strview.h"
#include "model/window.h"

struct model;

/* Bounds (docs/design.md §2).  model_limits_default() fills the defaults. */
struct model_limits {
	size_t max_windows; /* windows kept (--history); default 120 */
	size_t mem_budget;  /* bytes for windows and strings; 256 MiB */
	size_t max_stacks;  /* distinct live stacks; default 1 M */
	size_t max_frames;  /* distinct live frames, and names; 4 M */
	size_t max_depth;   /* frames per stack; default 128 */
	size_t max_name;    /* bytes per frame, task name, meta string; 4 KiB */
};

void model_limits_default(struct model_limits *lim);

/* The bounds m was made with (a view into m). */
const struct model_limits *model_get_limits(const struct model *m);

/* One (spawn stack, parked-at stack, task name) of a window: its own five
 * values, how many tasks were folded into it, and its optional figures
 * (window_extras).  parked is a stack id like stack; a task whose
 * parked-at stack was not known has the reserved one-frame stack
 * "[not parked]" (model_not_parked).  64 bytes: one cache line. */
struct fold_entry {
	uint32_t stack;
	uint32_t name;
	uint64_t tasks;
	struct metrics m;
	uint32_t parked;
	uint32_t xi; /* 0: no figure known; else w->extras[xi - 1] */
};

/* How a window's entries make rows: by spawn stack (the default: zero
 * initialised) or by parked-at stack, and either one split by task name. */
enum group_key { GROUP_SPAWN, GROUP_PARKED };

struct grouping {
	enum group_key key;
	bool by_name;
};

/* One row of a window: its stack (the spawn stack, or the parked-at stack
 * when grouped so), its name when split by name (0 otherwise), and the
 * sums over its entries. */
struct fold_row {
	uint32_t stack;
	uint32_t first; /* its entries: entries[first .. first + count) */
	uint32_t count;
	uint64_t tasks;
	struct metrics m;
	uint32_t name;
	struct extras x;
};

/* What the model did to a window's samples to keep within its bounds. */
struct window_stats {
	uint64_t samples;   /* samples accepted (model_add calls that kept) */
	uint64_t zero;      /* all-zero samples dropped */
	uint64_t other;     /* samples folded into [other] (caps reached) */
	uint64_t truncated; /* stacks (spawn or parked-at) cut at the cap */
	uint64_t clipped;   /* frames or names cut at max_name */
};

/* A committed window.  Read-only for everyone but the model; valid until
 * the ring evicts it (a later model_commit) or model_free. */
struct window {
	uint64_t seq;            /* 1-based number in this model's life */
	struct window_meta meta; /* owned copies of what commit was given */
	bool empty;              /* no task data: the no-data error */
	struct window_stats stats;
	struct metrics total; /* sums over all rows */
	uint64_t tasks;
	/* Rows in canonical order: stack text ascending (root first, frame by
	 * frame, byte-wise, a prefix first), then, when split by name, name
	 * ascending byte-wise.  Entries grouped by row in row order; within a
	 * row, task name ascending byte-wise, then the other stack's text
	 * (the parked-at stack when grouped by spawn stack, and the reverse).
	 */
	size_t nrows;
	const struct fold_row *rows;
	size_t nentries;
	const struct fold_entry *entries;
	size_t bytes;          /* memory accounted to this window */
	struct grouping group; /* kept windows: by spawn stack, unsplit */
	/* The figures of the entries that know any, folded by each figure's
	 * rule (model/extras.h); read them with window_extras. */
	const struct extras *extras;
	size_t nextras;
};

/* The optional figures of entry e of w (none known: all unknown). */
static inline const struct extras *window_extras(const struct window *w,
                                                 const struct fold_entry *e)
{
	static const struct extras none = { .known = 0 };

	return e->xi ? &w->extras[e->xi - 1] : &none;
}

/* Counters over the model's life. */
struct model_stats {
	uint64_t windows_committed;
	uint64_t windows_evicted;
	size_t windows_kept;
	size_t frames_live, stacks_live, names_live;
	uint64_t frames_reclaimed, stacks_reclaimed, names_reclaimed;
	size_t bytes; /* accounted against mem_budget */
};

/* A new, empty model.  lim may be NULL for the defaults; it is copied.
 * STATUS_INVAL for a zero bound, STATUS_NOMEM. */
enum status model_new(const struct model_limits *lim,
                      struct model **out) MUST_CHECK;
/* Frees the model and every window; NULL is a no-op. */
void model_free(struct model *m);

/* Opens a window.  STATUS_INVAL if one is already open. */
enum status model_begin(struct model *m) MUST_CHECK;

/* Folds one sample (borrowed) into the open window: interned, reserved names
 * applied, bounded.  STATUS_OK; STATUS_LIMIT when a cap sent it to [other]
 * (counted, not lost); STATUS_NOMEM (the sample was not added, the window
 * stays open and consistent); STATUS_INVAL when no window is open. */
enum status model_add(struct model *m, const struct sample *s) MUST_CHECK;

/* Makes room in the open window, still empty, for the entries of n
 * samples, so that folding a huge window (64 Ki samples or more) never
 * grows (and rehashes) its tables midway, nor the stack and frame tables
 * (room for n each); a caller folding in slices calls it first.  Nothing
 * is reserved for fewer samples, or when the last window folded its
 * samples into fewer than n / 2 entries.
 * STATUS_INVAL (not open, or not empty), STATUS_NOMEM (the window stays open
 * and usable). */
enum status model_reserve(struct model *m, size_t n) MUST_CHECK;

/* Commits the open window with meta (borrowed; copied, strings bounded by
 * max_name) and puts it in the ring, evicting the oldest windows past
 * max_windows or mem_budget (the newest is always kept).  *out (may be
 * NULL) gets the window.  Returns STATUS_EMPTY_WINDOW when no sample with
 * data arrived: the window is still kept, flagged empty.  On STATUS_NOMEM
 * the window stays open, so commit can be retried or aborted. */
enum status model_commit(struct model *m, const struct window_meta *meta,
                         const struct window **out) MUST_CHECK;

/* Discards the open window, if any (not while it is being built). */
void model_abort(struct model *m);

/* model_commit in steps, so that a caller that must stay responsive can
 * run the long one on another thread and release evicted windows a slice
 * at a time (docs/design.md §15):
 *   model_build_begin  closes the open window to model_add and takes the
 *                      ring's slot; meta (borrowed) must stay valid until
 *                      model_build_end.  STATUS_INVAL, STATUS_NOMEM.
 *   model_build_run    builds the window: sorts and copies the entries.
 *                      It only reads m (but the reference counts, which
 *                      nothing else reads), so any thread may run it
 *                      while m's owner only reads m too: no model_begin,
 *                      model_add, model_build_end or model_reclaim.
 *   model_build_end    keeps the built window (*out, may be NULL) and
 *                      frees b, as model_commit; the windows it pushes
 *                      out are left to model_reclaim.  On STATUS_NOMEM
 *                      the window stays open, to be retried or aborted.
 * model_commit is the three, then model_reclaim until done. */
struct model_build;
enum status model_build_begin(struct model *m, const struct window_meta *meta,
                              struct model_build **out) MUST_CHECK;
void model_build_run(struct model_build *b);
/* The window model_build_run built (not kept yet: no seq), or NULL when
 * it failed or has not run; valid until model_build_end. */
const struct window *model_build_window(const struct model_build *b);
enum status model_build_end(struct model *m, struct model_build *b,
                            const struct window **out) MUST_CHECK;

/* Evicts the oldest windows past max_windows or mem_budget and releases
 * what only they referred to, at most about budget entries' worth in this
 * call (SIZE_MAX: all).  An evicted window has left the ring at once; its
 * strings go as it is released.  Does nothing while a window is open
 * (model_begin finishes it first).  True while work remains. */
bool model_reclaim(struct model *m, size_t budget);

/* A sink that feeds model_add, for producers (meta left unset). */
struct sample_sink model_sink(struct model *m);

/* Kept windows, 0 the oldest; NULL past the end. */
size_t model_window_count(const struct model *m);
const struct window *model_window(const struct model *m, size_t i);
/* The newest kept window, or NULL. */
const struct window *model_latest(const struct model *m);
/* The kept window numbered seq, or NULL (never committed, or evicted). */
const struct window *model_window_seq(const struct model *m, uint64_t seq);

/* Strings and stacks of kept windows.  The views stay valid while a kept
 * window refers to them.  An id no kept window refers to gives the empty
 * view (depth 0). */
struct strview model_frame(const struct model *m, uint32_t frame);
struct strview model_name(const struct model *m, uint32_t name);
/* Frame ids of a stack, root first; *depth gets their number. */
const uint32_t *model_stack(const struct model *m, uint32_t stack,
                            size_t *depth);

/* The id in m of the stack that is stack in the model from (the same
 * frames, byte for byte), or 0 when m holds no such stack: for a view
 * that moves between two models (the window in progress is folded apart),
 * whose ids differ.  model_name_in is the same for a task name (0 stays
 * 0, the rows without a name). */
uint32_t model_stack_in(const struct model *m, const struct model *from,
                        uint32_t stack);
uint32_t model_name_in(const struct model *m, const struct model *from,
                       uint32_t name);

/* Index in w->rows of the row of stack id, or SIZE_MAX.  Split by name, a
 * stack has a row per name: the one of the lowest name id. */
size_t window_find_row(const struct window *w, uint32_t stack);

/* The stack of e that is not its row's: its parked-at stack in a window
 * grouped by spawn stack, its spawn stack in one grouped by parked-at. */
static inline uint32_t window_other_stack(const struct window *w,
                                          const struct fold_entry *e)
{
	return w->group.key == GROUP_PARKED ? e->stack : e->parked;
}

/* The reserved stack "[not parked]" of the entries whose parked-at stack
 * was not known (pinned: the same id for the model's life). */
uint32_t model_not_parked(const struct model *m);

/* The kept window w grouped as g, derived from its entries without asking
 * the source again: a window of its own (same seq, meta, stats, totals;
 * the same entries reordered, with their rows), valid while w is kept and
 * freed with model_group_free.  The default grouping gives w itself.
 * STATUS_NOMEM, STATUS_INVAL (an unknown grouping, or w not a kept
 * window of m). */
enum status model_group(const struct model *m, const struct window *w,
                        struct grouping g,
                        const struct window **out) MUST_CHECK;
/* What model_group_memo keeps between calls on windows of one model: the
 * text order of the parked-at stacks and task names it ranked last, so
 * that a later window sorts only the ids it brings new (ids are never
 * reused, so an id's text never changes).  Zero-initialised; owned by the
 * caller; group_memo_fini frees it.  It serves one model: given another,
 * it starts again. */
struct group_memo {
	const struct model *m; /* compared only */
	uint32_t *stacks;      /* parked-at stack ids, in text order */
	size_t nstacks;
	uint32_t *names; /* task name ids, in text order */
	size_t nnames;
};

/* model_group, faster with a memo (may be NULL) of the windows it grouped
 * before: the same window as model_group's, whatever the memo holds. */
enum status model_group_memo(const struct model *m, const struct window *w,
                             struct grouping g, struct group_memo *memo,
                             const struct window **out) MUST_CHECK;
void group_memo_fini(struct group_memo *memo);

/* What model_split_step keeps between steps: private, zero-initialised
 * (or as group_step_fini leaves it); owned by the caller. */
enum split_phase { SPLIT_NONE, SPLIT_MAKE, SPLIT_BYID, SPLIT_DONE };
struct window_priv;
struct group_step {
	const struct window *src; /* compared only */
	uint64_t seq;
	enum split_phase phase;
	size_t at, out, nrows, sz;
	size_t most;            /* the most rows a kept row made */
	bool several;           /* a kept row made none or several */
	struct window_priv *wp; /* the window being made */
	uint32_t *start, *vals;
	uint64_t *keys;
};

/* model_group of the kept window w split by name under the spawn stack,
 * made a step at a time (the viewer makes it between keys): goes on from
 * where the last step on w stopped (else begins, dropping what s held),
 * reading or making about budget entries or rows (a kept row's all at
 * once); *out stays NULL until the last step, which gives the window
 * model_group gives, the caller's (model_group_free), s then holding
 * nothing.  w must stay kept between steps, or be given no more.
 * STATUS_INVAL (w not a kept window of m), STATUS_NOMEM: s holds
 * nothing. */
enum status model_split_step(const struct model *m, const struct window *w,
                             struct group_step *s, size_t budget,
                             const struct window **out) MUST_CHECK;
/* Frees what s holds; s is then as zero-initialised. */
void group_step_fini(struct group_step *s);

/* Frees what model_group made; w itself, or NULL, is left alone. */
void model_group_free(const struct window *w);

/* Byte-wise comparison of two stacks' texts, root first, frame by frame
 * (a prefix first): the canonical order of rows. */
int model_stack_cmp(const struct model *m, uint32_t a, uint32_t b);

void model_stats(const struct model *m, struct model_stats *st);

#endif
