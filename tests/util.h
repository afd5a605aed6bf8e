/* Helpers shared by the test suites: temporary directories, files, the
 * allocation-failure ("torture") loop, and skipping with a reason. */
#ifndef ASYNCTOP_TESTS_UTIL_H
#define ASYNCTOP_TESTS_UTIL_H

#include <stddef.h>

#include "model/buf.h"
#include "model/status.h"

/* A fresh private directory under $TMPDIR (or /tmp); the path is written
 * into dir.  Aborts the test on failure. */
void tu_mkdtemp(char *dir, size_t size);
/* Removes dir and everything in it (one level of files). */
void tu_rmtree(const char *dir);

/* Reads a whole file into b (which must be initialised); status of I/O. */
enum status tu_read_file(const char *path, struct buf *b);
enum status tu_write_file(const char *path, const void *data, size_t len);

/* Path of a fixture under tests/data ($ASYNCTOP_TESTDATA). */
void tu_data_path(char *dst, size_t size, const char *name);

/* Runs fn(ctx) once to count its allocations, then once per allocation with
 * that one failing.  Every run must return STATUS_OK or STATUS_NOMEM, and
 * at least one failing run STATUS_NOMEM; fn must free everything it made
 * whatever happens (LeakSanitizer and valgrind check).  Returns the number
 * of allocations counted in the clean run. */
typedef enum status (*tu_torture_fn)(void *ctx);
unsigned long tu_torture(tu_torture_fn fn, void *ctx);

/* Prints "SKIP <test>: <why>" once to stderr, so a skip is never silent. */
void tu_skip(const char *test, const char *why);

#endif
