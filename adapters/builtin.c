/* The stock registry: the adapters the asynctop binary offers, the one a
 * `-- COMMAND` defaults to, and what to tell an operator who named no
 * source. */
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

/* What works when nothing was given to attach to, one line each. */
static const char *const hints[] = {
	"PROG -- python3 app.py         start an asyncio program and read its tasks",
	"PROG -a asyncio [-e PID]       attach to a Python program running the asynctop agent",
	"PROG -a replay -e FILE|DIR     read saved profiles",
	/* the tokio adapter's line goes here, with attach_default */
	NULL,
};

static const struct adapter_registry registry = {
	.ops = stock,
	.n = sizeof(stock) / sizeof(stock[0]),
	.launch_default = &asyncio_ops,
	.attach_default = NULL,
	.hints = hints,
};

static const struct adapter_registry without_tokio = {
	.ops = stock,
	.n = sizeof(stock) / sizeof(stock[0]) - 1,
};

const struct adapter_registry *builtin_registry(void)
{
	return stock[registry.n - 1] ? &registry : &without_tokio;
}
