"""Charts of the odds (optional: `pip install 'mathhammer_exact[plot]'` brings matplotlib)."""

from __future__ import annotations

import io
import textwrap
from pathlib import Path
from typing import Any

from ..errors import MathhammerError
from ..files import write_files
from .report import Report

SUFFIXES = (".png", ".svg")
CHARACTERS_PER_PANEL = 60  #: heading characters a line holds per panel's width


def heading(report: Report, panels: int = 1) -> str:
    """The plot's heading: the report's title, then its header lines (what fired, the situation),
    so that a chart, like the printed answer, says which question it answers."""
    width = CHARACTERS_PER_PANEL * panels
    lines = textwrap.wrap(report.title, width) if report.title else []
    return "\n".join(lines + textwrap.wrap("; ".join(line.strip() for line in report.preface), width))


def pyplot() -> Any:
    """matplotlib's pyplot, drawing to files only; a one-line error where the [plot] extra is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise MathhammerError("plots need matplotlib: pip install 'mathhammer_exact[plot]'") from None
    return plt


def checked_path(path: str) -> Path:
    """A plot's file, refused unless it ends .png or .svg."""
    target = Path(path)
    if target.suffix.lower() not in SUFFIXES:
        raise MathhammerError(f"--plot writes .png or .svg files, got {path!r}")
    return target


def save_figure(fig: Any, target: Path) -> None:
    """Write a drawn figure by the safe writer (never over a file the program did not write), and close it."""
    fig.tight_layout()
    image = io.BytesIO()
    fig.savefig(image, format=target.suffix.lower()[1:])
    pyplot().close(fig)
    write_files(target.parent, {target.name: image.getvalue()}, hint="remove it or choose another file name")


def save_plot(report: Report, path: str) -> None:
    """Bars for P(X = k) and a line for P(X >= k), one panel per distribution shown; a report with
    rows side by side (a comparison) gets one panel with their P(X >= k) curves overlaid. Written to
    `path` by the safe writer (never over a file the program did not write)."""
    target = checked_path(path)
    plt = pyplot()
    from matplotlib.ticker import MaxNLocator

    shown = report.drawn
    if not shown:
        raise MathhammerError("this answer is a single chance; there is no distribution to plot")
    fig = _overlay(report, plt, MaxNLocator) if report.grid else _panels(report, plt, MaxNLocator)
    save_figure(fig, target)


def _panels(report: Report, plt: Any, locator: Any) -> Any:
    """One panel per drawn distribution: bars for P(X = k), a line for P(X >= k)."""
    shown = report.drawn
    fig, axes = plt.subplots(1, len(shown), figsize=(5.5 * len(shown), 4), squeeze=False)
    for ax, (key, pmf) in zip(axes[0], shown.items()):
        values = list(range(pmf.min, pmf.max + 1))
        ax.bar(values, [100 * float(p) for p in pmf.probabilities()], color="#4c72b0", label="exactly k")
        ax.plot(values, [100 * float(p) for p in pmf.survival()], color="#dd8452", marker="o", markersize=3,
                label="k or more")
        ax.xaxis.set_major_locator(locator(integer=True))
        ax.set_xlabel(report.label(key))
        ax.set_ylabel("chance (%)")
        ax.set_ylim(0, 100)
        ax.set_title(f"{report.label(key)}: mean {float(pmf.mean):.2f}")
        ax.legend(loc="upper right", fontsize="small")
    if report.title or report.preface:
        fig.suptitle(heading(report, len(shown)), fontsize="medium")
    return fig


def _overlay(report: Report, plt: Any, locator: Any) -> Any:
    """P(X >= k) of each drawn distribution as one line in one panel."""
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for key, pmf in report.drawn.items():
        ax.plot(range(pmf.min, pmf.max + 1), [100 * float(p) for p in pmf.survival()], marker="o", markersize=3,
                label=report.label(key))
    ax.xaxis.set_major_locator(locator(integer=True))
    ax.set_xlabel("k")
    ax.set_ylabel("P(at least k) (%)")
    ax.set_ylim(0, 100)
    ax.legend(loc="upper right", fontsize="small")
    if report.title or report.preface:
        ax.set_title(heading(report), fontsize="medium")
    return fig
