-- Shared by the cube scripts: turn `cube` about world Y by SPEED * dt
-- (delta * rotation, normalised, as the Rust SDK's `rotate`).
local SPEED = math.pi / 2
local sin, cos, sqrt = math.sin, math.cos, math.sqrt

local function turn(cube)
  local half = SPEED * runtime.delta_time() / 2
  local s, c = sin(half), cos(half)
  local x, y, z, w = cube:rotation()
  local nx, ny, nz, nw = c * x + s * z, c * y + s * w, c * z - s * x, c * w - s * y
  local n = sqrt(nx * nx + ny * ny + nz * nz + nw * nw)
  cube:set_rotation(nx / n, ny / n, nz / n, nw / n)
end

