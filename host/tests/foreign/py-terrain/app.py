"""Terrain from Python: calls the host's terrain extension (`game:terrain`,
imported as `wit_world.imports.terrain`, which the host builds the script
against because it is imported here), requests a tile, and logs the tile's
summary and first height once the wait completes in `on_wake`.
"""

import wit_world
from wit_world.imports import log, runtime, tasks, terrain

TILE = terrain.TileKey(level=0, x=3, y=-2)
# The wait's token (any number the script chooses).
TOKEN = 7


class WitWorld(wit_world.WitWorld):
    def entrypoint(self) -> None:
        log.log(log.Level.INFO, f"tile size {terrain.tile_size(1)!r}")
        terrain.request_tile(TOKEN, TILE)

    def on_update(self, clock: runtime.FrameClock) -> None:
        pass

    def on_wake(self, clock: runtime.FrameClock, wakes: list[tasks.Wake]) -> None:
        for wake in wakes:
            if wake.token != TOKEN:
                continue
            info = terrain.tile_summary(TILE)
            heights = terrain.tile_heights(TILE)
            assert info is not None and heights is not None
            log.log(
                log.Level.INFO,
                f"tile {info.key.x},{info.key.y} min {info.min_height!r} "
                f"max {info.max_height!r} samples {len(heights)} first {heights[0]!r}",
            )
