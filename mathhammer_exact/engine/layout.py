"""Where each model of a mixed or Attached target stands in the allocation order.

Models sit on two tracks: the *main* track (bodyguards, or every model of a unit that is
not Attached) and the *leader* track (the CHARACTER models of an Attached unit). The
target's state is a pair (wounds lost along the main track, wounds lost along the leader
track), each counted as in `stages.allocation.Track`. Ordinary wounds go to the main
track until it is used up, then to the leaders; Precision wounds go to a leader first.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from functools import cached_property

import attrs
import numpy as np

from ..errors import MathhammerError
from ..model import Target
from ..pmf import Mode, Pmf
from ..stages.allocation import Track, Transition
from ..weights import Banded, Scaled, common
from .consequences import below_half


def default_order(target: Target) -> tuple[int, ...]:
    """Group indices in the defender's default order: models that are not CHARACTERs first,
    fewest wounds first (the least valuable go first), then CHARACTER models."""
    groups = list(enumerate(target.groups))
    others = sorted((i for i, (p, _) in groups if not p.character), key=lambda i: target.groups[i][0].wounds)
    return (*others, *(i for i, (p, _) in groups if p.character))


@attrs.frozen(eq=False)
class Layout:
    """The models of `target` on the main and leader tracks, by group index. What is derived from
    it (tracks, losses and Below Half-strength in each state) is worked out once per target."""

    target: Target
    main: tuple[int, ...]
    leaders: tuple[int, ...]

    @classmethod
    def of(cls, target: Target, order: Sequence[int] | None = None) -> Layout:
        """Lay out `target` in allocation `order` (group indices; default: `default_order`)."""
        return _layout(target, None if order is None else tuple(order))

    @cached_property
    def main_track(self) -> Track:
        return Track(tuple(self.target.groups[g][0].wounds for g in self.main))

    @cached_property
    def leader_track(self) -> Track:
        return Track(tuple(self.target.groups[g][0].wounds for g in self.leaders))

    @cached_property
    def shape(self) -> tuple[int, int]:
        """States along each track: wounds lost 0..total."""
        return self.main_track.total + 1, self.leader_track.total + 1

    @cached_property
    def size(self) -> int:
        rows, cols = self.shape
        return rows * cols

    def unharmed(self, mode: Mode) -> Scaled:
        """The state before any damage."""
        state = Scaled.zeros((self.size,), mode.exact)
        state.array[0] = 1
        return state

    @cached_property
    def one_track(self) -> Layout:
        """This target with its leaders after its bodyguards on one track. Without Precision that is how
        wounds are allocated (a leader takes them only once every bodyguard is destroyed), and it has
        far fewer states: those with wounds on the leader track and a bodyguard alive are never reached."""
        return Layout(self.target, self.main + self.leaders, ())

    @cached_property
    def from_one_track(self) -> np.ndarray:
        """For each state of `one_track`, the state of this layout it is."""
        rows, cols = self.shape
        lost = np.arange(rows + cols - 1)
        main = np.minimum(lost, rows - 1)
        return main * cols + lost - main

    def transition(self, effects: Sequence[Pmf | Sequence[Pmf]], precision: bool = False,
                   destroyed: bool = True, one_group: bool = False) -> Banded:
        """One event's transition matrix; `effects[g]` is the wounds a model of group g would lose
        (or a list of them by wounds already lost, see `Transition.build`). Effects may be one branch
        of a choice (chances summing to less than 1); `destroyed` says whether that branch is the one
        taken once the unit is destroyed, when no model is left to receive anything. A `precision`
        event goes to a CHARACTER while one lives, or with `one_group` (the 11th edition) to the first
        CHARACTER group of the order until it is destroyed, then as the order goes."""
        built = [(Transition.build(track, [effects[g] for g in groups]).matrix, axis, stride)
                 for track, groups, axis, stride in ((self.main_track, self.main, 0, self.shape[1]),
                                                     (self.leader_track, self.leaders, 1, 1)) if groups]
        if not self.leaders and destroyed:
            return built[0][0]
        aligned, den = common([(matrix.bands, matrix.denominator) for matrix, _, _ in built], built[0][0].exact)
        rows, cols = self.shape
        lost = np.divmod(np.arange(self.size), cols)  # wounds lost along the main and the leader track
        main_alive, leader_alive = lost[0] < rows - 1, lost[1] < cols - 1
        chosen = cols - 1 if not one_group or not self.leaders else \
            self.target.groups[self.leaders[0]][0].wounds * self.target.groups[self.leaders[0]][1]
        to_leader = leader_alive & ((precision & (lost[1] < chosen)) | ~main_alive)
        receives = (main_alive & ~to_leader, to_leader)
        offsets = functools.reduce(np.union1d, [matrix.offsets * stride for matrix, _, stride in built])
        bands = np.zeros((len(offsets), self.size), dtype=aligned[0].dtype)
        for (matrix, axis, stride), weights in zip(built, aligned):  # a move along one track, in this layout's states
            who = np.flatnonzero(receives[axis])
            bands[np.searchsorted(offsets, matrix.offsets * stride)[:, None], who] = weights[:, lost[axis][who]]
        if destroyed:  # offset 0 is always there: a track's last state stays where it is
            bands[0, ~(receives[0] | receives[1])] = den
        return Banded(offsets, bands, den)

    @cached_property
    def below_half(self) -> np.ndarray:
        """For each state: whether the target ends Below Half-strength and not destroyed.

        An Attached unit counts its models against the combined Starting Strength while both
        parts live; once only the leaders or only the bodyguards are left, they count against
        their own Starting Strength (a one-model unit: fewer than half its wounds left). A unit that has lost
        models before (`Target.starting_strength`) counts them lost."""
        b, c, main_dead, lead_dead = self._dead
        n_lead = len(self.leaders)
        main_alive, lead_alive = len(self.main) - main_dead, n_lead - lead_dead
        n_main = len(self.main) + self.target.lost_before  # (with `one_track`'s leaders: its Starting Strength)
        if not n_lead:  # one track: its models are the unit
            return below_half(n_main, main_alive, self.main_track.total, b)
        together = below_half(n_main + n_lead, main_alive + lead_alive)
        main_alone = below_half(n_main, main_alive, self.main_track.total, b)
        leaders_alone = below_half(n_lead, lead_alive, self.leader_track.total, c)
        return np.where(main_alive > 0, np.where(lead_alive > 0, together, main_alone), leaders_alone)

    @cached_property
    def leadership(self) -> np.ndarray | None:
        """For each state: the best Leadership among the surviving models (what a Battle-shock
        test uses), or None when no model of the target has a Leadership."""
        if self.target.leadership is None:
            return None
        per_group = self.per_group
        best = np.full(self.size, self.target.leadership, dtype=int)
        for s in range(self.size):
            alive = [p.leadership for g, (p, n) in enumerate(self.target.groups)
                     if per_group[s, g] < n and p.leadership is not None]
            if alive:
                best[s] = min(alive)
        return best

    @cached_property
    def _dead(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """For each state: wounds lost along the main and the leader track, and models destroyed on each."""
        rows, cols = self.shape
        b, c = np.divmod(np.arange(self.size), cols)
        main_dead = self.main_track.model_at()[b] if self.main else np.zeros(self.size, dtype=int)
        lead_dead = self.leader_track.model_at()[c] if self.leaders else np.zeros(self.size, dtype=int)
        return b, c, main_dead, lead_dead

    @cached_property
    def losses(self) -> tuple[np.ndarray, np.ndarray]:
        """For each state: wounds lost, and models destroyed."""
        b, c, main_dead, lead_dead = self._dead
        if not self.leaders:  # one track: its losses are the unit's
            return b, main_dead
        return b + c, main_dead + lead_dead

    @cached_property
    def per_group(self) -> np.ndarray:
        """For each state: models destroyed per group (states x groups)."""
        _, _, main_dead, lead_dead = self._dead
        per_group = np.zeros((self.size, len(self.target.groups)), dtype=int)
        for dead, groups in ((main_dead, self.main), (lead_dead, self.leaders)):
            for g in sorted(set(groups)):  # the groups on this track (the others lose no model on it)
                first_models = np.cumsum([0, *(int(x == g) for x in groups)])
                per_group[:, g] += first_models[dead]
        return per_group


@functools.lru_cache(maxsize=256)
def _layout(target: Target, order: tuple[int, ...] | None) -> Layout:
    order = order if order is not None else default_order(target)
    if sorted(order) != list(range(len(target.groups))):
        raise MathhammerError(
            f"allocation order must list each model group once (0 to {len(target.groups) - 1}), got {order}")
    main: list[int] = []
    leaders: list[int] = []
    for g in order:
        profile, count = target.groups[g]
        (leaders if target.attached and profile.character else main).extend([g] * count)
    return Layout(target, tuple(main), tuple(leaders))
