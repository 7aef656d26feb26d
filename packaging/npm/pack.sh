#!/usr/bin/env bash
# Packs the npm packages of `host`: the platform package with the binary
# (@game-host/linux-x64) and game-host, which installs it and the tools
# JavaScript and TypeScript scripts are built and checked with. The
# tarballs go to OUTDIR, whose staging copies are made afresh.
#
#     packaging/npm/pack.sh target/release/host target/npm
#     npm install target/npm/game-host-linux-x64-0.1.0.tgz target/npm/game-host-0.1.0.tgz
#
# The packages' versions must be the binary's (`host --version`).
set -euo pipefail
if [ $# -ne 2 ]; then
    echo "usage: $0 HOST_BINARY OUTDIR" >&2
    exit 2
fi
here="$(cd "$(dirname "$0")" && pwd)"
binary="$1"
out="$2"
[ -x "$binary" ] || { echo "error: $binary is not an executable host binary" >&2; exit 1; }
version="$("$binary" --version | awk '{print $2}')"
for package in game-host linux-x64; do
    declared="$(node -p "require('$here/$package/package.json').version")"
    if [ "$declared" != "$version" ]; then
        echo "error: packaging/npm/$package/package.json says version $declared, the binary $version" >&2
        exit 1
    fi
done
mkdir -p "$out"
out="$(cd "$out" && pwd)"
rm -rf "$out/stage"
mkdir -p "$out/stage"
cp -r "$here/game-host" "$here/linux-x64" "$out/stage/"
mkdir -p "$out/stage/linux-x64/bin"
cp "$binary" "$out/stage/linux-x64/bin/host"
chmod 755 "$out/stage/linux-x64/bin/host" "$out/stage/game-host/bin/host.js"
for package in linux-x64 game-host; do
    (cd "$out/stage/$package" && npm pack --silent --pack-destination "$out" >/dev/null)
done
rm -rf "$out/stage"
echo "$out/game-host-linux-x64-$version.tgz"
echo "$out/game-host-$version.tgz"
