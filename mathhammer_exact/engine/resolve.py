"""`attack()`: the one entry point of the engine, for every weapon, unit and target.

The engine chooses how to compute: one weapon profile against identical models without a
Command Re-roll takes the compound pipeline (`sequence`); anything else takes the whole-unit
chain (`chain`). Both give the same exact answer where both apply (a test keeps them so).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import attrs
import numpy as np
from threadpoolctl import ThreadpoolController

from ..errors import MathhammerError
from ..model import CommandReroll, Context, Firing, MortalWounds, Target, Weapon
from ..pmf import Mode, Pmf
from ..stages.attacks import attack_count
from .chain import rolled_against, whole_unit
from .consequences import hazardous_failures, hazardous_losses
from .layout import Layout
from .limits import TooLarge, check_counts, check_size, partial
from .results import AttackResult, result_of
from .sequence import identical_models, shown

_UNSTATED = Context()  #: the situation of a query that states none (frozen: one serves every query)


def attack(
    what: Weapon | Sequence[Firing | MortalWounds],
    target: Target,
    models: int = 1,
    context: Context | None = None,
    exact: bool = False,
    order: Sequence[int] | None = None,
    start: Pmf | None = None,
) -> AttackResult:
    """Resolve an attack against `target` exactly.

    `what` is one `Weapon` used by `models` models, or a sequence of `Firing` (a weapon, its
    models and its own situation) and `MortalWounds` tests, resolved in the order given with
    the target's state carried from one to the next. `context` is the situation of the whole
    query; `order` the defender's allocation order of the target's model groups. `start` is the
    target's state before these attacks (`AttackResult.state` of an earlier query against the same
    target and order, e.g. shooting before a fight; default: unharmed), so that a later phase carries
    the damage of an earlier one, Starting Strength and all. (An Attached unit's wound rolls still
    use its bodyguards' Toughness in the later phase, even where only the leader is left.)

    >>> from mathhammer_exact import Weapon, Target
    >>> r = attack(Weapon.parse("A1 BS3+ S4 AP-1 D1"), Target.parse("T4 Sv3+ W2 x5"), models=10, exact=True)
    >>> r.damage.mean, r.models_destroyed.mean
    (Fraction(5, 3), Fraction(138805, 236196))
    """
    context, mode = context or _UNSTATED, Mode(exact)  # the query's number mode, chosen here once
    if isinstance(what, Weapon):
        firings: list[Firing | MortalWounds] = [Firing(what, models)]
    else:
        firings = list(what)
        if models != 1:
            raise MathhammerError("give each Firing its own number of models (`models` is for a single Weapon)")
    if not firings:
        raise MathhammerError("an attack needs at least one weapon profile or mortal wound test")
    context, firings = _one_command_reroll(context, firings)
    first = firings[0]
    fast = (len(firings) == 1 and isinstance(first, Firing) and len(target.groups) == 1
            and context.command_reroll is None and (first.context or context).command_reroll is None)
    check_size(firings, target, context, mode, fast)
    layout = Layout.of(target, order)
    if start is not None:
        if start.weights.ndim != 1 or start.min < 0 or start.max >= layout.size:
            raise MathhammerError("start must be the state of an earlier answer against the same target and order")
        if mode.exact and not start.exact:
            raise MathhammerError("an exact answer needs an exact start state (the earlier answer with exact=True)")
        weights = np.zeros(layout.size, dtype=mode.dtype)
        weights[start.min : start.max + 1] = mode.of(start).weights
        start = Pmf(weights, start.denominator if mode.exact else 1)
    counts: Callable[[str], Pmf | None]
    if fast:
        assert isinstance(first, Firing)
        state, counts = identical_models(first.weapon, target, first.models, first.context or context, mode,
                                         start=start)
    else:
        with _one_blas_thread():
            state, attacks, hits = whole_unit(firings, layout, context, mode, start)
        kept_for = context.command_reroll
        known = {"attacks": attacks, "hits": hits}
        if kept_for is CommandReroll.ATTACKS:  # these count the dice before the re-roll: not the answer
            known = {}
        elif kept_for is CommandReroll.HIT:
            known = {"attacks": attacks}
        counts = known.get if kept_for is not None else _counted(known, firings, target, context, mode)

    return result_of(layout, state, counts, _hazardous(firings, context, mode))


def _counted(known: dict[str, Pmf], firings: Sequence[Firing | MortalWounds], target: Target, context: Context,
             mode: Mode) -> Callable[[str], Pmf | None]:
    """The counts of a whole-unit answer: its attacks and hits (`known`), and, worked out when first asked for,
    its wounds and unsaved wounds, each summed over the weapon profiles (independent: each the random sum of
    what one attack yields over the profile's attacks). Wounds are rolled against the unit (`chain.rolled_against`);
    unsaved wounds are given only where one attack yields them alike whichever model it is allocated to (a save may
    differ by model). Neither beside mortal wound tests, whose wounds are no attack's, nor where the count is too
    large to sum (`limits.check_counts`: the answer stands without it)."""
    cache: dict[str, Pmf | None] = dict(known)

    def counts(name: str) -> Pmf | None:
        if name not in cache:
            cache[name] = _summed(name, firings, target, context, mode)
        return cache[name]

    return counts


def _summed(name: str, firings: Sequence[Firing | MortalWounds], target: Target, context: Context,
            mode: Mode) -> Pmf | None:
    if name not in ("wounds", "unsaved") or any(isinstance(f, MortalWounds) for f in firings):
        return None
    parts = []
    for firing in firings:
        assert isinstance(firing, Firing)
        own = firing.context or context
        profiles = [rolled_against(target)] if name == "wounds" else \
            [attrs.evolve(p, toughness=target.toughness, keywords=target.keywords) for p, _ in target.groups]
        each = {shown(firing.weapon, profile, own, mode, name) for profile in profiles}
        if len(each) != 1:  # one attack yields it unlike at some models (their saves differ)
            return None
        parts.append((attack_count(firing.weapon, target, firing.models, own), each.pop()))
    try:
        check_counts(sum(attacks.max * item.max for attacks, item in parts), mode)  # the most the sum can be
    except TooLarge:
        if partial():
            raise  # beyond this place's share of the limits: asked where it may take them all, answered alike
        return None
    return sum((mode.of(attacks).compound(item) for attacks, item in parts), mode.point(0))


def _one_command_reroll(context: Context, firings: list[Firing | MortalWounds]
                        ) -> tuple[Context, list[Firing | MortalWounds]]:
    """A Command Re-roll is one per query, whichever firing's situation names it: the query and every
    firing then share it (two different kinds are refused)."""
    own = [f.context for f in firings if isinstance(f, Firing) and f.context is not None]
    kinds = {c.command_reroll for c in (context, *own) if c.command_reroll is not None}
    if len(kinds) > 1:
        raise MathhammerError(f"one Command Re-roll per query, got {', '.join(sorted(k.value for k in kinds))}")
    if not kinds:
        return context, firings
    kind = kinds.pop()
    shared = [attrs.evolve(f, context=attrs.evolve(f.context, command_reroll=kind))
              if isinstance(f, Firing) and f.context is not None else f for f in firings]
    return attrs.evolve(context, command_reroll=kind), shared


@functools.cache
def _blas() -> ThreadpoolController:
    return ThreadpoolController()


def _one_blas_thread() -> Any:
    """The chain multiplies small matrices: on a busy machine BLAS threads cost far more than they
    give (a 105 x 105 chain ran 10x slower), so it runs on one thread."""
    return _blas().limit(limits=1, user_api="blas")


def _hazardous(firings: Sequence[Firing | MortalWounds], context: Context,
               mode: Mode) -> tuple[Pmf | None, Pmf | None]:
    """The attacker's failed Hazardous tests, and its models lost when every bearer is known."""
    used = [f for f in firings if isinstance(f, Firing) and f.weapon.hazardous]
    if not used:
        return None, None
    failed = hazardous_failures(sum(f.models for f in used), mode)
    if any(f.bearer is None for f in used):
        return failed, None
    bearers = [f.bearer for f in used for _ in range(f.models) if f.bearer is not None]
    return failed, hazardous_losses(bearers, (used[0].context or context).rules, mode)
