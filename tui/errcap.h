/* Standard error while the screen is up: a library or a thread writing to
 * fd 2 would scribble over curses, so fd 2 becomes a pipe the main loop
 * drains; its last line goes to the status line and its tail is written to
 * the real stderr once the terminal is restored. */
#ifndef ASYNCTOP_TUI_ERRCAP_H
#define ASYNCTOP_TUI_ERRCAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/base.h"
#include "model/status.h"

#define ERRCAP_TAIL 8192 /* bytes kept for the real stderr */

struct errcap {
	int rfd;   /* the pipe's read end (non-blocking); -1: not capturing */
	int saved; /* the real stderr */
	char tail[ERRCAP_TAIL];
	size_t len;       /* bytes in tail */
	uint64_t dropped; /* older bytes that left tail */
	char line[256];   /* the line being read */
	size_t line_len;
	char last[256]; /* the last complete non-empty line */
	bool fresh;     /* last changed since errcap_last */
};

/* Marks c as not capturing (so errcap_stop is always safe). */
void errcap_init(struct errcap *c);

/* Points fd 2 at a pipe; when only_tty, only if fd 2 is a terminal (else
 * it returns STATUS_OK without capturing).  STATUS_IO when the pipe or dup
 * fails (fd 2 is then untouched).  Does not block. */
enum status errcap_start(struct errcap *c, bool only_tty) MUST_CHECK;

/* The descriptor to poll for POLLIN, or -1. */
int errcap_fd(const struct errcap *c);

/* Reads what is waiting, without blocking. */
void errcap_drain(struct errcap *c);

/* The last complete non-empty line, control bytes and all (the renderer
 * sanitises), when it changed since the previous call; else NULL. */
const char *errcap_last(struct errcap *c);

/* Puts the real stderr back, drains the pipe, and writes the kept tail to
 * it (after a note of how much was cut); no-op when not capturing. */
void errcap_stop(struct errcap *c);

#endif
