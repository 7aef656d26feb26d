#!/usr/bin/env bash
# Installs what the tests need, then runs them (README: "Run the tests").
#
# On Debian/Ubuntu with rustup, nothing else is needed first:
# - the pinned toolchain of rust-toolchain.toml (Rust with its wasm32-wasip2
#   target), installed explicitly: with RUSTUP_AUTO_INSTALL=0 nothing
#   installs it on first use;
# - Debian packages: software Vulkan (lavapipe) for offscreen rendering, an
#   X server and a key sender for the window test, Prometheus for the server
#   test that has it scrape the host, chromium and chromedriver for the view
#   page's browser test, slowhttptest for the control surface under a
#   flood, gdb for the debugger test, Redis for the fleet's tests (each
#   starts its own on loopback), protoc for Agones' SDK (and the test's SDK
#   server, with OpenSSL's headers), Node.js for JavaScript scripts (apt-get,
#   through sudo unless run as root; skipped when they are installed);
# - componentize-py and componentize-js at the versions the project is tested
#   with, maturin (which builds the wheel of `host`), and the editor-type
#   tools (jco, which writes JavaScript declarations; pyright and
#   TypeScript, which check scripts), into target/test-tools unless those
#   versions are on PATH already.
#
# Then `cargo test --release`, with any arguments given here passed on;
# with none, with the CLI's fleet, agones, tls and packaging features on
# (off by default), whose tests run in the same build.
set -euo pipefail
cd "$(dirname "$0")"

PY_VERSION=0.25.1
# maturin builds the wheel `pip install game-host` installs (packaging/python).
MATURIN_VERSION=1.16.0
JS_VERSION=0.23.0
# jco 1.35.0 reads no WIT path (its filesystem shim opens nothing): 1.34.0.
JCO_VERSION=1.34.0
TS_VERSION=7.0.2
PYRIGHT_VERSION=1.1.414
tools="$PWD/target/test-tools"

step() { echo "== $*" >&2; }

step "Rust toolchain (rust-toolchain.toml)"
rustup toolchain install --no-self-update

packages="mesa-vulkan-drivers libvulkan1 xvfb xauth xdotool prometheus chromium chromium-driver slowhttptest gdb redis-server protobuf-compiler libssl-dev pkg-config"
command -v node >/dev/null || packages="$packages nodejs npm"
command -v python3 >/dev/null || packages="$packages python3"
python3 -m venv --help >/dev/null 2>&1 || packages="$packages python3-venv"
# shellcheck disable=SC2086
if ! dpkg -s $packages >/dev/null 2>&1; then
    step "Debian packages: $packages"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $packages
fi

export PATH="$tools/py/bin:$tools/js/node_modules/.bin:$PATH"
if ! componentize-py --version 2>/dev/null | grep -qx "componentize-py $PY_VERSION" \
    || [ "$(maturin --version 2>/dev/null)" != "maturin $MATURIN_VERSION" ]; then
    step "componentize-py $PY_VERSION, maturin $MATURIN_VERSION (into target/test-tools/py)"
    python3 -m venv "$tools/py"
    "$tools/py/bin/pip" install --quiet --disable-pip-version-check \
        "componentize-py==$PY_VERSION" "maturin==$MATURIN_VERSION"
fi
if [ "$(componentize-js --version 2>/dev/null)" != "$JS_VERSION" ] \
    || [ "$(jco --version 2>/dev/null)" != "$JCO_VERSION" ] \
    || [ "$(tsc --version 2>/dev/null)" != "Version $TS_VERSION" ] \
    || [ "$(pyright --version 2>/dev/null)" != "pyright $PYRIGHT_VERSION" ]; then
    step "componentize-js $JS_VERSION, jco $JCO_VERSION, TypeScript $TS_VERSION, pyright $PYRIGHT_VERSION (into target/test-tools/js)"
    mkdir -p "$tools/js"
    npm install --prefix "$tools/js" --no-fund --no-audit --loglevel=error --save-exact \
        "@bytecodealliance/componentize-js@$JS_VERSION" "@bytecodealliance/jco@$JCO_VERSION" \
        "typescript@$TS_VERSION" "pyright@$PYRIGHT_VERSION"
fi
echo "$(componentize-py --version), $(maturin --version)"
echo "componentize-js $(componentize-js --version), jco $(jco --version), TypeScript $(tsc --version | sed "s/^Version //"), $(pyright --version)"

# The window test's X server and lavapipe want a runtime directory.
if [ -z "${XDG_RUNTIME_DIR:-}" ]; then
    XDG_RUNTIME_DIR="$(mktemp -d)"
    export XDG_RUNTIME_DIR
fi

# With no arguments, the CLI's optional features are on too: the fleet's
# tests (Redis), Agones' (protoc), TLS's and the packages' (the wheel and
# the npm packages). In the one build of the workspace they cost little: its
# crates/game-host-fleet and -agones are built for their own tests anyway.
# Arguments are passed on to cargo as they are.
if [ $# -eq 0 ]; then
    set -- --features game-host-cli/fleet,game-host-cli/agones,game-host-cli/tls,game-host-cli/packaging
fi
step "cargo test --release $*"
cargo test --release "$@"
