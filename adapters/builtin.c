/* The stock registry: the adapters the asynctop binary offers. */
#include "adapters/builtin.h"

#include "adapters/asyncio.h"
#include "adapters/replay.h"

static const struct adapter_ops *const stock[] = {
	&asyncio_ops,
	&replay_ops,
};

static const struct adapter_registry registry = {
	.ops = stock,
	.n = sizeof(stock) / sizeof(stock[0]),
};

const struct adapter_registry *builtin_registry(void)
{
	return &registry;
}
