"""AMR backend: PENMAN -> sentence graph (kgcore.index.parse.amr.graph) and the parsers (kgcore.index.parse.amr).

No model: PenmanParser, the PENMAN conversion and AmrParser's error handling (the
end-to-end index over these graphs is in tests/models/test_amr_models.py).

The AMR graphs are hand-written (tests/data/amr/peter_rabbit.txt); the
expected nodes and edges below were worked out by hand from those graphs
and the conversion rules in kgcore/index/parse/amr/graph.py.  No amrlib model is
available here, so nothing below pretends to be a model parse.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from kgcore.core.errors import InputError, ModelUnavailableError
from kgcore.core.types import ACTION, ENTITY, Sentence
from kgcore.index.graph import build_graph
from kgcore.index.parse import QUERY_ID, compare_parses
from kgcore.index.parse.amr import AmrParser, PenmanParser, penman_to_graph
from paths import DATA
from samples import TABLE3_AMR, TABLE3_SENTENCE

FIXTURES = DATA / "amr" / "peter_rabbit.txt"

A, E = ACTION, ENTITY

# sentence id -> (nodes as (label, type), edges as (source label, role, target label))
EXPECTED = {
    "text_0-1": (
        [("busy", A), ("mother", E), ("Peter", E), ("cook", A), ("wonder", A), ("thing", E), ("do", A), ("clothes", E)],
        [
            ("busy", "ARG1", "mother"), ("busy", "ARG2", "cook"), ("cook", "ARG0", "mother"),
            ("wonder", "ARG0", "mother"), ("wonder", "ARG1", "thing"), ("do", "ARG1", "thing"),
            ("do", "ARG0", "Peter"), ("do", "ARG2", "clothes"), ("clothes", "poss", "Peter"),
            ("mother", "mother-of", "Peter"),
        ],
    ),
    "text_0-2": (
        [("take", A), ("teaspoonful", E), ("tea", E), ("bedtime", E)],
        [("take", "ARG1", "teaspoonful"), ("teaspoonful", "consist-of", "tea"), ("take", "ARGM-TMP", "bedtime")],
    ),
    "text_0-3": (
        [("Mr. McGregor", E), ("come", A), ("sieve", E), ("intend", A), ("pop", A), ("top", E), ("Peter", E),
         ("wriggle", A), ("in-time", E)],
        [
            ("come", "ARG1", "Mr. McGregor"), ("come", "ARGM-COM", "sieve"), ("pop", "ARG1", "sieve"),
            ("pop", "ARG0", "Mr. McGregor"), ("pop", "ARG2", "top"), ("Peter", "part", "top"),
            ("intend", "ARG1", "pop"), ("intend", "ARG0", "Mr. McGregor"), ("wriggle", "ARG0", "Peter"),
            ("wriggle", "ARGM-TMP", "in-time"),
        ],
    ),
    "text_0-4": (
        [("hear", A), ("Peter", E), ("cat", E), ("Benjamin Bunny", E)],
        [("hear", "ARG0", "Peter"), ("hear", "ARG1", "cat"), ("hear", "ARG2", "Benjamin Bunny"),
         ("Benjamin Bunny", "cousin-of", "Peter")],
    ),
    "text_0-5": (
        [("eat", A), ("Flopsy", E), ("Mopsy", E), ("Cottontail", E), ("bread", E), ("milk", E),
         ("blackberry", E), ("supper", E)],
        [("eat", "ARG0", "Flopsy"), ("eat", "ARG0", "Mopsy"), ("eat", "ARG0", "Cottontail"),
         ("eat", "ARG1", "bread"), ("eat", "ARG1", "milk"), ("eat", "ARG1", "blackberry"),
         ("eat", "ARGM-TMP", "supper")],
    ),
    "text_0-6": (
        [("take", A), ("Mrs. Rabbit", E), ("basket", E), ("umbrella", E), ("go", A), ("wood", E), ("shop", E),
         ("person", E), ("bake", A), ("then", E)],
        [
            ("take", "ARG0", "Mrs. Rabbit"), ("take", "ARG1", "basket"), ("take", "ARG1", "umbrella"),
            ("umbrella", "poss", "Mrs. Rabbit"), ("go", "ARG0", "Mrs. Rabbit"), ("go", "ARGM-DIR", "wood"),
            ("go", "ARG4", "shop"), ("shop", "poss", "person"), ("bake", "ARG0", "person"),
            ("take", "ARGM-TMP", "then"), ("go", "ARGM-TMP", "then"),
        ],
    ),
    "text_0-7": (
        [("see", A), ("Mr. McGregor", E), ("Peter", E), ("corner", E), ("not care", A)],
        [("see", "ARG0", "Mr. McGregor"), ("see", "ARG1", "Peter"), ("see", "ARGM-LOC", "corner"),
         ("not care", "ARG0", "Peter")],
    ),
    "text_0-8": (
        [("slip", A), ("Peter", E), ("gate", E), ("safe", A), ("wood", E), ("garden", E), ("at-last", E)],
        [("slip", "ARG1", "Peter"), ("slip", "ARGM-DIR", "gate"), ("safe", "ARG1", "Peter"),
         ("safe", "ARGM-LOC", "wood"), ("wood", "ARGM-LOC", "garden"), ("safe", "ARGM-TMP", "at-last")],
    ),
    "text_0-9": (
        [("not stop", A), ("Peter", E), ("run", A), ("ever", E), ("not look", A), ("ever", E)],
        [("not stop", "ARG0", "Peter"), ("not stop", "ARG1", "run"), ("run", "ARG0", "Peter"),
         ("not stop", "ARGM-TMP", "ever"), ("not look", "ARG0", "Peter"), ("not look", "ARGM-DIR", "Peter"),
         ("not look", "ARGM-TMP", "ever")],
    ),
    "text_0-10": (
        [("hang", A), ("Mr. McGregor", E), ("jacket", E), ("shoe", E), ("scarecrow", E), ("frighten", A),
         ("blackbird", E)],
        [("hang", "ARG0", "Mr. McGregor"), ("hang", "ARG1", "jacket"), ("hang", "ARG1", "shoe"),
         ("hang", "ARGM-PRP", "scarecrow"), ("frighten", "ARG0", "scarecrow"), ("frighten", "ARG1", "blackbird")],
    ),
    "text_0-11": (
        [("come", A), ("Peter", E), ("pond", E), ("fill", A), ("Mr. McGregor", E), ("can", E), ("presently", E)],
        [("come", "ARG1", "Peter"), ("come", "ARG4", "pond"), ("fill", "ARGM-LOC", "pond"),
         ("fill", "ARG0", "Mr. McGregor"), ("fill", "ARG1", "can"), ("can", "poss", "Mr. McGregor"),
         ("come", "ARGM-TMP", "presently")],
    ),
}
DOCUMENT_IDS = ["text_0-0", *EXPECTED]


@pytest.fixture(scope="module")
def fixtures() -> PenmanParser:
    return PenmanParser.from_file(FIXTURES)


def graph(fixtures: PenmanParser, sid: str):
    return penman_to_graph(sid, fixtures.graphs[sid])


def nodes_of(sg):
    return Counter((n.label, n.node_type) for n in sg.nodes)


def edges_of(sg):
    labels = {n.key: n.label for n in sg.nodes}
    return Counter((labels[e.source], e.edge_role, labels[e.target]) for e in sg.edges)


def node(sg, label):
    found = [n for n in sg.nodes if n.label == label]
    assert len(found) == 1, f"{len(found)} nodes labelled {label!r}"
    return found[0]


def next_chain(grounded, sentence_id):
    nexts = {e.source: e.target for e in grounded.edges if e.edge_role == "next" and sentence_id in e.grounded_texts}
    start = (set(nexts) - set(nexts.values())).pop()
    chain = [start]
    while chain[-1] in nexts:
        chain.append(nexts[chain[-1]])
    return [grounded.nodes[i].label for i in chain]


# -- the paper's Table 3 -----------------------------------------------------
def test_table3_nodes_edges_and_texts():
    sg = penman_to_graph("text_0-0", TABLE3_AMR, TABLE3_SENTENCE)
    assert nodes_of(sg) == Counter(
        [("put", A), ("make", A), ("dose", A), ("mother", E), ("Peter", E), ("bed", E), ("tea", E)]
    )
    assert edges_of(sg) == Counter([
        ("put", "ARG0", "mother"), ("put", "ARG1", "Peter"), ("put", "ARG2", "bed"),
        ("make", "ARG0", "mother"), ("make", "ARG1", "tea"),
        ("dose", "ARG0", "mother"), ("dose", "ARG1", "Peter"), ("dose", "ARG2", "tea"),
        ("mother", "mother-of", "Peter"),
    ])
    types = {(e.edge_role, e.edge_type) for e in sg.edges}
    assert ("mother-of", "entity-entity") in types and ("ARG2", "action-entity") in types
    tea, mother, peter = node(sg, "tea"), node(sg, "mother"), node(sg, "Peter")
    assert tea.texts == ("tea", "camomile tea", "some camomile tea") and tea.merge_key == "tea"
    assert "Peter's mother" in mother.texts and mother.merge_key == "peter's mother"
    assert peter.merge_key == "peter" and not any(n.is_unknown for n in sg.nodes)
    assert all(n.merge_key is None for n in sg.nodes if n.node_type == A)
    assert sg.analysis["penman"] == TABLE3_AMR and sg.analysis["sentence"] == TABLE3_SENTENCE


def test_table3_grounded_graph_has_next_edges_in_order():
    grounded = build_graph([penman_to_graph("text_0-0", TABLE3_AMR)])
    assert next_chain(grounded, "text_0-0") == ["put", "make", "dose"]
    assert sorted(n for n in grounded.nodes if grounded.nodes[n].node_type == E) == [
        "bed", "peter", "peter's mother", "tea"
    ]
    assert grounded.invariant_problems(["text_0-0"]) == []


def test_fixture_table3_is_the_papers_graph(fixtures):
    assert edges_of(graph(fixtures, "text_0-0")) == edges_of(penman_to_graph("x", TABLE3_AMR))


# -- more hand-written graphs --------------------------------------------------
@pytest.mark.parametrize("sid", sorted(EXPECTED))
def test_fixture_graph_nodes_and_edges(fixtures, sid):
    sg = graph(fixtures, sid)
    expected_nodes, expected_edges = EXPECTED[sid]
    assert nodes_of(sg) == Counter(expected_nodes)
    assert edges_of(sg) == Counter(expected_edges)
    assert len({n.key for n in sg.nodes}) == len(sg.nodes)


def test_structural_concepts_are_not_nodes(fixtures):
    labels = {n.label for sid in DOCUMENT_IDS for n in graph(fixtures, sid).nodes}
    for structural in ("and", "or", "multi-sentence", "contrast", "name", "have rel role", "underneath",
                       "outside", "behind", "up", "out", "camomile", "some", "little", "old", "water"):
        assert structural not in labels


def test_surface_alignments_order_actions(fixtures):
    sg = graph(fixtures, "text_0-3")
    actions = [n.label for n in sorted(sg.nodes, key=lambda n: n.order) if n.node_type == A]
    # depth-first order would be come, pop, intend, wriggle; the ~e.N markers say intend comes before pop
    assert actions == ["come", "intend", "pop", "wriggle"]
    assert next_chain(build_graph([sg]), "text_0-3") == actions
    come = node(sg, "come")
    assert {"come up", "came"} <= set(come.texts)
    assert "wriggle out" in node(sg, "wriggle").texts
    assert node(sg, "top").texts == ("top", "top of Peter")


def test_isi_alignment_metadata_orders_nodes():
    text = """# ::snt The cat that Peter saw ran .
# ::alignments 1-1.1 3-1.1.1.1.1.1 4-1.1.1 5-1
(r / run-02
   :ARG0 (c / cat
            :ARG1-of (s / see-01
                        :ARG0 (p / person
                                 :name (n / name
                                          :op1 "Peter")))))"""
    sg = penman_to_graph("text_0-9", text)
    assert [n.label for n in sg.nodes] == ["cat", "Peter", "see", "run"]
    assert [n.order for n in sg.nodes] == [0, 1, 2, 3]
    assert "saw" in node(sg, "see").texts and sg.analysis["sentence"] == "The cat that Peter saw ran ."
    assert edges_of(sg) == Counter([("run", "ARG0", "cat"), ("see", "ARG1", "cat"), ("see", "ARG0", "Peter")])


def test_without_alignments_order_is_depth_first(fixtures):
    sg = graph(fixtures, "text_0-9")
    assert [n.label for n in sorted(sg.nodes, key=lambda n: n.order) if n.node_type == A] == [
        "not stop", "run", "not look"
    ]


def test_named_entities_roles_and_modifiers(fixtures):
    bunny = node(graph(fixtures, "text_0-4"), "Benjamin Bunny")
    assert bunny.merge_key == "benjamin bunny"
    assert {"Benjamin Bunny", "little Benjamin Bunny", "Peter's cousin"} <= set(bunny.texts)
    mcgregor = node(graph(fixtures, "text_0-10"), "Mr. McGregor")
    assert mcgregor.merge_key == "mr. mcgregor"
    can = node(graph(fixtures, "text_0-11"), "can")
    assert can.texts == ("can", "water can", "Mr. McGregor's water can")
    teaspoon = node(graph(fixtures, "text_0-2"), "teaspoonful")
    assert teaspoon.texts == ("teaspoonful", "1 teaspoonful", "teaspoonful of camomile tea")
    assert "underneath gate" in node(graph(fixtures, "text_0-8"), "gate").texts
    rabbit = node(graph(fixtures, "text_0-6"), "Mrs. Rabbit")
    assert rabbit.texts == ("Mrs. Rabbit", "old Mrs. Rabbit")
    assert node(graph(fixtures, "text_0-6"), "umbrella").texts == ("umbrella", "old Mrs. Rabbit's umbrella")
    assert node(graph(fixtures, "text_0-6"), "shop").texts == ("shop",)  # "person's shop" says nothing


def test_generic_concepts_and_adverbs_do_not_merge(fixtures):
    sg = graph(fixtures, "text_0-9")
    assert [n.merge_key for n in sg.nodes if n.label == "ever"] == [None, None]
    assert node(graph(fixtures, "text_0-6"), "person").merge_key is None
    assert node(graph(fixtures, "text_0-1"), "thing").merge_key is None
    grounded = build_graph([graph(fixtures, "text_0-6"), graph(fixtures, "text_0-9")])
    assert sum(n.label == "ever" for n in grounded.nodes.values()) == 2


def test_negation_is_in_the_action_label(fixtures):
    sg = graph(fixtures, "text_0-7")
    assert node(sg, "not care").node_type == A
    assert "care" not in {n.label for n in sg.nodes}
    assert node(graph(fixtures, "text_0-9"), "not stop").texts == ("not stop",)


def test_inverse_roles_point_from_the_frame(fixtures):
    sg = graph(fixtures, "text_0-11")
    fill, pond = node(sg, "fill"), node(sg, "pond")
    assert [(e.source, e.edge_role, e.target) for e in sg.edges if pond.key in (e.source, e.target)] == [
        ("c", "ARG4", pond.key), (fill.key, "ARGM-LOC", pond.key)
    ]
    relative = graph(fixtures, "text_0-3")  # "a sieve which he intended to pop"
    sieve = node(relative, "sieve")
    assert [(e.source, e.edge_role) for e in relative.edges if e.target == sieve.key] == [
        ("c2", "ARGM-COM"), ("p2", "ARG1")
    ]


def test_reentrant_variables_are_one_node(fixtures):
    sg = graph(fixtures, "text_0-1")
    mother, peter = node(sg, "mother"), node(sg, "Peter")
    assert mother.key == "p" and peter.key == "p2"
    assert sum(e.target == mother.key for e in sg.edges) == 3
    assert sum(e.target == peter.key for e in sg.edges) == 3


# -- questions -----------------------------------------------------------------
def test_question_what_happened_to_the_father(fixtures):
    sg = graph(fixtures, "q-0")
    unknown = node(sg, "amr-unknown")
    assert unknown.is_unknown and unknown.merge_key is None and unknown.node_type == E
    father = node(sg, "father")
    assert father.merge_key == "rabbit's father" and "young rabbit's father" in father.texts
    assert node(sg, "rabbit").texts == ("rabbit", "young rabbit")
    assert edges_of(sg) == Counter([
        ("happen", "ARG1", "amr-unknown"), ("happen", "ARG2", "father"), ("father", "father-of", "rabbit")
    ])


def test_question_where_did_peter_lose_his_shoes(fixtures):
    sg = graph(fixtures, "q-1")
    assert edges_of(sg) == Counter([
        ("lose", "ARG0", "Peter"), ("lose", "ARG1", "shoe"), ("shoe", "poss", "Peter"),
        ("lose", "ARGM-LOC", "amr-unknown"),
    ])
    assert node(sg, "shoe").texts == ("shoe", "Peter's shoe")
    assert [n.label for n in sg.nodes if n.is_unknown] == ["amr-unknown"]


def test_question_who_told_peter_about_cats(fixtures):
    sg = graph(fixtures, "q-2")
    assert nodes_of(sg) == Counter([("tell", A), ("amr-unknown", E), ("cat", E), ("Peter", E)])
    assert edges_of(sg) == Counter([
        ("tell", "ARG0", "amr-unknown"), ("tell", "ARG1", "cat"), ("tell", "ARG2", "Peter")
    ])


def test_question_with_unknown_role_holder(fixtures):
    sg = graph(fixtures, "q-3")  # Who is Mr. McGregor's wife?
    unknown = node(sg, "amr-unknown")
    assert unknown.is_unknown and "Mr. McGregor's wife" in unknown.texts
    assert edges_of(sg) == Counter([("amr-unknown", "wife-of", "Mr. McGregor")])


# -- merging across sentences --------------------------------------------------
def test_entities_merge_across_sentences(fixtures):
    grounded = build_graph(graph(fixtures, sid) for sid in DOCUMENT_IDS)
    nodes = grounded.nodes
    assert nodes["tea"].grounded_texts == ["text_0-0", "text_0-2"]
    assert {"tea", "camomile tea", "some camomile tea"} <= set(nodes["tea"].texts)
    assert nodes["peter's mother"].grounded_texts == ["text_0-0", "text_0-1"]
    assert nodes["peter"].grounded_texts == [
        "text_0-0", "text_0-1", "text_0-3", "text_0-4", "text_0-7", "text_0-8", "text_0-9", "text_0-11"
    ]
    assert nodes["mr. mcgregor"].grounded_texts == ["text_0-3", "text_0-7", "text_0-10", "text_0-11"]
    assert nodes["wood"].grounded_texts == ["text_0-6", "text_0-8"]
    assert sum(n.label == "tea" for n in nodes.values()) == 1
    assert sum(n.label == "Peter" for n in nodes.values()) == 1
    assert grounded.invariant_problems(DOCUMENT_IDS) == []
    assert next_chain(grounded, "text_0-0") == ["put", "make", "dose"]


# -- PenmanParser ----------------------------------------------------------------
def test_penman_parser_follows_the_parser_protocol(fixtures):
    sentences = [
        Sentence("text_0-0", 0, 0, 0, "His mother put him to bed.", "His mother put him to bed.", "x"),
        Sentence("text_0-7", 0, 7, 7, "x", "x", "x"),
        Sentence("text_0-99", 0, 99, 99, "Unknown.", "Unknown.", "Unknown."),
    ]
    calls = []
    graphs = fixtures.parse(sentences, progress=lambda done, total: calls.append((done, total)))
    assert [g.sentence_id for g in graphs] == ["text_0-0", "text_0-7", "text_0-99"]
    assert node(graphs[1], "not care").node_type == A
    assert graphs[2].nodes == () and "text_0-99" in graphs[2].analysis["error"]
    assert calls == [(1, 3), (2, 3), (3, 3)] and fixtures.name == "amr"


def test_penman_parser_finds_questions_and_sentences_by_text(fixtures):
    q = fixtures.parse_question("  Where did Peter   lose his shoes? ")
    assert q.sentence_id == QUERY_ID and node(q, "amr-unknown").is_unknown
    text = "Peter had heard about cats from Peter's cousin, little Benjamin Bunny."
    [sg] = fixtures.parse([Sentence("text_5-5", 5, 5, 50, "He had heard about cats.", text, text)])
    assert sg.sentence_id == "text_5-5" and node(sg, "Benjamin Bunny").merge_key == "benjamin bunny"
    with pytest.raises(InputError, match="no pre-parsed PENMAN graph"):
        fixtures.parse_question("Who is Peter?")


def test_penman_parser_rejects_bad_files(tmp_path):
    with pytest.raises(InputError, match="missing.txt"):
        PenmanParser.from_file(tmp_path / "missing.txt")
    no_key = tmp_path / "nokey.txt"
    no_key.write_text("# a header (with a parenthesis)\n\n(r / run-02)\n", encoding="utf-8")
    with pytest.raises(InputError, match="nokey.txt, graph 1.*::id"):
        PenmanParser.from_file(no_key)
    broken = tmp_path / "broken.txt"
    broken.write_text("# ::id text_0-0\n(r / run-02 :ARG0 (p / person)\n", encoding="utf-8")
    with pytest.raises(InputError, match="broken.txt, graph 1: invalid PENMAN"):
        PenmanParser.from_file(broken)


def test_penman_to_graph_accepts_graph_objects_and_rejects_bad_text():
    import penman

    g = penman.decode('(r / run-02 :ARG0 (c / cat :mod (b / black)))')
    sg = penman_to_graph("text_0-0", g, "The black cat ran.")
    assert edges_of(sg) == Counter([("run", "ARG0", "cat")]) and "black cat" in node(sg, "cat").texts
    assert sg.analysis["penman"].startswith("(r / run-02")
    for bad in ("", "no graph here", "(r / run-02 :ARG0"):
        with pytest.raises(InputError, match="PENMAN of text_0-4"):
            penman_to_graph("text_0-4", bad)


# -- AmrParser without a model -------------------------------------------------
def test_amr_parser_without_model_explains_what_to_download():
    parser = AmrParser(model_dir="/nonexistent/amr-model")  # constructing is lazy: no error yet
    sentence = Sentence("text_0-0", 0, 0, 0, "Peter ran.", "Peter ran.", "Peter ran.")
    with pytest.raises(ModelUnavailableError) as info:
        parser.parse([sentence])
    message = str(info.value)
    assert "KGCORE_AMR_MODEL" in message and "/nonexistent/amr-model" in message
    assert "model_parse_xfm_bart_large-v0_1_0" in message and "amrlib-models/releases" in message
    with pytest.raises(ModelUnavailableError):
        parser.parse_question("Who ran?")
    ok, reason = AmrParser.available("/nonexistent/amr-model")
    assert ok is False and "/nonexistent/amr-model" in reason and "KGCORE_AMR_MODEL" in reason


def test_amr_model_dir_must_be_an_amrlib_parse_model(tmp_path, monkeypatch):
    ok, reason = AmrParser.available(str(tmp_path))
    assert not ok and "amrlib_meta.json" in reason and str(tmp_path) in reason
    (tmp_path / "amrlib_meta.json").write_text(json.dumps({"model_type": "gtos"}), encoding="utf-8")
    ok, reason = AmrParser.available(str(tmp_path))
    assert not ok and "'gtos'" in reason
    monkeypatch.setenv("KGCORE_AMR_MODEL", "/nonexistent/from-env")
    assert "/nonexistent/from-env" in AmrParser.available()[1]
    monkeypatch.delenv("KGCORE_AMR_MODEL")
    monkeypatch.setattr("kgcore.index.parse.amr.parser.amrlib_default_dir", lambda: tmp_path / "model_stog")
    ok, reason = AmrParser.available()
    assert not ok and "KGCORE_AMR_MODEL is not set" in reason and "model_stog does not exist" in reason


class _ReplayStog:
    """Stands in for a loaded amrlib model: replays fixture PENMAN (or None, or an error) per text.

    It exercises AmrParser's batching and failure handling only; the graphs
    are the hand-written fixtures, not model output.
    """

    def __init__(self, answers: dict):
        self.answers, self.calls = answers, []

    def parse_sents(self, texts, add_metadata=True):
        self.calls.append(list(texts))
        if len(texts) > 1 and any(isinstance(self.answers[t], Exception) for t in texts):
            raise RuntimeError("batch failed")
        if isinstance(self.answers[texts[0]], Exception):
            raise self.answers[texts[0]]
        return [self.answers[t] for t in texts]


def test_amr_parser_batches_and_turns_failures_into_error_graphs(fixtures):
    texts = ["Peter did not care.", "Gibberish.", "Boom.", "Who told Peter about cats?"]
    stog = _ReplayStog({
        texts[0]: fixtures.graphs["text_0-7"], texts[1]: None, texts[2]: ValueError("cuda died"),
        texts[3]: fixtures.graphs["q-2"],
    })
    parser = AmrParser(batch_size=3)
    parser._stog = stog
    sentences = [Sentence(f"text_0-{i}", 0, i, i, t, t, t) for i, t in enumerate(texts)]
    progress = []
    graphs = parser.parse(sentences, progress=lambda d, t: progress.append((d, t)))
    assert [g.sentence_id for g in graphs] == ["text_0-0", "text_0-1", "text_0-2", "text_0-3"]
    assert node(graphs[0], "not care") and "penman" in graphs[0].analysis
    assert graphs[1].nodes == () and "no valid AMR graph" in graphs[1].analysis["error"]
    assert graphs[2].nodes == () and "cuda died" in graphs[2].analysis["error"]
    assert progress == [(3, 4), (4, 4)]
    assert stog.calls[0] == texts[:3] and [texts[3]] in stog.calls  # failed batch retried one by one
    question = parser.parse_question("Who told Peter about cats?")
    assert question.sentence_id == QUERY_ID and node(question, "amr-unknown").is_unknown


# -- SRL vs AMR ------------------------------------------------------------------
def test_compare_parses_reports_each_side(fixtures):
    text = "Mr. McGregor caught sight of Peter at the corner, but Peter did not care."
    # the srl slot gets a parser with nothing to say about this sentence, to check error reporting
    result = compare_parses(text, srl_parser=PenmanParser({}), amr_parser=fixtures)
    assert result["sentence"] == text
    assert edges_of(result["amr"]) == Counter([("see", "ARG0", "Mr. McGregor"), ("see", "ARG1", "Peter"),
                                               ("see", "ARGM-LOC", "corner"), ("not care", "ARG0", "Peter")])
    assert result["srl"].nodes == () and "no PENMAN graph" in result["errors"]["srl"]
    assert "amr" not in result["errors"]
    missing = compare_parses(text, srl_parser=PenmanParser({}), amr_parser=AmrParser("/nonexistent/amr"))
    assert missing["amr"] is None and "KGCORE_AMR_MODEL" in missing["errors"]["amr"]
    with pytest.raises(InputError):
        compare_parses("   ")
