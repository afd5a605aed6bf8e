/* Private to the asyncio adapter: its launch hook (adapters/adapter.h) for
 * `asynctop -- COMMAND`: the agent injected through PYTHONPATH and a
 * chaining sitecustomize, met at a rendezvous file (docs/launch.md). */
#ifndef ASYNCTOP_ADAPTERS_ASYNCIO_LAUNCH_H
#define ASYNCTOP_ADAPTERS_ASYNCIO_LAUNCH_H

#include <stddef.h>

#include "adapters/adapter.h"
#include "model/base.h"
#include "model/status.h"

/* The directory holding asynctop_agent/ and launch/sitecustomize.py:
 * $ASYNCTOP_AGENT_PATH; else adapters/asyncio of the build tree the running
 * binary sits in (up to three levels above it); else
 * ASYNCTOP_PREFIX/share/asynctop/python.  STATUS_UNREACHABLE when none has
 * the agent (err says where it looked).  Reads the file system only. */
enum status asyncio_agent_dir(char *dst, size_t size, char *err,
                              size_t errsz) MUST_CHECK;

/* launch_prepare: PYTHONPATH (the launcher's sitecustomize, the agent, then
 * the program's own PYTHONPATH), ASYNCTOP_RENDEZVOUS (plan->dir/announce)
 * and ASYNCTOP_SOCKET_DIR (plan->dir, where the agents' sockets go, when
 * a socket's path there fits sun_path);
 * STATUS_INVAL when the agent cannot be found. */
enum status asyncio_launch_prepare(const struct adapter_ops *ops,
                                   struct launch_plan *plan,
                                   struct adapter_error *err) MUST_CHECK;

/* launch_ready: the first pid in the rendezvous file, as plan->endpoint;
 * STATUS_AGAIN until a process of the program created its first task. */
enum status asyncio_launch_ready(const struct adapter_ops *ops,
                                 struct launch_plan *plan,
                                 struct adapter_error *err) MUST_CHECK;

/* launch_others: the pids announced after the first. */
size_t asyncio_launch_others(const struct adapter_ops *ops,
                             const struct launch_plan *plan, long *pids,
                             size_t max);

#endif
