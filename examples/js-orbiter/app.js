// Orbiter, in JavaScript: a moon circles the default scene's cube.
//
// `entrypoint` spawns an entity named `js-moon`, subscribes to the per-frame
// update and listens for key E; every `onUpdate` advances the moon's angle by
// SPEED * deltaTime and places it on a circle of RADIUS around the origin,
// logging each full orbit. Pressing E (its wake reaches `onWake`) throws on
// purpose: the host reports it as one error naming the script (with the
// JavaScript message) and the rest of the game runs on. The angle survives
// hot-swaps through saveState / restoreState.
//
// Build and run (from the workspace root; the host runs componentize-js):
//
//     host run examples/js-orbiter --frames 120 --headless --dump-scene scene.json
//     host run examples/js-orbiter --watch

import { log } from "game:engine/log@0.2.6";
import { subscribeUpdate } from "game:engine/runtime@0.2.6";
import { find, spawn } from "game:engine/scene@0.2.6";
import { listen } from "game:engine/events@0.2.6";

// Radius of the orbit, in world units.
const RADIUS = 3.0;
// Radians per second.
const SPEED = Math.PI / 2;
// The token of the key listener (u64 in WIT: a BigInt in JavaScript).
const KEY_E = 1n;

// State lives in module variables: the component instance, and with it this
// module, lives as long as the script runs.
let angle = 0;
let orbits = 0;
/** @type {import("game:engine/scene@0.2.6").TransformComponent} */
let moon; // set by start()

function start(restoredAngle) {
  angle = restoredAngle;
  orbits = Math.floor(angle / (2 * Math.PI));
  // A swapped-in version finds the moon the old one spawned.
  moon = find("js-moon") ?? spawn("js-moon");
  moon.setScale({ x: 0.4, y: 0.4, z: 0.4 });
  place();
  subscribeUpdate();
  listen(KEY_E, { tag: "key-pressed", val: "e" });
}

function place() {
  moon.setPosition({ x: RADIUS * Math.cos(angle), y: 0, z: RADIUS * Math.sin(angle) });
}

export function entrypoint() {
  log("info", "js orbiter started");
  start(0);
}

export function onUpdate(clock) {
  angle += SPEED * clock.deltaTime;
  place();
  if (Math.floor(angle / (2 * Math.PI)) > orbits) {
    orbits += 1;
    log("info", `orbit ${orbits} complete`);
  }
}

export function onWake(clock, wakes) {
  for (const wake of wakes) {
    if (wake.token === KEY_E) {
      throw new Error(`E pressed at frame ${clock.frame}: failing on purpose`);
    }
  }
}

export function saveState() {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setFloat64(0, angle, true);
  return bytes;
}

export function restoreState(state) {
  const restored = new DataView(state.buffer, state.byteOffset, 8).getFloat64(0, true);
  log("info", `js orbiter swapped in at ${restored.toFixed(4)} rad`);
  start(restored);
}
