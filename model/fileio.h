/* Reading a small file whole, or the end of one, into a caller's buffer:
 * /proc entries, an announcement file, the tail of a program's log. */
#ifndef ASYNCTOP_MODEL_FILEIO_H
#define ASYNCTOP_MODEL_FILEIO_H

#include <stddef.h>
#include <sys/types.h>

/* Reads the first size - 1 bytes (at most) of path into dst, always
 * NUL-terminated when size > 0; retries on EINTR and stops at end of file.
 * The number of bytes read, or -1 (errno set) when path cannot be opened.
 * Blocks on the read; meant for regular files and /proc. */
ssize_t file_read_head(const char *path, char *dst, size_t size);

/* The same for the last size - 1 bytes (at most) of path: the tail of a
 * log, whatever its length. */
ssize_t file_read_tail(const char *path, char *dst, size_t size);

#endif
