"""The probe's orbit: a dataclass with its angle, turning at SPEED."""

import math
from dataclasses import dataclass

# Radians per second.
SPEED = 1.0
RADIUS = 2.0


@dataclass
class Orbit:
    angle: float = 0.0
    turns: int = 0

    def advance(self, dt: float) -> None:
        self.angle += SPEED * dt
        self.turns = int(self.angle // math.tau)

    def position(self) -> tuple[float, float]:
        return RADIUS * math.cos(self.angle), RADIUS * math.sin(self.angle)
