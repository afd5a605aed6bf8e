#!/bin/sh
# A console-script wrapper: a helper interpreter runs first (it must never be the one attached),
# then the real program starts through an entry point, as pip's generated scripts do.
python3 -c 'import sys; sys.exit(0)' || exit 1
here=$(dirname "$0")
exec python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); from entry import main; sys.exit(main())' "$here"
