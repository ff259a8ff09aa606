"""mathhammer_exact: exact Warhammer 40,000 attack probabilities.

>>> from mathhammer_exact import Weapon, Target, attack
>>> result = attack(Weapon.parse("A2 BS3+ S4 AP0 D1"), Target.parse("T4 Sv3+ W2 x5"), models=5, exact=True)
>>> result.hits.mean
Fraction(20, 3)
"""

from .dice import Dice
from .errors import MathhammerError
from .model import Context, DevastatingWounds, Hazardous, IndirectFire, ModelProfile, Reroll, Rules, Target, Weapon
from .pmf import Pmf
from .result import AttackResult
from .sequence import attack

__all__ = [
    "AttackResult",
    "Context",
    "DevastatingWounds",
    "Dice",
    "Hazardous",
    "IndirectFire",
    "MathhammerError",
    "ModelProfile",
    "Pmf",
    "Reroll",
    "Rules",
    "Target",
    "Weapon",
    "attack",
]
