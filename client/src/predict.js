/**
 * {@link Prediction}: the player's own entity moved in the browser at
 * once, by the same component the server runs (the world's predictor,
 * built with `host build --predictor`), and reconciled with the server's
 * state as the server acknowledges the player's commands (Gambetta's
 * client-side prediction and server reconciliation).
 *
 * Each local frame in which the player holds keys makes one numbered
 * command; the predictor runs it at once on the predicted state, and it
 * goes to the server a few frames' worth at a time. When the server says
 * it applied commands 1 to S by frame N (`ack`), the table holds the
 * server's state of frame N: the predicted state restarts from it and the
 * commands after S run again. What then differs from what was shown is a
 * correction, spread over a few frames (or a jump, when large). With no
 * command waiting for its ack, the player's entities are drawn as the
 * server sent them.
 */

import { predictorImports } from "./predictor_imports.js";

/**
 * @typedef {import("./protocol.js").Command} Command
 * @typedef {import("./protocol.js").Vec3} Vec3
 * @typedef {import("./protocol.js").Quat} Quat
 * @typedef {import("./table.js").Pose} Pose
 * @typedef {import("./table.js").EntityTable} EntityTable
 */

/**
 * @typedef {object} PredictOptions
 * @property {number} [hz] The frame rate commands are made at: the world's, as the server gives it with the predictor (60 from a server that does not).
 * @property {string[]} [keys] The keys that go as commands (held), not as presses (the arrows).
 * @property {number} [smoothFrames] Frames a correction is spread over (6).
 * @property {number} [snapDistance] A correction at least this long (world units) is a jump (2).
 * @property {number} [sendEvery] Frames of commands per message (as many as make 20 messages a second: 3 at 60 frames a second), within the stream's 30 messages a second.
 */

/**
 * What prediction did so far.
 * @typedef {object} PredictionStats
 * @property {number} commands Commands made.
 * @property {number} acked The last command the server applied.
 * @property {number} corrections Corrections larger than the stream's precision.
 * @property {number[]} correctionSizes Each correction's length, in world units.
 * @property {number[]} errors For each ack: how far the predicted position after that command was from the server's (world units).
 * @property {number} runs Calls of the predictor (each command once, and again on each replay).
 * @property {number} runMs Milliseconds spent in them.
 */

/**
 * A loaded predictor: jco's module, instantiated with the browser's
 * imports.
 * @typedef {object} LoadedPredictor
 * @property {{ script: string, sha256: string, module: string, files: string[], hz?: number }} manifest
 * @property {(clock: { frame: bigint, deltaTime: number, time: number }) => void} onUpdate
 */

/**
 * Fetches and instantiates the predictor of world `world` on `server`
 * over `world`'s imports. Undefined when the world has none (404).
 * @param {string} server `http://HOST:PORT` (or `https:`, `ws:`, `wss:`).
 * @param {number} worldId
 * @param {import("./predictor_imports.js").PredictorWorld} world
 * @param {(manifest: LoadedPredictor["manifest"]) => void} [read] Told the manifest before the predictor starts (its start may read the clock).
 * @returns {Promise<{ predictor: LoadedPredictor, settle: () => void } | undefined>}
 */
export async function loadPredictor(server, worldId, world, read = () => {}) {
  const base = new URL(server);
  base.protocol = base.protocol === "wss:" || base.protocol === "https:" ? "https:" : "http:";
  /** @param {string} name */
  const url = (name) => new URL(`/worlds/${worldId}/predictor/${name}`, base).toString();
  /** @param {string} name */
  const get = async (name) => {
    const answer = await fetch(url(name));
    if (!answer.ok) throw new Error(`the world's predictor's \`${name}\` could not be fetched (${answer.status})`);
    return answer;
  };
  const answer = await fetch(url("predictor.json"));
  if (answer.status === 404) return undefined;
  if (!answer.ok) throw new Error(`the world's predictor could not be fetched (${answer.status})`);
  const manifest = await answer.json();
  read(manifest);
  const source = await (await get(manifest.module)).text();
  // A page imports it from its own address; Node imports no http URL, so
  // there it is imported from its text.
  const moduleUrl =
    typeof document === "undefined"
      ? `data:text/javascript,${encodeURIComponent(source)}`
      : url(manifest.module);
  const module = await import(/* @vite-ignore */ moduleUrl);
  /** @param {string} name */
  const core = async (name) => WebAssembly.compile(await (await get(name)).arrayBuffer());
  const { imports, settle } = predictorImports(world);
  const instance = await module.instantiate(core, imports);
  instance.entrypoint();
  return { predictor: { manifest, onUpdate: (clock) => instance.onUpdate(clock) }, settle };
}

/**
 * Commands made and not yet acknowledged, at most: as many as the server
 * keeps waiting (beyond them it refuses).
 */
const MAX_UNACKED = 120;

/** @param {Vec3} a @param {Vec3} b */
const distance = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

/**
 * A vector as the server's f32 has it (JSON's shortest decimal of an f32,
 * read as a double, rounded back to that f32).
 * @param {Vec3} v
 * @returns {Vec3}
 */
const f32 = (v) => [Math.fround(v[0]), Math.fround(v[1]), Math.fround(v[2])];

/**
 * An entity's pose as the server's f32 has it.
 * @param {Pose} p
 * @returns {Pose}
 */
const f32Pose = (p) => ({
  position: f32(p.position),
  rotation: [Math.fround(p.rotation[0]), Math.fround(p.rotation[1]), Math.fround(p.rotation[2]), Math.fround(p.rotation[3])],
  scale: f32(p.scale),
});

export class Prediction {
  /** @type {PredictionStats} */
  stats = { commands: 0, acked: 0, corrections: 0, correctionSizes: [], errors: [], runs: 0, runMs: 0 };
  /** The keys held now (of those that go as commands). */
  held = new Set();

  #table;
  #player;
  #options;
  /** @type {LoadedPredictor | undefined} */
  #predictor = undefined;
  /** The world's frame rate, as the server gave it with the predictor. @type {number | undefined} */
  #worldHz = undefined;
  #settle = () => {};
  /** Predicted poses, by id (the rest as the table has them). @type {Map<number, Pose>} */
  #predicted = new Map();
  /** Entities the predictor ever wrote. @type {Set<number>} */
  #own = new Set();
  /** Commands not yet acknowledged, each with the own entities' positions after it. @type {Array<{ command: Command, after: Map<number, Vec3> }>} */
  #history = [];
  /** Commands made and not yet sent. @type {Command[]} */
  #unsent = [];
  #seq = 0;
  /** The commands of the frame being predicted. @type {Command[]} */
  #running = [];
  /** Each own entity's correction still to be drawn, and the frames left. @type {Map<number, { offset: Vec3, left: number }>} */
  #smoothing = new Map();
  #frames = 0;
  /** A snapshot came; its ack is awaited to restart the prediction. */
  #resynced = false;
  /** The local frame each recent command was made at, by number. @type {Map<number, number>} */
  #madeAt = new Map();
  #send;
  /** @type {(error: Error) => void} */
  #failed;
  #precision = 0.001;

  /**
   * @param {EntityTable} table The client's table (the server's state).
   * @param {() => number | undefined} player The player's id.
   * @param {(commands: Command[]) => boolean} send Sends commands; false when not connected.
   * @param {PredictOptions} options
   * @param {(error: Error) => void} failed Told when the predictor fails (prediction is then off).
   */
  constructor(table, player, send, options, failed) {
    this.#table = table;
    this.#player = player;
    this.#send = send;
    this.#options = options;
    this.#failed = failed;
  }

  /** The keys that go as commands. */
  get keys() {
    return this.#options.keys ?? ["left", "right", "up", "down"];
  }

  /** The world's frame rate commands are made at (one a frame, as the server applies them). */
  get hz() {
    return this.#options.hz ?? this.#worldHz ?? 60;
  }

  /** Local frames made so far. */
  get frames() {
    return this.#frames;
  }

  /** The number of the last command made (or acknowledged). */
  get seq() {
    return this.#seq;
  }

  /**
   * The local frame command `seq` was made at (one of the last 256).
   * @param {number} seq
   * @returns {number | undefined}
   */
  madeAt(seq) {
    return this.#madeAt.get(seq);
  }

  /** The script the predictor is of, once loaded. */
  get script() {
    return this.#predictor?.manifest.script;
  }

  /** Whether the predictor is loaded. */
  get ready() {
    return this.#predictor !== undefined;
  }

  /** @param {number} step The stream's precision. */
  set precision(step) {
    this.#precision = step;
  }

  /**
   * Loads the world's predictor; false when it has none.
   * @param {string} server
   * @param {number} world
   * @returns {Promise<boolean>}
   */
  async load(server, world) {
    /** @param {LoadedPredictor["manifest"]} manifest */
    const readRate = (manifest) => {
      const hz = manifest.hz;
      if (typeof hz === "number" && hz > 0 && Number.isFinite(hz)) this.#worldHz = hz;
    };
    /** @type {import("./predictor_imports.js").PredictorWorld} */
    const seen = {
      get: (id) => this.#current(id),
      set: (id, pose) => {
        const old = this.#current(id);
        if (old === undefined) return;
        this.#own.add(id);
        this.#predicted.set(id, {
          position: pose.position ?? old.position,
          rotation: pose.rotation ?? old.rotation,
          scale: pose.scale ?? old.scale,
        });
      },
      find: (name) => {
        for (const entity of this.#table.all.values()) if (entity.name === name) return entity.id;
        return undefined;
      },
      commands: () => {
        const player = this.#player();
        if (player === undefined || this.#running.length === 0) return [];
        return [
          {
            player: BigInt(player),
            commands: this.#running.map((c) => ({ seq: BigInt(c.seq), held: c.held })),
          },
        ];
      },
      clock: () => ({ frame: BigInt(this.#frames), deltaTime: 1 / this.hz, time: this.#frames / this.hz }),
      log: (level, message) => (level === "error" || level === "warn" ? console.warn : console.log)(message),
    };
    const loaded = await loadPredictor(server, world, seen, readRate);
    if (loaded === undefined) return false;
    this.#predictor = loaded.predictor;
    this.#settle = loaded.settle;
    return true;
  }

  /**
   * One local frame: a command of the keys held (if any), predicted at
   * once; every `sendEvery` frames the commands made go to the server.
   * While `connected` is false, or as many commands as the server keeps
   * wait for their acks, no command is made (the entity waits).
   * @param {boolean} connected
   */
  frame(connected) {
    this.#frames += 1;
    for (const [id, smooth] of this.#smoothing) {
      smooth.left -= 1;
      if (smooth.left <= 0) this.#smoothing.delete(id);
    }
    if (this.#predictor === undefined || !connected) return;
    if (this.held.size > 0 && this.#history.length < MAX_UNACKED) {
      const command = { seq: this.#seq + 1, held: [...this.held].sort() };
      if (!this.#run(command)) return;
      this.#seq = command.seq;
      this.#madeAt.set(command.seq, this.#frames);
      this.#madeAt.delete(command.seq - 256);
      this.stats.commands += 1;
      this.#unsent.push(command);
      this.#history.push({ command, after: this.#positions() });
    }
    if (this.#frames % (this.#options.sendEvery ?? Math.ceil(this.hz / 20)) === 0) this.flush();
  }

  /** Sends up to 32 of the commands made and not yet sent (kept when not connected). */
  flush() {
    if (this.#unsent.length === 0) return;
    if (this.#send(this.#unsent.slice(0, 32))) this.#unsent.splice(0, 32);
  }

  /**
   * After a fresh snapshot (a reconnection): the commands not yet
   * acknowledged go again (the server drops those it has). The prediction
   * restarts at the ack that follows the snapshot (the commands it
   * shows), not before: replayed on the snapshot alone, those would count
   * twice.
   */
  resync() {
    const sent = new Set(this.#unsent.map((c) => c.seq));
    this.#unsent = [...this.#history.map((h) => h.command).filter((c) => !sent.has(c.seq)), ...this.#unsent];
    this.#resynced = true;
  }

  /**
   * The server applied commands 1 to `seq` by the frame the table now
   * shows: the prediction restarts from the table and runs the commands
   * after `seq` again.
   * @param {number} seq
   */
  ack(seq) {
    // A page loaded afresh (or a client that lost its acks) numbers on
    // from what the server applied.
    if (seq > this.#seq) this.#seq = seq;
    const resynced = this.#resynced;
    this.#resynced = false;
    if (seq <= this.stats.acked && !resynced) return;
    this.stats.acked = Math.max(this.stats.acked, seq);
    let after;
    while (this.#history.length > 0 && /** @type {{ command: Command }} */ (this.#history[0]).command.seq <= seq) {
      after = this.#history.shift()?.after;
    }
    if (after !== undefined) {
      for (const [id, predicted] of after) {
        const server = this.#table.get(id);
        if (server !== undefined) this.stats.errors.push(distance(predicted, f32(server.position)));
      }
    }
    this.#replay();
  }

  /**
   * Entity `id` as the prediction has it: predicted, or as the server last
   * sent it.
   * @param {number} id
   * @returns {Pose | undefined}
   */
  #current(id) {
    const predicted = this.#predicted.get(id);
    if (predicted !== undefined) return predicted;
    const server = this.#table.get(id);
    return server === undefined ? undefined : f32Pose(server);
  }

  /**
   * The predicted state again from the table, with every command not yet
   * acknowledged. Where an own entity's prediction moved by more than the
   * stream's rounding could (a step on each axis), that is a correction.
   */
  #replay() {
    const before = new Map([...this.#own].map((id) => [id, this.#current(id)?.position]));
    this.#predicted.clear();
    for (const entry of this.#history) {
      if (!this.#run(entry.command)) return;
      entry.after = this.#positions();
    }
    for (const [id, was] of before) {
      const now = this.#current(id)?.position;
      if (was === undefined || now === undefined) continue;
      const size = distance(was, now);
      if (size <= this.#precision * Math.sqrt(3)) continue;
      this.stats.corrections += 1;
      this.stats.correctionSizes.push(size);
      if (size >= (this.#options.snapDistance ?? 2)) {
        this.#smoothing.delete(id);
        continue;
      }
      // Drawn from where it was shown (what is left of an earlier
      // correction too), closing the gap over a few frames.
      const frames = this.#options.smoothFrames ?? 6;
      const left = this.#smoothing.get(id);
      const t = left === undefined ? 0 : left.left / frames;
      /** @type {Vec3} */
      const o = left === undefined ? [0, 0, 0] : left.offset;
      this.#smoothing.set(id, {
        offset: [o[0] * t + was[0] - now[0], o[1] * t + was[1] - now[1], o[2] * t + was[2] - now[2]],
        left: frames,
      });
    }
  }

  /**
   * Runs the predictor on `command`; false (and prediction off, the
   * error told) if it threw or trapped.
   * @param {Command} command
   * @returns {boolean}
   */
  #run(command) {
    const predictor = this.#predictor;
    if (predictor === undefined) return false;
    this.#running = [command];
    const started = performance.now();
    this.stats.runs += 1;
    try {
      predictor.onUpdate({
        frame: BigInt(this.#frames),
        deltaTime: 1 / this.hz,
        time: this.#frames / this.hz,
      });
      this.#settle();
      return true;
    } catch (error) {
      // A trapped instance cannot run again: the entity is drawn as the
      // server sends it from now on.
      this.#predictor = undefined;
      this.#predicted.clear();
      this.#history = [];
      this.held.clear();
      this.#failed(error instanceof Error ? error : new Error(String(error)));
      return false;
    } finally {
      this.#running = [];
      this.stats.runMs += performance.now() - started;
    }
  }

  /** @returns {Map<number, Vec3>} */
  #positions() {
    return new Map([...this.#predicted].map(([id, pose]) => [id, pose.position]));
  }

  /**
   * Where to draw own entity `id`: predicted (with what is left of a
   * correction), or as the server last sent it; undefined for an entity
   * the predictor never moved.
   * @param {number} id
   * @returns {Pose | undefined}
   */
  pose(id) {
    if (!this.#own.has(id)) return undefined;
    const pose = this.#current(id);
    if (pose === undefined) return undefined;
    const smooth = this.#smoothing.get(id);
    if (smooth === undefined) return { position: pose.position, rotation: pose.rotation, scale: pose.scale };
    const frames = this.#options.smoothFrames ?? 6;
    const t = smooth.left / frames;
    const o = smooth.offset;
    return {
      position: [pose.position[0] + o[0] * t, pose.position[1] + o[1] * t, pose.position[2] + o[2] * t],
      rotation: pose.rotation,
      scale: pose.scale,
    };
  }

  /**
   * Where the prediction has own entity `id` now, without smoothing
   * (undefined when it is not predicted).
   * @param {number} id
   * @returns {Vec3 | undefined}
   */
  predicted(id) {
    return this.#predicted.get(id)?.position;
  }
}
