"""A probe on a circle, with its own second module (`orbit.py`) and the
standard library a game script uses: math, random, dataclasses, json.

Logs one JSON line at start (`{"start": ..., "dice": [...]}`); hands its
orbit over on a hot-swap as JSON.
"""

import dataclasses
import json
import random

import wit_world
from wit_world.imports import log, runtime, scene
from wit_world.imports.types import Vec3

import orbit

state = orbit.Orbit()
probe = None


def start(restored: "orbit.Orbit") -> None:
    global state, probe
    state = restored
    probe = scene.find("py-probe") or scene.spawn("py-probe")
    rng = random.Random(7)
    dice = [rng.randint(1, 6) for _ in range(3)]
    log.log(log.Level.INFO, json.dumps({"start": state.angle, "dice": dice}))
    runtime.subscribe_update()


class WitWorld(wit_world.WitWorld):
    def entrypoint(self) -> None:
        start(orbit.Orbit())

    def on_update(self, clock: runtime.FrameClock) -> None:
        state.advance(clock.delta_time)
        x, z = state.position()
        probe.set_position(Vec3(x, 0.0, z))

    def save_state(self) -> bytes | None:
        return json.dumps(dataclasses.asdict(state)).encode()

    def restore_state(self, data: bytes) -> None:
        start(orbit.Orbit(**json.loads(data)))
