"""The spinning cube in Python, for the `languages` bench: each update
fetches the cube's handle and turns it by SPEED * delta_time about world Y,
as the Rust example does."""

import math

import wit_world
from wit_world.imports import runtime, scene, tasks
from wit_world.imports.types import Quat

SPEED = math.pi / 2


class WitWorld(wit_world.WitWorld):
    def entrypoint(self) -> None:
        runtime.subscribe_update()

    def on_update(self, clock: runtime.FrameClock) -> None:
        half = SPEED * clock.delta_time / 2
        s, c = math.sin(half), math.cos(half)
        with scene.cube_transform() as cube:
            r = cube.rotation()
            # (0, s, 0, c) * r
            cube.set_rotation(
                Quat(
                    c * r.x + s * r.z,
                    c * r.y + s * r.w,
                    c * r.z - s * r.x,
                    c * r.w - s * r.y,
                )
            )

    # It waits on nothing; built into one component (`host build`), a script
    # must still define every export of the world.
    def on_wake(self, clock: runtime.FrameClock, wakes: list[tasks.Wake]) -> None:
        pass
