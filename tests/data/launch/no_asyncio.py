"""Runs without asyncio until killed: the launcher times out waiting for its announcement."""
import sys
import time

print("no_asyncio running", flush=True)
while True:
    time.sleep(3600)
