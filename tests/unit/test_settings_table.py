"""The README's configuration table is generated from ``Settings``: it must say what the code reads."""

from __future__ import annotations

import re
import subprocess
from dataclasses import fields
from pathlib import Path

from kgcore.core.settings import Settings
from kgcore.core.settings_table import field_variables, markdown, readme_table, rows

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"


def test_the_readme_table_is_the_generated_one():
    assert readme_table(README) == markdown(), \
        "README.md's configuration table is stale: run python -m kgcore.core.settings_table --write README.md"


def test_every_setting_read_from_the_environment_has_a_row_with_a_description():
    variables = field_variables()
    assert {f.name for f in fields(Settings) if variables.get(f.name)} == {f.name for f in fields(Settings)}
    assert all(r.text and r.default for r in rows())


def test_every_kgcore_variable_the_code_reads_is_in_the_readme():
    code = subprocess.run(["git", "grep", "-ohE", r"KGCORE_[A-Z0-9_]+", "--", "kgcore", "ui", "pages", "app.py",
                           "bench/common.py"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    documented = set(re.findall(r"KGCORE_[A-Z0-9_]+", README.read_text(encoding="utf-8")))
    missing = sorted(set(code) - documented - {"KGCORE_"})
    assert not missing, f"KGCORE_ variables read but not in README.md: {missing}"


def test_a_new_field_with_a_comment_and_a_variable_gets_its_row(monkeypatch):
    import kgcore.core.settings_table as table

    monkeypatch.setattr(table, "field_variables", lambda: {**field_variables(), "device": ["KGCORE_NEW_DEVICE"]})
    assert "| `KGCORE_NEW_DEVICE` | `cpu` | Where the embedder" in table.markdown()
