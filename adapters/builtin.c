/* The stock registry: the adapters the asynctop binary offers. */
#include "adapters/builtin.h"

#include "adapters/asyncio.h"
#include "adapters/replay.h"
#include "adapters/tokio.h"

/* Weak: the tokio adapter (gRPC) is linked into the stock binary only. */
extern const struct adapter_ops tokio_ops __attribute__((weak));

static const struct adapter_ops *const stock[] = {
	&asyncio_ops,
	&replay_ops,
	/* last: when it is not linked, builtin_registry cuts it off */
	&tokio_ops,
};

static const struct adapter_registry registry = {
	.ops = stock,
	.n = sizeof(stock) / sizeof(stock[0]),
};

static const struct adapter_registry without_tokio = {
	.ops = stock,
	.n = sizeof(stock) / sizeof(stock[0]) - 1,
};

const struct adapter_registry *builtin_registry(void)
{
	return stock[registry.n - 1] ? &registry : &without_tokio;
}
