#!/usr/bin/env bash
# Builds the book into book/book: first the pages made from the code
# (reference/cli.md, from the `host` binary's own help; reference/wit.md,
# from wit/), then `mdbook build`,
# which fails here on any warning it prints as well as on an error.
#
#   book/build.sh [HOST]     HOST: the `host` binary (target/release/host)
set -euo pipefail
cd "$(dirname "$0")"
host="${1:-../target/release/host}"
[ -x "$host" ] || { echo "book/build.sh: no host binary at $host (cargo build --release --bin host)" >&2; exit 1; }

page=src/reference/cli.md
{
    echo '# The `host` command'
    echo
    echo 'Every command and option, as the binary itself describes them (`host help'
    echo 'COMMAND`): this page is written from that help when the book is built.'
    echo
    echo '```text'
    "$host" --help
    echo '```'
    # The commands, from the help's own list.
    for command in $("$host" --help | sed -n '/^Commands:/,/^$/p' | awk 'NR > 1 && $1 != "help" {print $1}'); do
        echo
        echo "## host $command"
        echo
        echo '```text'
        "$host" "$command" --help
        echo '```'
    done
} > "$page"

# The WIT API, one section per interface file, as the host was built with it.
page=src/reference/wit.md
{
    echo '# The WIT API'
    echo
    echo 'The `game:engine` package scripts bind to, one file per interface (`wit/`):'
    echo 'this page is written from those files when the book is built. A released'
    echo 'interface never changes; `wit/v0.1/` is the frozen 0.1 release.'
    for file in ../wit/*.wit; do
        echo
        echo "## $(basename "$file" .wit)"
        echo
        echo '```wit'
        cat "$file"
        echo '```'
    done
} > "$page"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
mdbook build 2>&1 | tee "$log"
if grep -E '(WARN|ERROR)' "$log" >/dev/null; then
    echo "book/build.sh: mdbook warned (above); the book is built clean or not at all" >&2
    exit 1
fi
