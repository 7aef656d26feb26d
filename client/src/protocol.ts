/**
 * What a world's stream says, decoded from either form (JSON text, or the
 * binary deltas of the `game-host.delta` subprotocol), and what a client
 * sends it.
 */

/** A vector, `[x, y, z]`. */
export type Vec3 = [number, number, number];
/** A rotation quaternion, `[x, y, z, w]`. */
export type Quat = [number, number, number, number];

/** A field of a replicated component. */
export type FieldValue = number | boolean | string | number[];

/** An entity's replicated components: `{ Health: { hp: 3 } }`. */
export type EntityData = Record<string, Record<string, FieldValue>>;

/** An entity as the stream sends it. */
export interface EntityState {
  id: number;
  name: string;
  position: Vec3;
  rotation: Quat;
  scale: Vec3;
  data: EntityData;
}

/** Part of an entity: only what changed (a binary update). */
export interface EntityChange {
  id: number;
  name?: string;
  position?: Vec3;
  rotation?: Quat;
  scale?: Vec3;
  data?: EntityData;
}

/** One message from the server. */
export type ServerMessage =
  | { kind: "snapshot"; frame: number; player: number; precision: number; entities: EntityState[] }
  | {
      kind: "update";
      frame: number;
      /** Entities that came into view, whole. */
      entered: EntityState[];
      /** Entities in view that changed, in part. */
      changed: EntityChange[];
      removed: number[];
    }
  | { kind: "message"; frame: number; channel: string; payload: string }
  | { kind: "ended"; frame: number; why: string }
  | { kind: "restarting"; frame: number; why: string; reconnect?: string }
  | { kind: "error"; why: string };

/** The subprotocol that asks for binary deltas. */
export const DELTA_PROTOCOL = "game-host.delta";

/** A malformed or unknown message. */
export class ProtocolError extends Error {}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function numbers(v: unknown, length: number, what: string): number[] {
  if (!Array.isArray(v) || v.length !== length || !v.every((x) => typeof x === "number")) {
    throw new ProtocolError(`${what} is not ${length} numbers`);
  }
  return v as number[];
}

function int(v: unknown, what: string): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0) {
    throw new ProtocolError(`${what} is not a whole number`);
  }
  return v;
}

function str(v: unknown, what: string): string {
  if (typeof v !== "string") throw new ProtocolError(`${what} is not text`);
  return v;
}

function data(v: unknown): EntityData {
  if (v === undefined) return {};
  if (!isObject(v)) throw new ProtocolError("an entity's data is not an object");
  const out: EntityData = {};
  for (const [component, fields] of Object.entries(v)) {
    if (!isObject(fields)) throw new ProtocolError(`component ${component} is not an object`);
    out[component] = fields as Record<string, FieldValue>;
  }
  return out;
}

function entity(v: unknown): EntityState {
  if (!isObject(v)) throw new ProtocolError("an entity is not an object");
  return {
    id: int(v.id, "an entity's id"),
    name: str(v.name, "an entity's name"),
    position: numbers(v.position, 3, "a position") as Vec3,
    rotation: numbers(v.rotation, 4, "a rotation") as Quat,
    scale: numbers(v.scale, 3, "a scale") as Vec3,
    data: data(v.data),
  };
}

/** A JSON text message, checked. Throws a {@link ProtocolError}. */
export function parseJson(text: string): ServerMessage {
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch {
    throw new ProtocolError("a message is not JSON");
  }
  if (!isObject(m)) throw new ProtocolError("a message is not an object");
  const frame = m.frame === undefined ? 0 : int(m.frame, "frame");
  if (Array.isArray(m.entities)) {
    return {
      kind: "snapshot",
      frame,
      player: int(m.player, "player"),
      precision: typeof m.precision === "number" ? m.precision : 0,
      entities: m.entities.map(entity),
    };
  }
  if (m.changed !== undefined || m.removed !== undefined) {
    const changed = m.changed === undefined ? [] : m.changed;
    const removed = m.removed === undefined ? [] : m.removed;
    if (!Array.isArray(changed) || !Array.isArray(removed)) {
      throw new ProtocolError("an update's changed or removed is not a list");
    }
    // JSON sends changed entities whole: they enter (or replace) the table.
    return { kind: "update", frame, entered: changed.map(entity), changed: [], removed: removed.map((id) => int(id, "a removed id")) };
  }
  if (m.message !== undefined) {
    if (!isObject(m.message)) throw new ProtocolError("a message's body is not an object");
    return { kind: "message", frame, channel: str(m.message.channel, "channel"), payload: str(m.message.payload, "payload") };
  }
  if (m.ended !== undefined) return { kind: "ended", frame, why: str(m.ended, "ended") };
  if (m.restarting !== undefined) {
    const reconnect = m.reconnect === undefined ? undefined : str(m.reconnect, "reconnect");
    return { kind: "restarting", frame, why: str(m.restarting, "restarting"), reconnect };
  }
  if (m.error !== undefined) return { kind: "error", why: str(m.error, "error") };
  throw new ProtocolError(`an unknown message: ${text.slice(0, 80)}`);
}

/** What a client sends: a key pressed or released (names as in `--input` files), a message, or leaving. */
export type ClientMessage =
  | { press: string }
  | { release: string }
  | { send: { channel: string; payload: string } }
  | { leave: true };
