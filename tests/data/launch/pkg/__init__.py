"""A package run with `python3 -m pkg` by the launcher tests."""
