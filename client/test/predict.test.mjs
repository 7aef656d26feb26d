// Prediction against a real `host serve` of examples/arena beside
// examples/dash (and, for the disagreement, a gust only the server runs),
// with dash's browser form (`host build --predictor`), through a relay
// that delays each way (see serve.mjs). The measurements go to stdout as
// a table.
//
// Needs GAME_HOST_BIN, ARENA, DASH (dash.wasm), PREDICTOR (its
// `dash.predictor/`) and GUST (the gust's component).

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { after, afterEach, before, describe, test } from "node:test";

import { admit, delayRelay, lib, serve, until } from "./serve.mjs";

const { GameClient } = lib;
const env = (name) => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
};
const FRAME_MS = 1000 / 60;

// What a test opened, closed after it whatever its end (a client's local
// frames would keep Node running).
const opened = [];
afterEach(async () => {
  for (const thing of opened.splice(0)) await thing.close();
});

/** A relay to the server, closed after the test. */
async function relayTo(server, settings) {
  const relay = await delayRelay(server.port, settings);
  opened.push(relay);
  return relay;
}

/** A client of a new player (or of `options.token`'s) through `relay`, connected, with its own entity's id. */
async function join(server, relay, options) {
  const { player, token } = options.token === undefined ? await admit(server.url) : options;
  const client = new GameClient({ server: relay.url, world: 1, token, followMoves: false, ...options });
  opened.push(client);
  const errors = [];
  client.on("error", (error) => errors.push(error.message));
  await client.connect();
  if (options.predict) await until(() => client.prediction.ready, `the predictor to load (${errors})`);
  await until(() => own(client, player) !== undefined, "the player's entity");
  return { client, id: own(client, player).id, player, token };
}

const own = (client, player) => [...client.entities.values()].find((e) => e.name === `player-${player}`);

/** Where the client shows entity `id`: predicted, or in its table. */
const shown = (client, id) => (client.prediction?.pose(id) ?? client.table.get(id)).position;

/** Waits (polling every millisecond) until `check()`; the milliseconds it took. */
async function within(check, what, ms = 10_000) {
  const start = performance.now();
  while (!check()) {
    if (performance.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 1));
  }
  return performance.now() - start;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

describe("arena with dash's predictor", () => {
  let server;
  before(async () => {
    server = await serve([env("ARENA"), env("DASH"), "--predictor", env("PREDICTOR")]);
  });
  after(async () => {
    await server.stop();
  });

  test("the predictor served is the browser form of the very component the server runs", async () => {
    const manifest = await (await fetch(`${server.url}/worlds/1/predictor/predictor.json`)).json();
    const digest = createHash("sha256").update(readFileSync(env("DASH"))).digest("hex");
    assert.equal(manifest.sha256, digest);
    assert.equal(manifest.script, "dash");
    // With the world's frame rate, which the client makes commands at.
    assert.equal(manifest.hz, 60);
    const wasm = await fetch(`${server.url}/worlds/1/predictor/${manifest.files[1]}`);
    assert.equal(wasm.headers.get("content-type"), "application/wasm");
    assert.equal((await fetch(`${server.url}/worlds/1/predictor/secret.txt`)).status, 404);
  });

  test("a key moves the player's own entity in one local frame with prediction, a round trip later without", async () => {
    const rows = [];
    for (const delayMs of [0, 50, 100, 200]) {
      const relay = await relayTo(server, { delayMs });
      for (const predict of [true, false]) {
        const { client, id } = await join(server, relay, { predict });
        await sleep(300);
        const x0 = shown(client, id)[0];
        const framesBefore = client.prediction?.frames ?? 0;
        const seqBefore = client.prediction?.seq ?? 0;
        client.press("right");
        const ms = await within(() => shown(client, id)[0] !== x0, "the entity to move");
        // The frame the key's first command was made at (and the entity
        // moved), counted from the frame the key came in.
        const localFrames = predict ? client.prediction.madeAt(seqBefore + 1) - framesBefore : undefined;
        client.release("right");
        rows.push({ delayMs, predict, ms, frames: Math.ceil(ms / FRAME_MS), localFrames });
        if (predict) {
          assert.equal(localFrames, 1, `with ${delayMs} ms each way: ${localFrames} local frames`);
        } else {
          // The press's round trip, at least.
          assert.ok(ms >= 2 * delayMs * 0.9, `with ${delayMs} ms each way it moved after ${ms} ms`);
        }
        client.close();
      }
    }
    console.log("\ndelay each way | prediction | key to own entity moving (ms) | (60 Hz frames) | local frames");
    for (const r of rows) {
      console.log(
        `${r.delayMs} ms | ${r.predict ? "on" : "off"} | ${r.ms.toFixed(1)} | ${r.frames} | ${r.localFrames ?? "-"}`,
      );
    }
  });

  test("a page loaded again with the same token numbers on from the server's last command", async () => {
    const relay = await relayTo(server, { delayMs: 20 });
    const first = await join(server, relay, { predict: true });
    first.client.press("right");
    await sleep(500);
    first.client.release("right");
    await until(() => first.client.prediction.stats.acked === first.client.prediction.stats.commands, "the first page's acks");
    const made = first.client.prediction.stats.commands;
    assert.ok(made > 10, `${made} commands`);
    first.client.close();
    const x0 = first.client.table.get(first.id).position[0];
    // The same player, a new page: its commands are taken, not dropped as
    // ones the server already had.
    const again = await join(server, relay, { predict: true, token: first.token, player: first.player });
    await until(() => again.client.prediction.stats.acked === made, "the snapshot's ack");
    again.client.press("right");
    await sleep(500);
    again.client.release("right");
    const stats = again.client.prediction.stats;
    await until(() => stats.acked === made + stats.commands, "the second page's acks");
    assert.ok(again.client.table.get(again.id).position[0] > x0 + 1, "the entity moved on");
    assert.ok(Math.max(...stats.errors) <= 0.002, `errors ${stats.errors}`);
  });

  test("a dropped connection is taken up again with the commands in flight applied once", async () => {
    const relay = await relayTo(server, { delayMs: 20, jitterMs: 5 });
    const { client, id } = await join(server, relay, { predict: true });
    client.press("right");
    await sleep(400);
    relay.drop();
    await until(() => client.status === "reconnecting", "the client to notice");
    await until(() => client.status === "open", "the client to reconnect");
    await sleep(400);
    client.release("right");
    const stats = client.prediction.stats;
    await until(() => stats.acked === client.prediction.seq, "every command's ack");
    // No command counted twice, by the server or by the prediction.
    assert.equal(stats.corrections, 0, `corrections: ${stats.correctionSizes}`);
    assert.ok(Math.max(...stats.errors) <= 0.002, `errors ${stats.errors}`);
    const server_ = client.table.get(id).position.map(Math.fround);
    const x0 = -4 + 2 * (Number(client.player) % 5);
    assert.ok(Math.abs(server_[0] - (x0 + 0.1 * stats.commands)) < 0.01, `${server_} after ${stats.commands} commands`);
    assert.deepEqual(shown(client, id), server_);
  });

  test("over 60 s of scripted input with jitter, the prediction is never off and never corrected", async () => {
    const relay = await relayTo(server, { delayMs: 100, jitterMs: 30 });
    // JSON: positions as exact f32, so "never off" is exactly 0.
    const { client, id } = await join(server, relay, { predict: true, format: "json" });
    const patterns = [["right"], ["right", "up"], [], ["up"], ["left", "down"], ["down"], [], ["left"]];
    const cpu = process.cpuUsage();
    const frames0 = client.prediction.frames;
    const started = performance.now();
    let step = 0;
    while (performance.now() - started < 60_000) {
      for (const key of ["left", "right", "up", "down"]) client.release(key);
      for (const key of patterns[step % patterns.length]) client.press(key);
      step += 1;
      await sleep(250 + ((step * 37) % 500));
    }
    for (const key of ["left", "right", "up", "down"]) client.release(key);
    const stats = client.prediction.stats;
    await until(() => stats.acked === stats.commands, "every command's ack", 15_000);
    const used = process.cpuUsage(cpu);
    const frames = client.prediction.frames - frames0;
    assert.ok(stats.commands > 1500, `${stats.commands} commands`);
    assert.ok(stats.errors.length > 100, `${stats.errors.length} acks compared`);
    const worst = Math.max(...stats.errors);
    assert.equal(worst, 0, "a prediction off from the server's position");
    assert.equal(stats.corrections, 0, `corrections: ${stats.correctionSizes}`);
    assert.deepEqual(shown(client, id), client.table.get(id).position.map(Math.fround));
    console.log(
      `\n60 s at 100 ± 30 ms each way: ${stats.commands} commands, ${stats.errors.length} acks compared, ` +
        `worst error ${worst}, ${stats.corrections} corrections; predictor ${stats.runs} calls in ` +
        `${stats.runMs.toFixed(0)} ms (${((stats.runMs / stats.runs) * 1000).toFixed(1)} µs a call); ` +
        `the client's process ${((used.user + used.system) / frames).toFixed(0)} µs of CPU a frame`,
    );
  });
});

describe("arena with dash's predictor at 30 frames a second", () => {
  let server;
  before(async () => {
    server = await serve([env("ARENA"), env("DASH"), "--predictor", env("PREDICTOR"), "--hz", "30"]);
  });
  after(async () => {
    await server.stop();
  });

  test("the client makes its commands at the world's rate, so the server keeps up with them", async () => {
    const relay = await relayTo(server, { delayMs: 50 });
    const { client, id } = await join(server, relay, { predict: true });
    assert.equal(client.prediction.hz, 30);
    client.press("right");
    // How far the server fell behind: commands made and not yet applied.
    let behind = 0;
    const started = performance.now();
    while (performance.now() - started < 2_000) {
      behind = Math.max(behind, client.prediction.seq - client.prediction.stats.acked);
      await sleep(20);
    }
    client.release("right");
    const stats = client.prediction.stats;
    await until(() => stats.acked === stats.commands, "every command's ack");
    // Two seconds held: about 60 commands at 30 a second (120 at 60).
    assert.ok(stats.commands >= 45 && stats.commands <= 75, `${stats.commands} commands in 2 s`);
    // A round trip (100 ms: 3 frames) and a message's frames behind (with
    // room for a stalled machine's catching up), not a queue growing by 30
    // a second (about 40 after 2 s).
    assert.ok(behind <= 24, `${behind} commands waited for the server`);
    assert.ok(Math.max(...stats.errors) <= 0.002, `errors ${stats.errors}`);
    assert.deepEqual(shown(client, id), client.table.get(id).position.map(Math.fround));
    console.log(`\nat 30 Hz: ${stats.commands} commands in 2 s, at most ${behind} waiting for the server`);
  });
});

describe("arena with dash's predictor, and a gust only the server knows", () => {
  let server;
  before(async () => {
    server = await serve([env("ARENA"), env("DASH"), env("GUST"), "--predictor", env("PREDICTOR")]);
  });
  after(async () => {
    await server.stop();
  });

  test("each gust is a counted correction of its size, drawn over a few frames, and the entity ends where the server has it", async () => {
    const relay = await relayTo(server, { delayMs: 50, jitterMs: 10 });
    const { client, id } = await join(server, relay, { predict: true });
    client.press("right");
    await sleep(4_500);
    client.release("right");
    const stats = client.prediction.stats;
    await until(() => stats.acked === stats.commands, "every command's ack", 10_000);
    // Four or five gusts came while the keys were held (one a second; a
    // stalled machine may merge an up and a down into none).
    assert.ok(stats.corrections >= 2 && stats.corrections <= 6, `${stats.corrections} corrections`);
    for (const size of stats.correctionSizes) {
      assert.ok(Math.abs(size - 1) < 0.01, `a correction of ${size} for a gust of 1`);
    }
    // Drawn where the server has it, once the last correction is drawn.
    const server_ = client.table.get(id).position.map(Math.fround);
    await until(
      () => shown(client, id).every((c, axis) => Math.abs(c - server_[axis]) < 1e-6),
      `the entity drawn where the server has it (${shown(client, id)} vs ${server_})`,
    );
    console.log(
      `\ngust of 1 a second at 50 ± 10 ms: ${stats.corrections} corrections of ` +
        `${stats.correctionSizes.map((s) => s.toFixed(3)).join(", ")}`,
    );
  });
});
