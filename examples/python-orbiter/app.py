"""Orbiter, in Python: a moon circles the default scene's cube.

`entrypoint` spawns an entity named `py-moon`, subscribes to the per-frame
update and listens for key E; every `on_update` advances the moon's angle by
SPEED * delta_time and places it on a circle of RADIUS around the origin,
logging each full orbit. Pressing E (its wake reaches `on_wake`) raises an
exception on purpose: the host reports it as one error naming the script
(with the Python traceback) and the rest of the game runs on. The angle
survives hot-swaps through save_state / restore_state.

Build and run (from the workspace root; the host runs componentize-py):

    host run examples/python-orbiter --frames 120 --headless --dump-scene scene.json
    host run examples/python-orbiter --watch
"""

import math
import struct

import wit_world
from wit_world.imports import events, input, log, runtime, scene, tasks
from wit_world.imports.types import Vec3

# Radius of the orbit, in world units.
RADIUS = 3.0
# Radians per second.
SPEED = math.pi / 2
# The token of the key listener.
KEY_E = 1

# State lives in module globals: the component instance, and with it this
# module, lives as long as the script runs.
angle = 0.0
orbits = 0
moon: scene.TransformComponent  # set by start()


def start(restored_angle: float) -> None:
    global angle, orbits, moon
    angle = restored_angle
    orbits = int(angle // math.tau)
    # A swapped-in version finds the moon the old one spawned.
    moon = scene.find("py-moon") or scene.spawn("py-moon")
    moon.set_scale(Vec3(0.4, 0.4, 0.4))
    place()
    runtime.subscribe_update()
    events.listen(KEY_E, events.EventFilter_KeyPressed(input.Key.E))


def place() -> None:
    moon.set_position(Vec3(RADIUS * math.cos(angle), 0.0, RADIUS * math.sin(angle)))


class WitWorld(wit_world.WitWorld):
    def entrypoint(self) -> None:
        log.log(log.Level.INFO, "python orbiter started")
        start(0.0)

    def on_update(self, clock: runtime.FrameClock) -> None:
        global angle, orbits
        angle += SPEED * clock.delta_time
        place()
        if angle // math.tau > orbits:
            orbits += 1
            log.log(log.Level.INFO, f"orbit {orbits} complete")

    def on_wake(self, clock: runtime.FrameClock, wakes: list[tasks.Wake]) -> None:
        for wake in wakes:
            if wake.token == KEY_E:
                raise RuntimeError(f"E pressed at frame {clock.frame}: failing on purpose")

    def save_state(self) -> bytes | None:
        return struct.pack("<d", angle)

    def restore_state(self, state: bytes) -> None:
        (restored,) = struct.unpack("<d", state)
        log.log(log.Level.INFO, f"python orbiter swapped in at {restored:.4f} rad")
        start(restored)
