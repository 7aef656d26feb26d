/**
 * {@link GameClient}: one player's connection to a world's stream, kept
 * open across dropped connections, with the local table of what the player
 * sees.
 */

import { decodeDelta } from "./delta.js";
import { Prediction } from "./predict.js";
import { DELTA_PROTOCOL, parseJson, ProtocolError } from "./protocol.js";
import { EntityTable } from "./table.js";

/**
 * @typedef {import("./protocol.js").ClientMessage} ClientMessage
 * @typedef {import("./protocol.js").ServerMessage} ServerMessage
 * @typedef {import("./table.js").Applied} Applied
 * @typedef {import("./table.js").Entity} Entity
 * @typedef {import("./table.js").Pose} Pose
 */

/** @typedef {"delta" | "json"} Format How the client takes the stream. */
/** @typedef {"connecting" | "open" | "reconnecting" | "closed"} Status Where the connection stands. */
/**
 * What the client needs of a WebSocket (the platform's, or a package's):
 * a structural type, so a game's TypeScript needs no DOM library.
 * @typedef {object} SocketLike
 * @property {number} readyState
 * @property {string} binaryType
 * @property {((event: any) => void) | null} onmessage
 * @property {((event: any) => void) | null} onclose
 * @property {((event: any) => void) | null} onerror
 * @property {(data: string) => void} send
 * @property {(code?: number, reason?: string) => void} close
 */
/** @typedef {new (url: string, protocols?: string | string[]) => SocketLike} WebSocketConstructor A WebSocket constructor. */

/**
 * @typedef {object} GameClientOptions
 * @property {string} server The server: `http://HOST:PORT` (or `https:`, `ws:`, `wss:`).
 * @property {number} world The world's id.
 * @property {string} token The player's token, as the server admitted it (`POST /worlds/ID/players`).
 * @property {Format} [format] `"delta"` (compact binary, the default) or `"json"`.
 * @property {WebSocketConstructor} [WebSocket] A WebSocket constructor, where the platform has none.
 * @property {number} [reconnectDelayMs] Milliseconds before the first reconnection try (200); each failed try doubles it...
 * @property {number} [maxReconnectDelayMs] ...up to this (5000).
 * @property {number} [maxReconnects] Tries in a row before the client gives up (30).
 * @property {() => number} [now] The clock for interpolation, in milliseconds (`performance.now`).
 * @property {boolean} [followMoves] Whether to reconnect at the address a world that moves to another node of a fleet names (true); any node forwards a stream, so a page held to its own origin says false.
 * @property {boolean | import("./predict.js").PredictOptions} [predict] Predict the player's own entity with the world's predictor, where it has one (false): its keys (the arrows) go as numbered commands, and the entity moves at once.
 */

/**
 * The client's events and their handlers' arguments:
 * - `snapshot`: a snapshot replaced the table (first, and after each reconnection);
 * - `enter`, `change`, `leave`: an entity came into the player's view, changed in it, left it (or was despawned);
 * - `message`: a script's message to this player, or to all;
 * - `error`: a malformed or unknown message (the table is kept), or input the server refused;
 * - `status`: the connection's status changed;
 * - `ended`: the world ended, or the player is no longer in it;
 * - `predicting`: the world's predictor is loaded (with `predict`): the script it is of.
 * @typedef {object} GameClientEvents
 * @property {[frame: number]} snapshot
 * @property {[entity: Entity]} enter
 * @property {[entity: Entity]} change
 * @property {[id: number]} leave
 * @property {[channel: string, payload: string, frame: number]} message
 * @property {[error: Error]} error
 * @property {[status: Status]} status
 * @property {[why: string]} ended
 * @property {[script: string]} predicting
 */

/**
 * The close code the client itself uses to get a fresh snapshot, after a
 * message it could not read (which may have held entities it now lacks).
 */
const RESYNC = 4000;

export class GameClient {
  /** The entities the player sees. */
  table = new EntityTable();
  /**
   * The player's id (from the first snapshot).
   * @type {number | undefined}
   */
  player = undefined;
  /** The latest frame heard of. */
  frame = 0;
  /** @type {Status} */
  status = "closed";
  /**
   * The prediction of the player's own entity (with `predict`), and what
   * it did ({@link Prediction.stats}).
   * @type {Prediction | undefined}
   */
  prediction = undefined;

  #server;
  #options;
  /** @type {{ [K in keyof GameClientEvents]?: Array<(...args: GameClientEvents[K]) => void> }} */
  #handlers = {};
  /** @type {SocketLike | undefined} */
  #socket = undefined;
  #precision = 0.001;
  #tries = 0;
  #shown = false;
  #closing = false;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  #timer = undefined;
  #now;
  /** @type {ReturnType<typeof setInterval> | undefined} */
  #ticker = undefined;
  /** When local frames started, and how many were made since. */
  #ticks = { start: 0, made: 0 };
  #loading = false;
  /** Keys that went to the server as presses (released the same way). */
  #pressed = new Set();

  /** @param {GameClientOptions} options */
  constructor(options) {
    this.#options = options;
    this.#server = options.server;
    this.#now = options.now ?? (() => performance.now());
    if (options.predict) {
      const predict = options.predict === true ? {} : options.predict;
      this.prediction = new Prediction(
        this.table,
        () => this.player,
        (commands) => this.#write({ commands }),
        predict,
        (error) => {
          this.#stopTicking();
          this.#emit("error", new Error(`prediction stopped: ${error.message}`));
        },
      );
    }
  }

  /**
   * Adds a handler for `event`; returns what removes it.
   * @template {keyof GameClientEvents} K
   * @param {K} event
   * @param {(...args: GameClientEvents[K]) => void} handler
   * @returns {() => void}
   */
  on(event, handler) {
    /** @type {Array<(...args: GameClientEvents[K]) => void>} */
    const list = this.#handlers[event] ?? [];
    this.#handlers[event] = /** @type {any} */ (list);
    list.push(handler);
    return () => {
      const at = list.indexOf(handler);
      if (at >= 0) list.splice(at, 1);
    };
  }

  /**
   * @template {keyof GameClientEvents} K
   * @param {K} event
   * @param {GameClientEvents[K]} args
   */
  #emit(event, ...args) {
    const list = /** @type {Array<(...args: GameClientEvents[K]) => void>} */ (this.#handlers[event] ?? []);
    for (const handler of [...list]) {
      // A handler that throws breaks neither the stream nor the others;
      // its error is thrown again outside, where the platform reports it.
      try {
        handler(...args);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  /**
   * Connects; resolves with the first snapshot's frame. Rejects if the
   * first connection closes before one (a wrong token, a world that
   * ended). From then on a dropped connection is opened again with the
   * token, and the table is made right by the snapshot that follows.
   * @returns {Promise<number>}
   */
  connect() {
    this.#closing = false;
    this.#tries = 0;
    clearTimeout(this.#timer);
    const old = this.#socket;
    this.#socket = undefined;
    old?.close(1000, "bye");
    this.status = "closed";
    return new Promise((resolve, reject) => {
      const offSnapshot = this.on("snapshot", (frame) => {
        offSnapshot();
        offStatus();
        resolve(frame);
      });
      const offStatus = this.on("status", (status) => {
        if (status === "closed") {
          offSnapshot();
          offStatus();
          reject(new Error("the stream closed before its first snapshot"));
        }
      });
      this.#open();
    });
  }

  /** Opens a socket; a failure to (a bad address) is a failed try. */
  #open() {
    try {
      this.#openSocket();
    } catch (error) {
      this.#emit("error", error instanceof Error ? error : new Error(String(error)));
      this.#closed(1006, "the connection could not be opened");
    }
  }

  /** Closes the stream for good (the player keeps its seat). */
  close() {
    this.#closing = true;
    clearTimeout(this.#timer);
    this.#stopTicking();
    this.#socket?.close(1000, "bye");
    this.#setStatus("closed");
  }

  /**
   * Leaves the world: the seat is given up (when connected: false
   * otherwise, and the seat is kept), and the stream closes.
   * @returns {boolean}
   */
  leave() {
    const sent = this.#write({ leave: true });
    this.close();
    return sent;
  }

  /**
   * Presses a key (names as in `--input` files: `left`, `space`, `a`).
   * False when not connected.
   * @param {string} key
   * @returns {boolean}
   */
  press(key) {
    if (this.prediction?.ready && this.prediction.keys.includes(key) && !this.#pressed.has(key)) {
      this.prediction.held.add(key);
      return this.status === "open";
    }
    const sent = this.#write({ press: key });
    if (sent) this.#pressed.add(key);
    return sent;
  }

  /**
   * Releases a key.
   * @param {string} key
   * @returns {boolean}
   */
  release(key) {
    // A key pressed before the predictor was ready went as a press: it is
    // released as one.
    if (this.#pressed.delete(key) || !this.prediction?.ready || !this.prediction.keys.includes(key)) {
      return this.#write({ release: key });
    }
    this.prediction.held.delete(key);
    return this.status === "open";
  }

  /**
   * Sends a message on a channel the world opens to players. False when
   * not connected.
   * @param {string} channel
   * @param {string} payload
   * @returns {boolean}
   */
  send(channel, payload) {
    return this.#write({ send: { channel, payload } });
  }

  /**
   * Where to draw entity `id` now (between its last two states).
   * @param {number} id
   * @param {number} [now]
   * @returns {Pose | undefined}
   */
  pose(id, now = this.#now()) {
    return this.prediction?.pose(id) ?? this.table.pose(id, now);
  }

  /**
   * The entities the player sees, by id.
   * @returns {ReadonlyMap<number, Entity>}
   */
  get entities() {
    return this.table.all;
  }

  /**
   * @param {ClientMessage} message
   * @returns {boolean}
   */
  #write(message) {
    if (this.#socket?.readyState !== 1) return false;
    this.#socket.send(JSON.stringify(message));
    return true;
  }

  /** @param {Status} status */
  #setStatus(status) {
    if (this.status === status) return;
    if (status === "closed") this.#stopTicking();
    this.status = status;
    this.#emit("status", status);
  }

  /** @returns {string} */
  #url() {
    const base = new URL(this.#server);
    base.protocol = base.protocol === "https:" || base.protocol === "wss:" ? "wss:" : "ws:";
    base.pathname = `/worlds/${this.#options.world}/stream`;
    base.search = `?token=${encodeURIComponent(this.#options.token)}`;
    return base.toString();
  }

  #openSocket() {
    const Socket =
      this.#options.WebSocket ?? /** @type {{ WebSocket?: WebSocketConstructor }} */ (globalThis).WebSocket;
    if (Socket === undefined) {
      throw new Error("no WebSocket: give one in the options (Node before 22: run with --experimental-websocket)");
    }
    this.#setStatus(this.#shown ? "reconnecting" : "connecting");
    const protocols = (this.#options.format ?? "delta") === "delta" ? [DELTA_PROTOCOL] : [];
    const socket = new Socket(this.#url(), protocols);
    socket.binaryType = "arraybuffer";
    this.#socket = socket;
    socket.onmessage = (event) => {
      if (this.#socket === socket) this.#take(event.data);
    };
    socket.onclose = (event) => {
      if (this.#socket !== socket) return;
      this.#socket = undefined;
      this.#closed(event.code, event.reason);
    };
    // Some platforms (Node 20's) report a refused handshake as an error
    // with no close: it is a dropped connection all the same.
    socket.onerror = () => {
      if (this.#socket !== socket || socket.readyState === 1) return;
      this.#socket = undefined;
      this.#closed(1006, "the connection failed");
    };
  }

  /**
   * @param {number} code
   * @param {string} reason
   */
  #closed(code, reason) {
    if (this.#closing || this.status === "closed") return;
    // Only a stream that was open once is opened again, and not after a
    // normal close (the player left, was removed, or another client took
    // its seat); the world's end comes as `ended` first, which closes the
    // client.
    if (!this.#shown || code === 1000) {
      if (this.#shown) this.#emit("ended", reason || `closed (${code})`);
      this.#setStatus("closed");
      return;
    }
    const most = this.#options.maxReconnects ?? 30;
    if (this.#tries >= most) {
      this.#emit("error", new Error(`gave up after ${most} tries to reconnect: ${reason || code}`));
      this.#setStatus("closed");
      return;
    }
    const first = this.#options.reconnectDelayMs ?? 200;
    const delay = Math.min(first * 2 ** this.#tries, this.#options.maxReconnectDelayMs ?? 5000);
    this.#tries += 1;
    this.#setStatus("reconnecting");
    this.#timer = setTimeout(() => this.#open(), delay);
  }

  /** @param {unknown} raw */
  #take(raw) {
    /** @type {ServerMessage} */
    let message;
    try {
      if (typeof raw === "string") message = parseJson(raw);
      else if (raw instanceof ArrayBuffer) message = decodeDelta(new Uint8Array(raw), this.#precision);
      else throw new ProtocolError("a message is neither text nor binary");
    } catch (error) {
      this.#emit("error", error instanceof Error ? error : new Error(String(error)));
      // What could not be read may have held entities: the table is kept
      // until a fresh snapshot (from a new connection) replaces it.
      // (A first snapshot that cannot be read fails `connect()`.)
      if (typeof raw !== "string") this.#socket?.close(RESYNC, "resync");
      return;
    }
    this.#apply(message);
  }

  /**
   * Loads the world's predictor (once), and makes local frames at the
   * world's rate from then on.
   */
  #predict() {
    const prediction = /** @type {Prediction} */ (this.prediction);
    if (prediction.ready) return this.#startTicking();
    if (this.#loading) return;
    this.#loading = true;
    prediction.load(this.#server, this.#options.world).then(
      (loaded) => {
        // A world without a predictor: keys go as presses, as without.
        if (!loaded) return;
        this.#emit("predicting", prediction.script ?? "");
        this.#startTicking();
      },
      (error) => {
        this.#loading = false;
        this.#emit("error", error instanceof Error ? error : new Error(String(error)));
      },
    );
  }

  /** Local frames at the world's rate, while the stream is open. */
  #startTicking() {
    if (this.#ticker !== undefined || this.status !== "open") return;
    const prediction = /** @type {Prediction} */ (this.prediction);
    this.#ticks = { start: this.#now(), made: 0 };
    // Frames are counted from the clock, not the timer's calls (which a
    // browser delays): commands come at the world's rate on average.
    this.#ticker = setInterval(() => this.#tick(), 1000 / prediction.hz / 2);
  }

  #tick() {
    const prediction = /** @type {Prediction} */ (this.prediction);
    const due = Math.floor(((this.#now() - this.#ticks.start) * prediction.hz) / 1000);
    // After a long stall (a hidden tab), a few frames at most.
    if (due - this.#ticks.made > 5) this.#ticks.made = due - 5;
    while (this.#ticks.made < due) {
      this.#ticks.made += 1;
      prediction.frame(this.status === "open");
    }
  }

  #stopTicking() {
    clearInterval(this.#ticker);
    this.#ticker = undefined;
  }

  /** @param {Applied} applied */
  #applied(applied) {
    for (const id of applied.left) this.#emit("leave", id);
    for (const entity of applied.entered) this.#emit("enter", entity);
    for (const entity of applied.changed) this.#emit("change", entity);
  }

  /** @param {ServerMessage} message */
  #apply(message) {
    const now = this.#now();
    switch (message.kind) {
      case "snapshot": {
        this.player = message.player;
        this.frame = message.frame;
        if (message.precision > 0) this.#precision = message.precision;
        const applied = this.table.snapshot(message.entities, now);
        this.#shown = true;
        this.#tries = 0;
        this.#setStatus("open");
        this.#applied(applied);
        this.#emit("snapshot", message.frame);
        if (this.prediction !== undefined) {
          this.prediction.precision = this.#precision;
          this.prediction.resync();
          this.#predict();
        }
        break;
      }
      case "ack":
        this.prediction?.ack(message.seq);
        break;
      case "update":
        this.frame = Math.max(this.frame, message.frame);
        this.#applied(this.table.update(message.entered, message.changed, message.removed, now));
        break;
      case "message":
        this.frame = Math.max(this.frame, message.frame);
        this.#emit("message", message.channel, message.payload, message.frame);
        break;
      case "ended":
        this.#closing = true;
        this.#emit("ended", message.why);
        this.#setStatus("closed");
        break;
      case "restarting":
        // The server closes with a restart code next; a world that moves
        // names its new node.
        const follow = this.#options.followMoves ?? true;
        if (follow && message.reconnect !== undefined && /^(https?|wss?):\/\//.test(message.reconnect)) {
          this.#server = message.reconnect;
        }
        break;
      case "error":
        this.#emit("error", new Error(message.why));
        break;
    }
  }
}
