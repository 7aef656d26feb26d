"""Spin query, in Python: examples/spin-query's twin.

Every entity with a `Spin { speed, angle }` and no `Frozen` turns about Y at
its own speed. Each frame one query reads all of them, the `Time` resource
gives the step, and one write sets their angles and rotations. Every 30
frames the script sends the game a `Scored { points: 1 }` message, and it
logs each `Scored` it hears (a game's messages reach scripts as events, on
the channel named after the type, with the fields as JSON).

In `bevy-game --spinners N` the components, `Time` and `Scored` are the
game's; under `host run` the script spawns the spinners itself, and its
messages reach scripts alone.

    host run examples/python-spin-query --headless --frames 120
    cargo run --release -p bevy-game -- --headless --frames 120 --spinners 8 examples/python-spin-query
"""

import json
import math

import wit_world
from wit_world.imports import (
    events,
    game_data,
    game_messages,
    log,
    queries,
    resources,
    runtime,
    scene,
    tasks,
)

# Spinners the script makes where the game has none (`host run`).
SPINNERS = 8
# Frames between two `Scored` messages.
SCORE_EVERY = 30
# The token of the `Scored` listener.
HEARD = 1

frames = 0


def spawn_spinners() -> None:
    for i in range(SPINNERS + 1):
        spinner = scene.spawn(f"spinner-{i}").id()
        game_data.insert(
            spinner,
            "Spin",
            [
                game_data.Field("speed", game_data.Value_Number(0.5 * (i + 1))),
                game_data.Field("angle", game_data.Value_Number(0.0)),
            ],
        )
        if i == SPINNERS:
            game_data.insert(spinner, "Frozen", [])


class WitWorld(wit_world.WitWorld):
    def entrypoint(self) -> None:
        found = queries.run(queries.Query(["Spin.speed"], [], []))
        if not found.ids:
            spawn_spinners()
        events.listen(HEARD, events.EventFilter_Message("Scored"))
        runtime.subscribe_update()
        log.log(log.Level.INFO, "python spin query started")

    def on_update(self, clock: runtime.FrameClock) -> None:
        global frames
        step = resources.get_field("Time", "delta")
        rows = queries.run(queries.Query(["Spin.speed", "Spin.angle"], [], ["Frozen"]))
        speeds, angles = rows.columns
        # Variants narrow by case: `Time.delta` is a number, the columns numbers.
        assert isinstance(step, game_data.Value_Number)
        assert isinstance(speeds, queries.Column_Numbers)
        assert isinstance(angles, queries.Column_Numbers)
        angles = [a + speed * step.value for speed, a in zip(speeds.value, angles.value)]
        rotations = []
        for angle in angles:
            rotations += [0.0, math.sin(angle / 2), 0.0, math.cos(angle / 2)]
        queries.write(
            rows.ids,
            ["Spin.angle", "Transform.rotation"],
            [queries.Column_Numbers(angles), queries.Column_Quats(rotations)],
        )
        frames += 1
        if frames % SCORE_EVERY == 0:
            game_messages.write("Scored", [game_data.Field("points", game_data.Value_Integer(1))])

    def on_wake(self, clock: runtime.FrameClock, wakes: list[tasks.Wake]) -> None:
        for wake in wakes:
            if wake.token == HEARD and isinstance(wake.data, tasks.WakeData_Event):
                event = wake.data.value
                assert isinstance(event, events.Event_Message)
                message = event.value
                points = json.loads(message.payload)["points"]
                log.log(log.Level.INFO, f"heard Scored {points}")
