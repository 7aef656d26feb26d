-- The spinning cube, keeping its handle in the script's state.
local cube

function entrypoint()
  cube = scene.cube()
end

function on_message(id)
  turn(cube)
end
