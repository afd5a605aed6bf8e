/* The key table: dispatch, help, footer and docs/keys.md all read it. */
#include "tui/keymap.h"

#include <string.h>

#include "model/base.h"
#include "tui/glyph.h"

static const struct binding bindings[] = {
	{ '1', "1", ACTION_WEIGHT_IDLE },
	{ 'i', "i", ACTION_WEIGHT_IDLE },
	{ '2', "2", ACTION_WEIGHT_BUSY },
	{ 'b', "b", ACTION_WEIGHT_BUSY },
	{ '3', "3", ACTION_WEIGHT_SCHED },
	{ 's', "s", ACTION_WEIGHT_SCHED },
	{ '4', "4", ACTION_WEIGHT_POLLS },
	{ 'p', "p", ACTION_WEIGHT_POLLS },
	{ '5', "5", ACTION_WEIGHT_WAKES },
	{ 'w', "w", ACTION_WEIGHT_WAKES },
	{ KC_RIGHT, "→", ACTION_WEIGHT_NEXT },
	{ '>', ">", ACTION_WEIGHT_NEXT },
	{ KC_LEFT, "←", ACTION_WEIGHT_PREV },
	{ '<', "<", ACTION_WEIGHT_PREV },
	{ 'I', "I", ACTION_INVERT },
	{ KC_UP, "↑", ACTION_UP },
	{ 'k', "k", ACTION_UP },
	{ KC_DOWN, "↓", ACTION_DOWN },
	{ 'j', "j", ACTION_DOWN },
	{ KC_PGUP, "PgUp", ACTION_PAGE_UP },
	{ 0x02, "Ctrl-B", ACTION_PAGE_UP },
	{ KC_PGDN, "PgDn", ACTION_PAGE_DOWN },
	{ 0x06, "Ctrl-F", ACTION_PAGE_DOWN },
	{ KC_HOME, "Home", ACTION_TOP },
	{ 'g', "g", ACTION_TOP },
	{ KC_END, "End", ACTION_BOTTOM },
	{ 'G', "G", ACTION_BOTTOM },
	{ '[', "[", ACTION_HIST_BACK },
	{ ']', "]", ACTION_HIST_FWD },
	{ 'L', "L", ACTION_LIVE },
	{ ' ', "Space", ACTION_PAUSE },
	{ 'o', "o", ACTION_PROGRESS },
	{ 'S', "S", ACTION_SAVE_PPROF },
	{ 'C', "C", ACTION_SAVE_COLLAPSED },
	{ '/', "/", ACTION_FILTER },
	{ KC_F3, "F3", ACTION_FILTER },
	{ KC_ENTER, "Enter", ACTION_DETAIL },
	{ 'd', "d", ACTION_DETAIL },
	{ '=', "=", ACTION_COMPARE },
	{ 'm', "m", ACTION_MARK },
	{ 't', "t", ACTION_TREE },
	{ '+', "+", ACTION_TREE_EXPAND },
	{ '-', "-", ACTION_TREE_COLLAPSE },
	{ '*', "*", ACTION_TREE_EXPAND_ALL },
	{ 'f', "f", ACTION_FLAME },
	{ 'a', "a", ACTION_GROUP_PARKED },
	{ 'n', "n", ACTION_GROUP_NAME },
	{ 'W', "W", ACTION_WARNINGS },
	{ '?', "?", ACTION_HELP },
	{ KC_F1, "F1", ACTION_HELP },
	{ 0x0c, "Ctrl-L", ACTION_REDRAW },
	{ 0x1a, "Ctrl-Z", ACTION_SUSPEND },
	{ 'q', "q", ACTION_QUIT },
	{ KC_F10, "F10", ACTION_QUIT },
	{ 0x03, "Ctrl-C", ACTION_QUIT },
};

/* One name per idea, the help's: "Filter" as the filter action, and
 * "Collapsed" as the collapsed-stacks save. */
static const struct footer_item footer[] = {
	{ .keys = "?", .name = "Help", .action = ACTION_HELP, .rank = 0 },
	{ .keys = "1-5",
	  .name = "Weight",
	  .action = ACTION_WEIGHT_IDLE,
	  .rank = 1 },
	{ .keys = "\xE2\x86\x90\xE2\x86\x92",
	  .name = "Cycle",
	  .action = ACTION_WEIGHT_NEXT,
	  .rank = 8 },
	{ .keys = "[ ]",
	  .name = "History",
	  .action = ACTION_HIST_BACK,
	  .rank = 3 },
	{ .keys = "L",
	  .name = "Live",
	  .action = ACTION_LIVE,
	  .rank = 7,
	  .live_only = true },
	{ .keys = "Space",
	  .name = "Pause",
	  .action = ACTION_PAUSE,
	  .rank = 5,
	  .live_only = true },
	{ .keys = "S", .name = "Save", .action = ACTION_SAVE_PPROF, .rank = 4 },
	{ .keys = "C",
	  .name = "Collapsed",
	  .action = ACTION_SAVE_COLLAPSED,
	  .rank = 6 },
	{ .keys = "/", .name = "Filter", .action = ACTION_FILTER, .rank = 2 },
	{ .keys = "q", .name = "Quit", .action = ACTION_QUIT, .rank = 0 },
};

static const char *const names[] = { [ACTION_NONE] = "none",
#define ACTION_NAME(id, name, help) [ACTION_##id] = name,
	                             ACTION_LIST(ACTION_NAME)
#undef ACTION_NAME
};

static const char *const helps[] = { [ACTION_NONE] = "",
#define ACTION_HELP_TEXT(id, name, help) [ACTION_##id] = help,
	                             ACTION_LIST(ACTION_HELP_TEXT)
#undef ACTION_HELP_TEXT
};

const struct binding *keymap_bindings(size_t *n)
{
	*n = ARRAY_SIZE(bindings);
	return bindings;
}

const struct footer_item *keymap_footer(size_t *n)
{
	*n = ARRAY_SIZE(footer);
	return footer;
}

enum action keymap_lookup(int key)
{
	for (size_t i = 0; i < ARRAY_SIZE(bindings); i++)
		if (bindings[i].key == key)
			return bindings[i].action;
	return ACTION_NONE;
}

const char *action_name(enum action a)
{
	return (size_t)a < ARRAY_SIZE(names) ? names[a] : "?";
}

const char *action_help(enum action a)
{
	return (size_t)a < ARRAY_SIZE(helps) ? helps[a] : "";
}

enum status keymap_keys_text(enum action a, unsigned flags, struct buf *out)
{
	bool first = true;

	for (size_t i = 0; i < ARRAY_SIZE(bindings); i++) {
		if (bindings[i].action != a)
			continue;
		if (!first)
			buf_adds(out, ", ");
		buf_adds(out, glyph_text(bindings[i].label, flags));
		first = false;
	}
	return buf_status(out);
}

enum status keymap_markdown(struct buf *out)
{
	buf_adds(out, "# Keys of the live viewer\n\n"
	              "Generated from `tui/keymap.c` (the table that also "
	              "drives dispatch and the `?` help screen); "
	              "`tests/test_keymap.c` checks that this copy is "
	              "fresh.\n"
	              "Regenerate with `ASYNCTOP_UPDATE_GOLDEN=1 "
	              "CK_RUN_SUITE=keymap build/tests/check_asynctop`.\n\n"
	              "| keys | action | what it does |\n"
	              "| --- | --- | --- |\n");
	for (int a = ACTION_NONE + 1; a < ACTION_COUNT; a++) {
		buf_adds(out, "| ");
		for (size_t i = 0, k = 0; i < ARRAY_SIZE(bindings); i++) {
			if (bindings[i].action != (enum action)a)
				continue;
			buf_adds(out, k++ ? ", `" : "`");
			buf_adds(out, bindings[i].label[0] == '`'
			                  ? "\\`"
			                  : bindings[i].label);
			buf_adds(out, "`");
		}
		buf_printf(out, " | %s | %s |\n", names[a], helps[a]);
	}
	buf_adds(out,
	         "\nWhile the filter prompt is open, typed characters edit "
	         "the filter, Backspace deletes, Enter keeps the filter and "
	         "Esc clears it.\n"
	         "Mouse: a click on a column title sets the weighting, a click "
	         "on a row selects it, the wheel scrolls.\n");
	return buf_status(out);
}
