/**
 * The local table of the entities a player sees, kept from the snapshot
 * and the updates, with each entity's last two states for drawing between
 * them.
 */

import type { EntityChange, EntityData, EntityState, Quat, Vec3 } from "./protocol.js";

/** An entity in the table. */
export interface Entity extends EntityState {
  /** When its latest state arrived (the clock the client was given). */
  updatedAt: number;
}

/** An entity's pose for drawing, between its last two states. */
export interface Pose {
  position: Vec3;
  rotation: Quat;
  scale: Vec3;
}

interface Motion {
  from: Pose;
  to: Pose;
  start: number;
  duration: number;
}

function lerp(a: Vec3, b: Vec3, t: number): Vec3 {
  return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];
}

/** Normalised linear interpolation along the shorter arc. */
function nlerp(a: Quat, b: Quat, t: number): Quat {
  const dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
  const s = dot < 0 ? -1 : 1;
  const q: Quat = [
    a[0] + (s * b[0] - a[0]) * t,
    a[1] + (s * b[1] - a[1]) * t,
    a[2] + (s * b[2] - a[2]) * t,
    a[3] + (s * b[3] - a[3]) * t,
  ];
  const length = Math.hypot(q[0], q[1], q[2], q[3]) || 1;
  return [q[0] / length, q[1] / length, q[2] / length, q[3] / length];
}

function pose(e: Pose): Pose {
  return { position: e.position, rotation: e.rotation, scale: e.scale };
}

/** Longest a motion between two states is drawn over, in milliseconds. */
const MAX_INTERVAL = 250;

/** What one message did to the table. */
export interface Applied {
  entered: Entity[];
  changed: Entity[];
  left: number[];
}

export class EntityTable {
  private readonly entities = new Map<number, Entity>();
  private readonly motions = new Map<number, Motion>();

  /** The entities, by id. */
  get all(): ReadonlyMap<number, Entity> {
    return this.entities;
  }

  get(id: number): Entity | undefined {
    return this.entities.get(id);
  }

  get size(): number {
    return this.entities.size;
  }

  /** Replaces the table with a snapshot's entities. */
  snapshot(states: EntityState[], now: number): Applied {
    const applied: Applied = { entered: [], changed: [], left: [] };
    const ids = new Set(states.map((s) => s.id));
    for (const id of [...this.entities.keys()]) {
      if (!ids.has(id)) {
        this.entities.delete(id);
        this.motions.delete(id);
        applied.left.push(id);
      }
    }
    for (const state of states) {
      const had = this.entities.has(state.id);
      const entity = this.put(state, now);
      (had ? applied.changed : applied.entered).push(entity);
    }
    return applied;
  }

  /** Applies an update: entities entering whole, changes in part, ids gone. */
  update(entered: EntityState[], changed: EntityChange[], removed: number[], now: number): Applied {
    const applied: Applied = { entered: [], changed: [], left: [] };
    for (const id of removed) {
      if (this.entities.delete(id)) applied.left.push(id);
      this.motions.delete(id);
    }
    for (const state of entered) {
      const had = this.entities.has(state.id);
      const entity = this.put(state, now);
      (had ? applied.changed : applied.entered).push(entity);
    }
    for (const change of changed) {
      const old = this.entities.get(change.id);
      // A change to an entity the table does not hold cannot be drawn:
      // the next snapshot brings it whole.
      if (old === undefined) continue;
      const data: EntityData = change.data ?? old.data;
      const entity = this.put(
        {
          id: old.id,
          name: change.name ?? old.name,
          position: change.position ?? old.position,
          rotation: change.rotation ?? old.rotation,
          scale: change.scale ?? old.scale,
          data,
        },
        now,
      );
      applied.changed.push(entity);
    }
    return applied;
  }

  private put(state: EntityState, now: number): Entity {
    const old = this.entities.get(state.id);
    const entity: Entity = { ...state, updatedAt: now };
    if (old !== undefined) {
      // From where it is drawn now to the new state, over the time since
      // the last one.
      const from = this.pose(state.id, now) ?? pose(old);
      const duration = Math.min(Math.max(now - old.updatedAt, 0), MAX_INTERVAL);
      this.motions.set(state.id, { from, to: pose(state), start: now, duration });
    }
    this.entities.set(state.id, entity);
    return entity;
  }

  /**
   * Where to draw entity `id` at time `now`: moving from where it was drawn
   * when its latest state arrived to that state, over the time between its
   * last two updates (so drawing lags the stream by about one update).
   */
  pose(id: number, now: number): Pose | undefined {
    const entity = this.entities.get(id);
    if (entity === undefined) return undefined;
    const motion = this.motions.get(id);
    if (motion === undefined || motion.duration <= 0) return pose(entity);
    const t = Math.min(Math.max((now - motion.start) / motion.duration, 0), 1);
    if (t >= 1) return pose(entity);
    return {
      position: lerp(motion.from.position, motion.to.position, t),
      rotation: nlerp(motion.from.rotation, motion.to.rotation, t),
      scale: lerp(motion.from.scale, motion.to.scale, t),
    };
  }

  clear(): void {
    this.entities.clear();
    this.motions.clear();
  }
}
