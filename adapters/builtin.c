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

/* What works, one line each: told to an operator who named no source, or
 * whose default source (tokio) did not answer.  The tokio line is last so
 * that a registry without tokio can stop before it. */
static const char *const hints[] = {
	"PROG -- python3 app.py         start an asyncio program and read its tasks",
	"PROG -a asyncio [-e PID]       attach to a Python program running the asynctop agent",
	"PROG -a replay -e FILE|DIR     read saved profiles",
	"PROG -a tokio -- ./server      start a tokio program with console-subscriber and read it",
	"PROG [-e HOST:PORT]            attach to a tokio program's console-subscriber (default 127.0.0.1:6669)",
	NULL,
};

#define STOCK_N (sizeof(stock) / sizeof(stock[0]))

/* With tokio linked it is the default source to attach to, as it is for
 * tokio-console. */
static const struct adapter_registry registry = {
	.ops = stock,
	.n = STOCK_N,
	.launch_default = &asyncio_ops,
	.attach_default = &tokio_ops,
	.hints = hints,
};

/* libasynctop.a, without gRPC: no tokio, so nothing to attach to by default
 * and no tokio hints. */
static const char *const hints_without_tokio[] = {
	"PROG -- python3 app.py         start an asyncio program and read its tasks",
	"PROG -a asyncio [-e PID]       attach to a Python program running the asynctop agent",
	"PROG -a replay -e FILE|DIR     read saved profiles",
	NULL,
};

static const struct adapter_registry without_tokio = {
	.ops = stock,
	.n = STOCK_N - 1,
	.launch_default = &asyncio_ops,
	.attach_default = NULL,
	.hints = hints_without_tokio,
};

const struct adapter_registry *builtin_registry(void)
{
	return stock[STOCK_N - 1] ? &registry : &without_tokio;
}
