"""Benchmark of typical queries, in process (median of repeated calls) and through the CLI.

Run: python benchmarks/bench.py   (figures go in the issue notes; this is not a test)
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from collections.abc import Callable

from mathhammer_exact import Target, Weapon, attack

WEAPON = Weapon.parse("A1 BS3+ S4 AP0 DD3 [SUSTAINED HITS 1]")
SCENARIOS: dict[str, Callable[[bool], object]] = {
    "S1 20 models vs T4 Sv4+ W3 x5": lambda exact: attack(WEAPON, Target.parse("T4 Sv4+ W3 x5"), 20, exact=exact),
    "S2 120 models vs T4 Sv4+ W3 x20": lambda exact: attack(
        WEAPON, Target.parse("T4 Sv4+ W3 x20"), 120, exact=exact
    ),
}


def median_ms(call: Callable[[], object], budget_s: float = 1.0) -> float:
    """Median wall time of repeated calls, in milliseconds."""
    call()
    times: list[float] = []
    deadline = time.perf_counter() + budget_s
    while len(times) < 5 or (time.perf_counter() < deadline and len(times) < 2000):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    for name, run in SCENARIOS.items():
        for exact in (False, True):
            mode = "exact" if exact else "float"
            print(f"{name:40s} {mode:5s} {median_ms(lambda run=run, exact=exact: run(exact)):9.3f} ms")
    cli = [sys.executable, "-m", "mathhammer_exact", "attack", "--weapon", "A1 BS3+ S4 AP0 DD3 [SUSTAINED HITS 1]",
           "--models", "20", "--target", "T4 Sv4+ W3 x5"]
    walls = []
    for _ in range(5):
        start = time.perf_counter()
        subprocess.run(cli, check=True, capture_output=True)
        walls.append(time.perf_counter() - start)
    print(f"{'CLI S1 cold start (median of 5)':40s} {'':5s} {statistics.median(walls) * 1000:9.1f} ms")


if __name__ == "__main__":
    main()
