// The client library against a real `host serve` of examples/arena and
// examples/spinning-cube (run by Node's test runner; see serve.mjs).

import assert from "node:assert/strict";
import { after, afterEach, before, describe, test } from "node:test";

import { admit, counting, lib, metric, proxy, scripts, serve, until } from "./serve.mjs";

const { GameClient, decodeDelta } = lib;

describe("a served arena", () => {
  let server;
  const clients = [];
  before(async () => {
    server = await serve([scripts.arena, scripts.cube, "--player-channel", "chat", "--player-channel", "tell"]);
  });
  // Each test's clients close at its end: streams left open would count
  // in the next test's gauge.
  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
  });
  after(async () => {
    await server.stop();
  });

  async function join(options = {}) {
    const { player, token } = await admit(options.server ?? server.url);
    const client = new GameClient({ server: server.url, world: 1, token, ...options });
    clients.push(client);
    await client.connect();
    assert.equal(client.player, player);
    return client;
  }

  const named = (client, name) => [...client.entities.values()].find((e) => e.name === name);

  test("binary deltas agree with JSON within the precision, in a quarter of the bytes or less", async (t) => {
    const binary = { bytes: 0, messages: 0 };
    const text = { bytes: 0, messages: 0 };
    // Four players, as in the measurement: two watched, two idle.
    const a = await join({ format: "delta", WebSocket: counting(binary) });
    const b = await join({ format: "json", WebSocket: counting(text) });
    await join();
    await join({ format: "json" });
    const rotations = [new Map(), new Map()];
    const errors = [];
    for (const [at, client] of [a, b].entries()) {
      client.on("error", (e) => errors.push(e.message));
      client.on("change", (e) => {
        if (e.name === "cube") rotations[at].set(client.frame, e.rotation);
      });
    }
    binary.bytes = binary.messages = text.bytes = text.messages = 0;
    const start = Date.now();
    await new Promise((r) => setTimeout(r, 2000));
    const seconds = (Date.now() - start) / 1000;
    const ratio = binary.bytes / text.bytes;
    t.diagnostic(
      `bytes/s per client: binary ${(binary.bytes / seconds).toFixed(0)}, JSON ${(text.bytes / seconds).toFixed(0)} ` +
        `(${(ratio * 100).toFixed(1)}%); messages/s ${(binary.messages / seconds).toFixed(1)} and ${(text.messages / seconds).toFixed(1)}`,
    );
    assert.ok(text.bytes > 0 && binary.bytes > 0);
    assert.deepEqual(errors, []);
    assert.ok(ratio <= 0.25, `binary is ${(ratio * 100).toFixed(1)}% of JSON`);
    // The same rotations, frame by frame, within the 12-bit step.
    let compared = 0;
    for (const [frame, q] of rotations[0]) {
      const exact = rotations[1].get(frame);
      if (exact === undefined) continue;
      const dot = Math.abs(q.reduce((sum, c, i) => sum + c * exact[i], 0));
      assert.ok(dot > 1 - 1e-5, `frame ${frame}: ${q} against ${exact}`);
      compared += 1;
    }
    assert.ok(compared > 20, `only ${compared} frames compared`);
    // Positions within half the precision (a millimetre by default).
    for (const entity of b.entities.values()) {
      const other = a.entities.get(entity.id);
      assert.ok(other !== undefined, `${entity.name} only in the JSON table`);
      for (let i = 0; i < 3; i++) assert.ok(Math.abs(other.position[i] - entity.position[i]) <= 0.0005 + 1e-6);
    }
  });

  test("keys move, Health streams, messages arrive, and entities enter and leave", async () => {
    const a = await join();
    const b = await join({ format: "json" });
    const avatar = `player-${a.player}`;
    await until(() => named(b, avatar) !== undefined, `${avatar} in b's table`);
    const y = named(b, avatar).position[1];
    assert.equal(named(b, avatar).data.Health.hp, 10);
    a.press("up");
    await until(() => Math.abs(named(b, avatar).position[1] - (y + 1)) < 1e-6, "the move, in JSON");
    // And in the binary form, a change of the position alone.
    await until(() => Math.abs(named(a, avatar).position[1] - (y + 1)) < 1e-3, "the move, in binary deltas");
    // The replicated Health, changed by the script, in the entity's delta.
    let hurt;
    a.on("change", (e) => {
      if (e.name === avatar && e.data.Health?.hp === 9) hurt = e;
    });
    a.press("space");
    await until(() => hurt !== undefined && named(b, avatar).data.Health.hp === 9, "Health 9 on both");
    const heard = [];
    b.on("message", (channel, payload) => heard.push([channel, payload]));
    a.send("chat", "hello");
    await until(() => heard.some(([c, p]) => c === "chat" && p === `player-${a.player}: hello`), "the chat line");
    // A third player enters both views, and leaves them.
    const entered = [];
    const left = [];
    b.on("enter", (e) => entered.push(e.name));
    b.on("leave", (id) => left.push(id));
    const c = await join();
    await until(() => entered.includes(`player-${c.player}`), "c entering");
    const id = named(b, `player-${c.player}`).id;
    c.leave();
    await until(() => left.includes(id), "c leaving");
    // Input the world refuses is an error event.
    const errors = [];
    a.on("error", (e) => errors.push(e.message));
    a.send("admin", "give-gold");
    await until(() => errors.some((m) => m.includes("channel `admin` is not open")), "the refusal");
  });

  test("reconnects after the connection drops: no held message lost, the table right after the snapshot", async () => {
    const relay = await proxy(server.port);
    try {
      const { token } = await admit(server.url);
      const a = new GameClient({ server: relay.url, world: 1, token, reconnectDelayMs: 50 });
      clients.push(a);
      await a.connect();
      const b = await join({ format: "json" });
      const told = [];
      a.on("message", (channel, payload) => {
        if (channel === "told") told.push(payload);
      });
      const statuses = [];
      a.on("status", (s) => statuses.push(s));
      // One who leaves while `a` is away, and one who comes.
      const d = await join({ format: "json" });
      const dAvatar = `player-${d.player}`;
      await until(() => named(a, dAvatar) !== undefined, "d in a's table");
      const streams = await metric(server.url, "game_server_streams");
      // Cut the connection and keep the client out; the server notices
      // (one stream fewer), and messages for the player wait in its seat's
      // mailbox while it is away.
      relay.drop();
      await until(() => a.status === "reconnecting", "a to notice");
      await until(async () => (await metric(server.url, "game_server_streams")) < streams, "the server to notice");
      b.press("down");
      for (let i = 1; i <= 5; i++) b.send("tell", `${a.player} note ${i}`);
      d.leave();
      const c = await join({ format: "json" });
      const cAvatar = `player-${c.player}`;
      await until(() => named(b, cAvatar) !== undefined && named(b, dAvatar) === undefined, "c in, d out of b's table");
      relay.resume();
      const bAvatar = `player-${b.player}`;
      await until(() => a.status === "open" && told.length === 5, "a back, with five notes", 15_000);
      assert.deepEqual(told, [1, 2, 3, 4, 5].map((i) => `player-${b.player}: note ${i}`));
      assert.ok(statuses.includes("reconnecting"), statuses.join(","));
      // After the snapshot a's table is b's: b's move, c in, d gone.
      await until(() => Math.abs(named(a, bAvatar).position[1] - named(b, bAvatar).position[1]) < 1e-3, "b's move in a's table");
      assert.ok(named(a, cAvatar) !== undefined, "c missing after the reconnection");
      assert.equal(named(a, dAvatar), undefined, "d still there after the reconnection");
      await until(() => a.entities.size === b.entities.size, "the same entities");
      for (const id of b.entities.keys()) assert.ok(a.entities.has(id), `entity ${id} missing after the reconnection`);
    } finally {
      await relay.close();
    }
  });
});

test("a malformed or unknown message is an error event, and the table is kept", async () => {
  let socket;
  class Fake {
    constructor(url, protocols) {
      this.url = url;
      this.protocols = protocols;
      this.readyState = 1;
      socket = this;
    }
    send() {}
    close(code) {
      this.closedWith = code;
    }
  }
  const client = new GameClient({ server: "http://example.invalid:1", world: 3, token: "t", WebSocket: Fake });
  const connected = client.connect();
  assert.equal(socket.url, "ws://example.invalid:1/worlds/3/stream?token=t");
  assert.deepEqual(socket.protocols, ["game-host.delta"]);
  const cube = { id: 0, name: "cube", position: [1, 2, 3], rotation: [0, 0, 0, 1], scale: [1, 1, 1] };
  socket.onmessage({ data: JSON.stringify({ frame: 5, player: 1, entities: [cube] }) });
  assert.equal(await connected, 5);
  const errors = [];
  client.on("error", (e) => errors.push(e.message));
  for (const bad of [
    "not json",
    JSON.stringify({ frame: 6, what: 1 }),
    JSON.stringify({ frame: 6, changed: [{ id: 0, name: "cube", position: [1, 2] }] }),
    new Uint8Array([9]).buffer,
    new Uint8Array([1, 7, 1]).buffer,
  ]) {
    socket.onmessage({ data: bad });
  }
  assert.equal(errors.length, 5, errors.join("\n"));
  // A binary message it could not read may have held entities: it asks
  // for a fresh snapshot (a new connection), keeping its table till then.
  assert.equal(socket.closedWith, 4000);
  assert.equal(client.entities.size, 1);
  assert.deepEqual(client.entities.get(0).position, [1, 2, 3]);
  client.close();
});

test("the binary form decodes as the server writes it (delta.rs's own bytes)", () => {
  // An update at frame 300: one change of entity 3, its rotation alone
  // (the identity), then an entity 3 entering whole, and 9 removed.
  const identity = [255, 191, 255, 239, 255, 3];
  const turned = decodeDelta(new Uint8Array([1, 0xac, 0x02, 0, 1, 3, 2, ...identity, 0]), 0.001);
  assert.deepEqual(turned, { kind: "update", frame: 300, entered: [], changed: [{ id: 3, rotation: [0, 0, 0, 1] }], removed: [] });
  const whole = [3, 4, ...Buffer.from("cube"), 208, 15, 160, 31, 239, 46, ...identity, 208, 15, 208, 15, 208, 15];
  const health = [1, 6, ...Buffer.from("Health"), 1, 2, ...Buffer.from("hp"), 1, 14];
  const entered = decodeDelta(new Uint8Array([1, 0xac, 0x02, 1, ...whole, ...health, 0, 1, 9]), 0.001);
  assert.equal(entered.kind, "update");
  const cube = entered.entered[0];
  assert.deepEqual([cube.id, cube.name, cube.rotation], [3, "cube", [0, 0, 0, 1]]);
  cube.position.forEach((v, i) => assert.ok(Math.abs(v - [1, 2, -3][i]) < 1e-9));
  cube.scale.forEach((v) => assert.ok(Math.abs(v - 1) < 1e-9));
  assert.equal(cube.data.Health.hp, 7);
  assert.deepEqual(entered.removed, [9]);
  // A message cut short, bytes left over, an unknown mask: refused.
  for (const bad of [[1, 0xac], [5, 1, 65, 0], [1, 1, 0, 1, 3, 64]]) {
    assert.throws(() => decodeDelta(new Uint8Array(bad), 0.001), lib.ProtocolError);
  }
});

// Over TLS: the library takes an https server to wss, and the platform's
// WebSocket checks the server's certificate (NODE_EXTRA_CA_CERTS names the
// test's CA). host/tests/client_library.rs gives the certificate and key.
test(
  "an https server is streamed over wss with its certificate checked",
  { skip: process.env.TLS_CERT ? false : "TLS_CERT is not set (a host built with the tls feature sets it)" },
  async () => {
    const server = await serve([scripts.cube, "--tls-cert", process.env.TLS_CERT, "--tls-key", process.env.TLS_KEY]);
    try {
      assert.ok(server.url.startsWith("https://"), server.url);
      const { token } = await admit(server.url);
      const client = new GameClient({ server: server.url, world: 1, token });
      await client.connect();
      assert.ok([...client.entities.values()].some((e) => e.name === "cube"));
      client.close();
    } finally {
      await server.stop();
    }
  },
);

// The public join (`host serve --play arena`): `join` seats the player in a
// world with room, or the server starts another, with no operator token.
test("join seats players in a world with room, starts another when it is full, and says why it refused", async () => {
  const server = await serve([scripts.arena, "--play", "arena", "--max-players", "2", "--worlds", "0"]);
  const clients = [];
  try {
    for (let i = 0; i < 3; i++) clients.push(await lib.join(server.url, "arena"));
    assert.deepEqual(clients.map((c) => c.player), [1, 2, 1]);
    // Each sees its own avatar, which the arena spawns when it joins.
    for (const client of clients) {
      const own = `player-${client.player}`;
      await until(() => [...client.entities.values()].some((e) => e.name === own), own);
    }
    const worlds = await (await fetch(`${server.url}/worlds`)).json();
    assert.deepEqual(worlds.map((w) => [w.id, w.players]), [[1, 2], [2, 1]]);
    await assert.rejects(lib.join(server.url, "chess"), (error) => {
      assert.ok(error instanceof lib.JoinError);
      assert.equal(error.status, 404);
      assert.match(error.message, /no game `chess` here \(this server's is `arena`\)/);
      return true;
    });
  } finally {
    for (const client of clients) client.close();
    await server.stop();
  }
});
