"""Paths and ids the test tiers share (importable as ``paths``: ``tests/`` is on ``sys.path`` via its conftest)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
ASSETS = ROOT / "assets"
DATA = TESTS / "data"
PETER = ASSETS / "peter_rabbit.txt"
DEV_QA = ASSETS / "peter_rabbit_dev_qa.csv"
PETER_ID = "peter-rabbit"
APP = str(ROOT / "app.py")
