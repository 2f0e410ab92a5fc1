"""Communities with the real spaCy and MiniLM on self-written texts: hierarchical detection
(determinism, maximum size, levels, modularity), grounded summaries, storage and incremental reuse, the
``community`` and ``hybrid-summaries`` methods (budgets, document scope, units, JSON), and the abstractive
reports against a local OpenAI-compatible server (accepted, rejected then retried, rejected twice, failing)."""

from __future__ import annotations

import importlib.util
import json
import re
import sys

import numpy as np
import pytest
from chatkit import ChatServer, completion

from kgcore.core.embed import get_embedder
from kgcore.core.errors import ModelUnavailableError
from kgcore.core.settings import RetrievalOptions, Settings
from kgcore.core.types import SelectedSentence
from kgcore.index.pipeline import Job, index_files
from kgcore.index.store.disk import Store
from kgcore.index.views.communities import detect, stored
from kgcore.index.views.communities import summaries as sm
from kgcore.index.views.communities.graph import EntityGraph, entity_graph
from kgcore.query.engine import QueryEngine, result_to_json
from kgcore.query.methods import METHODS

HARBOUR = ("Marta Vell kept the lighthouse on Gull Rock for thirty years. Every night Marta Vell climbed the tower "
           "and lit the great lamp. The lamp guided the trawlers of Port Ness through the fog. During the winter "
           "storm Marta Vell rescued two fishermen from a sinking trawler. The fishermen thanked Marta Vell at the "
           "harbour. The Harbour Council gave Marta Vell a silver medal. The Harbour Council repaired the northern "
           "pier in the spring. The Harbour Council raised the fees for the trawlers. The fishermen protested "
           "against the fees. The mayor of Port Ness supported the fishermen.")
ORCHARD = ("Tomas Brel grew apples and pears in an orchard above the valley. Tomas Brel pressed the apples into "
           "cider every autumn. A hailstorm destroyed the pears in August. Tomas Brel sold the cider at the market "
           "of Port Ness. Ana Brel, his daughter, kept the bees of the orchard. The bees pollinated the apple "
           "trees. Ana Brel sold the honey at the market.")
MINE = ("The Kessel mine produced copper for the smelter at Rauberg. The miners of Kessel dug the deep shafts. "
        "The smelter at Rauberg melted the copper into bars. Engineer Ivo Sarn designed the pumps of the mine. "
        "Ivo Sarn repaired the pumps after the flood. The miners praised Ivo Sarn.")


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    store = Store(tmp_path_factory.mktemp("communities"))
    jobs = [Job(n, data=t.encode()) for n, t in (("harbour.txt", HARBOUR), ("orchard.txt", ORCHARD))]
    index_files(jobs, store, "valley", workers=1)
    return store


@pytest.fixture(scope="module")
def engine(store):
    return QueryEngine(store)


@pytest.fixture(scope="module")
def built(engine):
    return stored.communities(engine.index("valley"), engine.embedder, engine.settings)


def planted(groups: int = 4, size: int = 15, seed: int = 3) -> EntityGraph:
    """Dense groups of ``size`` nodes, few links between groups."""
    rng = np.random.default_rng(seed)
    n = groups * size
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n)
             if rng.random() < (0.5 if a // size == b // size else 0.02)]
    arr = np.array(pairs)
    return EntityGraph(tuple(f"e{i:03d}" for i in range(n)), arr, np.ones(len(arr)), np.ones(len(arr), dtype=int))


HAS_LEIDENALG = importlib.util.find_spec("leidenalg") is not None and importlib.util.find_spec("igraph") is not None


@pytest.mark.parametrize("algorithm", [
    "leiden",
    pytest.param("leidenalg", marks=pytest.mark.skipif(not HAS_LEIDENALG, reason="optional (GPL): pip install "
                                                                                  "leidenalg igraph")),
    "louvain"])
def test_detection_is_deterministic_bounded_and_nested(algorithm):
    eg = planted()
    first = detect(eg, algorithm, max_cluster_size=10, seed=7)
    assert first == detect(eg, algorithm, max_cluster_size=10, seed=7)
    assert first.levels >= 2  # groups of 15 are over 10: split one level deeper
    assert all(len(c.members) <= 10 for c in first.leaves())
    by_id = first.by_id()
    for c in first.communities:
        if c.children:
            assert sorted(m for ch in c.children for m in by_id[ch].members) == list(c.members)
            assert all(by_id[ch].parent == c.id and by_id[ch].level == c.level + 1 for ch in c.children)
    assert sorted(m for c in first.at_level(0) for m in c.members) == list(eg.nodes)
    assert first.modularity[0] > 0.5 and len(first.modularity) == first.levels


def test_a_larger_maximum_keeps_the_planted_groups_whole():
    h = detect(planted(), "leiden", max_cluster_size=20, seed=1)
    assert h.levels == 1 and sorted(len(c.members) for c in h.communities) == [15, 15, 15, 15]


def test_leidenalg_missing_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "leidenalg", None)  # as if not installed (it is optional: GPL-3)
    with pytest.raises(ModelUnavailableError, match="pip install leidenalg igraph"):
        detect(planted(), "leidenalg", max_cluster_size=10, seed=7)


def test_bad_parameters_are_refused():
    with pytest.raises(Exception, match="community_algorithm"):
        detect(planted(), "kmeans")
    with pytest.raises(Exception, match="community_max_size"):
        detect(planted(), "leiden", max_cluster_size=1)


def test_entity_graph_leaves_out_pronouns_and_actions(engine):
    index = engine.index("valley")
    eg = entity_graph(index.graph, len(index.sentences))
    labels = {index.graph.nodes[n].label.lower() for n in eg.nodes}
    assert "marta vell" in labels and "tomas brel" in labels
    assert all(index.graph.nodes[n].node_type == "entity" for n in eg.nodes)
    assert not labels & {"he", "she", "his", "it", "they"}
    assert (eg.weights <= eg.links).all() and (eg.weights > 0).all()


def test_every_summary_sentence_is_a_grounding_sentence_of_its_community(engine, built):
    index = engine.index("valley")
    assert built.summaries and len(built.vectors) == len(built.summaries) == len(built.hierarchy.communities)
    for community, summary in zip(built.hierarchy.communities, built.summaries):
        grounding = {s for m in community.members for s in index.graph.nodes[m].grounded_texts}
        assert summary.community == community.id and summary.kind == sm.EXTRACTIVE
        assert set(summary.sentence_ids) <= grounding
        for claim in summary.claims:  # an extractive claim is its source sentence, verbatim
            [sid] = claim.sentence_ids
            assert claim.text == index.sentence(sid).original
        assert sum(len(c.text.split()) for c in summary.claims) <= sm.MAX_WORDS
        assert summary.title and summary.n_sentences >= len(summary.sentence_ids)
    marta = next(s for s in built.summaries if "Marta Vell" in s.title)
    assert any("Marta Vell" in c.text for c in marta.claims)


def test_stored_with_the_generation_and_read_back(store, engine, built):
    index = store.load("valley")  # a fresh load: nothing cached
    folder = index.path / f"linked-{index.manifest.generation}"
    assert (folder / stored.STORED).exists()
    again = stored.communities(index, engine.embedder, engine.settings)
    assert again.hierarchy == built.hierarchy and again.summaries == built.summaries
    assert np.allclose(again.vectors, built.vectors)
    assert stored.read(folder, "another-stamp", built.params) is None
    assert stored.read(folder, index.manifest.stamp, stored.Params(max_cluster_size=3)) is None


def test_adding_a_document_reuses_the_summaries_of_unchanged_communities(tmp_path):
    store = Store(tmp_path)
    embedder = get_embedder()
    index_files([Job("orchard.txt", data=ORCHARD.encode()), Job("mine.txt", data=MINE.encode())], store, "c",
                workers=1)
    before = stored.communities(store.load("c"), embedder, Settings())
    index_files([Job("harbour.txt", data=HARBOUR.encode())], store, "c", workers=1)
    after = stored.communities(store.load("c"), embedder, Settings())
    assert after.stats.reused > 0 and after.stats.computed > 0
    assert after.stats.reused + after.stats.computed == len(after.summaries)
    old = {s.signature: s for s in before.summaries}
    reused = [s for s in after.summaries if s.signature in old]
    assert len(reused) == after.stats.reused
    for s in reused:
        assert s.claims == old[s.signature].claims


def _summaries_seen(engine: QueryEngine, use_chroma: bool) -> list:
    out = []
    for question in ("Who rescued the fishermen?", "What did the orchard grow?", "Who sold honey at the market?"):
        for method in ("community", "hybrid-summaries"):
            for options in (RetrievalOptions(method=method, budget_words=120),
                            RetrievalOptions(method=method, budget_words=0, k=3),
                            RetrievalOptions(method=method, budget_words=120, documents=("orchard",))):
                result = engine.retrieve("c", question, options, use_chroma=use_chroma)
                out.append(([(u["community"], u["rank"]) for u in result.summaries],
                            [(s.id, s.unit) for s in result.sentences]))
    return out


def test_summaries_at_indexing_time_in_chroma_and_retrieved_from_there_as_exactly(tmp_path, monkeypatch):
    """With KGCORE_COMMUNITIES_AT_INDEX and commits keeping Chroma in step, indexing stores the communities and
    writes the summaries into the Chroma copy's ``summaries`` collection; Chroma retrieval of summaries equals
    exact retrieval, and an added document brings the collection to the new build."""
    from kgcore.index.store.chroma import open_chroma
    from kgcore.index.store.recovery import linked_folder
    from kgcore.index.views.communities import units

    monkeypatch.setenv("KGCORE_COMMUNITIES_AT_INDEX", "1")
    store = Store(tmp_path, chroma="embedded", chroma_sync="commit")
    index_files([Job("orchard.txt", data=ORCHARD.encode()), Job("mine.txt", data=MINE.encode())], store, "c",
                workers=1)
    manifest = store.manifest("c")
    on_disk = stored.read(tmp_path / "c" / linked_folder(manifest.generation), manifest.stamp, None)
    assert on_disk is not None and on_disk.summaries  # built while indexing, before any query
    copy = store.chroma_copy("c")
    assert units.held(copy) == units.marker(manifest.stamp, on_disk)
    client = open_chroma(copy.folder)
    try:
        assert client.get_collection("summaries").count() == len(on_disk.summaries)
    finally:
        client.close()
    index_files([Job("harbour.txt", data=HARBOUR.encode())], store, "c", workers=1)
    manifest = store.manifest("c")
    after = stored.read(tmp_path / "c" / linked_folder(manifest.generation), manifest.stamp, None)
    assert after is not None and units.held(copy) == units.marker(manifest.stamp, after)
    engine = QueryEngine(store)
    assert _summaries_seen(engine, True) == _summaries_seen(engine, False)


def test_communities_at_indexing_for_a_reused_file_and_a_failure_reported_not_raised(tmp_path, monkeypatch):
    import dataclasses

    import kgcore.index.pipeline as pipeline_mod
    from kgcore.index.store.recovery import linked_folder

    store = Store(tmp_path)
    index_files([Job("mine.txt", data=MINE.encode())], store, "c", workers=1)
    settings = dataclasses.replace(Settings.from_env(), communities_at_index=True)
    (again,) = index_files([Job("mine.txt", data=MINE.encode())], store, "c", settings=settings, workers=1)
    manifest = store.manifest("c")
    assert again.reused and not again.notes  # nothing committed, the communities built all the same
    assert stored.read(tmp_path / "c" / linked_folder(manifest.generation), manifest.stamp, None) is not None

    def broken(*args, **kwargs):
        raise RuntimeError("the community build broke")

    monkeypatch.setattr(pipeline_mod, "communities", broken)
    (outcome,) = index_files([Job("orchard.txt", data=ORCHARD.encode())], store, "c", settings=settings, workers=1)
    assert [m.doc_id for m in outcome.added] == ["orchard"] and store.manifest("c").doc_ids == ("mine", "orchard")
    assert "the community build broke" in outcome.notes[0] and outcome.summary()["notes"] == list(outcome.notes)


def test_chroma_summaries_are_written_again_when_stale_or_missing(store, engine, built):
    from kgcore.index.views.communities import units

    copy = store.chroma_copy("valley")
    index = engine.index("valley")
    assert units.sync(copy, built, index.manifest.stamp)  # never written: written now
    assert not units.sync(copy, built, index.manifest.stamp)  # in step: left alone
    (copy.folder / units.MARKER).write_text("another build", encoding="utf-8")
    assert units.sync(copy, built, index.manifest.stamp)
    best = units.query(copy, built.vectors[0], 3)
    assert best[0][0] == built.summaries[0].community and best[0][1] == pytest.approx(1.0, abs=1e-4)
    from kgcore.index.store.chroma import open_chroma

    client = open_chroma(copy.folder)
    try:
        client.delete_collection("summaries")  # gone behind the marker's back (a wiped server, a damaged file)
    finally:
        client.close()
    assert units.nearest(copy, built, index.manifest.stamp, built.vectors[0], 3) == best  # written again, asked again
    client = open_chroma(copy.folder)
    try:
        client.get_collection("summaries").delete(ids=[built.summaries[0].community])  # a half-written collection
    finally:
        client.close()
    assert units.nearest(copy, built, index.manifest.stamp, built.vectors[0], 3) == best  # short: written again


def test_settings_choose_the_algorithm_size_and_seed_from_the_environment(store, engine):
    settings = Settings.from_env({"KGCORE_COMMUNITY_ALGORITHM": "Louvain", "KGCORE_COMMUNITY_MAX_SIZE": "4",
                                  "KGCORE_COMMUNITY_SEED": "7"})
    assert (settings.community_algorithm, settings.community_max_size, settings.community_seed) == ("louvain", 4, 7)
    ci = stored.communities(store.load("valley"), engine.embedder, settings)
    assert (ci.hierarchy.algorithm, ci.hierarchy.max_cluster_size, ci.hierarchy.seed) == ("louvain", 4, 7)
    assert ci.params == stored.Params("louvain", 4, 7, "")
    over = [c for c in ci.hierarchy.leaves() if len(c.members) > 4]
    assert ci.size_distribution()["over_max"] == len(over)
    with pytest.raises(Exception, match="community_algorithm"):
        stored.communities(store.load("valley"), engine.embedder, Settings(community_algorithm="kmeans"))


def test_methods_are_registered():
    assert {"community", "hybrid-summaries"} <= set(METHODS)


@pytest.mark.parametrize("method", ["community", "hybrid-summaries"])
@pytest.mark.parametrize("budget", [20, 60, 150])
def test_methods_stay_within_the_word_budget(engine, method, budget):
    result = engine.retrieve("valley", "Who rescued the fishermen?", RetrievalOptions(method=method,
                                                                                      budget_words=budget))
    assert result.sentences and result.context_words <= budget
    assert [s.position for s in result.sentences] == sorted(s.position for s in result.sentences)
    assert len(set(result.sentence_ids)) == len(result.sentence_ids)


@pytest.mark.parametrize("method", ["community", "hybrid-summaries"])
def test_summary_units_name_the_sentences_that_back_them(engine, built, method):
    result = engine.retrieve("valley", "What did the Harbour Council do?",
                             RetrievalOptions(method=method, budget_words=120))
    assert result.summaries
    in_context = set(result.sentence_ids)
    for s in result.summaries:
        summary = built.summary(s["community"])
        assert set(s["sentence_ids"]) <= in_context & set(summary.sentence_ids)
        assert s["title"] == summary.title and [c["text"] for c in s["claims"]] == [c.text for c in summary.claims]
    units = {s["community"] for s in result.summaries}
    for sentence in result.sentences:
        assert sentence.unit == "" or sentence.unit in units
    if method == "community":
        assert all(s.unit for s in result.sentences)
        assert [s["score"] for s in result.summaries] == sorted((s["score"] for s in result.summaries), reverse=True)
    else:
        assert any(not s.unit for s in result.sentences) and any(s.unit for s in result.sentences)


def test_community_ranks_the_community_the_question_is_about(engine):
    result = engine.retrieve("valley", "What did Tomas Brel make from the apples?",
                             RetrievalOptions(method="community", budget_words=60))
    assert "orchard" in result.summaries[0]["documents"]
    assert any("cider" in s.text for s in result.sentences)


@pytest.mark.parametrize("method", ["community", "hybrid-summaries"])
def test_document_scope_is_obeyed(engine, method):
    result = engine.retrieve("valley", "Who sold things at the market of Port Ness?",
                             RetrievalOptions(method=method, budget_words=200, documents=("orchard",)))
    assert result.sentences and {s.document for s in result.sentences} == {"orchard"}
    for s in result.summaries:
        assert all(sid.startswith("orchard/") for sid in s["sentence_ids"])


def test_without_a_budget_the_seeds_k_and_s(engine):
    result = engine.retrieve("valley", "Who protested against the fees?", RetrievalOptions(method="hybrid-summaries"))
    lone = [s for s in result.sentences if not s.unit]
    assert len(lone) <= 20 and len(result.summaries) <= 5
    result = engine.retrieve("valley", "Who protested?", RetrievalOptions(method="community", k=2))
    assert len(result.summaries) <= 2


def test_result_json_round_trips_and_answers_cite_sentence_ids(engine):
    result, answer = engine.ask("valley", "Who gave Marta Vell a medal?",
                                RetrievalOptions(method="hybrid-summaries", budget_words=150), "extractive")
    data = json.loads(json.dumps(result_to_json(result, answer)))
    assert data["summaries"] == result.summaries
    back = [SelectedSentence(**s) for s in data["sentences"]]
    assert [(s.id, s.unit) for s in back] == [(s.id, s.unit) for s in result.sentences]
    cited = {sid for c in answer.citations for sid in c.sentence_ids}
    assert cited and cited <= set(result.sentence_ids)


# -- abstractive reports against a local OpenAI-compatible server ------------------------------------------

def Endpoint(reply, status=200) -> ChatServer:  # noqa: N802 - reads as the server it returns
    """A local server answering chat completions with ``reply(prompt, n)`` (n: the request's number)."""
    return ChatServer(lambda body, n: (status, completion(reply(body["messages"][0]["content"], n), "m"), 0.0))


def llm_settings(url: str) -> Settings:
    return Settings(openai_base_url=url, openai_model="test-model", openai_api_key="k", openai_timeout_s=5.0,
                    openai_retries=1, community_llm=True)


def grounded_reply(prompt: str, n: int) -> str:
    ids = re.findall(r"^\[([^\]]+)\]", prompt, re.MULTILINE)
    return json.dumps({"title": "Report", "summary": [{"text": "A grounded claim.", "sentence_ids": ids[:1]}],
                       "findings": [{"text": "Another claim.", "sentence_ids": ids[:2]}]})


def test_reports_citing_community_sentences_are_kept_and_embedded(store, engine, built):
    index = store.load("valley")
    with Endpoint(grounded_reply) as server:
        ci = stored.communities(index, engine.embedder, llm_settings(server.url))
    assert len(server.prompts) == len(ci.summaries) and ci.stats.llm == len(ci.summaries)
    assert ci.params.llm == "test-model" and ci.params != built.params
    for community, summary in zip(ci.hierarchy.communities, ci.summaries):
        grounding = {s for m in community.members for s in index.graph.nodes[m].grounded_texts}
        assert summary.kind == sm.LLM and summary.title == "Report"
        assert summary.sentence_ids and set(summary.sentence_ids) <= grounding
        assert [c.part for c in summary.claims] == ["summary", "finding"]
    expected = engine.embedder.encode(["Report. A grounded claim."])[0]
    assert np.allclose(ci.vectors[0], expected, atol=1e-5)
    # the extractive build of the same generation is still there, under its own parameters
    folder = index.path / f"linked-{index.manifest.generation}"
    assert stored.read(folder, index.manifest.stamp, ci.params) is not None


def _report(ids: list[str]) -> str:
    return json.dumps({"title": "T", "summary": [{"text": "Claim.", "sentence_ids": ids}]})


@pytest.mark.parametrize("first, accepted", [
    (lambda ids: _report(["valley/text_9-99"]), True),    # a foreign id: rejected, retried, accepted
    (lambda ids: _report([]), True),                      # no citation: rejected, retried, accepted
    (lambda ids: "not json at all", True),                # unreadable: rejected, retried, accepted
])
def test_a_rejected_report_is_retried_once_with_the_reason(built, engine, first, accepted):
    community = built.hierarchy.communities[0]
    ex = built.summaries[0]
    allowed = set(ex.sentence_ids)
    ranked = [(sid, engine.index("valley").sentence(sid).original) for sid in ex.sentence_ids]

    def reply(prompt, n):
        return first(ranked) if n == 1 else _report([ranked[0][0]])

    with Endpoint(reply) as server:
        from kgcore.core.chat import ChatClient

        result = sm.abstractive(ex, ranked, allowed, ChatClient(llm_settings(server.url)))
    assert len(server.prompts) == 2 and "was rejected" in server.prompts[1]
    assert "rejected" not in server.prompts[0]
    assert result.kind == sm.LLM and result.sentence_ids == (ranked[0][0],) and result.community == community.id


def test_rejected_twice_or_a_failing_endpoint_falls_back_to_the_extractive_summary(built, engine):
    from kgcore.core.chat import ChatClient

    ex = built.summaries[0]
    ranked = [(sid, "text") for sid in ex.sentence_ids]
    with Endpoint(lambda p, n: _report(["elsewhere/text_0-1"])) as server:
        result = sm.abstractive(ex, ranked, set(ex.sentence_ids), ChatClient(llm_settings(server.url)))
    assert len(server.prompts) == 2
    assert result.kind == sm.EXTRACTIVE and result.claims == ex.claims
    assert result.notes and "elsewhere/text_0-1" in result.notes[0]
    with Endpoint(lambda p, n: "{}", status=500) as server:
        result = sm.abstractive(ex, ranked, set(ex.sentence_ids), ChatClient(llm_settings(server.url)))
    assert len(server.prompts) == 1  # a failed call is not asked again
    assert result.kind == sm.EXTRACTIVE and "HTTP 500" in result.notes[0]


# -- command line ------------------------------------------------------------------------------------------

def test_cli_ask_prints_summaries_and_overview_prints_cited_communities(store, built, capsys):
    from kgcore.cli import main

    code = main(["ask", "--store", str(store.root), "--collection", "valley", "--method", "community",
                 "--budget-words", "80", "--answerer", "extractive", "--json", "--quiet",
                 "What did the Harbour Council do?"])
    assert code == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["method"] == "community" and printed["summaries"]
    ids = {s["id"] for s in printed["sentences"]}
    assert all(set(s["sentence_ids"]) <= ids for s in printed["summaries"])
    assert {s["unit"] for s in printed["sentences"]} <= {s["community"] for s in printed["summaries"]}
    code = main(["ask", "--store", str(store.root), "--collection", "valley", "--method", "community",
                 "--budget-words", "80", "--answerer", "extractive", "--json", "--quiet", "--chroma",
                 "What did the Harbour Council do?"])
    from_chroma = json.loads(capsys.readouterr().out)
    assert code == 0 and from_chroma["summaries"] == printed["summaries"]
    assert (store.root / "valley" / "chroma" / "summaries").is_file()  # the marker: read from the Chroma copy
    code = main(["overview", "--store", str(store.root), "--collection", "valley", "--kind", "communities",
                 "--top", "0", "--quiet"])
    assert code == 0
    markdown = capsys.readouterr().out
    assert markdown.startswith("# Collection overview: valley")
    from kgcore.index.views.communities.listed import listed

    top = listed(built)  # the top-level communities worth listing; the others are counted, not shown
    hidden = len(built.hierarchy.at_level(0)) - len(top)
    assert markdown.count("\n## ") == len(top) and (hidden == 0 or f"{hidden} more not listed" in markdown)
    for c in top:
        for claim in built.summary(c.id).claims:
            assert f"- {claim.text} [{', '.join(claim.sentence_ids)}]" in markdown
