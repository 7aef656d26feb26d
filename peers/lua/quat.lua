-- Float-heavy code with no host call: QUAT_LOOP steps of a rotation about y
-- integrated and normalised per update (locals only, as LuaJIT code that
-- wants speed is written), the result written to the cube.
local sqrt, sin, cos = math.sqrt, math.sin, math.cos
local QUAT_LOOP = 10000
local sy, sw = sin(0.0005), cos(0.0005)
local qx, qy, qz, qw = 0, 0, 0, 1
local cube

function entrypoint()
  cube = scene.cube()
end

function on_message(id)
  local x, y, z, w = qx, qy, qz, qw
  for _ = 1, QUAT_LOOP do
    -- (s * q) with s = (0, sy, 0, sw)
    local nx = sw * x + sy * z
    local ny = sw * y + sy * w
    local nz = sw * z - sy * x
    local nw = sw * w - sy * y
    local n = 1 / sqrt(nx * nx + ny * ny + nz * nz + nw * nw)
    x, y, z, w = nx * n, ny * n, nz * n, nw * n
  end
  qx, qy, qz, qw = x, y, z, w
  cube:set_rotation(x, y, z, w)
end
