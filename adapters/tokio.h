/* The tokio adapter: reads a console-subscriber's console-api feed
 * (gRPC WatchUpdates) and makes windows from its cumulative task
 * statistics, with Update.now as the clock.  docs/tokio.md. */
#ifndef ASYNCTOP_ADAPTERS_TOKIO_H
#define ASYNCTOP_ADAPTERS_TOKIO_H

#include "adapters/adapter.h"

/* The stock `tokio` adapter (alias `kernal-api-async`).  Endpoint (-e):
 * `host:port`, `http://host:port`, `unix:/path` or
 * `file://localhost/path`; default `http://127.0.0.1:6669`.  open() only
 * parses; collect keeps one stream across windows.  It is linked into the
 * stock binary, never into libasynctop.a, so an embedder's link line needs
 * no gRPC. */
extern const struct adapter_ops tokio_ops;

#endif
