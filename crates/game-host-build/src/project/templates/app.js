// {{name}}: a moon circles the default scene's cube.
//
//     host run {{name}} --headless --frames 60 --dump-scene scene.json
//     host run {{name}} --watch     # edit this file while it runs
//
// The moon's angle survives hot-swaps through saveState / restoreState, and
// a new version finds the moon the old one spawned.

import { log } from "game:engine/log@{{wit}}";
import { subscribeUpdate } from "game:engine/runtime@{{wit}}";
import { find, spawn } from "game:engine/scene@{{wit}}";

const RADIUS = 3.0; // world units
const SPEED = 1.0; // radians per second

// State lives in module variables, as long as the script runs.
let angle = 0;
/** @type {import("game:engine/scene@{{wit}}").TransformComponent} */
let moon; // set by start()

/** @param {number} restoredAngle */
function start(restoredAngle) {
  angle = restoredAngle;
  moon = find("moon") ?? spawn("moon");
  moon.setScale({ x: 0.4, y: 0.4, z: 0.4 });
  subscribeUpdate(); // onUpdate every frame from the next one
}

export function entrypoint() {
  log("info", "orbiter started");
  start(0);
}

/** @param {import("game:engine/runtime@{{wit}}").FrameClock} clock */
export function onUpdate(clock) {
  angle += SPEED * clock.deltaTime;
  moon.setPosition({ x: RADIUS * Math.cos(angle), y: 0, z: RADIUS * Math.sin(angle) });
}

// Completed waits (waitSeconds, listen) arrive here; kept though empty:
// `host build` wants every export of the world.
/**
 * @param {import("game:engine/runtime@{{wit}}").FrameClock} clock
 * @param {import("game:engine/tasks@{{wit}}").Wake[]} wakes
 */
export function onWake(clock, wakes) {}

// Hot-swap: the old version hands its state to the new one.
export function saveState() {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setFloat64(0, angle, true);
  return bytes;
}

/** @param {Uint8Array} state */
export function restoreState(state) {
  start(new DataView(state.buffer, state.byteOffset, 8).getFloat64(0, true));
}
