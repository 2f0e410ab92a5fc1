"""Live indexing progress: kgcore's ``progress(stage, done, total)`` drawn as a bar.

:class:`StageTracker` does the bookkeeping (pure, testable);
:class:`StatusProgress` draws it inside an ``st.status`` container;
:class:`DocumentsProgress` gives every file of a batch its own status line
and bar, fed by kgcore's ``progress(document, stage, done, total)``.

>>> t = StageTracker(("load", "parse", "store"))
>>> [t.update("load", 0, 1), t.update("load", 1, 1), t.update("parse", 50, 100)]
[False, True, False]
>>> round(t.fraction, 2), t.finished
(0.5, ['load'])
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

#: Seconds between two redraws of the bar (the parse stage reports per batch).
REDRAW_EVERY_S = 0.2


@dataclass
class StageTracker:
    stages: tuple[str, ...]
    fraction: float = 0.0
    current: str = ""
    finished: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    _started: dict[str, float] = field(default_factory=dict)

    def update(self, stage: str, done: int, total: int) -> bool:
        """Record one report; True when the stage just finished."""
        now = time.perf_counter()
        self._started.setdefault(stage, now)
        self.current = stage
        share = min(max(done / total, 0.0), 1.0) if total > 0 else 0.0
        position = self.stages.index(stage) if stage in self.stages else len(self.finished)
        self.fraction = max(self.fraction, min((position + share) / len(self.stages), 1.0))
        if done >= total > 0:
            self.seconds[stage] = now - self._started[stage]
            if stage not in self.finished:
                self.finished.append(stage)
                return True
        return False

    def text(self, done: int, total: int) -> str:
        counts = f" {done}/{total}" if total > 1 else ""
        return f"{self.current}{counts} ({self.fraction:.0%})"


class StatusProgress:
    """A progress bar plus a line of finished stages with their times, inside an ``st.status``."""

    def __init__(self, container, stages: tuple[str, ...], title: str):
        self.tracker = StageTracker(stages)
        container.write(title)
        self.bar = container.progress(0.0, text="starting")
        self.finished_line = container.empty()
        self._drawn_at = 0.0
        self._drawn_stage = ""

    def __call__(self, stage: str, done: int, total: int) -> None:
        just_finished = self.tracker.update(stage, done, total)
        now = time.perf_counter()
        # A new stage is always drawn at once: it may be a long one (embedding) with no further reports.
        if just_finished or stage != self._drawn_stage or now - self._drawn_at >= REDRAW_EVERY_S:
            self.bar.progress(self.tracker.fraction, text=self.tracker.text(done, total))
            self._drawn_at, self._drawn_stage = now, stage
        if just_finished:
            self.finished_line.caption(" · ".join(
                f":material/check: {name} {self.tracker.seconds[name]:.1f} s" for name in self.tracker.finished
            ))

    def done(self) -> None:
        self.bar.progress(1.0, text="done")


class DocumentsProgress:
    """One :class:`StatusProgress` per file of a batch, inside one ``st.status``.

    ``titles`` maps each file name (what kgcore reports progress under) to
    the markdown title of its line; files are drawn in that order.
    """

    def __init__(self, container, stages: tuple[str, ...], titles: dict[str, str]):
        self.container = container
        self.last = stages[-1] if stages else ""
        self.lines = {name: StatusProgress(container, stages, title) for name, title in titles.items()}
        self.built: set[str] = set()

    def __call__(self, filename: str, stage: str, done: int, total: int) -> None:
        line = self.lines.get(filename)
        if line is None:
            return
        line(stage, done, total)
        if stage == self.last and done >= total > 0 and filename not in self.built:
            # The collection's graph is linked after the last document: say so, it takes a moment.
            self.built.add(filename)
            self.container.update(label=f"Built {len(self.built)} of {len(self.lines)} document(s); then they are "
                                        "linked into the collection's graph…")

    def finish(self, filename: str, text: str) -> None:
        """Close a file's bar with a word on how it ended (added, reused, failed)."""
        line = self.lines.get(filename)
        if line is not None:
            line.bar.progress(1.0 if text != "failed" else line.tracker.fraction, text=text)
