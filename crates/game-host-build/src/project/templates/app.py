"""{{name}}: a moon circles the default scene's cube.

    host run {{name}} --headless --frames 60 --dump-scene scene.json
    host run {{name}} --watch     # edit this file while it runs

The moon's angle survives hot-swaps through save_state / restore_state, and
a new version finds the moon the old one spawned.
"""

import math
import struct

import wit_world
from wit_world.imports import log, runtime, scene, tasks
from wit_world.imports.types import Vec3

RADIUS = 3.0  # world units
SPEED = 1.0  # radians per second

# State lives in module globals, as long as the script runs.
angle = 0.0
moon: scene.TransformComponent  # set by start()


def start(restored_angle: float) -> None:
    global angle, moon
    angle = restored_angle
    moon = scene.find("moon") or scene.spawn("moon")
    moon.set_scale(Vec3(0.4, 0.4, 0.4))
    runtime.subscribe_update()  # on_update every frame from the next one


class WitWorld(wit_world.WitWorld):
    def entrypoint(self) -> None:
        log.log(log.Level.INFO, "orbiter started")
        start(0.0)

    def on_update(self, clock: runtime.FrameClock) -> None:
        global angle
        angle += SPEED * clock.delta_time
        moon.set_position(Vec3(RADIUS * math.cos(angle), 0.0, RADIUS * math.sin(angle)))

    # Completed waits (tasks.wait_seconds, events.listen) arrive here; kept
    # though empty: `host build` wants every export of the world.
    def on_wake(self, clock: runtime.FrameClock, wakes: list[tasks.Wake]) -> None:
        pass

    # Hot-swap: the old version hands its state to the new one.
    def save_state(self) -> bytes | None:
        return struct.pack("<d", angle)

    def restore_state(self, state: bytes) -> None:
        (restored,) = struct.unpack("<d", state)
        start(restored)
