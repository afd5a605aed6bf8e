/* A bounded set of path hashes: the tree's frames expanded (or expanded
 * with everything below them), kept by path across windows.  Paths added
 * in a batch are settled into the sorted set at once, so a batch costs
 * one merge, not one move of the set per path. */
#ifndef ASYNCTOP_TUI_TREE_PATHS_H
#define ASYNCTOP_TUI_TREE_PATHS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tree_paths {
	uint64_t *v;   /* v[0 .. sorted) ascending, then those added since */
	uint64_t *tmp; /* scratch of the merge, as large as v */
	size_t n, sorted, cap, tmp_cap;
	size_t max; /* the most kept; tree_paths_init sets it */
};

void tree_paths_init(struct tree_paths *s, size_t max);
void tree_paths_fini(struct tree_paths *s);
/* Forgets every path (the arrays stay). */
void tree_paths_clear(struct tree_paths *s);

/* Whether path is in s, added since the last settle or not. */
bool tree_paths_has(const struct tree_paths *s, uint64_t path);

/* Adds path when it is not in s yet, to be settled; false when s is full
 * or out of memory (the caller then keeps it for this window only). */
bool tree_paths_add(struct tree_paths *s, uint64_t path);

/* Sorts the paths added since the last settle into s and drops their
 * duplicates.  Never fails (add made the room). */
void tree_paths_settle(struct tree_paths *s);

/* Forgets path (settled first). */
void tree_paths_forget(struct tree_paths *s, uint64_t path);

#endif
