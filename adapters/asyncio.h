/* The asyncio adapter: reads the opt-in Python agent (adapters/asyncio/)
 * over its Unix socket, protocol docs/asyncio-protocol.md, and makes
 * windows from its cumulative figures with shared boundaries. */
#ifndef ASYNCTOP_ADAPTERS_ASYNCIO_H
#define ASYNCTOP_ADAPTERS_ASYNCIO_H

#include "adapters/adapter.h"

/* The protocol version this reader speaks, and its frame limits. */
#define ASYNCIO_PROTO_VERSION 4
#define ASYNCIO_HEADER_SIZE   16
#define ASYNCIO_MAX_PAYLOAD   ((uint32_t)1 << 20)

/* Frame types (docs/asyncio-protocol.md §2). */
enum asyncio_frame {
	ASYNCIO_HELLO = 0x0001,
	ASYNCIO_READ = 0x0002,
	ASYNCIO_BYE = 0x0003,
	ASYNCIO_HELLO_OK = 0x0081,
	ASYNCIO_STRINGS = 0x0082,
	ASYNCIO_STACKS = 0x0083,
	ASYNCIO_TASKS = 0x0084,
	ASYNCIO_AGGS = 0x0085,
	ASYNCIO_END = 0x0086,
	ASYNCIO_RETIRE = 0x0087,
	ASYNCIO_ERROR = 0x00ff,
};

/* The stock `asyncio` adapter.  Endpoint (-e): a pid (digits) or a socket
 * path; with none, open() picks the only live agent of this user (and
 * names it by pid in a->endpoints[0]), fails with STATUS_UNREACHABLE when
 * there is none, and with STATUS_INVAL when there are several: the detail
 * says so and the remediation is the list (pid, age, command).  open()
 * reads /proc and the socket directories but never blocks on the agent;
 * collect keeps one connection across windows (connect and reply
 * timeouts from adapter_config). */
extern const struct adapter_ops asyncio_ops;

#endif
