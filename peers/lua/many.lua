-- 10,000 entities spawned at start; every update sets entity i to (i, frame, 0).
local MANY = 10000
local entities = {}

function entrypoint()
  for i = 0, MANY - 1 do
    entities[i + 1] = scene.spawn("e" .. i)
  end
end

function on_message(id)
  local frame = runtime.frame()
  for i = 1, MANY do
    entities[i]:set_position(i - 1, frame, 0)
  end
end
