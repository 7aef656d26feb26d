// A probe on a circle, written with classes, closures and a Map.
//
// Logs "started" at start and "restored at <angle> after <n> updates" on a
// hot-swap, handing its orbit over as JSON.

import { log } from "game:engine/log@0.2.0";
import { subscribeUpdate } from "game:engine/runtime@0.2.0";
import { find, spawn } from "game:engine/scene@0.2.0";

// Radians per second.
const SPEED = 1.0;
const RADIUS = 2.0;

class Orbit {
  constructor(angle) {
    this.angle = angle;
  }

  advance(dt) {
    this.angle += SPEED * dt;
  }

  position() {
    return [RADIUS * Math.cos(this.angle), RADIUS * Math.sin(this.angle)];
  }
}

// A closure counting calls, kept per export in a Map.
function counter() {
  let count = 0;
  return () => ++count;
}
const counters = new Map();

let orbit = null;
let probe = null;

function start(angle) {
  orbit = new Orbit(angle);
  probe = find("js-probe") ?? spawn("js-probe");
  counters.set("onUpdate", counter());
  subscribeUpdate();
}

export function entrypoint() {
  start(0);
  log("info", "started");
}

export function onUpdate(clock) {
  orbit.advance(clock.deltaTime);
  counters.get("onUpdate")();
  const [x, z] = orbit.position();
  probe.setPosition({ x, y: 0, z });
}

export function saveState() {
  const updates = counters.get("onUpdate")() - 1;
  return new TextEncoder().encode(JSON.stringify({ angle: orbit.angle, updates }));
}

export function restoreState(state) {
  const { angle, updates } = JSON.parse(new TextDecoder().decode(state));
  start(angle);
  log("info", `restored at ${angle.toFixed(4)} after ${updates} updates`);
}
