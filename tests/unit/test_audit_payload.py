"""A stored result rebuilds exactly, the community summaries and QA pairs of its context included."""

from kgcore.audit.model import record_payload, record_to_result
from kgcore.core.types import QueryResult, SelectedSentence


def test_summaries_and_qa_pairs_survive_the_stored_json():
    sentence = SelectedSentence("shelf/text_0-1", 1, "The council repaired the pier.", "The council repaired the pier.",
                                ["council"], ["council"], 1, 0.8, 0.8, document="shelf", rank=1)
    summary = {"community": "c3", "title": "Harbour Council", "level": 0, "score": 0.71, "kind": "extractive",
               "claims": [{"text": "The council repaired the pier.", "sentence_ids": ["shelf/text_0-1"]}],
               "sentence_ids": ["shelf/text_0-1"]}
    pair = {"question": "Who repaired the pier?", "answer": "the council", "sentence_id": "shelf/text_0-1",
            "score": 0.9}
    result = QueryResult("Who repaired the pier?", "hybrid-summaries", "shelf", None, [], [sentence], {"k": 5},
                         {"retrieval": 3.0}, ["a note"], 12, [pair], [summary])
    rebuilt, answer = record_to_result(record_payload(result))
    assert rebuilt == result and answer is None
    assert rebuilt.summaries == [summary] and rebuilt.qa_pairs == [pair]


def test_a_respelt_question_keeps_what_was_written():
    result = QueryResult("Who did Mr Elliot marry?", "bm25", "shelf", None, [], [], {"k": 5}, {"retrieval": 1.0},
                         ["Read with the spelling of the collection: Elliott as “Elliot” (words it never writes)."],
                         respelled={"Elliott": "Elliot"}, asked="Who did Mr Elliott marry?")
    rebuilt, _ = record_to_result(record_payload(result))
    assert rebuilt == result and rebuilt.respelled == {"Elliott": "Elliot"}
    assert rebuilt.asked == "Who did Mr Elliott marry?"
    assert record_to_result(record_payload(QueryResult("q", "bm25", "shelf", None, [], [], {}, {})))[0].respelled == {}
