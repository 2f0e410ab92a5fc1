"""AMR backend with the real models: SRL beside AMR on the paper's Table 3, and an index built from
pre-parsed PENMAN graphs (real MiniLM and Chroma; no amrlib model is needed)."""

from __future__ import annotations

import pytest

from kgcore.core.types import ACTION
from kgcore.index.parse import compare_parses
from kgcore.index.parse.amr import PenmanParser
from paths import DATA
from samples import TABLE3_AMR, TABLE3_SENTENCE

FIXTURES = DATA / "amr" / "peter_rabbit.txt"
A = ACTION


def test_compare_parses_with_the_srl_backend():
    pytest.importorskip("kgcore.index.parse.srl", reason="kgcore.index.parse.srl (the SRL backend) is not written yet")
    result = compare_parses(TABLE3_SENTENCE, amr_parser=PenmanParser({TABLE3_SENTENCE: TABLE3_AMR}))
    assert "srl" not in result["errors"], result["errors"]
    srl_actions = {n.label for n in result["srl"].nodes if n.node_type == A}
    assert {"put", "make", "give"} <= srl_actions
    assert {n.label for n in result["amr"].nodes if n.node_type == A} == {"put", "make", "dose"}


def test_index_from_pre_parsed_penman_goes_through_embedding_storage_and_retrieval(tmp_path):
    """The AMR path end to end without a model: fixture graphs -> index (real MiniLM, Chroma) -> retrieval."""
    from kgcore.core.settings import IndexOptions, RetrievalOptions
    from kgcore.index.load import load_text
    from kgcore.index.pipeline import index_document
    from kgcore.index.store.disk import Store
    from kgcore.query.engine import QueryEngine

    parser = PenmanParser.from_file(FIXTURES)
    texts = [line[len("# ::snt "):] for line in FIXTURES.read_text(encoding="utf-8").splitlines()
             if line.startswith("# ::snt ") and not line.rstrip().endswith("?")]
    document = load_text("\n\n".join(texts), "amr-fixtures")
    store = Store(tmp_path)
    outcome = index_document(document, store, IndexOptions(parser="amr", coref="none"), parser=parser)
    assert outcome.manifest.options.parser == "amr" and outcome.manifest.counts.nodes > 10
    index = store.load("amr-fixtures")
    assert index.graph.invariant_problems(s.id for s in index.sentences) == []
    analyses = index.analyses()
    assert all("penman" in analyses[s.id] for s in index.sentences), "every sentence keeps its PENMAN string"
    teas = [n for n in index.graph.nodes.values() if n.label == "tea"]
    assert len(teas) == 1 and len(teas[0].grounded_texts) >= 2
    engine = QueryEngine(store, parsers={"amr": parser})
    result = engine.retrieve("amr-fixtures", "Who told Peter about cats?", RetrievalOptions(budget_sentences=2))
    unknown = {n.key for n in result.query_graph.nodes if n.is_unknown}
    assert unknown and not any(m.query_node in unknown for m in result.matches)
    assert any("heard about cats" in s.text for s in result.sentences)
