#!/usr/bin/env node
// `host`: runs the binary of this platform's package (as esbuild and biome
// ship theirs), with the tools this package depends on (componentize-js,
// jco, tsc) first on its PATH, so `npx host` and `node_modules/.bin/host`
// build and check JavaScript and TypeScript scripts with the versions the
// host is tested with.
"use strict";

const { spawn } = require("node:child_process");
const os = require("node:os");
const path = require("node:path");

const PLATFORMS = {
  "linux x64": "@game-host/linux-x64",
};

function fail(message) {
  process.stderr.write(`error: ${message}\n`);
  process.exit(1);
}

const platform = `${process.platform} ${process.arch}`;
const pkg = PLATFORMS[platform];
if (!pkg) {
  fail(
    `game-host has no binary for ${platform} (it has one for ${Object.keys(PLATFORMS).join(", ")}); ` +
      "build it from source: `cargo install --locked --path host`",
  );
}
let binary;
try {
  binary = require.resolve(`${pkg}/bin/host`);
} catch {
  fail(
    `${pkg} is not installed (npm leaves out optional dependencies with --omit=optional ` +
      "or --no-optional): reinstall game-host with its optional dependencies",
  );
}

// npm links its packages' commands into node_modules/.bin: the one this
// package sits in (hoisted), and its own (when a version was not hoisted).
const bins = [
  path.join(__dirname, "..", "node_modules", ".bin"),
  path.join(__dirname, "..", "..", ".bin"),
];
const env = { ...process.env };
env.PATH = [...bins, process.env.PATH].filter(Boolean).join(path.delimiter);

const child = spawn(binary, process.argv.slice(2), { stdio: "inherit", env });
// The host stops cleanly on these (its recorder and servers close): pass
// them on, and end as it ends.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => child.kill(signal));
}
child.on("error", (error) => fail(`could not start ${binary}: ${error.message}`));
child.on("exit", (code, signal) => {
  if (signal) {
    // End by the same signal, as a shell reports it; should node outlive
    // it (a signal it ignores), with the shell's code for it.
    process.exitCode = 128 + (os.constants.signals[signal] ?? 0);
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  } else {
    process.exit(code);
  }
});
