-- Entity behaviours in one state: COUNT entities, each with a table holding
-- its transform, its speed (1, 2, 3, 4, 1, ...) and an update method, as a
-- Lua game attaches scripts to objects. Every update runs all of them.
local SPEED = math.pi / 2
local sin, cos, sqrt = math.sin, math.cos, math.sqrt
local behaviours = {}

local function spin(self, dt)
  local half = self.speed * SPEED * dt / 2
  local s, c = sin(half), cos(half)
  local t = self.transform
  local x, y, z, w = t:rotation()
  local nx, ny, nz, nw = c * x + s * z, c * y + s * w, c * z - s * x, c * w - s * y
  local n = sqrt(nx * nx + ny * ny + nz * nz + nw * nw)
  t:set_rotation(nx / n, ny / n, nz / n, nw / n)
end

function entrypoint()
  for i = 0, COUNT - 1 do
    behaviours[i + 1] = { transform = scene.spawn("b"), speed = i % 4 + 1, update = spin }
  end
end

function on_message(id)
  local dt = runtime.delta_time()
  for i = 1, #behaviours do
    local b = behaviours[i]
    b:update(dt)
  end
end
