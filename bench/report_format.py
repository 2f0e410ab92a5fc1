"""Markdown tables, PNG plots and result files for bench/report.py's sections."""

from __future__ import annotations

import json
from pathlib import Path

COLOURS = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7")


def md_table(headers: list[str], rows: list[list]) -> str:
    """A GitHub markdown table (``|`` in cells escaped, None shown as a dash)."""
    cell = lambda v: "–" if v is None else str(v).replace("|", "\\|")  # noqa: E731
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    return "\n".join(lines + ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows])


def write_bar_plot(name: str, out_dir: Path, title: str, categories: list[str],
                   series: dict[str, list[float | None]], unit: str = "", y_max: float | None = None) -> str:
    """Write a grouped bar chart (one group per category, one bar per series) as ``name``.png.

    Returns the markdown image line.  The y axis runs from 0 to ``y_max``
    (default: matplotlib's choice); a None value leaves a gap in its group.
    """
    import matplotlib  # only the report needs it; the Agg backend draws without a display

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(max(6.4, 0.9 * len(categories) + 3.5), 4.6))
    bar_w = 0.8 / max(len(series), 1)
    for j, (label, values) in enumerate(series.items()):
        xs = [i + (j - (len(series) - 1) / 2) * bar_w for i, v in enumerate(values) if v is not None]
        axes.bar(xs, [v for v in values if v is not None], bar_w * 0.95, label=label, color=COLOURS[j % len(COLOURS)])
    axes.set_xticks(range(len(categories)), categories, rotation=30, ha="right")
    axes.set(title=title, ylabel=unit)
    axes.set_ylim(0, y_max)
    axes.grid(axis="y", color="#ddd")
    axes.set_axisbelow(True)
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)
    figure.tight_layout()
    figure.savefig(out_dir / f"{name}.png", dpi=110)
    plt.close(figure)
    return f"![{name}]({name}.png)"


def write_line_plot(name: str, out_dir: Path, title: str, xs: list[int], series: dict[str, list[float | None]],
                    unit: str) -> str:
    """Write one line per series over a log-scaled x axis as ``name``.png; returns the markdown image line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7.2, 4.4))
    for j, (label, values) in enumerate(series.items()):
        points = [(x, v) for x, v in zip(xs, values) if v is not None]
        axes.plot([x for x, _ in points], [v for _, v in points], marker="o", label=label,
                  color=COLOURS[j % len(COLOURS)])
    axes.set_xscale("log")
    axes.set_xticks(xs, [str(x) for x in xs])
    axes.minorticks_off()
    axes.set(title=title, xlabel="word budget", ylabel=unit, ylim=(0, 1.02))
    axes.grid(color="#ddd")
    axes.legend(loc="lower right", frameon=False)
    figure.tight_layout()
    figure.savefig(out_dir / f"{name}.png", dpi=110)
    plt.close(figure)
    return f"![{name}]({name}.png)"


def load(name: str, results: Path) -> dict | None:
    path = results / name
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def missing(name: str, script: str) -> str:
    return f"_No `{name}` yet: run `python bench/{script}` (or `python bench/report.py --run`)._\n"


def yes_no(flag) -> str:
    return "–" if flag is None else ("yes" if flag else "**no**")
