-- fib(25) by naive recursion every update; the result is kept in `last`.
local function fib(n)
  if n < 2 then return n end
  return fib(n - 1) + fib(n - 2)
end

function on_message(id)
  last = fib(25)
end
