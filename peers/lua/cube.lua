-- The spinning cube: fetch the cube's handle every update and turn it.
function on_message(id)
  turn(scene.cube())
end
