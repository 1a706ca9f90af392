#!/bin/sh
# Install the npm packages the tests use (the speedscope viewer for the
# call timeline test) into a build-local folder, only those missing or at
# another version, so that a build with them in place needs no network.
# Usage: deps-npm.sh DIR NAME@VERSION...
set -e
dir=$1
shift
missing=""
for spec in "$@"; do
	name=${spec%@*}
	want=${spec##*@}
	have=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$dir/node_modules/$name/package.json" 2>/dev/null | head -1)
	[ "$have" = "$want" ] || missing="$missing $spec"
done
[ -z "$missing" ] && exit 0
if ! command -v npm >/dev/null; then
	echo "itrace: npm is missing; run 'make deps' as root" >&2
	exit 1
fi
echo "itrace: installing npm packages into $dir:$missing" >&2
mkdir -p "$dir"
npm install --prefix "$dir" --no-audit --no-fund --loglevel=error $missing >/dev/null
