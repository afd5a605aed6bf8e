"""Reports what the launcher's sitecustomize left behind, then runs asyncio: which sitecustomize
module is loaded (the one ours hid), whether the agent runs, and that our directory left sys.path."""
import asyncio
import os
import sys

import asynctop_agent

sc = sys.modules.get("sitecustomize")
print("chain: sitecustomize=%s" % getattr(sc, "__file__", None), flush=True)
print("chain: agent enabled=%s" % asynctop_agent.is_enabled(), flush=True)
ours = [p for p in sys.path
        if os.path.isfile(os.path.join(p or ".", "sitecustomize.py"))
        and os.path.isdir(os.path.join(p or ".", os.pardir, "asynctop_agent"))]
print("chain: launch on path=%s" % bool(ours), flush=True)


async def main():
    await asyncio.sleep(3600)


asyncio.run(main())
