/* The viewer's actions (an X-macro with name and help) and the one table
 * of (key, action) that drives dispatch, the help screen, the footer and
 * the generated docs/keys.md.  Pure: no curses; keys are our own codes. */
#ifndef ASYNCTOP_TUI_KEYMAP_H
#define ASYNCTOP_TUI_KEYMAP_H

#include <stdbool.h>
#include <stddef.h>

#include "model/buf.h"
#include "model/status.h"

/* X(ID, name, help) in help order. */
#define ACTION_LIST(X)                                                                                            \
	X(WEIGHT_IDLE, "weight-idle", "weight and order rows by idle time")                                       \
	X(WEIGHT_BUSY, "weight-busy", "weight and order rows by busy time")                                       \
	X(WEIGHT_SCHED, "weight-scheduled",                                                                       \
	  "weight and order rows by scheduled time (woken, not yet polled)")                                      \
	X(WEIGHT_POLLS, "weight-polls", "weight and order rows by polls")                                         \
	X(WEIGHT_WAKES, "weight-wakes", "weight and order rows by wakes")                                         \
	X(WEIGHT_NEXT, "weight-next", "next weighting")                                                           \
	X(WEIGHT_PREV, "weight-previous", "previous weighting")                                                   \
	X(INVERT, "invert", "invert the order (smallest first)")                                                  \
	X(UP, "up", "select the row above")                                                                       \
	X(DOWN, "down", "select the row below")                                                                   \
	X(PAGE_UP, "page-up", "one page up")                                                                      \
	X(PAGE_DOWN, "page-down", "one page down")                                                                \
	X(TOP, "top", "first row")                                                                                \
	X(BOTTOM, "bottom", "last row")                                                                           \
	X(HIST_BACK, "history-back", "show the previous kept window")                                             \
	X(HIST_FWD, "history-forward", "show the next kept window")                                               \
	X(LIVE, "live", "back to the newest window (live)")                                                       \
	X(PAUSE, "pause",                                                                                         \
	  "pause or resume the display (collection goes on into history)")                                        \
	X(PROGRESS, "in-progress",                                                                                \
	  "show the window in progress with its partial figures, and back")                                       \
	X(SAVE_PPROF, "save-pprof",                                                                               \
	  "save the shown window as a pprof profile (.pb.gz)")                                                    \
	X(SAVE_COLLAPSED, "save-collapsed",                                                                       \
	  "save the shown window as collapsed stacks of the weighting")                                           \
	X(FILTER, "filter",                                                                                       \
	  "filter rows by a substring of frames and task names (Enter keeps it, Esc clears it)")                  \
	X(DETAIL, "detail",                                                                                       \
	  "the selected row in detail: whole stack, shares, tasks by name, history (Esc back)")                   \
	X(COMPARE, "compare",                                                                                     \
	  "compare the rows, as grouped, with the window before (or the marked one), by their change (Esc back)") \
	X(MARK, "mark", "mark the shown window for compare, or unmark it")                                        \
	X(TREE, "tree",                                                                                           \
	  "the stacks as a tree of frames, root first, with subtree sums (Esc back)")                             \
	X(TREE_EXPAND, "tree-expand",                                                                             \
	  "in the tree: expand the selected frame (also the right arrow)")                                        \
	X(TREE_COLLAPSE, "tree-collapse",                                                                         \
	  "in the tree: collapse it, or go to its parent (also the left arrow)")                                  \
	X(TREE_EXPAND_ALL, "tree-expand-all",                                                                     \
	  "in the tree: expand everything below the selected frame")                                              \
	X(FLAME, "flame",                                                                                         \
	  "an icicle of the shown window; arrows select a frame, Enter zooms in, Esc out")                        \
	X(GROUP_PARKED, "group-parked",                                                                           \
	  "rows by parked-at stack (where tasks wait), and back to spawn stack")                                  \
	X(GROUP_NAME, "group-name",                                                                               \
	  "split rows by task name (views follow), and join them again")                                          \
	X(WARNINGS, "warnings",                                                                                   \
	  "the shown window's warnings: rule, row and figure (Esc back)")                                         \
	X(HELP, "help", "show or hide this help")                                                                 \
	X(REDRAW, "redraw", "redraw the screen")                                                                  \
	X(SUSPEND, "suspend", "suspend asynctop (fg resumes)")                                                    \
	X(QUIT, "quit", "quit")

enum action {
	ACTION_NONE = 0,
#define ACTION_ENUM(id, name, help) ACTION_##id,
	ACTION_LIST(ACTION_ENUM)
#undef ACTION_ENUM
	    ACTION_COUNT
};

/* Key codes: a Unicode code point, or one of these (above U+10FFFF). */
enum key {
	KEY_CODE_BASE = 0x200000,
	KC_UP,
	KC_DOWN,
	KC_LEFT,
	KC_RIGHT,
	KC_PGUP,
	KC_PGDN,
	KC_HOME,
	KC_END,
	KC_F1,
	KC_F3,
	KC_F10,
	KC_ENTER,
	KC_BACKSPACE,
	KC_ESC,
	KC_RESIZE,
	KC_MOUSE,
};

/* Control-X as a key code. */
static inline int key_ctrl(char c)
{
	return c & 0x1f;
}

/* One binding: key, how the help spells it, and what it does. */
struct binding {
	int key;
	const char *label;
	enum action action;
};

/* The whole table, in help order; *n gets its length. */
const struct binding *keymap_bindings(size_t *n);

/* The action bound to key, or ACTION_NONE. */
enum action keymap_lookup(int key);

/* "weight-idle" etc.; "none" for ACTION_NONE, "?" out of range. */
const char *action_name(enum action a);
/* The help line of an action ("" for ACTION_NONE). */
const char *action_help(enum action a);

/* The keys of action a as the help shows them ("1, i"), into out; flags
 * (enum utf8_flags) UTF8_ASCII spells arrows as words ("Right, >"). */
enum status keymap_keys_text(enum action a, unsigned flags, struct buf *out);

/* The footer: pairs of (keys, short name), e.g. ("1-5", "Weight"), in the
 * order shown.  A narrow footer drops the highest rank first; rank 0 (Help
 * and Quit) is shown at every width.  live_only items are left out of a
 * finite source's footer (replay has nothing to go live to or pause). */
struct footer_item {
	const char *keys; /* UTF-8; glyph_text gives its ASCII form */
	const char *name;
	enum action action; /* one action it stands for (tests check binding) */
	unsigned rank;
	bool live_only;
};
const struct footer_item *keymap_footer(size_t *n);

/* Appends docs/keys.md (generated; the test checks the committed copy). */
enum status keymap_markdown(struct buf *out);

#endif
