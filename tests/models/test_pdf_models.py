"""Papers as collections with the real spaCy, MiniLM and Chroma: sentences with page, section, role, boxes
and resolved citations; reference entries, tables and headers kept but never retrieved; "who cites X"."""

import json

import pytest

from kgcore.cli import main
from kgcore.core.settings import RetrievalOptions
from kgcore.core.types import REFERENCE, RETRIEVABLE, TABLE
from kgcore.index.pipeline import Job, index_files
from kgcore.index.store.disk import Store
from kgcore.index.views.cites import collection_citing
from kgcore.query.engine import QueryEngine
from tests.pdfs import author_year_paper, numbered_paper


@pytest.fixture(scope="module")
def papers(tmp_path_factory):
    root = tmp_path_factory.mktemp("papers")
    (root / "graphs.pdf").write_bytes(numbered_paper())
    (root / "revisited.pdf").write_bytes(author_year_paper())
    store = Store(root / "store")
    (outcome,) = index_files([Job("graphs.pdf", root / "graphs.pdf"), Job("revisited.pdf", root / "revisited.pdf")],
                             store, "papers", workers=1)
    assert not outcome.failed
    return root, store, store.load("papers")


def _sentence(index, start):
    return next(s for s in index.sentences if s.original.startswith(start))


def test_sentences_carry_page_section_role_boxes_and_citations(papers):
    _, _, index = papers
    dense = _sentence(index, "Retrieval-augmented generation [1]")
    assert dense.citations == ("ref-1", "ref-2", "ref-3") and dense.page == 1 and dense.section == "1 Introduction"
    assert _sentence(index, "Every retrieval method").original.endswith("cite its evidence.")
    both = _sentence(index, "Table 1 compares")
    assert both.section == "3 Results" and both.role == "body"
    assert _sentence(index, "The graph method wins").citations == ("ref-2", "ref-3")
    ablation = _sentence(index, "Without coreference")
    assert "e.g. those joining a pronoun" in ablation.original  # no split after "e.g."
    assert ablation.section == "3 Results › 3.1 Ablation"
    for s in index.sentences:
        assert s.boxes and all(box[0] == s.page or box[0] == s.page + 1 for box in s.boxes) or s.role == REFERENCE
    year = _sentence(index, "Retrieval-augmented generation (Lewis")
    assert year.citations == ("ref-lewis-2020",)


def test_reference_entries_and_tables_are_kept_but_never_retrieved(papers):
    _, _, index = papers
    roles = {s.role for s in index.sentences}
    assert {REFERENCE, TABLE} <= roles
    table_rows = [s.original for s in index.sentences if s.role == TABLE]
    assert table_rows == ["Method EM F1", "Graph 41.2 55.0", "Dense 39.8 53.1", "BM25 33.0 47.4"]
    scope = index.sentence_scope()
    kept = {s.role for s, keep in zip(index.sentences, scope) if keep}
    assert kept <= RETRIEVABLE and REFERENCE not in kept
    grounded = {sid for node in index.graph.nodes.values() for sid in node.grounded_texts}
    unparsed = {s.id for s in index.sentences if s.role in (REFERENCE, TABLE)}
    assert grounded and not grounded & unparsed
    engine = QueryEngine(papers[1])
    for method in ("dense", "bm25", "groundedkg"):
        result = engine.retrieve("papers", "Lewis Perez Kiela NeurIPS 2020 retrieval-augmented generation",
                                 RetrievalOptions(method=method, budget_words=400))
        assert result.sentences and all(index.sentence(s.id).role in RETRIEVABLE for s in result.sentences)


def test_cli_index_line_has_the_ingest_report_and_sentences_exports(papers, tmp_path, capsys):
    root, _, _ = papers
    store = str(tmp_path / "store")
    assert main(["index", str(root / "graphs.pdf"), "--collection", "one", "--store", store, "--quiet"]) == 0
    document, summary = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    report = document["ingest"]
    assert report["pages"] == 2 and report["references"] == 4 and report["header_footer_lines"] == 4
    assert report["citations_resolved"] >= 3 and report["sentences"]["reference"] == 4
    assert summary["collection"] == "one"
    assert main(["sentences", "--collection", "one", "--store", store]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rows and all(r["retrievable"] and r["role"] in RETRIEVABLE for r in rows)
    assert set(rows[0]) == {"id", "document", "source_file", "page", "section", "role", "retrievable", "citations",
                            "text"}
    assert any(r["citations"] == ["ref-4"] for r in rows) and rows[0]["source_file"] == "graphs.pdf"
    assert main(["sentences", "--collection", "one", "--all", "--store", store]) == 0
    every = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(every) > len(rows) and any(r["role"] == REFERENCE and not r["retrievable"] for r in every)
    assert main(["sentences", "--collection", "one", "--document", "nope", "--store", store]) == 2
    assert "nope" in capsys.readouterr().err


def test_which_documents_cite_a_work(papers, capsys):
    _, store, index = papers
    hits = collection_citing(index, "retrieval augmented generation for knowledge intensive tasks")
    assert [(h.document, h.reference.key) for h in hits] == [("graphs", "ref-1"), ("revisited", "ref-lewis-2020")]
    assert _sentence(index, "Retrieval-augmented generation [1]").id in hits[0].sentences
    assert [h.document for h in collection_citing(index, "arXiv:2002.08909")] == ["graphs"]
    assert collection_citing(index, "a paper nobody wrote about cheese") == []
    assert main(["cites", "Karpukhin", "--collection", "papers", "--store", str(store.root)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {line["document"] for line in lines} == {"graphs", "revisited"}


def test_a_sentence_sharing_its_lines_is_highlighted_only_where_it_is_printed(papers):
    """The page view highlights a sentence from its stored line boxes, narrowed to where the text layer prints it:
    two sentences on one line are not both shown as cited."""
    from kgcore.index.views.source import render_page, sentence_boxes

    root, _, index = papers
    first, second = _sentence(index, "We study retrieval"), _sentence(index, "Our method is efficient")
    shared = sentence_boxes(first, first.page)[0]
    assert shared == sentence_boxes(second, second.page)[0]  # the line both are printed on
    ends = render_page(root / "graphs.pdf", first.page, first.original, boxes=sentence_boxes(first, first.page),
                       scale=1.0).boxes
    starts = render_page(root / "graphs.pdf", second.page, second.original,
                         boxes=sentence_boxes(second, second.page), scale=1.0).boxes
    assert ends[0][2] < shared[2] - 50 and starts[0][0] > shared[0] + 50  # each keeps to its part of the line
    assert ends[0][2] <= starts[0][0] + 2 and len(starts) == 2  # and the second goes on to its next line


def test_who_wrote_the_paper_is_answered_by_its_author_lines(papers):
    """Title pages are kept out of retrieval, but a question asking who wrote a document gets its author lines in
    the context; the offline answer quotes them and the verdict says what it checked."""
    _, store, _ = papers
    engine = QueryEngine(store)
    result, answer = engine.ask("papers", "Who wrote the paper?", RetrievalOptions(documents=("graphs",),
                                                                                     budget_words=200))
    assert result.sentences[0].role == "authors" and "added to the context" in result.notes[-1]
    assert "Ada Lovelace" in answer.text and answer.verdict.state == "supported"
    assert "is the document's author line" in answer.verdict.reason
    assert all(s.document == "graphs" for s in result.sentences)
    other = engine.retrieve("papers", "What does the graph link every entity to?", RetrievalOptions(budget_words=200))
    assert all(s.role != "authors" for s in other.sentences)  # other questions keep title pages out
