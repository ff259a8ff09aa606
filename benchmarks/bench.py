"""Benchmark of typical and large queries, each against a bare kernel of the same computation.

Run after installing: python benchmarks/bench.py [--quick]

The machine is shared and noisy, so every engine figure is given as a ratio to a bare kernel timed
in the same run: the same numbers worked out by hand-written numpy (float64, or Python integers over
one common denominator for exact mode) from odds derived by hand, with none of the engine's
set-up, checks or result objects. Each figure is the median of repeated calls (best call in brackets).
"engine" is a query whose plan (odds and transitions for that weapon and target) is already cached,
as when a player varies the number of models; "cold" is a new query: its weapon and target strings
parsed and every cache of the package cleared before every call (as a command-line run, or a sweep's
or a server's first question of each kind), and both are given as ratios to the kernel. S3's kernel is the whole-unit
chain's stepping alone, with its transition matrices worked out beforehand.

The server rows ask a real `mathhammer serve` on 127.0.0.1 (with the [web] extra): S1 and a charge roll
on one kept-alive connection (as a browser keeps it) and on a new connection each, given as a ratio to
S1's bare kernel; then charge rolls while eight heavy exact questions compute (p50 and p99). The
start-up rows run each command in a fresh interpreter with its bytecode cached (as an installed
package runs), as a ratio to `python -c pass` timed in the same run. The indexing rows index the BSData
checkout that $MATHHAMMER_BSDATA names (the fixture checkout without it) from a fresh interpreter, in one
process and shared among the cores, as a ratio to parsing its files alone in the same run.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import http.client
import importlib.util
import json
import math
import os
import re
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from fractions import Fraction
from pathlib import Path

import numpy as np

from mathhammer_exact import Context, Firing, Rules, Target, Weapon, attack
from mathhammer_exact.decide.unit_attack import unit_attack
from mathhammer_exact.pmf import FLOAT
from mathhammer_exact.units.by_name import datasheet

QUICK = "--quick" in sys.argv


def timed(call: Callable[[], object], budget_s: float = 0.3 if QUICK else 1.5) -> tuple[float, float]:
    """Median and best of repeated calls, in milliseconds."""
    call()
    times: list[float] = []
    deadline = time.perf_counter() + budget_s
    while len(times) < 5 or (time.perf_counter() < deadline and len(times) < 3000):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), min(times)


# ----------------------------------------------------------------------------- the bare kernels
class Numbers:
    """Float64 arrays, or Python integers over a common denominator (exact): the kernel's arithmetic."""

    def __init__(self, exact: bool):
        self.exact = exact

    def array(self, probs: list[Fraction]) -> tuple[np.ndarray, int]:
        if not self.exact:
            return np.array([float(p) for p in probs]), 1
        den = math.lcm(*(p.denominator for p in probs))
        return np.array([int(p * den) for p in probs], dtype=object), den


def convolve_grid(a: np.ndarray, b: np.ndarray, cap: int) -> np.ndarray:
    """2-D sum of independent pairs of counts, folded at `cap` on both axes."""
    out = np.zeros((min(a.shape[0] + b.shape[0] - 1, cap + 1), min(a.shape[1] + b.shape[1] - 1, cap + 1)),
                   dtype=a.dtype)
    for i, j in zip(*np.nonzero(b)):
        block = a * b[i, j]
        rows, cols = np.minimum(np.arange(a.shape[0]) + i, cap), np.minimum(np.arange(a.shape[1]) + j, cap)
        np.add.at(out, (rows[:, None], cols[None, :]), block)
    return out


def fold(a: np.ndarray, cap: int) -> np.ndarray:
    if len(a) > cap + 1:
        a = np.concatenate([a[:cap], [a[cap:].sum()]])
    return a


def damage_matrix(models: int, wounds: int, damage: list[Fraction], num: Numbers) -> tuple[np.ndarray, int]:
    """One attack that costs a wound: the model being worked on loses `damage`, excess lost."""
    weights, den = num.array(damage)  # damage[d - 1] = P(D = d)
    size = models * wounds + 1
    matrix = np.zeros((size, size), dtype=weights.dtype)
    for s in range(size - 1):
        end = (s // wounds + 1) * wounds
        for d, w in enumerate(weights, 1):
            matrix[s, min(s + d, end)] += w
    matrix[size - 1, size - 1] = den
    return matrix, den


def bare_pipeline(item: list[Fraction], attacks: int, models: int, wounds: int, damage: list[Fraction],
                  num: Numbers) -> tuple[np.ndarray, np.ndarray]:
    """Damage and kills for `attacks` attacks each yielding item[k] unsaved wounds, D `damage` against
    `models` models of W `wounds`: the count by square-and-multiply folded at the unit's wounds, then
    the allocation stepped once per unsaved wound."""
    cap = models * wounds
    one, den = num.array(item)
    count, count_den, n = np.ones(1, dtype=one.dtype), 1, attacks
    while n:
        if n & 1:
            count, count_den = fold(np.convolve(count, one), cap), count_den * den
        n >>= 1
        if n:
            one, den = fold(np.convolve(one, one), cap), den * den
    matrix, mden = damage_matrix(models, wounds, damage, num)
    state = np.zeros(cap + 1, dtype=matrix.dtype)
    state[0] = 1
    final = np.zeros_like(state)
    for u, w in enumerate(count):
        final = final * mden + w * state if num.exact else final + w * state
        if u < len(count) - 1:
            state = state @ matrix
    kills = np.bincount(np.arange(cap + 1) // wounds, weights=final.astype(float) if not num.exact else None) \
        if not num.exact else np.array([final[k * wounds:(k + 1) * wounds].sum() for k in range(models + 1)])
    return final, kills


def bare_devastating(attacks: int, models: int, wounds: int, num: Numbers) -> np.ndarray:
    """The Devastating Wounds volley: a pair of counts (unsaved wounds, waiting Devastating Wounds)
    per attack, summed over attacks folded at the unit's wounds, then all of the first kind and all of
    the second (D3 each, excess lost, no Feel No Pain: the same transition)."""
    cap = models * wounds
    hit = {(0, 0): Fraction(1, 2) + Fraction(1, 3) * Fraction(2, 3), (1, 0): Fraction(1, 9), (0, 1): Fraction(1, 6)}
    two = {}
    for (a, b), p in hit.items():
        for (c, d), q in hit.items():
            two[(a + c, b + d)] = two.get((a + c, b + d), Fraction(0)) + p * q
    item = {(0, 0): Fraction(1, 3) + Fraction(1, 2) * hit[(0, 0)] + Fraction(1, 6) * two[(0, 0)]}
    for key, p in hit.items():
        if key != (0, 0):
            item[key] = Fraction(1, 2) * p
    for key, p in two.items():
        if key != (0, 0):
            item[key] = item.get(key, Fraction(0)) + Fraction(1, 6) * p
    keys = list(item)
    weights, den = num.array([item[k] for k in keys])
    grid = np.zeros((3, 3), dtype=weights.dtype)
    for (a, b), w in zip(keys, weights):
        grid[a, b] = w
    count = np.ones((1, 1), dtype=grid.dtype)
    for _ in range(attacks):
        count = convolve_grid(count, grid, cap)
    matrix, mden = damage_matrix(models, wounds, [Fraction(1, 3)] * 3, num)
    rows = []
    state = np.zeros(cap + 1, dtype=matrix.dtype)
    state[0] = 1
    for _ in range(count.shape[0]):
        rows.append(state)
        state = state @ matrix
    if num.exact:  # every row over the same denominator: the last row's
        rows = [row * mden ** (len(rows) - 1 - u) for u, row in enumerate(rows)]
    after = [sum(rows[u] * count[u, v] for u in range(count.shape[0])) for v in range(count.shape[1])]
    result, scale = after[-1], 1
    for row in after[-2::-1]:
        scale *= mden if num.exact else 1
        result = result @ matrix + row * scale
    return result


# ----------------------------------------------------------------------------- the scenarios
WEAPON_TEXT = "A1 BS3+ S4 AP0 DD3 [SUSTAINED HITS 1]"
WEAPON = Weapon.parse(WEAPON_TEXT)
# per attack: miss 2/6; a normal hit 3/6 and a Critical Hit 1/6 (two hits); each hit gets through (wounds on
# 4+ and fails a 4+ save) with 1/4
Q = Fraction(1, 4)
ITEM = [Fraction(2, 6) + Fraction(3, 6) * (1 - Q) + Fraction(1, 6) * (1 - Q) ** 2,
        Fraction(3, 6) * Q + Fraction(1, 6) * 2 * Q * (1 - Q), Fraction(1, 6) * Q**2]
D3 = [Fraction(1, 3)] * 3
VOLLEY_TEXT, TOUGH_TEXT = "A2 BS3+ S5 AP-1 DD3 [SUSTAINED HITS 1, DEVASTATING WOUNDS]", "T5 Sv2+ inv4+ W3 x10"
VOLLEY, TOUGH = Weapon.parse(VOLLEY_TEXT), Target.parse(TOUGH_TEXT)


@functools.cache
def _caches() -> list[functools._lru_cache_wrapper]:
    """Every cache of the package (found once the scenarios have run, so that each is loaded)."""
    return [o for o in gc.get_objects() if isinstance(o, functools._lru_cache_wrapper)
            and getattr(o, "__module__", "").startswith("mathhammer_exact")]


def new_query(weapon: str, target: str, models: int, exact: bool) -> object:
    """A query not asked before in this process: its strings parsed, every cache cold."""
    for cache in _caches():
        cache.cache_clear()
    r = attack(Weapon.parse(weapon), Target.parse(target), models, exact=exact)
    return r.models_destroyed, r.damage


def pipeline_rows() -> list[tuple[str, Callable[[], object], Callable[[], object], Callable[[], object]]]:
    rows = []
    for name, models, count in (("S1: 20 models vs W3 x5", 20, 5), ("S2: 120 models vs W3 x20", 120, 20),
                                ("1,000 models vs W3 x5", 1000, 5), ("1,000 models vs W3 x20", 1000, 20)):
        target = Target.parse(f"T4 Sv4+ W3 x{count}")
        for exact in (False, True):
            label = f"{name}, {'exact' if exact else 'float'}"

            def engine(t: Target = target, m: int = models, e: bool = exact) -> object:
                r = attack(WEAPON, t, m, exact=e)
                return r.models_destroyed, r.damage

            def cold(t: str = f"T4 Sv4+ W3 x{count}", m: int = models, e: bool = exact) -> object:
                return new_query(WEAPON_TEXT, t, m, e)

            def bare(c: int = count, m: int = models, e: bool = exact) -> object:
                return bare_pipeline(ITEM, m, c, 3, D3, Numbers(e))

            rows.append((label, engine, cold, bare))
    for exact in (False, True):
        def engine(e: bool = exact) -> object:
            return attack(VOLLEY, TOUGH, 60, exact=e).models_destroyed

        def cold(e: bool = exact) -> object:
            return new_query(VOLLEY_TEXT, TOUGH_TEXT, 60, e)

        def bare(e: bool = exact) -> object:
            return bare_devastating(120, 10, 3, Numbers(e))

        rows.append((f"DW volley: 60 models vs W3 x10, {'exact' if exact else 'float'}", engine, cold, bare))
    return rows


def check_kernels() -> None:
    """The bare kernels compute the same numbers as the engine (else a ratio would mean nothing)."""
    final, _ = bare_pipeline(ITEM, 20, 5, 3, D3, Numbers(True))
    den = sum(final)
    engine = attack(WEAPON, Target.parse("T4 Sv4+ W3 x5"), 20, exact=True).damage
    assert [Fraction(int(w), den) for w in final] == engine.probabilities(), "S1 kernel disagrees"
    final = bare_devastating(120, 10, 3, Numbers(True))
    state = attack(VOLLEY, TOUGH, 60, exact=True).damage
    assert [Fraction(int(w), sum(final)) for w in final] == state.probabilities(), "DW kernel disagrees"


# S3: the full Tempestus Command Squad, five weapon profiles (four special weapons and the Prime's
# bolt pistol, all with Sustained Hits 1), against ten Incursors with an attached 3-wound leader.
INCURSORS = datasheet("Incursor Squad").as_target(10)
LED = Target((*INCURSORS.groups, (Target.parse("T4 Sv3+ W3 Ld6+ [CHARACTER]").single, 1)), attached=True)
LOADOUT = ["plasma gun", "meltagun", "flamer", "hot-shot volley gun"]


def bare_chain(steps: list[tuple[np.ndarray, list[float]]], size: int) -> np.ndarray:
    """The whole-unit chain's own work: for each weapon profile, the state mixed over its number of
    attacks, stepping one attack's transition matrix at a time (matrices worked out beforehand)."""
    state = np.zeros(size)
    state[0] = 1.0
    for matrix, counts in steps:
        total = np.zeros(size)
        for u, p in enumerate(counts):
            total += p * state
            if u < len(counts) - 1:
                state = state @ matrix
        state = total
    return state


def chain_kernel_inputs(firings: list[Firing], target: Target, context: Context
                        ) -> tuple[list[tuple[np.ndarray, list[float]]], int]:
    """The chain's transition matrices (written out) and attack counts for `firings`, from the engine (so
    that the kernel times only the stepping); without Precision the leaders follow the bodyguards."""
    from mathhammer_exact.engine.chain import _profile
    from mathhammer_exact.engine.layout import Layout

    assert not any(firing.weapon.precision for firing in firings)
    layout = Layout.of(target).one_track
    steps = []
    for firing in firings:
        profile = _profile(firing, layout, firing.context or context, FLOAT)
        assert set(profile.attack.terms) == {0}, "the kernel steps no waiting mortal wounds"
        counts = [0.0] * profile.attacks.min + [float(p) for p in profile.attacks.probabilities()]
        steps.append((profile.attack.terms[0].dense(), counts))
    return steps, layout.size


def s3_kernel_inputs() -> tuple[list[tuple[np.ndarray, list[float]]], int]:
    """S3's transition matrices and attack counts."""
    report = unit_attack("Tempestus Command Squad", LED, LOADOUT, context=Context(half_range=True))
    return chain_kernel_inputs(list(report.firings), LED, Context(half_range=True))


# Attached targets (the figures): nineteen W3 bodyguards and a W6 leader
ATTACHED = Target.parse("T4 Sv3+ W3 x19; T4 Sv3+ W6 leader")
DW_VOLLEY = [Firing(Weapon.parse("A4 BS3+ S5 AP-1 D1 [DEVASTATING WOUNDS]"), 20)]
SIX = [Firing(Weapon.parse(w), 1) for w in ("A2 BS3+ S4 AP0 D1", "A1 BS3+ S8 AP-3 DD6", "A3 BS4+ S5 AP-1 D2",
                                             "A4 BS3+ S4 AP0 D1 [SUSTAINED HITS 1]", "A1 BS2+ S9 AP-4 D=3",
                                             "AD6 BS3+ S5 AP0 D1 [TORRENT]")]
EIGHT = [*SIX, *(Firing(Weapon.parse(w), 1) for w in ("A2 BS3+ S6 AP-1 D2", "A1 BS3+ S7 AP-2 D=2"))]
BOYZ = [Firing(Weapon.parse("A3 WS3+ S4 AP0 D1"), 19), Firing(Weapon.parse("A2 WS3+ S9 AP-2 D2"), 1)]
#: three profiles whose Devastating Wounds wait, one with Precision: a count of waiting wounds per profile
THREE_DW = [Firing(Weapon.parse(w), n) for w, n in (("A4 BS3+ S5 AP-1 D1 [DEVASTATING WOUNDS]", 10),
                                                    ("A2 BS3+ S5 AP-1 D2 [DEVASTATING WOUNDS, PRECISION]", 5),
                                                    ("A1 BS3+ S8 AP-2 D=3 [DEVASTATING WOUNDS]", 5))]
#: four profiles, three with Devastating Wounds that land differently, the last with Precision: the last meets a
#: state of 20 x 20 counts for each of its 98 target states (worked out from each state, `chain._after`)
MANY_COUNTS = [Firing(Weapon.parse(w), n) for w, n in (
    ("A1 BS2+ S5 AP-2 D=D6", 9), ("AD6 BS4+ S8 AP-2 D=1 [DEVASTATING WOUNDS]", 9),
    ("AD3 BS3+ S6 AP-2 D=D3 [LETHAL HITS, DEVASTATING WOUNDS, TWIN-LINKED, ANTI-INFANTRY 4+]", 7),
    ("AD6 BS3+ S5 AP-1 D=3 [DEVASTATING WOUNDS, PRECISION, ANTI-INFANTRY 4+]", 7))]
SMALL_LED = Target.parse("T4 Sv3+ W1 x13 [INFANTRY]; T4 Sv3+ W6 leader")


def attached_rows() -> None:
    """The Attached target's queries, each a ratio to the chain's bare stepping of the same firings
    (the Devastating Wounds volley's waiting wounds are not in that kernel: its ratio is to the volley
    without them, as a scale); three profiles' waiting wounds with Precision, timed alone (the kernel
    steps one track, without Precision)."""
    plain = [Firing(Weapon.parse("A4 BS3+ S5 AP-1 D1"), 20)]
    for label, firings, kernel in (("DW volley 20 x A4 D1", DW_VOLLEY, plain), ("6 weapons in order", SIX, SIX),
                                   ("20 Boyz", BOYZ, BOYZ)):
        steps, size = chain_kernel_inputs(kernel, ATTACHED, Context())
        bare_median, bare_best = timed(lambda s=steps, n=size: bare_chain(s, n))
        for exact in (False, True):
            median, best = timed(lambda e=exact, f=firings: attack(f, ATTACHED, exact=e).damage)
            print(f"{'Attached: ' + label + ', ' + ('exact' if exact else 'float'):44s} {median:8.3f} ({best:6.3f}) ms "
                  f"{'':18s} {bare_median:8.3f} ({bare_best:6.3f}) ms {median / bare_median:6.2f}")
    for exact in (False, True):
        median, best = timed(lambda e=exact: attack(THREE_DW, ATTACHED, exact=e).damage, budget_s=0.5 if QUICK else 3)
        print(f"{'Attached: 3 DW profiles, Precision, ' + ('exact' if exact else 'float'):44s} {median:8.3f} "
              f"({best:6.3f}) ms")
    median, best = timed(lambda: attack(MANY_COUNTS, SMALL_LED).damage, budget_s=0.5 if QUICK else 3)
    print(f"{'Attached: 4 profiles, 3 counts, 13 W1 + W6, float':44s} {median:8.3f} ({best:6.3f}) ms")


def plan_rows(s1_kernel: float) -> None:
    """`plan` of six weapon profiles (720 orders) against ten W2 models, of eight (40,320 orders) in float mode, and
    of six, one with Precision, at an Attached unit, as a ratio to S1's bare kernel."""
    from mathhammer_exact.decide.plan import plan

    target, led = Target.parse("T4 Sv3+ W2 x10"), Target.parse("T4 Sv3+ W3 x9; T4 Sv3+ W6 leader")
    precise = [*SIX[:5], Firing(Weapon.parse("A2 BS3+ S6 AP-1 D2 [PRECISION]"), 1)]  # each state of both tracks
    for weapons, at, exact in ((SIX, target, False), (SIX, target, True), (EIGHT, target, False),
                               (precise, led, False), (precise, led, True)):
        median, best = timed(lambda w=weapons, t=at, e=exact: plan(w, [t], exact=e), budget_s=0.5 if QUICK else 3)
        label = (f"plan: {len(weapons)} weapons vs W2 x10" if at is target else "plan: 6 with Precision vs 9 W3 + W6"
                 ) + f", {'exact' if exact else 'float'}"
        print(f"{label:44s} {median:8.3f} ({best:6.3f}) ms {'':18s} {'(S1 kernel)':>18s} {median / s1_kernel:6.0f}")


def main() -> None:
    check_kernels()
    print(f"{'scenario':44s} {'engine':>18s} {'new query':>18s} {'bare kernel':>18s} {'ratio':>6s} {'cold':>6s}")
    for label, engine, cold, bare in pipeline_rows():
        (em, eb), (cm, cb), (bm, bb) = timed(engine), timed(cold), timed(bare)
        print(f"{label:44s} {em:8.3f} ({eb:6.3f}) ms {cm:8.3f} ({cb:6.3f}) ms {bm:8.3f} ({bb:6.3f}) ms "
              f"{em / bm:6.2f} {cm / bm:6.2f}")
    steps, size = s3_kernel_inputs()
    bare_median, bare_best = timed(lambda: bare_chain(steps, size))
    for exact in (False, True):
        median, best = timed(lambda e=exact: unit_attack("Tempestus Command Squad", LED, LOADOUT,
                                                          context=Context(half_range=True), exact=e))
        kernel = f"{bare_median:8.3f} ({bare_best:6.3f}) ms {median / bare_median:6.2f}" if not exact else ""
        print(f"{'S3: Command Squad vs led Incursors, ' + ('exact' if exact else 'float'):44s} "
              f"{median:8.3f} ({best:6.3f}) ms {'':18s} {kernel}")
    launch = Context(rules=Rules.named("2023"))
    for exact in (False, True):
        median, best = timed(lambda e=exact: attack(VOLLEY, TOUGH, 60, launch, exact=e).models_destroyed)
        print(f"{'DW volley, 2023 wording, ' + ('exact' if exact else 'float'):44s} {median:8.3f} ({best:6.3f}) ms")
    attached_rows()
    s1_kernel, _ = timed(lambda: bare_pipeline(ITEM, 20, 5, 3, D3, Numbers(False)))
    plan_rows(s1_kernel)
    if importlib.util.find_spec("fastapi") and importlib.util.find_spec("uvicorn"):
        server_rows(s1_kernel)
    startup_rows()
    indexing_rows()


# ----------------------------------------------------------------------------- the server and start-up
S1_QUESTION = {"weapons": [{"weapon": "A1 BS3+ S4 AP0 DD3 [SUSTAINED HITS 1]", "models": 20}],
               "target": "T4 Sv4+ W3 x5"}
CHARGE = {"distance": 9}
HEAVY = {"weapons": [{"weapon": "A1 BS3+ S4 AP-1 D1", "models": 1000}], "target": "T4 Sv3+ W1 x999; T4 Sv3+ W5 leader",
         "exact": True}  # seconds of exact work, past the light lane's share of the work limit (as in the tests)


@contextlib.contextmanager
def served() -> Iterator[int]:
    """`mathhammer serve` on a free loopback port until the block ends; yields the port."""
    server = subprocess.Popen([sys.executable, "-m", "mathhammer_exact", "serve", "--port", "0", "--time-limit", "5"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert server.stderr is not None
    try:
        ready = select.select([server.stderr], [], [], 60)[0]
        found = re.search(r"127\.0\.0\.1:(\d+)/", server.stderr.readline() if ready else "")
        assert found, "the server did not start"
        yield int(found.group(1))
    finally:
        server.send_signal(signal.SIGTERM)
        server.communicate(timeout=30)


def asked(port: int, path: str, body: dict, kept: http.client.HTTPConnection | None = None) -> float:
    """Milliseconds for one answer, on the connection `kept` or on a new one."""
    connection = kept or http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    start = time.perf_counter()
    connection.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
    response = connection.getresponse()
    response.read()
    if kept is None:
        connection.close()
    assert response.status in (200, 422, 503), response.status
    return (time.perf_counter() - start) * 1000


def server_rows(s1_kernel: float) -> None:
    count = 20 if QUICK else 100
    with served() as port:
        kept = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        questions = (("S1 float", "/api/attack", S1_QUESTION), ("charge roll", "/api/roll/charge", CHARGE))
        for label, path, body in questions:
            for how, connection in (("kept alive", kept), ("new connection each", None)):
                asked(port, path, body, connection)
                times = [asked(port, path, body, connection) for _ in range(count)]
                print(f"{'server, ' + how + ': ' + label:44s} {statistics.median(times):8.3f} ({min(times):6.3f}) ms "
                      f"{'':18s} {'':18s} {statistics.median(times) / s1_kernel:6.0f}")
        heavy = [threading.Thread(target=asked, args=(port, "/api/attack", HEAVY)) for _ in range(8)]
        for thread in heavy:
            thread.start()
        rolls, start = [], time.monotonic()
        while time.monotonic() - start < (1 if QUICK else 3):
            rolls.append(asked(port, "/api/roll/charge", CHARGE, kept))
        busy = sum(thread.is_alive() for thread in heavy)
        for thread in heavy:
            thread.join()
        kept.close()
        p99 = statistics.quantiles(rolls, n=100)[98] if len(rolls) > 1 else rolls[0]
        print(f"{'server, 8 heavy exact computing: charge roll':44s} {statistics.median(rolls):8.3f} ms p50, "
              f"{p99:.1f} ms p99 over {len(rolls)} rolls ({busy} heavy still asked after them)")


def installed(cache: str, **more: str) -> dict[str, str]:
    """The environment of a fresh interpreter that reads and writes bytecode (in `cache`), as an installed package
    does, whatever this shell says (PYTHONDONTWRITEBYTECODE would have each run compile every module again)."""
    return {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}, "PYTHONPYCACHEPREFIX": cache,
            **more}


def startup_rows() -> None:
    """Each command from a fresh interpreter, as a ratio to `python -c pass`."""
    commands = {"python -c pass": ["-c", "pass"], "mathhammer --help": ["-m", "mathhammer_exact", "--help"],
                "mathhammer roll charge -d 9": ["-m", "mathhammer_exact", "roll", "charge", "-d", "9"],
                "mathhammer attack (S1, written out)": ["-m", "mathhammer_exact", "attack", "-w", WEAPON_TEXT,
                                                        "-m", "20", "-t", "T4 Sv4+ W3 x5"]}
    with tempfile.TemporaryDirectory() as cache:
        env = installed(cache)
        walls: dict[str, list[float]] = {label: [] for label in commands}
        for args in commands.values():  # bytecode written once
            subprocess.run([sys.executable, *args], check=True, capture_output=True, env=env)
        for _ in range(5 if QUICK else 15):  # in turn, so that load elsewhere slows all alike
            for label, args in commands.items():
                start = time.perf_counter()
                subprocess.run([sys.executable, *args], check=True, capture_output=True, env=env)
                walls[label].append((time.perf_counter() - start) * 1000)
    bare = statistics.median(walls["python -c pass"])
    for label, times in walls.items():
        print(f"{'start-up: ' + label:44s} {statistics.median(times):8.1f} ({min(times):6.1f}) ms "
              f"{'':18s} {'':18s} {statistics.median(times) / bare:6.2f}")


def indexing_rows() -> None:
    """`mathhammer data add` of the checkout $MATHHAMMER_BSDATA names (else the fixture checkout) into a fresh
    data folder, each from a fresh interpreter, as a ratio to parsing its files alone, timed in turn."""
    folder = os.environ.get("MATHHAMMER_BSDATA") or str(Path(__file__).parent.parent / "tests" / "fixtures" / "bsdata")
    load = "from pathlib import Path; from mathhammer_exact.catalogue import bsdata, build; from " \
           f"mathhammer_exact.catalogue.newrecruit import read_document; folder = Path({folder!r}); "
    commands = {"parse its files alone": load + "import gc; gc.disable(); [read_document(p, ('gameSystem', "
                                                "'catalogue')) for p in bsdata.checkout_files(folder)]",  # as data add
                "data add, one process": load + "build.add_checkout(folder, workers=1)",
                "data add": load + "build.add_checkout(folder)"}
    walls: dict[str, list[float]] = {label: [] for label in commands}
    with tempfile.TemporaryDirectory() as data, tempfile.TemporaryDirectory() as cache:
        env = installed(cache, MATHHAMMER_DATA=data)
        subprocess.run([sys.executable, "-c", load], check=True, capture_output=True, env=env)  # bytecode written
        for _ in range(1 if QUICK else 3):  # in turn, so that load elsewhere slows all alike
            for label, code in commands.items():
                start = time.perf_counter()
                subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, env=env)
                walls[label].append((time.perf_counter() - start) * 1000)
    bare = statistics.median(walls["parse its files alone"])
    print(f"indexing {folder}:")
    for label, times in walls.items():
        print(f"{'index: ' + label:44s} {statistics.median(times):8.1f} ({min(times):6.1f}) ms "
              f"{'':18s} {'':18s} {statistics.median(times) / bare:6.2f}")


# ----------------------------------------------------------------------------- sweeps (the [scale] extra)
def sweep_sample() -> tuple[str, object]:
    """A fixed sample of real weapon profiles against the standard targets, one model and ten: every
    k-th distinct profile of the BSData index ($MATHHAMMER_DATA) when there is one, else of the shipped
    datasheets."""
    from mathhammer_exact.catalogue.convert import to_datasheet
    from mathhammer_exact.catalogue.library import current_index
    from mathhammer_exact.data.load import datasheets, standard_targets
    from mathhammer_exact.sweep.queries import Attacker, Defender, Grid

    index = current_index()
    sheets = [to_datasheet(r) for r in index.records()] if index else list(datasheets().values())
    profiles = list({repr(w): w for s in sheets for kinds in s.weapons.values() for w in kinds.values()}.values())
    wanted = 150 if QUICK else 1000
    sample = profiles[:: max(1, len(profiles) // wanted)][:wanted]
    where = f"{len(sample)} of the {len(profiles)} profiles of the {'index' if index else 'shipped datasheets'}"
    grid = Grid([Attacker(w.name, weapons=(("10e", w),)) for w in sample],  # (as the 10th edition reads them)
                [Defender.of_target(t.target, name) for name, t in standard_targets().items()],
                ("fight", "shooting"), (1, 10), chunk=1000)
    return where, grid


def sweep_rows() -> None:
    """Queries per second on one and two local workers, and what the chunking and Parquet writing cost
    beside the queries themselves. The machine is shared: the overhead is timed part by part, the
    queries and then the same part's table, Parquet bytes and file, so that both see the same load;
    the pools are timed in turns, the best rate of each kept, from the first part back to the last
    (the workers' start left out)."""
    import tempfile
    from pathlib import Path

    from threadpoolctl import threadpool_limits

    from mathhammer_exact.files import write_new
    from mathhammer_exact.sweep.engines import LocalPool
    from mathhammer_exact.sweep.parts import Output, parquet, part_name
    from mathhammer_exact.sweep.queries import Grid, rows
    from mathhammer_exact.sweep.run import Progress, run

    where, grid = sweep_sample()
    assert isinstance(grid, Grid)
    print(f"\nsweeps: {grid.size:,} queries ({where} x {len(grid.defenders)} standard targets x 2 phases x 1 "
          f"and 10 models), parts of {grid.chunk}")
    turns = 1 if QUICK else 2
    parquet(grid, rows(grid, 0, 1))  # pyarrow's lazy imports (a second of CPU, once per process) out of the timing
    with tempfile.TemporaryDirectory() as folder:
        compute = written = 0.0
        for part in range(grid.parts):
            span = grid.span(part)
            start = time.perf_counter()
            with threadpool_limits(limits=1, user_api="blas"):
                found = rows(grid, span.start, span.stop)
            middle = time.perf_counter()
            write_new(Path(folder), part_name(part), parquet(grid, found))
            compute, written = compute + middle - start, written + time.perf_counter() - middle
        print(f"{'in this process: the queries':44s} {compute:8.2f} s  {grid.size / compute:8.0f} queries/s")
        print(f"{'in this process: tables, Parquet, files':44s} {written:8.2f} s  overhead {written / compute:.1%}")
        walls: dict[int, list[float]] = {1: [], 2: []}
        steady: dict[int, list[float]] = {1: [], 2: []}
        for turn in range(turns):
            for workers in (1, 2):
                seen: list[Progress] = []
                start = time.perf_counter()
                run(Output(Path(folder) / f"pool{workers}-{turn}.parquet", grid, False), LocalPool(grid, workers),
                    seen.append)
                walls[workers].append(time.perf_counter() - start)
                # from the first part done to the last (the pool's start-up left out); with one part, the whole run
                steady[workers].append((seen[-1].done - seen[0].done) / (seen[-1].seconds - seen[0].seconds)
                                       if seen[-1].seconds > seen[0].seconds else grid.size / walls[workers][-1])
        rates = {workers: max(found) for workers, found in steady.items()}
        for workers, rate in rates.items():
            label = f"local pool, {workers} worker{'s' * (workers > 1)}"
            print(f"{label:44s} {min(walls[workers]):8.2f} s  {rate:8.0f} queries/s  {rate / workers:8.0f} per worker")
        print(f"{'speed-up, 2 workers over 1':44s} {rates[2] / rates[1]:8.2f}x")


if __name__ == "__main__":
    main()
    sweep_rows()
