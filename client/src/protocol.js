/**
 * What a world's stream says, decoded from either form (JSON text, or the
 * binary deltas of the `game-host.delta` subprotocol), and what a client
 * sends it.
 */

/** @typedef {[number, number, number]} Vec3 A vector, `[x, y, z]`. */
/** @typedef {[number, number, number, number]} Quat A rotation quaternion, `[x, y, z, w]`. */
/** @typedef {number | boolean | string | number[]} FieldValue A field of a replicated component. */
/** @typedef {Record<string, Record<string, FieldValue>>} EntityData An entity's replicated components: `{ Health: { hp: 3 } }`. */

/**
 * An entity as the stream sends it.
 * @typedef {object} EntityState
 * @property {number} id
 * @property {string} name
 * @property {Vec3} position
 * @property {Quat} rotation
 * @property {Vec3} scale
 * @property {EntityData} data
 */

/**
 * Part of an entity: only what changed (a binary update).
 * @typedef {object} EntityChange
 * @property {number} id
 * @property {string} [name]
 * @property {Vec3} [position]
 * @property {Quat} [rotation]
 * @property {Vec3} [scale]
 * @property {EntityData} [data]
 */

/**
 * One message from the server. An update's `entered` are entities that
 * came into view, whole; its `changed` are entities in view that changed,
 * in part.
 * @typedef {{ kind: "snapshot", frame: number, player: number, precision: number, entities: EntityState[] }
 *   | { kind: "update", frame: number, entered: EntityState[], changed: EntityChange[], removed: number[] }
 *   | { kind: "message", frame: number, channel: string, payload: string }
 *   | { kind: "ended", frame: number, why: string }
 *   | { kind: "restarting", frame: number, why: string, reconnect?: string }
 *   | { kind: "error", why: string }
 *   | { kind: "ack", frame: number, seq: number }} ServerMessage
 */

/**
 * A numbered command: the keys held in one of the client's frames.
 * @typedef {object} Command
 * @property {number} seq
 * @property {string[]} held
 */

/**
 * What a client sends: a key pressed or released (names as in `--input`
 * files), a message, leaving, or a predicting client's commands.
 * @typedef {{ press: string } | { release: string } | { send: { channel: string, payload: string } } | { leave: true } | { commands: Command[] }} ClientMessage
 */

/** The subprotocol that asks for binary deltas. */
export const DELTA_PROTOCOL = "game-host.delta";

/** A malformed or unknown message. */
export class ProtocolError extends Error {}

/**
 * @param {unknown} v
 * @returns {v is Record<string, unknown>}
 */
function isObject(v) {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * @param {unknown} v
 * @param {number} length
 * @param {string} what
 * @returns {number[]}
 */
function numbers(v, length, what) {
  if (!Array.isArray(v) || v.length !== length || !v.every((x) => typeof x === "number")) {
    throw new ProtocolError(`${what} is not ${length} numbers`);
  }
  return v;
}

/**
 * @param {unknown} v
 * @param {string} what
 * @returns {number}
 */
function int(v, what) {
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0) {
    throw new ProtocolError(`${what} is not a whole number`);
  }
  return v;
}

/**
 * @param {unknown} v
 * @param {string} what
 * @returns {string}
 */
function str(v, what) {
  if (typeof v !== "string") throw new ProtocolError(`${what} is not text`);
  return v;
}

/**
 * @param {unknown} v
 * @returns {EntityData}
 */
function data(v) {
  if (v === undefined) return {};
  if (!isObject(v)) throw new ProtocolError("an entity's data is not an object");
  // No prototype: a component named `__proto__` is a component.
  /** @type {EntityData} */
  const out = Object.create(null);
  for (const [component, fields] of Object.entries(v)) {
    if (!isObject(fields)) throw new ProtocolError(`component ${component} is not an object`);
    out[component] = /** @type {Record<string, FieldValue>} */ (fields);
  }
  return out;
}

/**
 * @param {unknown} v
 * @returns {EntityState}
 */
function entity(v) {
  if (!isObject(v)) throw new ProtocolError("an entity is not an object");
  return {
    id: int(v.id, "an entity's id"),
    name: str(v.name, "an entity's name"),
    position: /** @type {Vec3} */ (numbers(v.position, 3, "a position")),
    rotation: /** @type {Quat} */ (numbers(v.rotation, 4, "a rotation")),
    scale: /** @type {Vec3} */ (numbers(v.scale, 3, "a scale")),
    data: data(v.data),
  };
}

/**
 * A JSON text message, checked. Throws a {@link ProtocolError}.
 * @param {string} text
 * @returns {ServerMessage}
 */
export function parseJson(text) {
  /** @type {unknown} */
  let m;
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
    return {
      kind: "update",
      frame,
      entered: changed.map(entity),
      changed: [],
      removed: removed.map((id) => int(id, "a removed id")),
    };
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
  if (m.ack !== undefined) return { kind: "ack", frame, seq: int(m.ack, "ack") };
  throw new ProtocolError(`an unknown message: ${text.slice(0, 80)}`);
}
