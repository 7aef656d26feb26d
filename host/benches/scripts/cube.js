// The spinning cube in JavaScript, for the `languages` bench: each update
// fetches the cube's handle and turns it by SPEED * deltaTime about world Y,
// as the Rust example does.

import { subscribeUpdate } from "game:engine/runtime@0.2.1";
import { cubeTransform } from "game:engine/scene@0.2.1";

const SPEED = Math.PI / 2;

export function entrypoint() {
  subscribeUpdate();
}

export function onUpdate(clock) {
  const half = (SPEED * clock.deltaTime) / 2;
  const s = Math.sin(half);
  const c = Math.cos(half);
  const cube = cubeTransform();
  const r = cube.rotation();
  // (0, s, 0, c) * r
  cube.setRotation({
    x: c * r.x + s * r.z,
    y: c * r.y + s * r.w,
    z: c * r.z - s * r.x,
    w: c * r.w - s * r.y,
  });
  // Give the handle back now rather than when the garbage collector runs.
  cube[Symbol.dispose]();
}

// It waits on nothing; built into one component (`host build`), a script
// must still export every function of the world.
export function onWake() {}
