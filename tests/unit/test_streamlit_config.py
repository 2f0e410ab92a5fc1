"""The Streamlit runner's settings: no magic, and no page that needs it."""

from __future__ import annotations

import ast
import tomllib

import pytest

from paths import ROOT

PAGES = sorted((ROOT / "pages").glob("*.py")) + [ROOT / "app.py"]


def magic_expressions(tree: ast.Module) -> list[int]:
    """Lines of the statements Streamlit's magic would write to the page: a module-level expression (also inside
    if/with/for/while/try blocks, never inside a function or class) that is no call, await, yield or docstring.

    >>> magic_expressions(ast.parse('"doc"\\nimport x\\nx.f()\\nif x:\\n    x\\ndef g():\\n    x'))
    [5]
    """
    found: list[int] = []

    def walk(body: list[ast.stmt], top: bool) -> None:
        for i, stmt in enumerate(body):
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if isinstance(stmt, ast.Expr):
                value = stmt.value
                docstring = top and i == 0 and isinstance(value, ast.Constant) and isinstance(value.value, str)
                if not docstring and not isinstance(value, (ast.Call, ast.Await, ast.Yield, ast.YieldFrom)):
                    found.append(stmt.lineno)
            for field in ("body", "orelse", "finalbody"):
                walk(getattr(stmt, field, None) or [], False)
            for handler in getattr(stmt, "handlers", None) or []:
                walk(handler.body, False)

    walk(tree.body, True)
    return found


def test_magic_is_off_in_the_app_config():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["runner"]["magicEnabled"] is False


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_no_page_relies_on_magic(page):
    assert magic_expressions(ast.parse(page.read_text(encoding="utf-8"))) == []
