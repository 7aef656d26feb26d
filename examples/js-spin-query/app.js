// Spin query, in JavaScript: examples/spin-query's twin.
//
// Every entity with a `Spin { speed, angle }` and no `Frozen` turns about Y
// at its own speed. Each frame one query reads all of them, the `Time`
// resource gives the step, and one write sets their angles and rotations.
// Every 30 frames the script sends the game a `Scored { points: 1 }`
// message, and it logs each `Scored` it hears (a game's messages reach
// scripts as events, on the channel named after the type, with the fields
// as JSON).
//
// In `bevy-game --spinners N` the components, `Time` and `Scored` are the
// game's; under `host run` the script spawns the spinners itself, and its
// messages reach scripts alone.
//
//     host run examples/js-spin-query --headless --frames 120
//     cargo run --release -p bevy-game -- --headless --frames 120 --spinners 8 examples/js-spin-query

import { listen } from "game:engine/events@0.2.6";
import { insert } from "game:engine/game-data@0.2.6";
import { write as writeMessage } from "game:engine/game-messages@0.2.6";
import { log } from "game:engine/log@0.2.6";
import { run, write } from "game:engine/queries@0.2.6";
import { getField } from "game:engine/resources@0.2.6";
import { subscribeUpdate } from "game:engine/runtime@0.2.6";
import { spawn } from "game:engine/scene@0.2.6";

// Spinners the script makes where the game has none (`host run`).
const SPINNERS = 8;
// Frames between two `Scored` messages.
const SCORE_EVERY = 30;
// The token of the `Scored` listener (u64 in WIT: a BigInt in JavaScript).
const HEARD = 1n;

let frames = 0;

function spawnSpinners() {
  for (let i = 0; i <= SPINNERS; i++) {
    const spinner = spawn(`spinner-${i}`).id();
    insert(spinner, "Spin", [
      { name: "speed", value: { tag: "number", val: 0.5 * (i + 1) } },
      { name: "angle", value: { tag: "number", val: 0 } },
    ]);
    if (i === SPINNERS) {
      insert(spinner, "Frozen", []);
    }
  }
}

export function entrypoint() {
  const found = run({ fields: ["Spin.speed"], filterWith: [], filterWithout: [] });
  if (found.ids.length === 0) {
    spawnSpinners();
  }
  listen(HEARD, { tag: "message", val: "Scored" });
  subscribeUpdate();
  log("info", "js spin query started");
}

export function onUpdate(clock) {
  const step = getField("Time", "delta");
  const rows = run({
    fields: ["Spin.speed", "Spin.angle"],
    filterWith: [],
    filterWithout: ["Frozen"],
  });
  const [speeds, turned] = rows.columns;
  // Variants narrow by tag: `Time.delta` is a number, the columns numbers.
  if (step.tag !== "number" || speeds.tag !== "numbers" || turned.tag !== "numbers") {
    throw new Error("Time.delta, Spin.speed and Spin.angle are numbers");
  }
  const angles = Array.from(turned.val, (angle, at) => angle + speeds.val[at] * step.val);
  const rotations = new Float32Array(angles.length * 4);
  angles.forEach((angle, at) => {
    rotations[at * 4 + 1] = Math.sin(angle / 2);
    rotations[at * 4 + 3] = Math.cos(angle / 2);
  });
  write(
    rows.ids,
    ["Spin.angle", "Transform.rotation"],
    [
      { tag: "numbers", val: new Float64Array(angles) },
      { tag: "quats", val: rotations },
    ],
  );
  frames += 1;
  if (frames % SCORE_EVERY === 0) {
    writeMessage("Scored", [{ name: "points", value: { tag: "integer", val: 1n } }]);
  }
}

export function onWake(clock, wakes) {
  for (const wake of wakes) {
    if (wake.token === HEARD && wake.data.tag === "event" && wake.data.val.tag === "message") {
      const points = JSON.parse(wake.data.val.val.payload).points;
      log("info", `heard Scored ${points}`);
    }
  }
}
