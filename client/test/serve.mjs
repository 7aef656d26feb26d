// Test helpers: a real `host serve` on loopback (the binary from
// GAME_HOST_BIN, else `host` on PATH), players admitted over HTTP, a TCP
// proxy whose connections a test can drop, and the library under test
// (its sources, as the view page loads them).

import { spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

export * as lib from "../src/index.js";

const here = path.dirname(fileURLToPath(import.meta.url));

/** A script to serve: `ARENA` / `CUBE` (built components), else the examples. */
export const scripts = {
  arena: process.env.ARENA ?? path.join(here, "..", "..", "examples", "arena"),
  cube: process.env.CUBE ?? path.join(here, "..", "..", "examples", "spinning-cube"),
};

/** Starts `host serve ARGS` on a free loopback port; resolves once it serves (over http, or https given a certificate). */
export function serve(args) {
  const cache = process.env.GAME_HOST_CACHE_DIR ? ["--cache-dir", process.env.GAME_HOST_CACHE_DIR] : [];
  const child = spawn(process.env.GAME_HOST_BIN ?? "host", ["serve", ...args, "--listen", "127.0.0.1:0", ...cache], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, NO_COLOR: "1" },
  });
  let log = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`host serve did not listen:\n${log}`));
    }, 120_000);
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (text) => {
      log += text;
      const found = /serving on (https?):\/\/([^/\s]+)/.exec(log);
      if (found && timer) {
        clearTimeout(timer);
        resolve({
          url: `${found[1]}://${found[2]}`,
          port: Number(found[2].split(":")[1]),
          log: () => log,
          stop: () => new Promise((done) => {
            if (child.exitCode !== null) return done();
            child.once("exit", () => done());
            child.kill("SIGKILL");
          }),
        });
      }
    });
    child.once("exit", (code) => reject(new Error(`host serve exited with ${code}:\n${log}`)));
  });
}

/** Admits a player to world 1: `{ player, token }`. */
export async function admit(url) {
  const response = await fetch(`${url}/worlds/1/players`, { method: "POST" });
  if (response.status !== 201) throw new Error(`admit: ${response.status} ${await response.text()}`);
  return response.json();
}

/** The server's metric `name` (a gauge or counter), from /metrics. */
export async function metric(url, name) {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.split(" ")[1]);
}

/**
 * A TCP proxy to `port` on loopback: `drop()` cuts every connection it
 * carries and refuses new ones until `resume()`. It names the server in
 * each request's `Host` (the server takes requests for its own address
 * only).
 */
export function proxy(port) {
  const sockets = new Set();
  let held = false;
  const server = net.createServer((client) => {
    if (held) return client.destroy();
    const upstream = net.connect(port, "127.0.0.1");
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => {});
    }
    client.once("data", (head) => {
      const text = head.toString("latin1").replace(/\r\nHost: [^\r]*\r\n/i, `\r\nHost: 127.0.0.1:${port}\r\n`);
      upstream.write(Buffer.from(text, "latin1"));
      client.pipe(upstream);
    });
    upstream.pipe(client);
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      resolve({
        url: `http://127.0.0.1:${server.address().port}`,
        drop: () => {
          held = true;
          for (const s of sockets) s.destroy();
        },
        resume: () => {
          held = false;
        },
        close: () => new Promise((done) => {
          for (const s of sockets) s.destroy();
          server.close(() => done());
        }),
      });
    });
  });
}

/** Resolves once `check()` is true; rejects with `what` after `ms`. */
export async function until(check, what, ms = 10_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A WebSocket that counts the bytes it receives (into `counter.bytes`). */
export function counting(counter) {
  return class extends WebSocket {
    constructor(url, protocols) {
      super(url, protocols);
      this.addEventListener("message", (event) => {
        counter.bytes += typeof event.data === "string" ? Buffer.byteLength(event.data) : event.data.byteLength;
        counter.messages += 1;
      });
    }
  };
}

/**
 * A relay to `port` on loopback that delays what it carries each way by
 * `delayMs`, give or take up to `jitterMs` (uniformly, in order: a chunk
 * never overtakes the one before), as a link with that ping would. Names
 * the server in each request's `Host` (and `Origin`), as `proxy` does.
 * `delayMs` and `jitterMs` may be changed while it runs.
 */
export function delayRelay(port, { delayMs = 0, jitterMs = 0 } = {}) {
  const settings = { delayMs, jitterMs };
  const sockets = new Set();
  /**
   * Writes each chunk to `to` after the delay, in order: one queue a side,
   * taken from its head by one timer (timers of different lengths could
   * fire out of order).
   */
  const delayed = () => {
    const queue = [];
    let timer;
    const next = () => {
      timer = undefined;
      while (queue.length > 0 && queue[0].at <= Date.now()) {
        const { to, chunk } = queue.shift();
        if (!to.destroyed) to.write(chunk);
      }
      if (queue.length > 0) timer = setTimeout(next, queue[0].at - Date.now());
    };
    return (to, chunk) => {
      const last = queue.length > 0 ? queue[queue.length - 1].at : 0;
      queue.push({ to, chunk, at: Math.max(last, Date.now() + settings.delayMs + Math.random() * settings.jitterMs) });
      if (timer === undefined) timer = setTimeout(next, queue[0].at - Date.now());
    };
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(port, "127.0.0.1");
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => {});
    }
    const up = delayed();
    const down = delayed();
    // Every request on a kept-alive connection names the server, until
    // the connection becomes a WebSocket; a page's requests come from the
    // server's origin (a page through the relay is the server's page).
    let upgraded = false;
    client.on("data", (chunk) => {
      if (!upgraded) {
        const text = chunk
          .toString("latin1")
          .replace(/\r\nHost: [^\r]*\r\n/gi, `\r\nHost: 127.0.0.1:${port}\r\n`)
          .replace(/\r\nOrigin: [^\r]*\r\n/gi, `\r\nOrigin: http://127.0.0.1:${port}\r\n`);
        chunk = Buffer.from(text, "latin1");
      }
      up(upstream, chunk);
    });
    upstream.on("data", (chunk) => {
      if (!upgraded && chunk.toString("latin1", 0, 12) === "HTTP/1.1 101") upgraded = true;
      down(client, chunk);
    });
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => setTimeout(() => client.destroy(), settings.delayMs + settings.jitterMs));
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      resolve({
        url: `http://127.0.0.1:${server.address().port}`,
        settings,
        /** Cuts every connection it carries (new ones are taken). */
        drop: () => {
          for (const s of sockets) s.destroy();
        },
        close: () => new Promise((done) => {
          for (const s of sockets) s.destroy();
          server.close(() => done());
        }),
      });
    });
  });
}
