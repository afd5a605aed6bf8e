"""The protocol's frames and records as the agent writes them (docs/asyncio-protocol.md,
version 4): header, message types, error codes and the fixed-size structures."""

import struct

VERSION = 4
MAGIC = b"ATOP"
HDR = struct.Struct("<4sHHII")
T_HELLO, T_READ, T_BYE = 1, 2, 3
T_HELLO_OK, T_STRINGS, T_STACKS, T_TASKS, T_AGGS, T_END, T_ERROR = 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0xFF
T_RETIRE = 0x87
E_PEER, E_BUSY, E_MALFORMED, E_VERSION, E_DISABLED = 1, 2, 3, 4, 5
REQ_LEN = {T_HELLO: 8, T_READ: 0, T_BYE: 0}
MAX_REQ = 64
MAX_PAYLOAD = 1 << 20
TASK = struct.Struct("<QQIIIIBBHIQQQQQQQQQQQ")
AGG = struct.Struct("<IIQQQQQQQ")
END = struct.Struct("<QQQQQIIQQ")
HELLO_FIX = struct.Struct("<IIQQQQIIIIHHHH")
U32 = struct.Struct("<I")
U32x2 = struct.Struct("<II")
U32x4 = struct.Struct("<IIII")
AGENT_VERSION = "asynctop_agent 4"
F_MORE = 16  # END flag: a slice, the backlog goes on in the next reply (protocol §4.5)
F_NO_WAKER = 8  # task flag: parked on a future nothing else references (protocol §4.3)

assert TASK.size == 128 and AGG.size == 64 and END.size == 64 and HELLO_FIX.size == 64
