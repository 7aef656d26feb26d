/**
 * {@link GameClient}: one player's connection to a world's stream, kept
 * open across dropped connections, with the local table of what the player
 * sees.
 */

import { decodeDelta } from "./delta.js";
import { type ClientMessage, DELTA_PROTOCOL, parseJson, ProtocolError, type ServerMessage } from "./protocol.js";
import { type Applied, type Entity, EntityTable, type Pose } from "./table.js";

/** How the client takes the stream. */
export type Format = "delta" | "json";

/** Where the connection stands. */
export type Status = "connecting" | "open" | "reconnecting" | "closed";

/** A WebSocket constructor (the platform's, or one given). */
export type WebSocketConstructor = new (url: string, protocols?: string | string[]) => WebSocket;

export interface GameClientOptions {
  /** The server: `http://HOST:PORT` (or `https:`, `ws:`, `wss:`). */
  server: string;
  /** The world's id. */
  world: number;
  /** The player's token, as the server admitted it (`POST /worlds/ID/players`). */
  token: string;
  /** `"delta"` (compact binary, the default) or `"json"`. */
  format?: Format;
  /** A WebSocket constructor, where the platform has none. */
  WebSocket?: WebSocketConstructor;
  /** Milliseconds before the first reconnection try (200); each failed try doubles it... */
  reconnectDelayMs?: number;
  /** ...up to this (5000). */
  maxReconnectDelayMs?: number;
  /** Tries in a row before the client gives up (30). */
  maxReconnects?: number;
  /** The clock for interpolation, in milliseconds (`performance.now`). */
  now?: () => number;
}

/** The client's events and their handlers' arguments. */
export interface GameClientEvents {
  /** A snapshot replaced the table (first, and after each reconnection). */
  snapshot: [frame: number];
  /** An entity came into the player's view. */
  enter: [entity: Entity];
  /** An entity in view changed. */
  change: [entity: Entity];
  /** An entity left the view, or was despawned. */
  leave: [id: number];
  /** A script's message to this player, or to all. */
  message: [channel: string, payload: string, frame: number];
  /** A malformed or unknown message (the table is kept), or input the server refused. */
  error: [error: Error];
  status: [status: Status];
  /** The world ended, or the player is no longer in it. */
  ended: [why: string];
}

type Handler<K extends keyof GameClientEvents> = (...args: GameClientEvents[K]) => void;

/** Close codes after which the client tries again. */
const RETRY = new Set([1006, 1008, 1011, 1012, 1013, 1014]);

export class GameClient {
  /** The entities the player sees. */
  readonly table = new EntityTable();
  /** The player's id (from the first snapshot). */
  player: number | undefined;
  /** The latest frame heard of. */
  frame = 0;
  status: Status = "closed";

  private server: string;
  private readonly options: GameClientOptions;
  private readonly handlers: { [K in keyof GameClientEvents]?: Handler<K>[] } = {};
  private socket: WebSocket | undefined;
  private precision = 0.001;
  private tries = 0;
  private shown = false;
  private closing = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly now: () => number;

  constructor(options: GameClientOptions) {
    this.options = options;
    this.server = options.server;
    this.now = options.now ?? (() => performance.now());
  }

  /** Adds a handler for `event`; returns what removes it. */
  on<K extends keyof GameClientEvents>(event: K, handler: Handler<K>): () => void {
    const list = (this.handlers[event] ??= []) as Handler<K>[];
    list.push(handler);
    return () => {
      const at = list.indexOf(handler);
      if (at >= 0) list.splice(at, 1);
    };
  }

  private emit<K extends keyof GameClientEvents>(event: K, ...args: GameClientEvents[K]): void {
    for (const handler of (this.handlers[event] ?? []) as Handler<K>[]) handler(...args);
  }

  /**
   * Connects; resolves with the first snapshot's frame. Rejects if the
   * first connection closes before one (a wrong token, a world that
   * ended). From then on a dropped connection is opened again with the
   * token, and the table is made right by the snapshot that follows.
   */
  connect(): Promise<number> {
    this.closing = false;
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
      this.open();
    });
  }

  /** Closes the stream for good (the player keeps its seat). */
  close(): void {
    this.closing = true;
    clearTimeout(this.timer);
    this.socket?.close(1000, "bye");
    this.setStatus("closed");
  }

  /** Leaves the world: the seat is given up, and the stream closes. */
  leave(): void {
    this.write({ leave: true });
    this.close();
  }

  /** Presses a key (names as in `--input` files: `left`, `space`, `a`). False when not connected. */
  press(key: string): boolean {
    return this.write({ press: key });
  }

  /** Releases a key. */
  release(key: string): boolean {
    return this.write({ release: key });
  }

  /** Sends a message on a channel the world opens to players. False when not connected. */
  send(channel: string, payload: string): boolean {
    return this.write({ send: { channel, payload } });
  }

  /** Where to draw entity `id` now (between its last two states). */
  pose(id: number, now: number = this.now()): Pose | undefined {
    return this.table.pose(id, now);
  }

  /** The entities the player sees, by id. */
  get entities(): ReadonlyMap<number, Entity> {
    return this.table.all;
  }

  private write(message: ClientMessage): boolean {
    if (this.socket?.readyState !== 1) return false;
    this.socket.send(JSON.stringify(message));
    return true;
  }

  private setStatus(status: Status): void {
    if (this.status === status) return;
    this.status = status;
    this.emit("status", status);
  }

  private url(): string {
    const base = new URL(this.server);
    base.protocol = base.protocol === "https:" || base.protocol === "wss:" ? "wss:" : "ws:";
    base.pathname = `/worlds/${this.options.world}/stream`;
    base.search = `?token=${encodeURIComponent(this.options.token)}`;
    return base.toString();
  }

  private open(): void {
    const Socket = this.options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (Socket === undefined) throw new Error("no WebSocket: give one in the options (Node before 22: run with --experimental-websocket)");
    this.setStatus(this.shown ? "reconnecting" : "connecting");
    const protocols = (this.options.format ?? "delta") === "delta" ? [DELTA_PROTOCOL] : [];
    const socket = new Socket(this.url(), protocols);
    socket.binaryType = "arraybuffer";
    this.socket = socket;
    socket.onmessage = (event: MessageEvent) => this.take(event.data);
    socket.onclose = (event: CloseEvent) => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      this.closed(event.code, event.reason);
    };
    // Some platforms (Node 20's) report a refused handshake as an error
    // with no close: it is a dropped connection all the same.
    socket.onerror = () => {
      if (this.socket !== socket || socket.readyState === 1) return;
      this.socket = undefined;
      this.closed(1006, "the connection failed");
    };
  }

  private closed(code: number, reason: string): void {
    if (this.closing || this.status === "closed") return;
    // Only a stream that was open once is opened again, and only when the
    // server or the network dropped it (not when the world ended, the
    // player left, or another client took the seat).
    if (!this.shown || !RETRY.has(code) || this.tries >= (this.options.maxReconnects ?? 30)) {
      if (this.shown && !RETRY.has(code)) this.emit("ended", reason || `closed (${code})`);
      this.setStatus("closed");
      return;
    }
    const first = this.options.reconnectDelayMs ?? 200;
    const delay = Math.min(first * 2 ** this.tries, this.options.maxReconnectDelayMs ?? 5000);
    this.tries += 1;
    this.setStatus("reconnecting");
    this.timer = setTimeout(() => this.open(), delay);
  }

  private take(raw: unknown): void {
    let message: ServerMessage;
    try {
      if (typeof raw === "string") message = parseJson(raw);
      else if (raw instanceof ArrayBuffer) message = decodeDelta(new Uint8Array(raw), this.precision);
      else throw new ProtocolError("a message is neither text nor binary");
    } catch (error) {
      this.emit("error", error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.apply(message);
  }

  private applied(applied: Applied): void {
    for (const id of applied.left) this.emit("leave", id);
    for (const entity of applied.entered) this.emit("enter", entity);
    for (const entity of applied.changed) this.emit("change", entity);
  }

  private apply(message: ServerMessage): void {
    const now = this.now();
    switch (message.kind) {
      case "snapshot":
        this.player = message.player;
        this.frame = message.frame;
        if (message.precision > 0) this.precision = message.precision;
        this.applied(this.table.snapshot(message.entities, now));
        this.shown = true;
        this.tries = 0;
        this.setStatus("open");
        this.emit("snapshot", message.frame);
        break;
      case "update":
        this.frame = Math.max(this.frame, message.frame);
        this.applied(this.table.update(message.entered, message.changed, message.removed, now));
        break;
      case "message":
        this.frame = Math.max(this.frame, message.frame);
        this.emit("message", message.channel, message.payload, message.frame);
        break;
      case "ended":
        this.closing = true;
        this.emit("ended", message.why);
        this.setStatus("closed");
        break;
      case "restarting":
        // The server closes with a restart code next; a world that moves
        // names its new node.
        if (message.reconnect !== undefined) this.server = message.reconnect;
        break;
      case "error":
        this.emit("error", new Error(message.why));
        break;
    }
  }
}
