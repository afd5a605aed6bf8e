/* Checked allocation with a test hook that fails the Nth allocation.
 *
 * Two policies (docs/style.md): data-driven growth goes through mem_* and
 * degrades with STATUS_NOMEM; fixed-size start-up allocations may use
 * xmalloc-style wrappers that die.  Every allocation in model/ and encode/
 * goes through here, zlib and protobuf-c included, so allocation-failure
 * runs reach all. */
#ifndef ASYNCTOP_MODEL_ALLOC_H
#define ASYNCTOP_MODEL_ALLOC_H

#include <stddef.h>

#include "model/base.h"
#include "model/status.h"

/* Like malloc, calloc and realloc; NULL on failure (or injected failure).
 * mem_alloc(0) returns a unique pointer, never NULL on success. */
void *mem_alloc(size_t size) MUST_CHECK;
void *mem_calloc(size_t n, size_t size) MUST_CHECK;
void *mem_realloc(void *p, size_t size) MUST_CHECK;

/* realloc of n * size bytes; NULL (and p untouched) on overflow or failure. */
void *mem_realloc_array(void *p, size_t n, size_t size) MUST_CHECK;

/* A NUL-terminated copy of len bytes of s (which need not be terminated). */
char *mem_strndup(const char *s, size_t len) MUST_CHECK;

void mem_free(void *p);

/* Grows *arr (of element size elem) so that it holds at least need elements,
 * doubling from a minimum of 8; *cap is updated.  STATUS_NOMEM leaves *arr and
 * *cap as they were. */
enum status mem_grow(void *arr, size_t *cap, size_t need,
                     size_t elem) MUST_CHECK;

/* mem_grow for an array whose contents are all written again after it:
 * a larger one is allocated anew and the old freed, never copied (a
 * realloc of tens of MB copies them, milliseconds of a step).  The
 * contents are unspecified after a growth; STATUS_NOMEM leaves *arr and
 * *cap as they were. */
enum status mem_fresh(void *arr, size_t *cap, size_t need,
                      size_t elem) MUST_CHECK;

/* Test hook, process-wide and thread-safe: make the nth allocation from now
 * fail (1 = the next one); 0 turns injection off.  Counting goes on either
 * way: mem_count() is the number of allocations since mem_count_reset(). */
void mem_fail_at(unsigned long nth);
unsigned long mem_count(void);
void mem_count_reset(void);

#endif
