/**
 * The binary form of the stream (the `game-host.delta` subprotocol):
 * postcard's wire format, as the server's `stream/delta.rs` writes it.
 * Integers are LEB128 varints (zigzag for signed ones), strings and lists
 * carry a varint length, enums a varint tag, floats are little-endian, and
 * a `u8` is one byte. Positions come in steps of the snapshot's
 * `precision`, scales in steps of {@link SCALE_STEP}, rotations as their
 * smallest three components.
 */

import { ProtocolError } from "./protocol.js";

/**
 * @typedef {import("./protocol.js").EntityChange} EntityChange
 * @typedef {import("./protocol.js").EntityData} EntityData
 * @typedef {import("./protocol.js").EntityState} EntityState
 * @typedef {import("./protocol.js").FieldValue} FieldValue
 * @typedef {import("./protocol.js").Quat} Quat
 * @typedef {import("./protocol.js").ServerMessage} ServerMessage
 * @typedef {import("./protocol.js").Vec3} Vec3
 */

/** Bits of each kept rotation component. */
export const ROTATION_BITS = 12;

/** The step scales come in, whatever the world's precision. */
export const SCALE_STEP = 0.001;

const POSITION = 1;
const ROTATION = 2;
const SCALE = 4;
const NAME = 8;
const DATA = 16;

const text = new TextDecoder("utf-8", { fatal: true });

class Reader {
  #at = 0;
  #bytes;
  #view;

  /** @param {Uint8Array} bytes */
  constructor(bytes) {
    this.#bytes = bytes;
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** @param {number} n */
  #need(n) {
    if (this.#at + n > this.#bytes.length) throw new ProtocolError("a binary message ends early");
  }

  /**
   * An unsigned varint, as a number: exact up to 2^53, rounded beyond (a
   * 64-bit field's value past that is still a value).
   * @returns {number}
   */
  varint() {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      this.#need(1);
      const byte = /** @type {number} */ (this.#bytes[this.#at++]);
      value += (byte & 0x7f) * scale;
      if ((byte & 0x80) === 0) return value;
      scale *= 128;
    }
    throw new ProtocolError("a varint is too long");
  }

  /**
   * A zigzag varint.
   * @returns {number}
   */
  signed() {
    const n = this.varint();
    // Past 2^53 the low bit is lost: the sign goes with it, the size not.
    if (n > Number.MAX_SAFE_INTEGER) return n / 2;
    return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
  }

  /** @returns {number} */
  byte() {
    this.#need(1);
    return /** @type {number} */ (this.#bytes[this.#at++]);
  }

  /** @returns {number} */
  f32() {
    this.#need(4);
    const v = this.#view.getFloat32(this.#at, true);
    this.#at += 4;
    return v;
  }

  /** @returns {number} */
  f64() {
    this.#need(8);
    const v = this.#view.getFloat64(this.#at, true);
    this.#at += 8;
    return v;
  }

  /** @returns {string} */
  string() {
    const length = this.varint();
    this.#need(length);
    const bytes = this.#bytes.subarray(this.#at, this.#at + length);
    this.#at += length;
    try {
      return text.decode(bytes);
    } catch {
      throw new ProtocolError("a string is not UTF-8");
    }
  }

  /**
   * @template T
   * @param {() => T} item
   * @returns {T[]}
   */
  list(item) {
    const length = this.varint();
    // Each item takes a byte at least: a length past the rest is a lie.
    this.#need(length);
    /** @type {T[]} */
    const out = [];
    for (let i = 0; i < length; i++) out.push(item());
    return out;
  }

  done() {
    if (this.#at !== this.#bytes.length) throw new ProtocolError("a binary message has bytes left over");
  }
}

/**
 * A packed rotation, unpacked (see the server's `delta.rs`).
 * @param {number} packed
 * @returns {Quat}
 */
export function unpackRotation(packed) {
  const largest = packed % 4;
  const top = 2 ** ROTATION_BITS - 2;
  /** @type {Quat} */
  const q = [0, 0, 0, 0];
  let rest = Math.floor(packed / 4);
  let sum = 0;
  for (let i = 0; i < 4; i++) {
    if (i === largest) continue;
    const step = Math.min(rest % 2 ** ROTATION_BITS, top);
    rest = Math.floor(rest / 2 ** ROTATION_BITS);
    const c = ((step / top) * 2 - 1) / Math.SQRT2;
    q[i] = c;
    sum += c * c;
  }
  q[largest] = Math.sqrt(Math.max(0, 1 - sum));
  // Hostile bits may not make a unit quaternion: make it one.
  const length = Math.hypot(q[0], q[1], q[2], q[3]);
  return [q[0] / length, q[1] / length, q[2] / length, q[3] / length];
}

/**
 * @param {Reader} r
 * @param {number} step
 * @returns {Vec3}
 */
function vec3(r, step) {
  return [r.signed() * step, r.signed() * step, r.signed() * step];
}

/**
 * @param {Reader} r
 * @returns {FieldValue}
 */
function value(r) {
  const tag = r.varint();
  switch (tag) {
    case 0:
      return r.f64();
    case 1:
      return r.signed();
    case 2: {
      const b = r.byte();
      if (b > 1) throw new ProtocolError("a boolean is not 0 or 1");
      return b === 1;
    }
    case 3:
      return r.string();
    case 4:
      return [r.f32(), r.f32(), r.f32()];
    case 5:
      return [r.f32(), r.f32(), r.f32(), r.f32()];
    case 6:
      return r.list(() => r.f64());
    default:
      throw new ProtocolError(`an unknown value kind ${tag}`);
  }
}

/**
 * @param {Reader} r
 * @returns {EntityData}
 */
function data(r) {
  // No prototype: a component named `__proto__` is a component.
  /** @type {EntityData} */
  const out = Object.create(null);
  for (const [component, fields] of r.list(() => /** @type {const} */ ([r.string(), r.list(() => /** @type {const} */ ([r.string(), value(r)]))]))) {
    out[component] = Object.fromEntries(fields);
  }
  return out;
}

/**
 * @param {Reader} r
 * @param {number} precision
 * @returns {EntityState}
 */
function whole(r, precision) {
  const id = r.varint();
  const name = r.string();
  const position = vec3(r, precision);
  const rotation = unpackRotation(r.varint());
  const scale = vec3(r, SCALE_STEP);
  return { id, name, position, rotation, scale, data: data(r) };
}

/**
 * @param {Reader} r
 * @param {number} precision
 * @returns {EntityChange}
 */
function change(r, precision) {
  /** @type {EntityChange} */
  const out = { id: r.varint() };
  const mask = r.byte();
  if (mask & ~(POSITION | ROTATION | SCALE | NAME | DATA)) throw new ProtocolError(`an unknown change mask ${mask}`);
  if (mask & POSITION) out.position = vec3(r, precision);
  if (mask & ROTATION) out.rotation = unpackRotation(r.varint());
  if (mask & SCALE) out.scale = vec3(r, SCALE_STEP);
  if (mask & NAME) out.name = r.string();
  if (mask & DATA) out.data = data(r);
  return out;
}

/**
 * One binary message, checked; positions in steps of `precision` (the
 * snapshot's, which carries its own). Throws a {@link ProtocolError}.
 * @param {Uint8Array} bytes
 * @param {number} precision
 * @returns {ServerMessage}
 */
export function decodeDelta(bytes, precision) {
  const r = new Reader(bytes);
  const tag = r.varint();
  /** @type {ServerMessage} */
  let message;
  switch (tag) {
    case 0: {
      const frame = r.varint();
      const player = r.varint();
      const step = r.f32();
      if (!(step > 0) || !Number.isFinite(step)) throw new ProtocolError("a snapshot's precision is not positive");
      message = { kind: "snapshot", frame, player, precision: step, entities: r.list(() => whole(r, step)) };
      break;
    }
    case 1: {
      const frame = r.varint();
      const entered = r.list(() => whole(r, precision));
      const changed = r.list(() => change(r, precision));
      const removed = r.list(() => r.varint());
      message = { kind: "update", frame, entered, changed, removed };
      break;
    }
    case 2:
      message = { kind: "message", frame: r.varint(), channel: r.string(), payload: r.string() };
      break;
    case 3:
      message = { kind: "ended", frame: r.varint(), why: r.string() };
      break;
    case 4: {
      const frame = r.varint();
      const why = r.string();
      const some = r.byte();
      if (some > 1) throw new ProtocolError("an option is not 0 or 1");
      const reconnect = some === 1 ? r.string() : undefined;
      message = { kind: "restarting", frame, why, reconnect };
      break;
    }
    case 5:
      message = { kind: "error", why: r.string() };
      break;
    case 6:
      message = { kind: "ack", frame: r.varint(), seq: r.varint() };
      break;
    default:
      throw new ProtocolError(`an unknown binary message kind ${tag}`);
  }
  r.done();
  return message;
}
