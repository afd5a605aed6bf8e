/* The replay adapter (docs/design.md §6): saved profiles, one window per file,
 * in the order of the profiles' start times, delivered at once. */
#ifndef ASYNCTOP_ADAPTERS_REPLAY_H
#define ASYNCTOP_ADAPTERS_REPLAY_H

#include "adapters/adapter.h"

/* name "replay"; ADAPTER_MULTI_ENDPOINT | ADAPTER_FINITE; no default
 * endpoint.  Each endpoint is a file (any name) or a directory (its
 * regular *.pb.gz and *.pb files, not recursive).  adapter_config.loader
 * must be set (STATUS_INVAL at open otherwise); it reads every file, with
 * cfg.load_limits.  With several files, the first collect loads each once
 * to learn its time_nanos and sorts them by it (ties by path), then every
 * collect loads one file again and returns it as a window whose meta is
 * the file's, source "replay PATH".  A missing path, an empty directory or
 * a bad file is one failed window (collect_fail with the loader's status
 * and "PATH: reason") and the files after it still load; after the last,
 * STATUS_EOF.  Blocks on file I/O, never waits. */
extern const struct adapter_ops replay_ops;

#endif
