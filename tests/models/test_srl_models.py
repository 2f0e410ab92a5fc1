"""The ``srl`` parser: frames read off real spaCy parses, and their sentence graphs."""

from __future__ import annotations

import pytest

from kgcore.core.types import ACTION, ENTITY, Argument, Frame, Sentence
from kgcore.index.graph import build_graph
from kgcore.index.parse import QUERY_ID
from kgcore.index.parse.srl import SrlParser
from paths import ASSETS, PETER

PAPER_TABLE_3 = (
    "Peter's mother put Peter to bed and made some camomile tea; "
    "and Peter's mother gave a dose of some camomile tea to Peter!"
)
PAPER_3_2 = "Peter's mother gave a dose of camomile tea to Peter."
# Words that must never label an entity node (first person is the exception, keyed "i").
BARE_FUNCTION_WORDS = {"the", "a", "an", "it", "he", "she", "they", "him", "her", "them", "his", "its",
                       "their", "this", "that", "you", "there", "what", "who"}


@pytest.fixture(scope="module")
def parser():
    return SrlParser()


def frames_by_predicate(parser, text: str) -> dict[str, Frame]:
    frames = parser.frames_for_text(text)
    by_predicate = {f.predicate: f for f in frames}
    assert len(by_predicate) == len(frames), [f.predicate for f in frames]
    return by_predicate


def labels(frame: Frame, role: str) -> list[str]:
    return [a.label for a in frame.arguments if a.role == role]


def the_argument(frame: Frame, role: str) -> Argument:
    found = [a for a in frame.arguments if a.role == role]
    assert len(found) == 1, (role, frame)
    return found[0]


def sentence_graph(parser, text: str, sid: str = "text_0-0"):
    return parser.parse([Sentence(sid, 0, 0, 0, text, text, text)])[0]


def edges_by_label(sg):
    label = {n.key: n.label for n in sg.nodes}
    return {(label[e.source], e.edge_role, label[e.target]) for e in sg.edges}


def test_a_title_with_its_full_stop_is_part_of_the_name(parser):
    sg = sentence_graph(parser, "M. Richard looked at Mme. Giry, and MM. Debienne and Poligny laughed.")
    assert {n.label for n in sg.nodes if n.node_type == ENTITY} == {"M. Richard", "Mme. Giry", "MM. Debienne",
                                                                      "Poligny"}
    assert ("look", "ARG1", "Mme. Giry") in edges_by_label(sg)


# -- the paper's examples ---------------------------------------------------------------


def test_paper_table_3_frames(parser):
    frames = parser.frames_for_text(PAPER_TABLE_3)
    assert [f.predicate for f in frames] == ["put", "make", "give"]
    put, make, give = frames
    # Peter's mother is keyed by its head noun and linked to Peter by a poss edge.
    for frame in frames:
        arg0 = the_argument(frame, "ARG0")
        assert (arg0.label, arg0.key, arg0.text) == ("mother", "mother", "Peter's mother")
    assert labels(put, "ARG1") == ["Peter"] and labels(put, "ARG2") == ["bed"]
    assert labels(make, "ARG1") == ["tea"]
    tea = the_argument(give, "ARG1")
    assert (tea.label, tea.text) == ("tea", "a dose of some camomile tea")
    recipient = the_argument(give, "ARG2")
    assert (recipient.label, recipient.key, recipient.text) == ("Peter", "peter", "to Peter")
    assert PAPER_TABLE_3[recipient.start : recipient.end] == "to Peter"
    assert PAPER_TABLE_3[give.start : give.end] == "gave"


def test_paper_table_3_graph_has_one_peter_one_tea_and_next_edges(parser):
    sg = sentence_graph(parser, PAPER_TABLE_3, "text_1-9")
    entities = [n for n in sg.nodes if n.node_type == ENTITY]
    assert [n.label for n in entities].count("Peter") == 1
    assert [n.label for n in entities].count("tea") == 1
    tea = next(n for n in entities if n.label == "tea")
    assert {"some camomile tea", "a dose of some camomile tea", "tea"} <= set(tea.texts)
    peter = next(n for n in entities if n.label == "Peter")
    assert peter.merge_key == "peter" and "to Peter" not in peter.texts  # preposition stripped
    edges = edges_by_label(sg)
    assert {("put", "ARG0", "mother"), ("make", "ARG0", "mother"), ("give", "ARG0", "mother")} <= edges
    assert {("put", "ARG1", "Peter"), ("give", "ARG2", "Peter"), ("give", "ARG1", "tea")} <= edges
    assert ("mother", "poss", "Peter") in edges
    assert [f["predicate"] for f in sg.analysis["frames"]] == ["put", "make", "give"]

    graph = build_graph([sg])
    assert graph.invariant_problems(["text_1-9"]) == []
    label = {node_id: node.label for node_id, node in graph.nodes.items()}
    nexts = [(label[e.source], label[e.target]) for e in graph.edges if e.edge_role == "next"]
    assert nexts == [("put", "make"), ("make", "give")]


def test_paper_section_3_2_example(parser):
    give = frames_by_predicate(parser, PAPER_3_2)["give"]
    assert the_argument(give, "ARG0").text == "Peter's mother"
    assert (the_argument(give, "ARG1").text, the_argument(give, "ARG1").label) == ("a dose of camomile tea", "tea")
    assert the_argument(give, "ARG2").text == "to Peter"


# -- predicates ----------------------------------------------------------------------------


def test_auxiliaries_are_not_predicates_and_negation_stays_in_the_label(parser):
    frame = parser.frames_for_text("He had not forgotten.")
    assert [(f.predicate, f.text, f.negated) for f in frame] == [("not forget", "had not forgotten", True)]
    assert all("NEG" not in a.role for a in frame[0].arguments)
    assert "never stop" in frames_by_predicate(parser, "Peter never stopped running till he got home.")
    said = frames_by_predicate(parser, '"Don\'t go into Mr. McGregor\'s garden," said Mrs. Rabbit.')
    assert {"not go", "say"} <= set(said)


def test_particles_and_copulas(parser):
    hung = frames_by_predicate(parser, "Mr. McGregor hung up the little jacket and the shoes.")["hang up"]
    assert labels(hung, "ARG1") == ["jacket", "shoe"]
    assert "give up" in frames_by_predicate(parser, "Peter gave up.")
    assert "go back" in frames_by_predicate(parser, "Peter went back home.")
    be = frames_by_predicate(parser, "Peter was very naughty.")["be"]
    assert labels(be, "ARG1") == ["Peter"] and labels(be, "ARG2") == ["naughty"]
    have = frames_by_predicate(parser, "Flopsy had bread and milk for supper.")["have"]
    assert labels(have, "ARG0") == ["Flopsy"] and labels(have, "ARG1")[:2] == ["bread", "milk"]


# -- arguments -----------------------------------------------------------------------------


def test_passive_subject_and_by_agent(parser):
    put = frames_by_predicate(parser, "Peter was put in a pie by Mrs. McGregor.")["put"]
    assert labels(put, "ARG1") == ["Peter"]
    agent = the_argument(put, "ARG0")
    assert (agent.label, agent.key, agent.text) == ("Mrs. McGregor", "mrs mcgregor", "by Mrs. McGregor")
    assert labels(put, "ARG2") == ["pie"]


def test_participle_tagged_as_adjective_with_a_by_agent_is_a_passive_verb(parser):
    # spaCy tags "surprised" JJ (acomp of "was"); the "by" agent makes it a passive verb, and "was" an auxiliary
    frames = frames_by_predicate(
        parser, "Our ship was surprised in the grey of the morning by a Turkish rover of Sallee."
    )
    assert "be" not in frames
    surprise = frames["surprise"]
    assert labels(surprise, "ARG1") == ["ship"] and labels(surprise, "ARG0") == ["rover"]
    assert surprise.text == "was surprised"
    negated = frames_by_predicate(parser, "He was not frightened by the storm.")["not frighten"]
    assert negated.negated and labels(negated, "ARG0") == ["storm"]
    # without an agent the adjective stays the copula's attribute
    assert set(frames_by_predicate(parser, "I was very much surprised at the sight.")) == {"be"}


def test_titles_keep_mr_and_mrs_mcgregor_apart(parser):
    see = frames_by_predicate(parser, "Peter saw Mr. McGregor and Mrs. McGregor in the garden.")["see"]
    assert [a.key for a in see.arguments if a.role == "ARG1"] == ["mr mcgregor", "mrs mcgregor"]
    assert labels(see, "ARGM-LOC") == ["garden"]


def test_conjoined_subjects_and_objects(parser):
    go = frames_by_predicate(parser, "Flopsy, Mopsy and Cotton-tail went down the lane.")["go"]
    assert labels(go, "ARG0") == ["Flopsy", "Mopsy", "Cotton-tail"]
    assert labels(go, "ARGM-LOC") == ["lane"]
    take = frames_by_predicate(parser, "Old Mrs. Rabbit took a basket and her umbrella.")["take"]
    assert labels(take, "ARG1") == ["basket", "umbrella"]
    assert the_argument(take, "ARG0").key == "mrs rabbit"


def test_conjoined_verbs_share_the_subject_but_not_the_object(parser):
    frames = frames_by_predicate(parser, "Mr. McGregor jumped up and ran after Peter.")
    assert labels(frames["jump up"], "ARG0") == ["Mr. McGregor"]
    assert labels(frames["run"], "ARG0") == ["Mr. McGregor"]
    frames = frames_by_predicate(parser, "Old Mrs. Rabbit took a basket and went through the wood.")
    assert labels(frames["go"], "ARG0") == ["Mrs. Rabbit"]
    assert labels(frames["go"], "ARG1") == [] and labels(frames["go"], "ARGM-LOC") == ["wood"]


def test_open_complements_take_their_controller(parser):
    frames = frames_by_predicate(parser, "Peter went to look for some parsley.")
    assert labels(frames["look"], "ARG0") == ["Peter"]
    assert labels(frames["look"], "ARG1") == ["parsley"]
    frames = frames_by_predicate(parser, "Mr. McGregor intended to pop the sieve upon the top of Peter.")
    assert labels(frames["pop"], "ARG0") == ["Mr. McGregor"] and labels(frames["pop"], "ARG1") == ["sieve"]
    assert [a.label for a in frames["intend"].arguments if a.role == "ARG1"] == ["pop"]  # the clause


def test_relative_pronouns_stand_for_their_noun(parser):
    frames = frames_by_predicate(parser, "Mr. McGregor came up with a sieve, which he intended to pop upon Peter.")
    pop = frames["pop"]
    assert labels(pop, "ARG1") == ["sieve"] and the_argument(pop, "ARG1").text == "a sieve"
    frames = frames_by_predicate(
        parser, "Flopsy, Mopsy and Cotton-tail, who were good little bunnies, went down the lane."
    )
    assert labels(frames["be"], "ARG1") == ["Flopsy", "Mopsy", "Cotton-tail"]
    assert labels(frames["be"], "ARG2") == ["bunny"]
    assert labels(frames["go"], "ARG0") == ["Flopsy", "Mopsy", "Cotton-tail"]


def test_adverbial_participle_takes_the_main_subject(parser):
    frames = frames_by_predicate(parser, "After losing his shoes, Peter ran on quite fast.")
    assert labels(frames["lose"], "ARG0") == ["Peter"] and labels(frames["lose"], "ARG1") == ["shoe"]
    assert [a.label for a in frames["run on"].arguments if a.role == "ARGM-TMP"] == ["lose"]


def test_list_head_cut_off_by_the_parser_is_restored(parser):
    # spaCy's small model attaches "Flopsy" elsewhere and keeps only "Mopsy and Cottontail" as subject.
    have = frames_by_predicate(parser, "Flopsy, Mopsy and Cottontail had bread and milk for supper.")["have"]
    assert labels(have, "ARG0") == ["Flopsy", "Mopsy", "Cottontail"]
    meet = frames_by_predicate(parser, "In London, Peter and Mary met.")["meet"]
    assert labels(meet, "ARG0") == ["Peter", "Mary"]


def test_dative_and_partitive_objects(parser):
    give = frames_by_predicate(parser, "Mrs. Rabbit gave Peter a dose of medicine.")["give"]
    assert labels(give, "ARG2") == ["Peter"] and labels(give, "ARG1") == ["medicine"]
    ask = frames_by_predicate(parser, "Peter asked the mouse the way to the gate.")["ask"]
    assert labels(ask, "ARG2") == ["mouse"] and labels(ask, "ARG1") == ["way"]
    lose = frames_by_predicate(parser, "Peter lost a pair of shoes and one of his buttons.")["lose"]
    assert labels(lose, "ARG1") == ["shoe", "button"]
    assert [a.text for a in lose.arguments if a.role == "ARG1"] == ["a pair of shoes", "one of his buttons"]


def test_temporal_and_locative_arguments(parser):
    text = "They lived with their mother in a sand-bank, underneath the root of a very big fir tree."
    live = frames_by_predicate(parser, text)["live"]
    assert "sand-bank" in labels(live, "ARGM-LOC")
    edges = edges_by_label(sentence_graph(parser, text))
    assert ("live", "ARGM-LOC", "sand-bank") in edges
    assert ("sand-bank", "underneath", "root") in edges and ("root", "of", "fir tree") in edges

    say = frames_by_predicate(parser, '"Now, my dears," said old Mrs. Rabbit one morning.')["say"]
    assert labels(say, "ARGM-TMP") == ["morning"] and labels(say, "ARG0") == ["Mrs. Rabbit"]
    go = frames_by_predicate(parser, "After dinner Peter went to bed.")["go"]
    assert labels(go, "ARGM-TMP") == ["dinner"] and labels(go, "ARG0") == ["Peter"]
    sg = sentence_graph(parser, "When Peter got home, his mother put him to bed.")
    assert ("put", "ARGM-TMP", "get") in edges_by_label(sg)  # the clause links the two actions
    assert ("get", "ARGM-LOC", "home") in edges_by_label(sg)


def test_entity_labels_keep_compounds_and_first_person(parser):
    rush = frames_by_predicate(parser, "Peter rushed into the tool-shed.")["rush"]
    assert labels(rush, "ARGM-LOC") == ["tool-shed"]
    come = frames_by_predicate(parser, "Peter came round the end of a cucumber frame.")["come round"]
    assert "cucumber frame" in [a.label for a in come.arguments]
    me = frames_by_predicate(parser, "Mr. McGregor saw me.")["see"]
    assert [(a.label, a.key) for a in me.arguments if a.role == "ARG1"] == [("I", "i")]
    see = frames_by_predicate(parser, "My father and I saw Peter.")["see"]
    assert [a.key for a in see.arguments if a.role == "ARG0"] == ["father", "i"]
    assert ("father", "poss", "I") in edges_by_label(sentence_graph(parser, "My father and I saw Peter."))


def test_a_hyphenated_word_stays_whole_in_an_entity_label(parser):
    # spaCy splits "low-resource" into "low" (an adjective), "-" and "resource" (a compound); the label once kept
    # "-resource language" for both, so the two kinds of language were one node.
    study = frames_by_predicate(parser, "We study low-resource languages and high-resource languages.")["study"]
    assert [(a.label, a.key) for a in study.arguments if a.role == "ARG1"] == [
        ("low-resource language", "low-resource language"), ("high-resource language", "high-resource language")]
    use = frames_by_predicate(parser, "The so-called reader uses a two-stage pipeline.")["use"]
    assert labels(use, "ARG1") == ["two-stage pipeline"]
    labels_ = {n.label for n in sentence_graph(parser, "FLARE regenerates sentences with low-confidence tokens.").nodes}
    assert "low-confidence token" in labels_ and not any(label.startswith("-") for label in labels_)


def test_an_interjection_tagged_as_a_name_part_is_not_part_of_the_mention(parser):
    # The narrator pass writes "nay we call ourselves" as "nay Robinson Crusoe and companions call themselves";
    # the tagger takes "nay" for a proper noun compounded with "Robinson".
    frames = parser.frames_for_text("The sailors are now called Crusoes -- nay Robinson Crusoe and his companions "
                                    "call themselves so.")
    subject = [a for f in frames for a in f.arguments if a.role == "ARG0"][0]
    assert (subject.text, subject.label, subject.key) == ("Robinson Crusoe", "Robinson Crusoe", "robinson crusoe")


def test_unresolved_pronouns_stay_in_frames_but_make_no_node(parser):
    sg = sentence_graph(parser, "He found a door in a wall, but it was locked.")
    frame_args = {a["label"] for f in sg.analysis["frames"] for a in f["arguments"]}
    assert {"he", "it"} <= frame_args
    assert {n.label for n in sg.nodes if n.node_type == ENTITY} == {"door", "wall"}
    assert ("door", "in", "wall") in edges_by_label(sg)


# -- questions -------------------------------------------------------------------------------


def test_question_what_happened_to_the_father(parser):
    qg = parser.parse_question("What happened to the young rabbits' father?")
    assert qg.sentence_id == QUERY_ID
    happen = next(n for n in qg.nodes if n.node_type == ACTION)
    assert happen.label == "happen"
    unknown = [n for n in qg.nodes if n.is_unknown]
    assert [(n.label, n.merge_key) for n in unknown] == [("what", None)]
    edges = edges_by_label(qg)
    assert ("happen", "ARG1", "what") in edges
    assert ("happen", "ARG2", "father") in edges and ("father", "poss", "rabbit") in edges


def test_question_where_did_peter_lose_his_shoes(parser):
    qg = parser.parse_question("Where did Peter lose his shoes?")
    edges = edges_by_label(qg)
    assert {("lose", "ARG0", "Peter"), ("lose", "ARG1", "shoe"), ("lose", "ARGM-LOC", "where")} <= edges
    assert [n.label for n in qg.nodes if n.is_unknown] == ["where"]


def test_a_pro_verb_asked_about_is_the_unknown_action(parser):
    qg = parser.parse_question("What does FLARE do when a sentence contains low-confidence tokens?")
    assert {(n.label, n.node_type) for n in qg.nodes if n.is_unknown} == {("do", ACTION), ("what", ENTITY)}
    assert {"flare", "contain"} <= {n.label.lower() for n in qg.nodes if not n.is_unknown}
    # "do" asked with an object is a real action; so is any other verb asked about
    assert not any(n.is_unknown for n in parser.parse_question("Did Peter do his homework?").nodes)
    assert [n.label for n in parser.parse_question("What did Peter eat?").nodes if n.is_unknown] == ["what"]
    # indexed sentences never have unknown nodes
    assert not any(n.is_unknown for n in sentence_graph(parser, "What does a rabbit do? It runs.").nodes)


def test_question_with_fronted_object(parser):
    edges = edges_by_label(parser.parse_question("What did Peter's mother give him when he got home?"))
    assert {("give", "ARG1", "what"), ("give", "ARG0", "mother"), ("give", "ARGM-TMP", "get")} <= edges


def test_questions_without_predicate(parser):
    assert parser.parse_question("Why?").nodes == ()
    assert parser.parse_question("   ").nodes == ()
    qg = parser.parse_question("Peter's mother?")
    assert all(n.node_type == ENTITY for n in qg.nodes)
    assert ("mother", "poss", "Peter") in edges_by_label(qg)


def test_document_sentences_drop_wh_words(parser):
    sg = sentence_graph(parser, "She wondered what he had done with his clothes.")
    assert not any(n.is_unknown for n in sg.nodes)
    assert ("do", "ARG2", "clothes") in edges_by_label(sg)
    assert ("wonder", "ARG1", "do") in edges_by_label(sg)


# -- the whole book ----------------------------------------------------------------------------


def test_whole_book_builds_a_sound_graph(parser):
    from kgcore.index.load import load_document
    from kgcore.index.sentences import split_sentences

    sentences = split_sentences(load_document(PETER), nlp=parser.nlp)
    calls = []
    graphs = parser.parse(sentences, progress=lambda done, total: calls.append((done, total)))
    assert len(graphs) == len(sentences) > 50
    assert calls[-1] == (len(sentences), len(sentences))
    assert [g.sentence_id for g in graphs] == [s.id for s in sentences]

    graph = build_graph(graphs)
    assert graph.invariant_problems([s.id for s in sentences]) == []
    docs = parser.nlp.pipe(s.resolved for s in sentences)
    for sentence, sg, doc in zip(sentences, graphs, docs):
        if any(t.pos_ == "VERB" for t in doc):
            assert any(n.node_type == ACTION for n in sg.nodes), sentence.resolved
    for node in graph.nodes.values():
        assert node.label.strip() and node.texts and node.grounded_texts
        if node.node_type == ENTITY:
            assert node.label.lower() not in BARE_FUNCTION_WORDS, node
    assert {"peter", "mr mcgregor", "mrs rabbit", "garden", "tea"} <= set(graph.nodes)
    assert sum(n.node_type == ACTION for n in graph.nodes.values()) > 100
    assert len(graph.edges) > len(graph.nodes)


def test_parsing_in_spawned_processes_gives_the_same_frames_mentions_and_sentences(parser):
    """pipe_mapped with two processes reads the same data, in the same order, as in this process."""
    from kgcore.core.nlp import load_spacy
    from kgcore.index.bounds import PARALLEL_MIN_TEXTS, parse_processes
    from kgcore.index.coref.mentions import parse_mentions
    from kgcore.index.parallel import pipe_mapped, shared_pools
    from kgcore.index.parse.srl.parser import _frames_and_text
    from kgcore.index.sentences import _sentence_spans

    text = (ASSETS / "robinson_crusoe.txt").read_text(encoding="utf-8")
    lines = [" ".join(p.split()[:25]) for p in text.split("\n\n") if len(p.split()) > 5][200:200 + PARALLEL_MIN_TEXTS]
    assert parse_processes(2, len(lines)) == 2
    nlp = load_spacy()
    with shared_pools():  # one pool of two workers serves the three readers
        for read, disable in ((_frames_and_text, ["ner"]), (parse_mentions, []), (_sentence_spans, ["ner"])):
            alone = list(pipe_mapped(nlp, lines, disable, read, processes=1))
            spawned = list(pipe_mapped(nlp, lines, disable, read, processes=2))
            assert len(spawned) == len(lines) and spawned == alone, read.__name__


def test_values_keep_their_number_and_unit(parser):
    """A value is a node named by its full text: two sizes in MB are two nodes, never one ``mb`` node; a
    percentage and a date keep their numbers; counted things ("3 GPUs") stay the thing counted."""
    graphs = [sentence_graph(parser, text, f"text_0-{i}") for i, text in enumerate((
        "GFS chunks are each approximately 100-200 MB in size.",
        "The log grew from 100 MB to 741 MB.",
        "Recall improves by 20% and latency drops to 5 ms.",
        "The system was deployed in March 2004 on 3 GPUs.",
    ))]
    entities = {n.label for sg in graphs for n in sg.nodes if n.node_type == ENTITY}
    assert {"100-200 MB", "100 MB", "741 MB", "20%", "5 ms", "March 2004"} <= entities, entities
    assert not {"mb", "MB", "%", "ms", "March"} & entities
    assert "GPUs" not in entities and {"gpu"} & {n.label.lower() for sg in graphs for n in sg.nodes}
    graph = build_graph(graphs, "gfs")
    keys = {n.label: n.node_id for n in graph.nodes.values()}
    assert len({keys["100-200 MB"], keys["100 MB"], keys["741 MB"]}) == 3


def test_a_noun_fronted_before_an_inverted_do_is_the_object(parser):
    """The small parser calls both "storage" and "block headers" subjects of "need" in "How much storage do block
    headers need per year?"; the one before "do" is what they need."""
    need = frames_by_predicate(parser, "How much storage do block headers need per year?")["need"]
    assert labels(need, "ARG0") == ["block header"] and labels(need, "ARG1") == ["storage"]
