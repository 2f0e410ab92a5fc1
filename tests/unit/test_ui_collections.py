"""The app's pure builders for collections (no streamlit runtime, no models): library tables and run lines,
the joined matched subgraph, reading/rank order with document headings, source passages, colouring by
document and shared entities; and the house rules for the app's code (sizes, pages import no kgcore internals
they should not, doctests everywhere)."""

from __future__ import annotations

import ast
import doctest
import importlib
import re

import pytest

from kgcore.core.errors import InputError
from kgcore.core.graph import GroundedGraph
from kgcore.core.types import Edge, Node, SelectedSentence
from kgcore.index.store.collection import CollectionCounts, CollectionManifest, CollectionOutcome, DocumentEntry
from kgcore.index.store.manifest import Manifest
from kgcore.index.views.source import Passage
from kgcore.index.workers import worker_count
from paths import ROOT
from ui.ask_view import SentenceView, numbering, order_sentences, sentences_html
from ui.explorer_view import SHARED_COLOR, colour_by_document, document_palette, shared_entities
from ui.graph_html import GraphPage, VisNode, graph_html
from ui.labels import SHARED_GROUP
from ui.library_view import collection_name, collections_table, document_lines, documents_table
from ui.markup_html import md_escape
from ui.source_view import passage_html, role_note, source_caption
from ui.subgraph_view import joining_paths, neighbourhood

SCRIPT = "<script>alert(1)</script>"
APP_FILES = sorted([*(ROOT / "ui").glob("*.py"), *(ROOT / "pages").glob("*.py"), ROOT / "app.py"])


@pytest.mark.parametrize("module", ["ui.library_view", "ui.source_view", "ui.labels", "ui.explorer_view",
                                    "ui.subgraph_view", "ui.ask_view", "ui.markup_html", "ui.state_panel",
                                    "ui.jobs_view", "ui.review_view", "ui.sentence_view", "ui.roles_view",
                                    "ui.cites_view", "ui.ingest_view"])
def test_doctests(module):
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_app_modules_and_functions_stay_small():
    big = []
    for path in APP_FILES:
        text = path.read_text(encoding="utf-8")
        if len(text.splitlines()) > 400:
            big.append(f"{path.name}: {len(text.splitlines())} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno >= 50:
                big.append(f"{path.name}.{node.name}: {node.end_lineno - node.lineno + 1} lines")
    assert not big, big


def test_every_view_module_has_doctests():
    missing = [p.name for p in (ROOT / "ui").glob("*_view.py") if ">>> " not in p.read_text(encoding="utf-8")]
    assert not missing, missing


def _imports_streamlit(path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    names += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and not n.level]
    return any(name.split(".")[0] == "streamlit" for name in names)


def test_ui_modules_are_named_by_what_they_do():
    """Only ``*_panel.py`` draws with Streamlit; ``*_view.py`` and ``*_html.py`` are pure builders with doctests;
    the few others (:data:`ui.SUPPORT`) are neither and import no streamlit either."""
    import ui

    wrong = []
    for path in sorted((ROOT / "ui").glob("*.py")):
        name = path.stem
        if _imports_streamlit(path) and not name.endswith("_panel"):
            wrong.append(f"{path.name} imports streamlit: name it *_panel.py")
        if name.endswith(("_view", "_html")) and (_imports_streamlit(path) or ">>> " not in path.read_text()):
            wrong.append(f"{path.name}: a builder is pure (no streamlit) and has doctests")
    assert not wrong, "\n".join(wrong)
    assert set(ui.PANELS) | set(ui.BUILDERS) | set(ui.SUPPORT) == {p.stem for p in (ROOT / "ui").glob("*.py")} - {
        "__init__"}
    assert not set(ui.PANELS) & set(ui.BUILDERS) and all(m.endswith("_panel") for m in ui.PANELS)


def test_pages_and_ui_import_kgcore_only_through_the_public_api():
    """Pages do layout and events and ``ui/`` draws; what they know of kgcore is :mod:`kgcore.api`."""
    from test_api import deep_imports

    wrong = [d for path in APP_FILES for d in deep_imports(path)]
    assert not wrong, "import these through kgcore.api:\n" + "\n".join(wrong)


# -- library ------------------------------------------------------------------------------------------------
def _collection(name: str, *docs: str) -> CollectionManifest:
    entries = tuple(DocumentEntry(Manifest(d, source_file=f"{d}.txt", created_at="2026-11-23T10:00:00"), f"{d}.1")
                    for d in docs)
    return CollectionManifest(name, entries, counts=CollectionCounts(documents=len(docs), shared_entities=2),
                              updated_at="2026-11-23T11:00:00")


def test_collections_and_documents_tables():
    frame = collections_table([_collection("shelf", "a", "b"), _collection("one", "c")])
    assert frame.columns.tolist() == ["collection", "documents", "sentences", "words", "nodes", "edges",
                                      "shared entities", "updated"]
    assert frame[["collection", "documents", "shared entities"]].values.tolist() == [["shelf", 2, 2], ["one", 1, 2]]
    assert str(frame["updated"].iloc[0]).startswith("2026-11-23 11:00")
    docs = documents_table(_collection("shelf", "a", "b"))
    assert docs.columns.tolist() == ["document", "file", "sentences", "words", "nodes", "narrator", "indexed at",
                                     "seconds"]
    assert docs["file"].tolist() == ["a.txt", "b.txt"]
    assert collections_table([]).empty and list(collections_table([]).columns)[0] == "collection"


def test_document_lines_name_every_file_and_its_fate():
    a, b = Manifest("a", source_file="a.txt"), Manifest("b", source_file="b.md")
    outcomes = [CollectionOutcome("shelf", None, added=(a,), reused=(b,), failed=(("A.TXT", "same id"),)),
                CollectionOutcome("other", None, failed=(("x.pdf", "no text layer"),))]
    lines = document_lines(outcomes)
    assert [(x.collection, x.status, x.filename, x.doc_id, x.reason) for x in lines] == [
        ("shelf", "failed", "A.TXT", "", "same id"), ("shelf", "added", "a.txt", "a", ""),
        ("shelf", "reused", "b.md", "b", ""), ("other", "failed", "x.pdf", "", "no text layer")]


def test_collection_names_and_workers():
    assert collection_name("Beatrix Potter: Tales") == "beatrix-potter-tales"
    with pytest.raises(InputError):
        collection_name("../..")
    assert worker_count([10] * 5, cpus=16) == 1  # small files: the server's loaded models
    assert worker_count([300_000] * 5, cpus=4) == 4 and worker_count([300_000] * 5, configured=2, cpus=4) == 2


# -- the matched subgraph ---------------------------------------------------------------------------------------
def _hub_graph() -> GroundedGraph:
    """A hub linked to 100 leaves; two matched leaves are joined through the hub, nothing else is needed."""
    nodes = {f"n{i}": Node(f"n{i}", f"n{i}", [], "entity", ["d/text_0-0"]) for i in range(100)}
    nodes["hub"] = Node("hub", "Peter", [], "entity", ["d/text_0-0"])
    nodes["far"] = Node("far", "far", [], "entity", ["d/text_0-0"])
    edges = [Edge("hub", f"n{i}", "ARG0", "entity-entity", ["d/text_0-0"]) for i in range(100)]
    return GroundedGraph(nodes, edges)


def test_joining_paths_draws_far_less_than_the_neighbourhood():
    graph = _hub_graph()
    joined = joining_paths(graph, ["n3", "n7", "far", "missing"])
    assert joined.node_ids == ["n3", "n7", "far", "hub"] and joined.seeds == 3
    assert joined.inner == ["hub"] and joined.unjoined == ["far"] and not joined.truncated
    # A matched hub: today's 1-hop neighbourhood draws all its 100 leaves; the joined view only the matches.
    assert len(neighbourhood(graph, ["hub", "n3"]).node_ids) == 101
    assert joining_paths(graph, ["hub", "n3"]).node_ids == ["hub", "n3"]
    assert len(neighbourhood(graph, joined.node_ids).node_ids) == 102  # widening brings back every leaf
    assert joining_paths(graph, ["n7", "n3"]).node_ids == ["n7", "n3", "hub"]  # same picture, seeds first


def test_joining_paths_prefers_short_paths_and_caps():
    chain = {c: Node(c, c, [], "entity", ["d/text_0-0"]) for c in "abcdefg"}
    edges = [Edge(x, y, "next", "action-action", ["d/text_0-0"]) for x, y in zip("abcdef", "bcdefg")]
    edges.append(Edge("a", "g", "ARG1", "entity-entity", ["d/text_0-0"]))  # a short cut, against the direction
    joined = joining_paths(GroundedGraph(chain, edges), ["a", "f"])
    assert joined.node_ids == ["a", "f", "g"]  # a - g - f, two hops, not a - b - c - d - e - f
    capped = joining_paths(GroundedGraph(chain, edges), ["a", "d"], max_nodes=2)
    assert capped.truncated and capped.node_ids == ["a", "d"] and "Showing 2 of 4" in capped.notice()


# -- sentence order ----------------------------------------------------------------------------------------------
def _sentences() -> list[SelectedSentence]:
    return [SelectedSentence("rabbit/text_0-1", 1, "Peter ate.", "Peter ate.", document="rabbit",
                             source_file="rabbit.txt", rank=3),
            SelectedSentence("rabbit/text_0-4", 4, "He ran.", "He ran.", document="rabbit", source_file="rabbit.txt",
                             rank=2, section="CHAPTER I"),
            SelectedSentence("pan/text_0-0", 9, SCRIPT, SCRIPT, document="pan", source_file="<pan>.pdf", page=2,
                             rank=1)]


def test_reading_order_groups_documents_under_headings():
    html = sentences_html(_sentences(), view=SentenceView(headings=True, order="reading"))
    order = re.findall(r'id="s-([^"]+)"|class="kg-dochead">([^ <]+)', html)
    assert [a or b for a, b in order] == ["rabbit", "rabbit-text_0-1", "rabbit-text_0-4", "pan", "pan-text_0-0"]
    assert '<span class="kg-doc" title="&lt;pan&gt;.pdf">pan</span>' in html and "p. 2" in html
    assert "§ CHAPTER I" in html and "<script>alert" not in html and "&lt;pan&gt;.pdf" in html


def test_rank_order_keeps_the_reading_order_numbers():
    sentences = _sentences()
    html = sentences_html(list(reversed(sentences)), view=SentenceView(order="rank", headings=True))
    assert re.findall(r'id="s-([^"]+)"', html) == ["pan-text_0-0", "rabbit-text_0-4", "rabbit-text_0-1"]
    assert re.findall(r'class="kg-num">\[(\d)\]', html) == ["3", "2", "1"]  # citation numbers: reading order
    assert "kg-dochead" not in html  # headings only make sense in reading order
    assert numbering(reversed(sentences)) == {"rabbit/text_0-1": 1, "rabbit/text_0-4": 2, "pan/text_0-0": 3}
    unranked = [SelectedSentence("a", 5, "", ""), SelectedSentence("b", 2, "", "", rank=1)]
    assert [s.id for s in order_sentences(unranked, "rank")] == ["b", "a"]


def test_cited_sentences_are_marked():
    html = sentences_html(_sentences(), view=SentenceView(cited={"pan/text_0-0"}))
    assert html.count('class="kg-cited"') == 1


# -- source view -------------------------------------------------------------------------------------------------
def test_passage_marks_the_sentence_and_escapes_everything():
    text = f"Before {SCRIPT}. The <b>sentence</b>. After."
    start = text.index("The")
    p = Passage("d/text_0-1", "d", "d.txt", text, start, start + len("The <b>sentence</b>."), "[I]", 0, "body")
    html = passage_html(p)
    assert '<mark class="kg-here">The &lt;b&gt;sentence&lt;/b&gt;.</mark>' in html and "<script>" not in html
    unlocated = passage_html(Passage("d/text_0-1", "d", "d.txt", text, -1, -1, "", 0, "body"))
    assert "<mark" not in unlocated and "&lt;script&gt;" in unlocated
    assert source_caption(p, "shelf").endswith("section “\\[I\\]”") and "page" not in source_caption(p, "shelf")
    assert role_note("front_matter")[1].startswith("This sentence is a **front matter**")


def test_md_escape_neutralises_streamlit_directives():
    for text in (":red[alarm]", ":material/home:", "**bold** :blue-background[x]"):
        escaped = md_escape(text)
        assert not re.search(r"(?<!\\):[A-Za-z]", escaped), escaped
    assert md_escape("at 10:30, note: x") == "at 10:30, note: x"


# -- graph explorer ---------------------------------------------------------------------------------------------
def test_colour_by_document_and_shared_entities():
    graph = GroundedGraph({
        "peter": Node("peter", "Peter", [], "entity", ["rabbit/text_0-1", "pan/text_0-0", "pan/text_0-2"]),
        "hook": Node("hook", "Hook", [], "entity", ["pan/text_0-0"]),
        "rabbit/eat_0": Node("rabbit/eat_0", "eat", [], "action", ["rabbit/text_0-1"]),
        "wendy": Node("wendy", SCRIPT, [], "entity", ["pan/text_0-1", "ship/text_0-0"]),
    }, [])
    docs = {"peter": ["rabbit", "pan"], "hook": ["pan"], "rabbit/eat_0": ["rabbit"], "wendy": ["pan", "ship"]}
    palette = document_palette(["rabbit", "pan", "ship"])
    nodes, legend = colour_by_document([VisNode(i, i, "entity") for i in ("peter", "hook", "rabbit/eat_0")], docs,
                                       palette)
    assert [n.color for n in nodes] == [SHARED_COLOR, palette["pan"], palette["rabbit"]]
    assert [name for name, _ in legend] == ["rabbit", "pan", SHARED_GROUP]  # ship is not drawn: not in the legend
    page = graph_html(nodes, [], GraphPage(legend_colors=legend))
    assert SHARED_COLOR in page and SHARED_GROUP in page
    table = shared_entities(graph, docs)
    assert table[["entity", "documents", "sentences"]].values.tolist() == [["Peter", "rabbit, pan", 3],
                                                                           [SCRIPT, "pan, ship", 2]]
    assert len(set(document_palette([f"d{i}" for i in range(12)]).values())) == 10  # the palette repeats


# -- indexing jobs ----------------------------------------------------------------------------------------------------
def test_a_job_line_says_where_the_job_is_and_its_bar_only_grows():
    from kgcore.index.jobs import JobFile, JobRecord
    from kgcore.index.pipeline import COLLECTION_STAGES, STAGES, collection_step
    from ui.jobs_view import job_fraction, job_line

    job = JobRecord("j", [JobFile("a <b>.txt", "", 1, "0"), JobFile("c.txt", "", 1, "1")], "shelf", {},
                    state="running", created=0.0, started=0.0)
    seen = [job_fraction(job)]
    for name in ("a <b>.txt", "c.txt"):
        for stage in STAGES:
            for done in (0, 5, 10):
                job.step(name, stage, done, 10, now=1.0)
                seen.append(job_fraction(job))
    for stage in COLLECTION_STAGES:
        job.step(collection_step("shelf"), stage, 1, 1, now=2.0)
        seen.append(job_fraction(job))
    assert seen == sorted(seen) and seen[0] == 0.0 and seen[-1] == 1.0
    line = job_line(job, now=3.0, stuck_s=300)
    assert line.title == r"**a \<b\>.txt**, **c.txt** → collection **shelf**"  # file names are escaped
    assert line.text == "write of collection shelf · 3 s" and not line.stuck
