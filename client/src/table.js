/**
 * The local table of the entities a player sees, kept from the snapshot
 * and the updates, with each entity's last two states for drawing between
 * them.
 */

/**
 * @typedef {import("./protocol.js").EntityChange} EntityChange
 * @typedef {import("./protocol.js").EntityState} EntityState
 * @typedef {import("./protocol.js").Quat} Quat
 * @typedef {import("./protocol.js").Vec3} Vec3
 */

/**
 * An entity in the table; `updatedAt` is when its latest state arrived
 * (on the clock the client was given).
 * @typedef {EntityState & { updatedAt: number }} Entity
 */

/**
 * An entity's pose for drawing, between its last two states.
 * @typedef {object} Pose
 * @property {Vec3} position
 * @property {Quat} rotation
 * @property {Vec3} scale
 */

/**
 * What one message did to the table.
 * @typedef {object} Applied
 * @property {Entity[]} entered
 * @property {Entity[]} changed
 * @property {number[]} left
 */

/** @typedef {{ from: Pose, to: Pose, start: number, duration: number }} Motion */

/**
 * @param {Vec3} a
 * @param {Vec3} b
 * @param {number} t
 * @returns {Vec3}
 */
function lerp(a, b, t) {
  return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];
}

/**
 * Normalised linear interpolation along the shorter arc.
 * @param {Quat} a
 * @param {Quat} b
 * @param {number} t
 * @returns {Quat}
 */
function nlerp(a, b, t) {
  const dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
  const s = dot < 0 ? -1 : 1;
  /** @type {Quat} */
  const q = [
    a[0] + (s * b[0] - a[0]) * t,
    a[1] + (s * b[1] - a[1]) * t,
    a[2] + (s * b[2] - a[2]) * t,
    a[3] + (s * b[3] - a[3]) * t,
  ];
  const length = Math.hypot(q[0], q[1], q[2], q[3]) || 1;
  return [q[0] / length, q[1] / length, q[2] / length, q[3] / length];
}

/**
 * @param {Pose} e
 * @returns {Pose}
 */
function pose(e) {
  return { position: e.position, rotation: e.rotation, scale: e.scale };
}

/** Longest a motion between two states is drawn over, in milliseconds. */
const MAX_INTERVAL = 250;

export class EntityTable {
  /** @type {Map<number, Entity>} */
  #entities = new Map();
  /** @type {Map<number, Motion>} */
  #motions = new Map();

  /**
   * The entities, by id.
   * @returns {ReadonlyMap<number, Entity>}
   */
  get all() {
    return this.#entities;
  }

  /**
   * @param {number} id
   * @returns {Entity | undefined}
   */
  get(id) {
    return this.#entities.get(id);
  }

  /** @returns {number} */
  get size() {
    return this.#entities.size;
  }

  /**
   * Replaces the table with a snapshot's entities.
   * @param {EntityState[]} states
   * @param {number} now
   * @returns {Applied}
   */
  snapshot(states, now) {
    /** @type {Applied} */
    const applied = { entered: [], changed: [], left: [] };
    const ids = new Set(states.map((s) => s.id));
    for (const id of [...this.#entities.keys()]) {
      if (!ids.has(id)) {
        this.#entities.delete(id);
        this.#motions.delete(id);
        applied.left.push(id);
      }
    }
    for (const state of states) {
      const had = this.#entities.has(state.id);
      const entity = this.#put(state, now);
      (had ? applied.changed : applied.entered).push(entity);
    }
    return applied;
  }

  /**
   * Applies an update: entities entering whole, changes in part, ids gone.
   * @param {EntityState[]} entered
   * @param {EntityChange[]} changed
   * @param {number[]} removed
   * @param {number} now
   * @returns {Applied}
   */
  update(entered, changed, removed, now) {
    /** @type {Applied} */
    const applied = { entered: [], changed: [], left: [] };
    for (const id of removed) {
      if (this.#entities.delete(id)) applied.left.push(id);
      this.#motions.delete(id);
    }
    for (const state of entered) {
      const had = this.#entities.has(state.id);
      const entity = this.#put(state, now);
      (had ? applied.changed : applied.entered).push(entity);
    }
    for (const change of changed) {
      const old = this.#entities.get(change.id);
      // A change to an entity the table does not hold cannot be drawn:
      // the next snapshot brings it whole.
      if (old === undefined) continue;
      const entity = this.#put(
        {
          id: old.id,
          name: change.name ?? old.name,
          position: change.position ?? old.position,
          rotation: change.rotation ?? old.rotation,
          scale: change.scale ?? old.scale,
          data: change.data ?? old.data,
        },
        now,
      );
      applied.changed.push(entity);
    }
    return applied;
  }

  /**
   * @param {EntityState} state
   * @param {number} now
   * @returns {Entity}
   */
  #put(state, now) {
    const old = this.#entities.get(state.id);
    /** @type {Entity} */
    const entity = { ...state, updatedAt: now };
    if (old !== undefined) {
      // From where it is drawn now to the new state, over the time since
      // the last one.
      const from = this.pose(state.id, now) ?? pose(old);
      const duration = Math.min(Math.max(now - old.updatedAt, 0), MAX_INTERVAL);
      this.#motions.set(state.id, { from, to: pose(state), start: now, duration });
    }
    this.#entities.set(state.id, entity);
    return entity;
  }

  /**
   * Where to draw entity `id` at time `now`: moving from where it was drawn
   * when its latest state arrived to that state, over the time between its
   * last two updates (so drawing lags the stream by about one update).
   * @param {number} id
   * @param {number} now
   * @returns {Pose | undefined}
   */
  pose(id, now) {
    const entity = this.#entities.get(id);
    if (entity === undefined) return undefined;
    const motion = this.#motions.get(id);
    if (motion === undefined || motion.duration <= 0) return pose(entity);
    const t = Math.min(Math.max((now - motion.start) / motion.duration, 0), 1);
    if (t >= 1) return pose(entity);
    return {
      position: lerp(motion.from.position, motion.to.position, t),
      rotation: nlerp(motion.from.rotation, motion.to.rotation, t),
      scale: lerp(motion.from.scale, motion.to.scale, t),
    };
  }

  clear() {
    this.#entities.clear();
    this.#motions.clear();
  }
}
