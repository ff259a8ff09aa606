"""How large the units of a query may be: the bounds the catalogue reader and the engine's limits
(`engine.limits`) share, kept below both so that reading a catalogue loads none of the arithmetic."""

from __future__ import annotations

MAX_TARGET_MODELS = 1_000  #: models in the target unit
MAX_MODEL_WOUNDS = 1_000  #: W of one model
MAX_ATTACKING_MODELS = 10_000  #: models using one weapon profile
MAX_ROLL = 1_000  #: the most one roll can give: Attacks, Damage, Rapid Fire, Sustained Hits, Critical mortal wounds
