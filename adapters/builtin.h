/* The stock adapters of the asynctop binary: replay now; asyncio and tokio
 * when they arrive.  No `custom` adapter (decisions §6). */
#ifndef ASYNCTOP_ADAPTERS_BUILTIN_H
#define ASYNCTOP_ADAPTERS_BUILTIN_H

#include "adapters/adapter.h"

/* The stock registry, sorted by name: immutable, static, never freed. */
const struct adapter_registry *builtin_registry(void);

#endif
