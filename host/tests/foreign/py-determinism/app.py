"""Test script: Python's `random` and `time` in the scene.

`entrypoint` spawns `py-random` at x = random.random() * 1000 and
`py-clock`; every frame `py-clock` moves to x = time.time(),
y = time.monotonic() since entrypoint, and `py-random` to a new
random.random() * 1000 in y.
"""

import random
import time

import wit_world
from wit_world.imports import runtime, scene
from wit_world.imports.types import Vec3

started = 0.0
dot = None
clock = None


class WitWorld(wit_world.WitWorld):
    def entrypoint(self) -> None:
        global started, dot, clock
        started = time.monotonic()
        dot = scene.spawn("py-random")
        dot.set_position(Vec3(random.random() * 1000.0, 0.0, 0.0))
        clock = scene.spawn("py-clock")
        runtime.subscribe_update()

    def on_update(self, _clock: runtime.FrameClock) -> None:
        x = dot.position().x
        dot.set_position(Vec3(x, random.random() * 1000.0, 0.0))
        clock.set_position(Vec3(time.time(), time.monotonic() - started, 0.0))
