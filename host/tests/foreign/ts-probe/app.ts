// A probe on a circle, in TypeScript: an interface, a class with typed
// fields, a generic function, `import type` and type-only specifiers, an
// `as` and a non-null assertion. The host erases the types and runs what
// is left: every line stays where it is.

import { log } from "game:engine/log@0.2.0";
import { subscribeUpdate, type FrameClock } from "game:engine/runtime@0.2.0";
import { find, spawn } from "game:engine/scene@0.2.0";
import type { TransformComponent } from "game:engine/scene@0.2.0";

interface Circle {
  readonly radius: number;
  speed: number; // radians per second
}

const CIRCLE: Circle = { radius: 2.0, speed: 1.0 };

class Orbit<T extends Circle> {
  angle: number;
  private readonly circle: T;

  constructor(circle: T, angle: number) {
    this.circle = circle;
    this.angle = angle;
  }

  advance(dt: number): void {
    this.angle += this.circle.speed * dt;
  }
}

function first<T>(items: T[]): T | undefined {
  return items[0];
}

let orbit: Orbit<Circle> | null = null;
let probe: TransformComponent | undefined;
let updates = 0;

export function entrypoint(): void {
  orbit = new Orbit(CIRCLE, 0);
  probe = find("ts-probe") ?? spawn("ts-probe");
  log("info", `started with ${first<string>(["types", "erased"])!}`);
  subscribeUpdate();
}

export function onUpdate(clock: FrameClock): void {
  updates += 1;
  orbit!.advance(clock.deltaTime as number);
  const angle = orbit!.angle;
  probe!.setPosition({ x: CIRCLE.radius * Math.cos(angle), y: 0, z: CIRCLE.radius * Math.sin(angle) });
  if (updates === 90) {
    throw new Error(`ninety updates`);
  }
}

// Completed waits (none here); `host build` wants every export of the world.
export function onWake(): void {}
