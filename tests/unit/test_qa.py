"""QA pairs without models: frame templates, the quality filter, LLM generation against a real local
HTTP endpoint, fuzzy entity matching, answer-type agreement, rerankers and short-answer grouping."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_answer import Endpoint, completion, settings_for

from kgcore.core.errors import GenerationError, ModelUnavailableError
from kgcore.core.qa_pair import QAPair
from kgcore.core.settings import Settings
from kgcore.core.types import Argument, Frame, Sentence
from kgcore.index.qa import FrameQAGenerator, LLMQAGenerator, generate_pairs
from kgcore.index.qa.base import pair_problem
from kgcore.query.answer import ANSWERERS
from kgcore.query.answer.short import group_answers
from kgcore.query.methods import METHODS
from kgcore.query.qakg.question import expected_type, fuzzy_entities, names_of
from kgcore.query.rerank import Candidate, CrossEncoderReranker, OfflineReranker, get_reranker, type_agreement


def sentence(sid: str, text: str) -> Sentence:
    return Sentence(f"d/{sid}", 0, 0, 0, text, text, text, "d")


def arg(role: str, text: str, whole: str, label: str = "", key: str | None = None) -> Argument:
    start = whole.index(text)
    label = label or text.split()[-1]
    return Argument(role, text, label, label.lower() if key is None else key, start, start + len(text))


def frame(whole: str, predicate: str, verb: str, *args: Argument, negated: bool = False) -> dict:
    start = whole.index(verb)
    return Frame(predicate, verb, tuple(args), negated, start, start + len(verb)).to_dict()


LOST = "Peter lost one shoe among the cabbages."
GREW = "Mr. McGregor grew lettuces and radishes in the garden."
PUT = "Your father was put in a pie by Mrs. McGregor."
PRONOUN = "He ate it in the evening."


def analyses() -> dict[str, dict]:
    return {
        "d/text_0-0": {"sentence": LOST, "frames": [frame(
            LOST, "lose", "lost", arg("ARG0", "Peter", LOST), arg("ARG1", "one shoe", LOST),
            arg("ARGM-LOC", "among the cabbages", LOST, "cabbage"))]},
        "d/text_0-1": {"sentence": GREW, "frames": [frame(
            GREW, "grow", "grew", arg("ARG0", "Mr. McGregor", GREW, "Mr. McGregor", "mr mcgregor"),
            arg("ARG1", "lettuces", GREW, "lettuce"), arg("ARG1", "radishes", GREW, "radish"),
            arg("ARGM-LOC", "in the garden", GREW, "garden"))]},
        "d/text_0-2": {"sentence": PUT, "frames": [frame(
            PUT, "put", "was put", arg("ARG1", "Your father", PUT, "father"), arg("ARG2", "in a pie", PUT, "pie"),
            arg("ARG0", "by Mrs. McGregor", PUT, "Mrs. McGregor", "mrs mcgregor"))]},
        "d/text_0-3": {"sentence": PRONOUN, "frames": [frame(
            PRONOUN, "eat", "ate", arg("ARG0", "He", PRONOUN, "he", ""), arg("ARG1", "it", PRONOUN, "it", ""),
            arg("ARGM-TMP", "in the evening", PRONOUN, "evening"))]},
    }


SENTENCES = [sentence(f"text_0-{i}", t) for i, t in enumerate([LOST, GREW, PUT, PRONOUN])]


def qa_of(pairs: list[QAPair]) -> set[tuple[str, str]]:
    return {(p.question, p.answer) for p in pairs}


# -- generation from frames ----------------------------------------------------------
def generated(*framed: tuple[str, list[dict]]) -> set[tuple[str, str]]:
    """The (question, answer) pairs generated from sentences ``text_0-0``, ``text_0-1`` ... with their frames."""
    analyses = {f"d/text_0-{i}": {"sentence": text, "frames": frames} for i, (text, frames) in enumerate(framed)}
    return qa_of(FrameQAGenerator().generate([sentence(f"text_0-{i}", t) for i, (t, _) in enumerate(framed)],
                                             analyses))


def test_frames_give_wh_questions_whose_answers_are_argument_spans():
    pairs = FrameQAGenerator().generate(SENTENCES, analyses())
    found = qa_of(pairs)
    assert ("Who lost one shoe among the cabbages?", "Peter") in found
    assert ("What did Peter lose among the cabbages?", "one shoe") in found
    assert ("Where did Peter lose one shoe?", "among the cabbages") in found
    assert ("What did Peter do among the cabbages?", "lost one shoe") in found
    # coordinated arguments are one answer; a title makes a person ("Who")
    assert ("What did Mr. McGregor grow in the garden?", "lettuces and radishes") in found
    assert ("Who grew lettuces and radishes in the garden?", "Mr. McGregor") in found
    # the passive's agent with its preposition stranded; the auxiliary from the verb as written
    assert ("Whom was your father put in a pie by?", "Mrs. McGregor") in found
    assert ("Where was your father put by Mrs. McGregor?", "in a pie") in found
    # an unresolved pronoun subject gives nothing
    assert not [p for p in pairs if p.sentence_id == "d/text_0-3"]
    by_answer = {p.answer: p for p in pairs}
    assert by_answer["Peter"].answer_type == "person" and by_answer["among the cabbages"].answer_type == "place"
    assert by_answer["one shoe"].entities == [("peter", "Peter"), ("cabbage", "cabbage")]
    assert by_answer["one shoe"].answer_entities == [("shoe", "shoe")]
    assert by_answer["one shoe"].statement == "Peter lost one shoe among the cabbages."
    assert all(p.id.startswith(p.sentence_id + "#q") for p in pairs)
    assert len({p.id for p in pairs}) == len(pairs)


def test_a_place_phrase_that_names_a_time_is_asked_with_when():
    """The parser takes "on the first of September" for a place ("on" is locative): its pair asks "When" and
    answers a time, so a "when" question's type agreement finds it."""
    went = "Crusoe went on board a ship at Hull on the first of September."
    analysis = {"d/text_0-0": {"sentence": went, "frames": [frame(
        went, "go", "went", arg("ARG0", "Crusoe", went, "Crusoe", "crusoe"), arg("ARGM-LOC", "at Hull", went, "Hull"),
        arg("ARGM-LOC", "on the first of September", went, "first"))]}}
    pairs = {p.answer: p for p in FrameQAGenerator().generate([sentence("text_0-0", went)], analysis)}
    assert pairs["on the first of September"].question.startswith("When did Crusoe go")
    assert pairs["on the first of September"].answer_type == "time"
    assert pairs["at Hull"].question.startswith("Where did Crusoe go") and pairs["at Hull"].answer_type == "place"


def test_non_retrievable_sentences_give_no_pairs():
    heading = Sentence("d/text_0-0", 0, 0, 0, LOST, LOST, LOST, "d", role="heading")
    assert FrameQAGenerator().generate([heading], analyses()) == []


@pytest.mark.parametrize("question, answer, verb, problem", [
    ("Who lost one shoe?", "Peter", "lost", ""),
    ("Where did Peter go?", "there", "go", "answer is vague"),
    ("What must the ghost have?", "something", "have", "answer is vague"),
    ("Who must have been interested?", "SOMEBODY", "interested", "answer is vague"),
    ("What did Raoul hear after that?", "nothing", "hear", ""),
    ("Who ate it?", "Peter", "ate", "question has no content word"),
    ("Who gave Peter up?", "Peter", "gave", "answer is in the question"),
    ("What did Peter see?", "him", "see", "answer has no content word"),
    ("What did Peter see?", " ".join(["word"] * 16), "see", "answer too long"),
])
def test_quality_filter(question, answer, verb, problem):
    assert pair_problem(question, answer, verb) == problem


# -- LLM generation against a local endpoint ------------------------------------------
def test_llm_pairs_are_validated_against_the_chunk():
    reply = json.dumps([
        {"question": "Where did Peter lose one shoe?", "answer": "among the cabbages", "sentence_ids": ["d/text_0-0"]},
        {"question": "Who invented the pie?", "answer": "Mrs. McGregor", "sentence_ids": ["d/text_9-9"]},
        {"question": "What did Mr. McGregor sell?", "answer": "potatoes", "sentence_ids": ["d/text_0-1"]},
        {"question": "Who grew radishes", "answer": "Mr. McGregor", "sentence_ids": ["[d/text_0-1]"]},
    ])
    with Endpoint([(200, completion(f"Here you are:\n```json\n{reply}\n```"), 0)]) as server:
        generator = LLMQAGenerator(settings_for(server.url))
        pairs = generator.generate(SENTENCES, {})
    [request] = server.requests
    prompt = request["json"]["messages"][0]["content"]
    assert "[d/text_0-0] Peter lost one shoe among the cabbages." in prompt and "JSON list" in prompt
    # an invented id and an answer not in its sentence are dropped; ids in brackets are read
    assert qa_of(pairs) == {("Where did Peter lose one shoe?", "among the cabbages"),
                            ("Who grew radishes?", "Mr. McGregor")}
    assert generator.dropped == 2
    assert {(p.source, p.answer_type) for p in pairs} == {("llm", "place"), ("llm", "person")}
    assert all(p.id.endswith(("#llm0", "#llm1")) for p in pairs)


def test_llm_pairs_join_the_frame_pairs_without_duplicates():
    reply = json.dumps([{"question": "Where did Peter lose one shoe?", "answer": "among the cabbages",
                         "sentence_ids": ["d/text_0-0"]}])
    with Endpoint([(200, completion(reply), 0)]) as server:
        pairs = generate_pairs(SENTENCES, analyses(), [FrameQAGenerator(), LLMQAGenerator(settings_for(server.url))])
    assert sum(p.answer == "among the cabbages" for p in pairs) == 1


def test_llm_generation_failure_names_the_task_and_hides_the_key():
    with Endpoint([(401, {"error": {"message": "bad key"}}, 0)]) as server:
        with pytest.raises(GenerationError, match="QA pair generation failed at .*401") as info:
            LLMQAGenerator(settings_for(server.url)).generate(SENTENCES, {})
    assert "sk-test" not in str(info.value)


def test_llm_generation_needs_an_endpoint():
    with pytest.raises(ModelUnavailableError, match="KGCORE_OPENAI_BASE_URL"):
        LLMQAGenerator(Settings(qa_llm=True))


# -- question side -------------------------------------------------------------------
NAMES = names_of({"mr mcgregor": "Mr. McGregor", "robinson crusoe": "Robinson Crusoe", "tom": "Tom",
                  "garden": "garden"})


@pytest.mark.parametrize("mention, key", [
    ("Mc Gregor", "mr mcgregor"), ("McGreggor", "mr mcgregor"), ("Crusoe", "robinson crusoe"),
    ("Robinson Cruso", "robinson crusoe"), ("Mr. McGregor", "mr mcgregor"),
])
def test_fuzzy_match_rescues_misspellings_and_variants(mention, key):
    assert key in fuzzy_entities(NAMES, [mention])


def test_fuzzy_match_is_bounded():
    assert fuzzy_entities(NAMES, ["Tim"]) == {}          # short names must match exactly
    assert fuzzy_entities(NAMES, ["Garden"]) == {}       # common nouns are not names
    assert fuzzy_entities(NAMES, ["Crusader"]) == {}     # more than the allowed edits
    match = fuzzy_entities(NAMES, ["McGreggor"])["mr mcgregor"]
    assert (match["distance"], match["allowed"], match["label"]) == (1, 3, "Mr. McGregor")


@pytest.mark.parametrize("question, expected", [
    ("Who ran after Peter?", "person"), ("Where did Peter hide?", "place"), ("When did he leave?", "time"),
    ("Why did he run?", "reason"), ("How many buns did she buy?", "number"), ("How did he escape?", "manner"),
    ("What did she buy?", "object"), ("What was Mr. McGregor doing?", "action"), ("What happened next?", "action"),
])
def test_expected_answer_type(question, expected):
    assert expected_type(question.lower().rstrip("?").split()) == expected


def test_type_agreement_and_offline_reranking():
    assert type_agreement("person", "person") == 1.0 and type_agreement("person", "place") == 0.0
    assert type_agreement("object", "person") == 1.0 and type_agreement("action", "place") == 0.5
    place = QAPair("p", "Where did Peter lose one shoe?", "among the cabbages", "s", "where", "place")
    person = QAPair("q", "Who lost one shoe?", "Peter", "s", "who", "person")
    same = {"similarity": 0.8, "lexical": 0.5, "repeat": 0.0}
    ranked = OfflineReranker().rerank("Who lost a shoe?", [Candidate(0, place, {**same, "type": 0.0}),
                                                            Candidate(1, person, {**same, "type": 1.0})])
    assert [c.pair.answer for c in ranked] == ["Peter", "among the cabbages"]
    assert ranked[0].score > ranked[1].score


def test_cross_encoder_reranker_says_what_to_download(tmp_path):
    assert isinstance(get_reranker(Settings()), OfflineReranker)
    with pytest.raises(ModelUnavailableError, match="KGCORE_RERANKER_MODEL.*huggingface-cli download"):
        CrossEncoderReranker(str(tmp_path / "missing"))
    with pytest.raises(ModelUnavailableError, match="not a model folder"):
        get_reranker(Settings(reranker_model=str(tmp_path)))


def test_group_answers_merges_equal_answers_and_keeps_five():
    pairs = [QAPair(f"p{i}", f"Q{i}?", answer, f"s{i}", "what", "thing", statement=f"S{i}.")
             for i, answer in enumerate(["a pie", "A pie", "bread", "buns", "tea", "milk", "jam"])]
    ranked = [Candidate(i, p, score=1.0 - i / 10) for i, p in enumerate(pairs)]
    answers = group_answers(ranked)
    assert [a["answer"] for a in answers] == ["a pie", "bread", "buns", "tea", "milk"]
    assert answers[0]["sentence_ids"] == ["s0", "s1"]
    assert group_answers(ranked, statements=True)[0]["answer"] == "S0."


def test_a_pair_sharing_the_answer_but_not_answering_the_question_is_not_cited():
    asked = QAPair("p0", "Who rescued the fishermen?", "Marta Vell", "s0", "who", "person")
    same = QAPair("p1", "Who saved two fishermen?", "Marta Vell", "s1", "who", "person")
    other = QAPair("p2", "Who kept the lighthouse?", "Marta Vell", "s2", "who", "person")
    ranked = [Candidate(0, asked, score=1.75), Candidate(1, same, score=1.4), Candidate(2, other, score=0.65)]
    assert group_answers(ranked)[0]["sentence_ids"] == ["s0", "s1"]  # 0.65: confidence 0.04, below MIN_CONFIDENCE


def test_settings_offer_qa_kg():
    assert "qa-kg" in METHODS and "qa-kg" in ANSWERERS
    s = Settings.from_env({"KGCORE_RERANKER_MODEL": "/models/rr", "KGCORE_QA_LLM": "1"})
    assert (s.reranker_model, s.qa_llm) == ("/models/rr", True)
    assert np.isclose(type_agreement(None, "thing"), 0.5)


def test_a_sentence_opening_word_is_lower_cased_inside_questions_and_a_fronted_adjunct_goes_last():
    storm = "During the storm Marta rescued two fishermen."
    council = "The council decided to repair the pier in the spring."
    found = qa_of(FrameQAGenerator().generate([sentence("text_0-0", storm), sentence("text_0-1", council)], {
        "d/text_0-0": {"sentence": storm, "frames": [frame(
            storm, "rescue", "rescued", arg("ARGM-TMP", "During the storm", storm, "storm"),
            arg("ARG0", "Marta", storm, "Marta", "marta"), arg("ARG1", "two fishermen", storm, "fisherman"))]},
        "d/text_0-1": {"sentence": council, "frames": [frame(
            council, "repair", "to repair", arg("ARG0", "The council", council, "council"),
            arg("ARG1", "the pier", council, "pier"), arg("ARGM-TMP", "in the spring", council, "spring"))]}}))
    assert ("Who rescued two fishermen during the storm?", "Marta") in found
    assert ("When did Marta rescue two fishermen?", "during the storm") in found
    assert ("When did the council repair the pier?", "in the spring") in found  # "The" only opened the sentence


def test_a_to_clause_is_asked_with_to_do_or_to_be_and_a_pro_adverb_leaves_its_own_question():
    """"waited to open the gate" asks "What did Mr. Harrison wait to do?"; "tend to be similar" asks "... tend to
    be?", and the frame of "to be" itself "What are the samples?" (not "What did the samples be?"); "there" leaves
    a "where" question ("Where were his faculties roused?", not "... roused there?")."""
    waited = "Mr. Harrison waited to open the gate."
    tend = "The samples will tend to be similar."
    roused = "His faculties were roused into admiration there."
    found = generated(
        (waited, [frame(waited, "wait", "waited", arg("ARG0", "Mr. Harrison", waited, "Mr. Harrison", "mr harrison"),
                        arg("ARG1", "to open the gate", waited, key=""))]),
        (tend, [frame(tend, "tend", "will tend", arg("ARG0", "The samples", tend, "sample"),
                      arg("ARG1", "to be similar", tend, key="")),
                frame(tend, "be", "to be", arg("ARG1", "The samples", tend, "sample"), arg("ARG2", "similar", tend))]),
        (roused, [frame(roused, "rouse", "were roused", arg("ARG1", "His faculties", roused, "faculty"),
                        arg("ARG2", "into admiration", roused, "admiration"),
                        arg("ARGM-LOC", "there", roused, key=""))]))
    assert ("What did Mr. Harrison wait to do?", "to open the gate") in found
    assert ("What will the samples tend to be?", "to be similar") in found
    assert ("What are the samples?", "similar") in found
    assert ("Where were his faculties roused?", "into admiration") in found


def test_a_who_or_what_subject_takes_a_singular_verb_unless_its_complement_is_plural():
    """"The Musgroves have a plan" asks "Who has a plan?"; "The twins were very good friends" keeps "were"; a past
    written as its lemma ("burst") is left alone."""
    have = "The Musgroves have a plan."
    friends = "The twins were very good friends."
    burst = "The plans burst on Lady Russell."
    found = generated(
        (have, [frame(have, "have", "have", arg("ARG0", "The Musgroves", have, "Musgroves", "musgroves"),
                      arg("ARG1", "a plan", have, "plan"))]),
        (friends, [frame(friends, "be", "were", arg("ARG1", "The twins", friends, "twins"),
                         arg("ARG2", "very good friends", friends, "friends"))]),
        (burst, [frame(burst, "burst", "burst", arg("ARG1", "The plans", burst, "plans"),
                       arg("ARG2", "on Lady Russell", burst, "Lady Russell", "lady russell"))]))
    assert ("Who has a plan?", "the Musgroves") in found
    assert any(q.endswith("were very good friends?") for q, _ in found)
    assert any(q.endswith("burst on Lady Russell?") for q, _ in found)


def test_a_negated_frame_asks_no_action_and_a_negated_to_be_no_what_is():
    """"Peter never ate lettuces in the morning" asks no "What did Peter do in the morning?" (he did nothing), and
    "Marianne never seemed to be happy" no "What is Marianne?"; a verb written as its lemma keeps its form ("rang",
    left unlemmatised by the tagger, is no present to give an -s)."""
    ate = "Peter never ate lettuces in the morning."
    seemed = "Marianne never seemed to be happy."
    rang = "The bells rang in the town."
    found = generated(
        (ate, [frame(ate, "never eat", "never ate", arg("ARG0", "Peter", ate, "Peter", "peter"),
                     arg("ARG1", "lettuces", ate, "lettuce"), arg("ARGM-TMP", "in the morning", ate, "morning"),
                     negated=True)]),
        (seemed, [frame(seemed, "be", "to be", arg("ARG1", "Marianne", seemed, "Marianne", "marianne"),
                        arg("ARG2", "happy", seemed))]),
        (rang, [frame(rang, "rang", "rang", arg("ARG0", "The bells", rang, "bell"),
                      arg("ARGM-LOC", "in the town", rang, "town"))]))
    assert ("What did Peter never eat in the morning?", "lettuces") in found
    bear = "Mr Elliot cannot bear the idea."
    found |= generated((bear, [frame(bear, "not bear", "cannot bear", arg("ARG0", "Mr Elliot", bear, "Elliot",
                                                                          "mr elliot"),
                                     arg("ARG1", "the idea", bear, "idea"), negated=True)]))
    assert ("What can Mr Elliot not bear?", "the idea") in found  # "not" after the subject, as English puts it
    assert not any(q.startswith("What did Peter do") for q, _ in found)
    assert not any(q.startswith("What is Marianne") for q, _ in found)
    assert ("What rang in the town?", "the bells") in found


def test_a_be_without_a_finite_form_is_asked_with_be_and_a_question_subject_is_not_asked():
    """"her having been at school": "Where was Anne?" (not "Where did Anne be?"); "Which of the two sisters was
    preferred was doubtful" asks no "What was which of the two sisters ...?"."""
    school = "Anne having been at school, the twins were at home."
    which = "Which of the two sisters was preferred was doubtful."
    found = generated(
        (school, [frame(school, "be", "having been", arg("ARG1", "Anne", school, "Anne", "anne"),
                        arg("ARGM-LOC", "at school", school, "school")),
                  frame(school, "be", "were", arg("ARG1", "the twins", school, "twins"),
                        arg("ARGM-LOC", "at home", school, "home"))]),
        (which, [frame(which, "be", "was", arg("ARG1", "Which of the two sisters was preferred", which, "sisters"),
                       arg("ARG2", "doubtful", which))]))
    assert ("Where was Anne?", "at school") in found and ("Where were the twins?", "at home") in found
    assert not any(q.startswith("Where did") for q, _ in found)
    assert not any("which" in q.lower().split()[1:] for q, _ in found), found


def test_a_participle_without_its_be_is_asked_in_the_passive():
    """"5,000 fake reviews generated by GPT-2": "Whom were 5,000 fake reviews generated by?" and "What was generated
    by GPT-2?" -- not "Whom did 5,000 fake reviews generate by?"."""
    text = "We collected 5,000 fake reviews generated by GPT-2."
    found = generated((text, [frame(text, "generate", "generated", arg("ARG1", "5,000 fake reviews", text, "reviews"),
                                    arg("ARG0", "by GPT-2", text, "GPT-2", "gpt-2"))]))
    assert ("Whom were 5,000 fake reviews generated by?", "GPT-2") in found, found
    assert ("What was generated by GPT-2?", "5,000 fake reviews") in found, found
    assert not any(" did " in q for q, _ in found), found


@pytest.mark.parametrize(("sentence", "predicate", "verb", "subject", "key", "second", "asked"), [
    # a capitalised plural after "the" is a family; a name ending in -s is one person
    ("The Pyncheons having been at Salem, all was well.", "be", "having been", "The Pyncheons", "pyncheon",
     ("ARGM-LOC", "at Salem"), "Where were the Pyncheons?"),
    ("Mr. Jones having been at home, all was well.", "be", "having been", "Mr. Jones", "jones",
     ("ARGM-LOC", "at home"), "Where was Mr. Jones?"),
    ("The Thames having been in flood, all was well.", "be", "having been", "The Thames", "thames",
     ("ARGM-LOC", "in flood"), "Where was the Thames?"),  # one river, though "the" and "-es"
    # a present "do" agrees with its subject
    ("It made Sir Walter think the Crofts were rich.", "think", "think", "Sir Walter", "walter",
     ("ARG1", "the Crofts were rich"), "What does Sir Walter think?"),
    ("It made the girls think the Crofts were rich.", "think", "think", "the girls", "girl",
     ("ARG1", "the Crofts were rich"), "What do the girls think?"),
])
def test_the_inverted_auxiliary_agrees_with_the_subject(sentence, predicate, verb, subject, key, second, asked):
    role, text = second
    found = generated((sentence, [frame(sentence, predicate, verb, arg("ARG0", subject, sentence, subject.split()[-1],
                                                                       key), arg(role, text, sentence))]))
    assert (asked, text) in found, found


def test_a_contracted_auxiliary_is_spelled_out_and_one_glued_to_a_name_is_left_out():
    """"Marilla's getting home from the funeral": "What is Marilla getting home from?" (not "What 's Marilla ...");
    "Diana'd make a new mash" (coreference's "I'd") asks "What does Diana make?" (the "would" is lost)."""
    home, mash = "Marilla's getting home from the funeral.", "Diana'd make a new mash."
    found = generated(
        (home, [frame(home, "get", "'s getting", arg("ARG1", "Marilla", home, "Marilla", "marilla"),
                      arg("ARG2", "home from the funeral", home, "funeral"))]),
        (mash, [frame(mash, "make", "make", arg("ARG0", "Diana'd", mash, "Diana", "diana"),
                      arg("ARG1", "a new mash", mash, "mash"))]))
    assert any(q.startswith("What is Marilla getting") for q, _ in found), found
    assert ("What does Diana make?", "a new mash") in found, found
    assert not any("'" in q or "'" in a for q, a in found), found


def test_a_plural_that_opens_the_sentence_agrees_and_a_reduced_passive_did_nothing():
    """"Reviews generated by GPT-2 ...": "Whom were Reviews generated by?" -- capitalised only as the sentence opens,
    its lemma ("review") says it is plural; and "Clifford, imprisoned by the Judge for thirty years" asks no "What
    did Clifford do for thirty years?"."""
    reviews = "Reviews generated by GPT-2 were filtered."
    jail = "Clifford, imprisoned by the Judge for thirty years, came home."
    found = generated(
        (reviews, [frame(reviews, "generate", "generated", arg("ARG1", "Reviews", reviews, "review"),
                         arg("ARG0", "by GPT-2", reviews, "GPT-2", "gpt-2"))]),
        (jail, [frame(jail, "imprison", "imprisoned", arg("ARG1", "Clifford", jail, "Clifford", "clifford"),
                      arg("ARG0", "by the Judge", jail, "Judge", "judge"),
                      arg("ARGM-TMP", "for thirty years", jail, "years"))]))
    assert any(q.endswith("were Reviews generated by?") for q, _ in found), found
    assert not any(q.startswith("What did Clifford do") for q, _ in found), found


def test_a_family_in_es_is_plural_when_the_document_names_one_of_it():
    """"the Musgroves" beside "Charles Musgrove": "Where were the Musgroves?"."""
    charles, family = "Charles Musgrove was at Uppercross.", "The Musgroves having been at Bath, all was well."
    found = generated(
        (charles, [frame(charles, "be", "was", arg("ARG1", "Charles Musgrove", charles, "Charles Musgrove",
                                                   "charles musgrove"), arg("ARGM-LOC", "at Uppercross", charles))]),
        (family, [frame(family, "be", "having been", arg("ARG1", "The Musgroves", family, "Musgroves", "musgroves"),
                        arg("ARGM-LOC", "at Bath", family, "Bath"))]))
    assert ("Where were the Musgroves?", "at Bath") in found, found
