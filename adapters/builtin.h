/* The stock adapters of the asynctop binary: asyncio, replay and tokio (tokio
 * only where its objects are linked: the binary, not libasynctop.a).  No
 * `custom` adapter (docs/adapters.md). */
#ifndef ASYNCTOP_ADAPTERS_BUILTIN_H
#define ASYNCTOP_ADAPTERS_BUILTIN_H

#include "adapters/adapter.h"

/* The stock registry, sorted by name: immutable, static, never freed. */
const struct adapter_registry *builtin_registry(void);

#endif
