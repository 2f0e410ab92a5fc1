"""The table of every ``KGCORE_*`` variable, its default and what it does, generated from :class:`Settings`.

Each row comes from one field of :class:`~kgcore.core.settings.Settings`: the variable that
:meth:`Settings.from_env` reads for it, the field's default, and the ``#:`` comment above the field (a resource
limit without one says what it counts, from :data:`~kgcore.core.settings.LIMITS`).  A new field with a ``#:``
comment and an environment variable appears in the README's table the next time it is generated::

    python -m kgcore.core.settings_table                    # prints the markdown table the README holds
    python -m kgcore.core.settings_table --write README.md  # puts it between the README's markers

``tests/unit/test_settings_table.py`` fails when the README's table and this one differ.

>>> row = next(r for r in rows() if r.variable == "KGCORE_MAX_QUESTION_CHARS")
>>> row.default, summary(row.text)
('2000', 'Characters per question.')
"""

from __future__ import annotations

import ast
import inspect
import re
from dataclasses import dataclass, fields
from pathlib import Path

from kgcore.core import settings as settings_module
from kgcore.core.limits import LIMITS, limit_variable
from kgcore.core.settings import Settings

#: The markers around the generated table in the README.
BEGIN = "<!-- settings table: python -m kgcore.core.settings_table -->"
END = "<!-- end of settings table -->"
_VARIABLE = re.compile(r"^(KGCORE|OPENAI)_[A-Z0-9_]+$")


@dataclass(frozen=True)
class Row:
    variable: str
    also: tuple[str, ...]
    default: str
    text: str


def field_comments() -> dict[str, str]:
    """Each Settings field's ``#:`` comment (the lines right above it), joined into one paragraph."""
    lines = inspect.getsource(Settings).splitlines()
    out: dict[str, str] = {}
    for i, line in enumerate(lines):
        match = re.match(r"^    (\w+): ", line)
        if not match:
            continue
        j, comment = i - 1, list[str]()
        while j >= 0 and lines[j].strip().startswith("#:"):
            comment.insert(0, lines[j].strip()[2:].strip())
            j -= 1
        out[match.group(1)] = " ".join(comment)
    return out


def field_variables() -> dict[str, list[str]]:
    """The environment variables ``Settings.from_env`` reads for each field, the first being the main one."""
    tree = ast.parse(inspect.getsource(settings_module))
    from_env = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "from_env")
    call = max((n for n in ast.walk(from_env) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "cls"),
               key=lambda n: len(n.keywords))
    out = {kw.arg: [c.value for c in ast.walk(kw.value) if isinstance(c, ast.Constant) and isinstance(c.value, str)
                    and _VARIABLE.match(c.value)] for kw in call.keywords if kw.arg}
    for name in LIMITS:
        out.setdefault(name, [limit_variable(name)])
    return out


def shown_default(value: object) -> str:
    """A default as the table shows it.

    >>> shown_default(""), shown_default(False), shown_default(200_000), shown_default(Path("data"))
    ('unset', 'off', '200000', 'data')
    """
    if value == "" or value is None:
        return "unset"
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def rows() -> list[Row]:
    """One row per Settings field read from the environment, in the order of the fields."""
    comments, variables, out = field_comments(), field_variables(), []
    for f in fields(Settings):
        names = variables.get(f.name) or []
        if not names:
            continue
        default = getattr(Settings(), f.name)
        text = comments.get(f.name) or _limit_text(f.name)
        out.append(Row(names[0], tuple(names[1:]), shown_default(default), text))
    return out


def _limit_text(name: str) -> str:
    unit, per = LIMITS.get(name, ("", ""))
    return f"The most {unit} {per}." if unit else ""


def summary(text: str) -> str:
    """A comment's first sentence, its reStructuredText roles and literals written as markdown.

    >>> summary("Seconds one request may take (:mod:`kgcore.core.chat`, ``60``).  More detail.")
    'Seconds one request may take (`kgcore.core.chat`, `60`).'
    """
    first = re.split(r"(?<=\.)\s+(?=[A-Z0-9(`:])", text.strip(), maxsplit=1)[0]
    first = re.sub(r":\w+:`~?([^`]+)`", r"`\1`", first).replace("``", "`")
    return first if first.endswith(".") else first + "."


def markdown() -> str:
    """The table, between the README's markers."""
    lines = [BEGIN, "", "| variable | default | what it does |", "| --- | --- | --- |"]
    for r in rows():
        names = ", ".join(f"`{v}`" for v in (r.variable, *r.also))
        lines.append(f"| {names} | `{r.default}` | {summary(r.text).replace('|', '/')} |")
    return "\n".join([*lines, "", END])


def readme_table(readme: Path) -> str:
    """The generated part of ``readme`` (between the markers; "" when they are missing)."""
    text = readme.read_text(encoding="utf-8")
    start, end = text.find(BEGIN), text.find(END)
    return text[start:end + len(END)] if 0 <= start < end else ""


def write_readme(readme: Path) -> bool:
    """Replace the table between the markers of ``readme`` with the generated one; whether it changed."""
    text = readme.read_text(encoding="utf-8")
    old = readme_table(readme)
    if not old:
        raise ValueError(f"{readme}: no {BEGIN!r} ... {END!r} markers")
    new = text.replace(old, markdown())
    readme.write_text(new, encoding="utf-8")
    return new != text


if __name__ == "__main__":
    import sys

    if sys.argv[1:2] == ["--write"]:
        print(f"{sys.argv[2]}: {'updated' if write_readme(Path(sys.argv[2])) else 'already current'}")
    else:
        print(markdown())
