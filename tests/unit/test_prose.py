"""History lives in commits: no "stop NN", "issue #N" or "seed 00N" in the code, the docs or the README.

A method is named by what it does or by its paper; a decision by its figures.  Recorded results
(``bench/results/``) and the sample books (``assets/``) are data, not prose.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HISTORY = re.compile(r"\b[Ss]tops? \d{2}\b|\b[Ii]ssue #?\d+|\(#\d{1,3}\b|\bseeds? 00\d\b|\b[Ss]eed 00\d")


def test_no_history_words_in_code_docs_or_readme():
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout.split()
    found = []
    for name in files:
        if name.startswith(("bench/results/", "assets/", "tests/data/")) or not (ROOT / name).is_file():
            continue
        try:
            text = (ROOT / name).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        found += [f"{name}:{n}: {line.strip()[:100]}" for n, line in enumerate(text.splitlines(), 1)
                  if HISTORY.search(line) and name != "tests/unit/test_prose.py"]
    assert not found, "\n".join(found)
