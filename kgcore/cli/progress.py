"""Progress on stderr: a bar per stage, and one line per document and stage when several are indexed."""

from __future__ import annotations

import sys
import time


class StderrProgress:
    """A one-line progress bar per stage on stderr (silent when not a terminal unless forced)."""

    def __init__(self, enabled: bool = True):
        self.enabled = enabled
        self.current = None
        self.started = time.perf_counter()

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        width = 24
        filled = int(width * done / max(total, 1))
        elapsed = time.perf_counter() - self.started
        sys.stderr.write(f"\r{stage:<6} [{'#' * filled}{'.' * (width - filled)}] {done}/{total} {elapsed:6.1f}s")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()


class DocumentStderrProgress:
    """Stage bars for one document, or for several at once one line per (document, stage) as they finish."""

    def __init__(self, enabled: bool = True, several: bool = False):
        self.bar = StderrProgress(enabled and not several)
        self.enabled, self.several = enabled, several
        self.started = time.perf_counter()
        self._said: set[tuple[str, str]] = set()

    def __call__(self, document: str, stage: str, done: int, total: int) -> None:
        if not self.several:
            self.bar(stage, done, total)
        elif self.enabled and done >= total and (document, stage) not in self._said:
            self._said.add((document, stage))
            sys.stderr.write(f"{time.perf_counter() - self.started:7.1f}s  {document}: {stage} done\n")
            sys.stderr.flush()
