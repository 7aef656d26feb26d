// Terrain from JavaScript: calls the host's terrain extension
// (`game:terrain`, which the host builds the script against because it is
// imported here), requests a tile, and logs the tile's summary and first
// height once the wait completes in `onWake`.

import { log } from "game:engine/log@0.2.6";
import { requestTile, tileHeights, tileSize, tileSummary } from "game:terrain/terrain@0.1.0";

const TILE = { level: 0, x: 3, y: -2 };
// The wait's token (u64 in WIT: a BigInt in JavaScript).
const TOKEN = 7n;

export function entrypoint() {
  log("info", `tile size ${tileSize(1)}`);
  requestTile(TOKEN, TILE);
}

export function onUpdate(clock) {}

export function onWake(clock, wakes) {
  for (const wake of wakes) {
    if (wake.token !== TOKEN) continue;
    const info = tileSummary(TILE);
    const heights = tileHeights(TILE);
    if (!info || !heights) throw new Error("a delivered tile is in the host's cache");
    log(
      "info",
      `tile ${info.key.x},${info.key.y} min ${info.minHeight} max ${info.maxHeight} ` +
        `samples ${heights.length} first ${heights[0]}`,
    );
  }
}
