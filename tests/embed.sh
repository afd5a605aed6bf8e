#!/bin/sh
# Builds docs/examples/embed.c as an embedder would, with pkg-config and the
# asynctop.pc of the build tree (pointed at the tree instead of PREFIX), and
# once more against the frozen ABI 1 header; runs both, and leaves their
# output in WORK.  Usage: embed.sh BUILD SRC WORK
set -eu
build=$1
src=$2
work=$3
# The compiler and sanitizer flags the library was built with.
flags=$(cat "$build/.flags")
cc=${flags%% *}
san=$(printf '%s\n' $flags | grep -e '^-fsanitize=' -e '^-fno-sanitize' | tr '\n' ' ' || true)
pc() {
	PKG_CONFIG_PATH=$build pkg-config --define-variable=libdir="$build" \
		--define-variable=includedir="$src/adapters" "$@" asynctop
}
# shellcheck disable=SC2046,SC2086
$cc -std=c11 -Wall -Wextra -Werror $san -o "$work/embed" \
	"$src/docs/examples/embed.c" $(pc --cflags) $(pc --libs)
# The same example as an embedder built for ABI 1 would compile it: the
# frozen version-1 header first on the include path, today's library.
# shellcheck disable=SC2046,SC2086
$cc -std=c11 -Wall -Wextra -Werror $san -o "$work/embed_v1" \
	-I"$src/tests/data/abi1" "$src/docs/examples/embed.c" $(pc --cflags) $(pc --libs)
cd "$work"
./embed adapters >adapters.txt
./embed record -a toyexec -w 0.2 -n 2 -o out.pb.gz
./embed_v1 record -a toyexec -w 0.2 -n 2 -o v1.pb.gz
