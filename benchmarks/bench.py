"""Benchmark of typical queries, in process and through the CLI (not a test; figures go in notes).

Run after installing: python benchmarks/bench.py

Each figure is the median of repeated calls with its 25th-75th percentile range, and the best call
(this machine is shared and noisy: the best call is the compute, the median what one sees). "kills" reads
the damage and models-destroyed distributions (what the chain computes); "all" also reads hits,
wounds and unsaved wounds, which are worked out on first read.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from collections.abc import Callable

from mathhammer_exact import AttackResult, Context, Target, Weapon, attack
from mathhammer_exact.data.load import datasheet
from mathhammer_exact.data.query import unit_attack

WEAPON_TEXT = "A1 BS3+ S4 AP0 DD3 [SUSTAINED HITS 1]"
WEAPON = Weapon.parse(WEAPON_TEXT)
SCENARIOS = {
    "S1: 20 models vs T4 Sv4+ W3 x5": (Target.parse("T4 Sv4+ W3 x5"), 20),
    "S2: 120 models vs T4 Sv4+ W3 x20": (Target.parse("T4 Sv4+ W3 x20"), 120),
}


def timed_ms(call: Callable[[], object], budget_s: float = 2.0) -> tuple[float, float, float, float]:
    """Median, quartiles and best of repeated calls, in milliseconds."""
    call()
    times: list[float] = []
    deadline = time.perf_counter() + budget_s
    while len(times) < 7 or (time.perf_counter() < deadline and len(times) < 5000):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    q1, median, q3 = statistics.quantiles(times, n=4)
    return median, q1, q3, min(times)


def read_all(result: AttackResult) -> None:
    result.stages()


# S3: the full Tempestus Command Squad, five weapon profiles (four special weapons and the Prime's
# bolt pistol, all with Sustained Hits 1), against ten Incursors with an attached 3-wound leader.
INCURSORS = datasheet("Incursor Squad").as_target(10)
LED = Target((*INCURSORS.groups, (Target.parse("T4 Sv3+ W3 Ld6+ [CHARACTER]").single, 1)), attached=True)
LOADOUT = ["plasma gun", "meltagun", "flamer", "hot-shot volley gun"]


def s3(exact: bool) -> object:
    return unit_attack("Tempestus Command Squad", LED, LOADOUT, context=Context(half_range=True), exact=exact)


def line(name: str, exact: bool, what: str, call: Callable[[], object]) -> None:
    median, q1, q3, best = timed_ms(call)
    mode = "exact" if exact else "float"
    print(f"{name:36s} {mode:5s} {what:5s} {median:9.3f} ms  (IQR {q1:.3f}-{q3:.3f}, best {best:.3f})")


def main() -> None:
    for name, (target, models) in SCENARIOS.items():
        for exact in (False, True):
            for what, reader in (("kills", lambda r: r.models_destroyed), ("all", read_all)):
                line(name, exact, what, lambda t=target, m=models, e=exact, f=reader: f(attack(WEAPON, t, m, exact=e)))
    for exact in (False, True):
        line("S3: Command Squad vs led Incursors", exact, "all", lambda e=exact: s3(e))
    cli = [sys.executable, "-m", "mathhammer_exact", "attack", "--weapon", WEAPON_TEXT, "--models", "20",
           "--target", "T4 Sv4+ W3 x5"]
    walls = []
    for _ in range(7):
        start = time.perf_counter()
        subprocess.run(cli, check=True, capture_output=True)
        walls.append((time.perf_counter() - start) * 1000)
    print(f"{'CLI, S1 from a cold start (median of 7)':48s} {statistics.median(walls):9.1f} ms")


if __name__ == "__main__":
    main()
