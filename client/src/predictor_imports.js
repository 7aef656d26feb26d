/**
 * The browser's side of world `predictor` (`game:engine@0.2.6`): the
 * imports a predictor's component gets from the client library, over the
 * entities the player sees, instead of the host's. The same component runs
 * on the server as an ordinary script; here what it may touch is only what
 * its world imports, and the WASI a Rust script's standard library needs
 * (the host's `BROWSER_WASI`): stdout and stderr to the console, an empty
 * environment, and a fixed clock and seed (the host's are deterministic).
 *
 * The imports take the shapes jco's `transpile --instantiation async`
 * gives them: interfaces by name without version, records as objects,
 * `u64` as BigInt, enums as strings, resources as classes.
 */

/**
 * @typedef {import("./protocol.js").Vec3} Vec3
 * @typedef {import("./protocol.js").Quat} Quat
 * @typedef {{ x: number, y: number, z: number }} WitVec3
 * @typedef {{ x: number, y: number, z: number, w: number }} WitQuat
 */

/**
 * What the imports read and write: the predicted entities, found by id or
 * name, the frame being predicted and its commands.
 * @typedef {object} PredictorWorld
 * @property {(id: number) => { position: Vec3, rotation: Quat, scale: Vec3 } | undefined} get An entity's pose (predicted, or as the server last sent it).
 * @property {(id: number, pose: { position?: Vec3, rotation?: Quat, scale?: Vec3 }) => void} set Writes an entity's predicted pose.
 * @property {(name: string) => number | undefined} find An entity the player sees, by name.
 * @property {() => Array<{ player: bigint, commands: Array<{ seq: bigint, held: string[] }> }>} commands The frame's commands.
 * @property {() => { frame: bigint, deltaTime: number, time: number }} clock The frame's clock.
 * @property {(level: string, message: string) => void} log A log line.
 */

/**
 * A trap: what a predictor may not do in the browser.
 * @param {string} what
 * @returns {never}
 */
function refused(what) {
  throw new Error(`a predictor cannot ${what} in the browser`);
}

/**
 * @param {Vec3} v
 * @returns {WitVec3}
 */
const vec = (v) => ({ x: v[0], y: v[1], z: v[2] });
/**
 * @param {Quat} q
 * @returns {WitQuat}
 */
const quat = (q) => ({ x: q[0], y: q[1], z: q[2], w: q[3] });
/**
 * @param {WitVec3} v
 * @returns {Vec3}
 */
const unvec = (v) => [Math.fround(v.x), Math.fround(v.y), Math.fround(v.z)];
/**
 * @param {WitQuat} q
 * @returns {Quat}
 */
const unquat = (q) => [Math.fround(q.x), Math.fround(q.y), Math.fround(q.z), Math.fround(q.w)];

/**
 * The imports for a predictor over `world`, and what applies its
 * `relative` moves after each call (the host applies them after the
 * frame's calls, summed per entity).
 * @param {PredictorWorld} world
 * @returns {{ imports: Record<string, Record<string, unknown>>, settle: () => void }}
 */
export function predictorImports(world) {
  /** @param {number} id */
  const pose = (id) => world.get(id) ?? refused(`reach entity ${id}, which the player does not see`);
  /** @type {Map<number, Vec3>} */
  const moves = new Map();

  class TransformComponent {
    #id;
    /** @param {number} id */
    constructor(id) {
      this.#id = id;
    }
    id() {
      return this.#id;
    }
    name() {
      return refused("read an entity's name");
    }
    position() {
      return vec(pose(this.#id).position);
    }
    /** @param {WitVec3} p */
    setPosition(p) {
      world.set(this.#id, { position: unvec(p) });
    }
    rotation() {
      return quat(pose(this.#id).rotation);
    }
    /** @param {WitQuat} q */
    setRotation(q) {
      world.set(this.#id, { rotation: unquat(q) });
    }
    scale() {
      return vec(pose(this.#id).scale);
    }
    /** @param {WitVec3} s */
    setScale(s) {
      world.set(this.#id, { scale: unvec(s) });
    }
    /**
     * @param {WitVec3} p
     * @param {WitQuat} q
     * @param {WitVec3} s
     */
    setTrs(p, q, s) {
      world.set(this.#id, { position: unvec(p), rotation: unquat(q), scale: unvec(s) });
    }
  }

  /**
   * @param {ArrayLike<number>} ids
   * @param {ArrayLike<number>} values
   * @param {number} width
   * @param {(id: number, at: number) => void} each
   */
  const packed = (ids, values, width, each) => {
    if (values.length !== ids.length * width) refused("write a list of the wrong length");
    for (let i = 0; i < ids.length; i++) each(/** @type {number} */ (ids[i]), i * width);
  };
  /** @param {ArrayLike<number>} v @param {number} at @returns {Vec3} */
  const v3 = (v, at) => [Math.fround(v[at] ?? 0), Math.fround(v[at + 1] ?? 0), Math.fround(v[at + 2] ?? 0)];
  /** @param {ArrayLike<number>} v @param {number} at @returns {Quat} */
  const q4 = (v, at) => [
    Math.fround(v[at] ?? 0),
    Math.fround(v[at + 1] ?? 0),
    Math.fround(v[at + 2] ?? 0),
    Math.fround(v[at + 3] ?? 1),
  ];

  class Pollable {
    block() {}
    ready() {
      return true;
    }
  }
  class OutputStream {
    #write;
    /** @param {(text: string) => void} write */
    constructor(write) {
      this.#write = write;
    }
    checkWrite() {
      return 65536n;
    }
    /** @param {Uint8Array} bytes */
    write(bytes) {
      this.#write(new TextDecoder().decode(bytes));
    }
    /** @param {Uint8Array} bytes */
    blockingWriteAndFlush(bytes) {
      this.write(bytes);
    }
    flush() {}
    blockingFlush() {}
    subscribe() {
      return new Pollable();
    }
  }
  class InputStream {
    read() {
      throw { tag: "closed" };
    }
    blockingRead() {
      throw { tag: "closed" };
    }
    subscribe() {
      return new Pollable();
    }
  }
  class IoError {
    toDebugString() {
      return "an I/O error";
    }
  }
  class TerminalInput {}
  class TerminalOutput {}
  const stdout = new OutputStream((text) => world.log("info", text.trimEnd()));
  const stderr = new OutputStream((text) => world.log("warn", text.trimEnd()));

  const imports = {
    "game:engine/log": {
      /** @param {string} level @param {string} message */
      log: (level, message) => world.log(level, message),
    },
    "game:engine/runtime": {
      clock: () => world.clock(),
      subscribeUpdate: () => {},
      unsubscribeUpdate: () => {},
    },
    "game:engine/scene": {
      TransformComponent,
      /** @param {string} name */
      find: (name) => {
        const id = world.find(name);
        return id === undefined ? undefined : new TransformComponent(id);
      },
      spawn: () => refused("spawn an entity"),
      cubeTransform: () => refused("reach the default cube"),
    },
    "game:engine/entity": {
      /** @param {number} id */
      position: (id) => vec(pose(id).position),
      /** @param {number} id */
      rotation: (id) => quat(pose(id).rotation),
      /** @param {number} id @param {WitVec3} p */
      setPosition: (id, p) => world.set(id, { position: unvec(p) }),
      /** @param {number} id @param {WitQuat} q */
      setRotation: (id, q) => world.set(id, { rotation: unquat(q) }),
    },
    "game:engine/entities": {
      spawnMany: () => refused("spawn entities"),
      /** @param {ArrayLike<number>} ids */
      transforms: (ids) => {
        const out = new Float32Array(ids.length * 10);
        for (let i = 0; i < ids.length; i++) {
          const p = pose(/** @type {number} */ (ids[i]));
          out.set([...p.position, ...p.rotation, ...p.scale], i * 10);
        }
        return out;
      },
      /** @param {ArrayLike<number>} ids @param {ArrayLike<number>} values */
      setTransforms: (ids, values) =>
        packed(ids, values, 10, (id, at) =>
          world.set(id, { position: v3(values, at), rotation: q4(values, at + 3), scale: v3(values, at + 7) }),
        ),
      /** @param {ArrayLike<number>} ids @param {ArrayLike<number>} values */
      setPositions: (ids, values) => packed(ids, values, 3, (id, at) => world.set(id, { position: v3(values, at) })),
      /** @param {ArrayLike<number>} ids @param {ArrayLike<number>} values */
      setRotations: (ids, values) => packed(ids, values, 4, (id, at) => world.set(id, { rotation: q4(values, at) })),
    },
    "game:engine/relative": {
      /** @param {number} id @param {WitVec3} offset */
      translate: (id, offset) => {
        pose(id);
        const sum = moves.get(id) ?? [0, 0, 0];
        moves.set(id, [
          Math.fround(sum[0] + offset.x),
          Math.fround(sum[1] + offset.y),
          Math.fround(sum[2] + offset.z),
        ]);
      },
      rotate: () => refused("turn an entity relatively"),
    },
    "game:engine/controls": {
      commands: () => world.commands(),
    },
    "wasi:cli/environment": {
      getEnvironment: () => [],
      getArguments: () => [],
      initialCwd: () => undefined,
    },
    "wasi:cli/exit": {
      exit: () => refused("exit"),
    },
    "wasi:cli/stdout": { getStdout: () => stdout },
    "wasi:cli/stderr": { getStderr: () => stderr },
    "wasi:cli/stdin": { getStdin: () => new InputStream() },
    "wasi:cli/terminal-input": { TerminalInput },
    "wasi:cli/terminal-output": { TerminalOutput },
    "wasi:cli/terminal-stdin": { getTerminalStdin: () => undefined },
    "wasi:cli/terminal-stdout": { getTerminalStdout: () => undefined },
    "wasi:cli/terminal-stderr": { getTerminalStderr: () => undefined },
    "wasi:clocks/monotonic-clock": {
      now: () => 0n,
      resolution: () => 1n,
      subscribeDuration: () => new Pollable(),
      subscribeInstant: () => new Pollable(),
    },
    "wasi:io/error": { Error: IoError },
    "wasi:io/poll": {
      Pollable,
      /** @param {unknown[]} list */
      poll: (list) => new Uint32Array(list.map((_, i) => i)),
    },
    "wasi:io/streams": { InputStream, OutputStream },
    "wasi:random/insecure-seed": { insecureSeed: () => [0n, 0n] },
  };

  /** Applies the call's relative moves (summed per entity), as the host does after the frame's calls. */
  const settle = () => {
    for (const [id, offset] of moves) {
      const p = pose(id).position;
      world.set(id, {
        position: [Math.fround(p[0] + offset[0]), Math.fround(p[1] + offset[1]), Math.fround(p[2] + offset[2])],
      });
    }
    moves.clear();
  };
  return { imports, settle };
}
