"""Every CSS class the UI's HTML builders give text has a rule in ``ui.style_html.CSS``: the default badge had none, so
"confidence 0.80" and an entity description's method read as plain words."""

from __future__ import annotations

import re
from pathlib import Path

from ui.style_html import CSS

ROOT = Path(__file__).resolve().parents[2]
#: Classes that only name a block for tests and tools (their look comes from inline styles or their children).
HOOKS = frozenset({"kg-community", "kg-entity-pair", "kg-entity-side", "kg-check", "kg-status", "kg-qa-table"})


def used_classes() -> set[str]:
    found: set[str] = set()
    for path in [*(ROOT / "ui").glob("*.py"), *(ROOT / "pages").glob("*.py"), ROOT / "app.py"]:
        text = path.read_text(encoding="utf-8")
        for value in re.findall(r'class=\\?"([^"\\]*)', text):
            found |= {c for c in value.split() if c.startswith("kg-")}
        found |= set(re.findall(r"""['"](kg-[a-z0-9-]+)['"]""", text))  # badge(text, "kg-role"), css="kg-badge"
    return found


def test_every_class_the_ui_uses_has_a_rule():
    defined = set(re.findall(r"\.(kg-[a-z0-9-]+)", CSS))
    assert {"kg-badge", "kg-sid", "kg-doc"} <= used_classes()
    assert used_classes() - defined - HOOKS == set()
