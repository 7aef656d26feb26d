// {{name}}: a moon circles the default scene's cube.
//
//     host run {{name}} --headless --frames 60 --dump-scene scene.json
//     host run {{name}} --watch     # edit this file while it runs
//     host check {{name}}           # tsc against the engine's declarations
//
// The host erases the types and runs the JavaScript left, line for line:
// an error names this file's lines. Erasing writes no code, so `enum`,
// `namespace` and constructor parameter properties are refused (use a
// const object, a module, plain fields).
//
// The moon's angle survives hot-swaps through saveState / restoreState, and
// a new version finds the moon the old one spawned.

import { log } from "game:engine/log@{{wit}}";
import { subscribeUpdate, type FrameClock } from "game:engine/runtime@{{wit}}";
import { find, spawn, type TransformComponent } from "game:engine/scene@{{wit}}";
import type { Wake } from "game:engine/tasks@{{wit}}";

const RADIUS = 3.0; // world units
const SPEED = 1.0; // radians per second

// State lives in module variables, as long as the script runs.
let angle = 0;
let moon: TransformComponent; // set by start()

function start(restoredAngle: number): void {
  angle = restoredAngle;
  moon = find("moon") ?? spawn("moon");
  moon.setScale({ x: 0.4, y: 0.4, z: 0.4 });
  subscribeUpdate(); // onUpdate every frame from the next one
}

export function entrypoint(): void {
  log("info", "orbiter started");
  start(0);
}

export function onUpdate(clock: FrameClock): void {
  angle += SPEED * clock.deltaTime;
  moon.setPosition({ x: RADIUS * Math.cos(angle), y: 0, z: RADIUS * Math.sin(angle) });
}

// Completed waits (waitSeconds, listen) arrive here; kept though empty:
// `host build` wants every export of the world.
export function onWake(clock: FrameClock, wakes: Wake[]): void {}

// Hot-swap: the old version hands its state to the new one.
export function saveState(): Uint8Array {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setFloat64(0, angle, true);
  return bytes;
}

export function restoreState(state: Uint8Array): void {
  start(new DataView(state.buffer, state.byteOffset, 8).getFloat64(0, true));
}
