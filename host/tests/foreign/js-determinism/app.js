// Test script: JavaScript's `Math.random` and `Date.now` in the scene.
//
// `entrypoint` spawns `js-random` at x = Math.random() * 1000 and `js-clock`;
// every frame `js-clock` moves to x = Date.now() / 1000 and `js-random` to a
// new Math.random() * 1000 in y.

import { subscribeUpdate } from "game:engine/runtime@0.2.0";
import { spawn } from "game:engine/scene@0.2.0";

let dot = null;
let clock = null;

export function entrypoint() {
  dot = spawn("js-random");
  dot.setPosition({ x: Math.random() * 1000, y: 0, z: 0 });
  clock = spawn("js-clock");
  subscribeUpdate();
}

export function onUpdate() {
  const x = dot.position().x;
  dot.setPosition({ x, y: Math.random() * 1000, z: 0 });
  clock.setPosition({ x: Date.now() / 1000, y: 0, z: 0 });
}
