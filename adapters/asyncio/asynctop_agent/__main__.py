"""Run a program with the agent started first, the way cProfile does:

    python3 -m asynctop_agent app.py ARGS...
    python3 -m asynctop_agent -m pkg ARGS...
"""

import os
import runpy
import sys

import asynctop_agent

USAGE = "usage: python3 -m asynctop_agent (SCRIPT | -m MODULE) [ARGS...]\n"


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        sys.stderr.write(USAGE)
        return 2 if len(argv) < 2 else 0
    if argv[1] == "-m":
        if len(argv) < 3:
            sys.stderr.write(USAGE)
            return 2
        module = argv[2]
        sys.argv = argv[2:]
        sys.path.insert(0, os.getcwd())
        asynctop_agent.start()
        runpy.run_module(module, run_name="__main__", alter_sys=True)
        return 0
    script = argv[1]
    if not os.path.exists(script):
        sys.stderr.write("asynctop_agent: cannot open %s: no such file\n" % script)
        return 2
    sys.argv = argv[1:]
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    asynctop_agent.start()
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
