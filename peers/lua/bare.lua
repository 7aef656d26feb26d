function on_message(id)
end
