/* The stock adapters of the asynctop binary: asyncio and replay; tokio when
 * it arrives.  No `custom` adapter (docs/design.md §7). */
#ifndef ASYNCTOP_ADAPTERS_BUILTIN_H
#define ASYNCTOP_ADAPTERS_BUILTIN_H

#include "adapters/adapter.h"

/* The stock registry, sorted by name: immutable, static, never freed. */
const struct adapter_registry *builtin_registry(void);

#endif
