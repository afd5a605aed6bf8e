"""Exits before it ever creates an asyncio task: the launcher must say so, with its output."""
import sys

print("configuration error: no such database (early_exit.py)", file=sys.stderr)
sys.exit(7)
