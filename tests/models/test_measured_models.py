"""The measured thing: a question asking the size of something is answered by the span that says that thing's
size, not another thing's (real spaCy pipeline and MiniLM)."""

from __future__ import annotations

import pytest

from kgcore.core.types import SelectedSentence
from kgcore.query.answer.measured import measured_noun, says_size
from kgcore.query.answer.slots import question_gap


@pytest.mark.parametrize(("question", "measured"), [
    ("How large is raw corpus used for training?", "corpus"),
    ("Roughly how large is each tablet?", "tablet"),
    ("How old was Anne Elliot when she became engaged?", "anne elliot"),  # a name keeps all its words
    ("What chunk size is used when splitting the knowledge base?", "chunk"),
    ("What is the maximum size of the chunks that the corpus is split into?", "chunk"),
    ("What is the length of the Nile?", "nile"),
    ("How old was Anne at the time of her marriage?", "anne"),  # an age is its subject's, whenever it is asked
    # no measured thing: a count, the length of a stay, a quality, a measure the wh-word does not ask for
    ("How many reviews do they evaluate?", None),
    ("How long was Clifford in jail?", None),
    ("How accurate is the model?", None),
    ("How important is the corpus?", None),
    ("When was the size of the corpus increased?", None),
    ("Who increased the size of the corpus?", None),
    ("What is the effect of the number of layers?", None),
    ("Which of the three quality dimensions was hardest to evaluate?", None),
    ("What technique does GFS use for snapshots?", None),
])
def test_the_thing_a_question_measures(nlp, question, measured):
    thing = measured_noun(nlp(question))
    assert (thing.key if thing else None) == measured
    assert question_gap(nlp(question)).measured == thing


@pytest.mark.parametrize(("question", "sentence", "span", "says"), [
    ("How large is the corpus?", "From the corpus of about 100 million sentences, we obtained 1.4 million pairs.",
     "100 million sentences", True),
    ("How large is the corpus?", "The corpus contains 100 million words.", "100 million words", True),
    ("How large is the corpus?", "The size of the corpus is 100 million words.", "100 million words", True),
    ("What chunk size is used?", "We split the documents into chunks, each consisting of 256 tokens.", "256 tokens",
     True),
    ("What chunk size is used?", "The chunk size is set to 256 tokens.", "256 tokens", True),
    ("Roughly how large is each tablet?", "Each tablet is approximately 100-200 MB in size.", "100-200 MB", True),
    ("How old was Anne Elliot?", "Anne Elliot was nineteen then.", "nineteen", True),
    ("How old was Anne at the time of her marriage?", "Anne was nineteen when she married.", "nineteen", True),
    # another thing's size, what happened to the thing, a size compared or denied, a count of the thing itself
    ("How large is the corpus?", "The training set of 0.6 million events is large enough.", "0.6 million events",
     False),
    ("How large is the corpus?", "The corpus was compiled by 12 annotators.", "12 annotators", False),
    ("How large is the corpus?", "The corpus was released in 2019.", "2019", False),
    ("How large is the corpus?", "From the corpus, each of the 5 annotators labelled 500 sentences.",
     "500 sentences", False),
    ("How large is the corpus?", "The corpus is ten times larger than the dataset of 5,000 sentences.",
     "5,000 sentences", False),
    ("How large is the corpus?", "The corpus is not 100 million sentences.", "100 million sentences", False),
    ("What chunk size is used?", "The chunks overlap by 32 tokens.", "32 tokens", False),
    ("How old was Anne Elliot?", "Sir Walter Elliot was fifty-four years old.", "fifty-four years", False),
    ("How old was the sister?", "Which of the two sisters was preferred was doubtful.", "two sisters", False),
    # a size in a unit the size word does not ask in
    ("How far is the village from the sea?", "The village has 300 inhabitants.", "300 inhabitants", False),
    ("How far is the village?", "The village is three miles from the sea.", "three miles", True),
    ("How old was Anne?", "Anne had 300 pounds a year.", "300 pounds", False),
    ("What is the age of the house?", "The house is two centuries old.", "two centuries", True),
    ("What is the age of the house?", "The house has seven gables.", "seven gables", False),
    ("How big is the village?", "The village has 300 inhabitants.", "300 inhabitants", True),
    ("How long are the documents?", "The documents are 500 tokens long on average.", "500 tokens", True),  # any unit
    ("How old was Anne?", "Anne was a girl of nineteen.", "a girl of nineteen", True),  # the number counts nothing
    ("How old was Anne when she married?", "Anne married Gilbert at nineteen.", "nineteen", True),  # an age "at"
    ("How old was Anne when she married?", "Anne married Gilbert at the age of nineteen.", "nineteen", True),
    ("How old was Anne when she married?", "Gilbert married Anne at twenty-five.", "twenty-five", False),
    ("How large is the corpus?", "The corpus was released at 100 million words.", "100 million words", False),
    ("How heavy was the chest?", "The chest weighed forty kilos.", "forty kilos", True),
    ("How old was Anne?", "Anne was in Bath two years after her marriage.", "two years", False),  # a time after
    ("How large is the model?", "Our model is 2.3 points above the baseline.", "2.3 points", False),
])
def test_whether_a_span_says_the_measured_things_size(nlp, question, sentence, span, says):
    start = sentence.index(span)
    assert says_size(nlp(sentence), (start, start + len(span)), measured_noun(nlp(question))) is says


CORPUS = [
    SelectedSentence("p/text_0-90", 90, "It was used for (semi-)supervised training as well.", "", rank=1,
                     similarity=0.55),
    SelectedSentence("p/text_0-91", 91, "This suggests that the training set of 0.6 million events is sufficiently "
                     "large for training the models.", "", rank=3, similarity=0.43),
    SelectedSentence("p/text_0-92", 92, "We trained the models using a Japanese web corpus.", "", rank=2,
                     similarity=0.39),
    SelectedSentence("p/text_0-93", 93, "From the corpus of about 100 million sentences, we obtained 1.4 millions "
                     "event pairs for AL, 41 millions for CA, and 6 millions for CO.", "", rank=4, similarity=0.42),
]


def test_the_answer_gives_the_size_of_the_asked_thing_and_the_verdict_says_so(extractive):
    """The training set's size holds the question's "training" too; the corpus's size is the answer."""
    answer = extractive.generate("How large is raw corpus used for training?", CORPUS)
    check = answer.verdict.evidence[0]
    assert answer.citations[0].sentence_ids == ["p/text_0-93"] and "100 million sentences" in answer.text
    assert check.span == "100 million sentences" and check.measured == "corpus"
    assert answer.verdict.state == "supported", answer.verdict.reason
    assert "a measure of the “corpus” the question asks about" in answer.verdict.reason


def test_another_things_size_earns_nothing(extractive):
    """Quoting the training set's size, the verdict adds nothing for the measured thing."""
    context = CORPUS[:3]
    answer = extractive.generate("How large is raw corpus used for training?", context)
    check = answer.verdict.evidence[0]
    assert check.measured == "" and "a measure of the" not in answer.verdict.reason


CHUNKS = [
    SelectedSentence("m/text_0-12", 12, "One promising use case is Retrieval-Augmented Generation (RAG), which "
                     "optimizes the output of a large language model by referencing an external knowledge base "
                     "outside of the training data.", "", rank=14, similarity=0.46),
    SelectedSentence("m/text_0-195", 195, "We partition the documents in the knowledge base into chunks, each "
                     "consisting of 256 tokens.", "", rank=5, similarity=0.61),
    SelectedSentence("m/text_0-196", 196, "After retrieving 20 related chunks using the embedding model, we further "
                     "select the top-K chunks using the Reranker.", "", rank=1, similarity=0.64),
    SelectedSentence("m/text_0-210", 210, "Experiment Setup: In the first experiment, we retrieve top-6 chunks so that "
                     "the total length of the retrieved text does not exceed 2,048.", "", rank=20, similarity=0.5),
]


def test_the_chunks_size_beats_a_count_of_use_cases(extractive):
    """"One promising use case" holds a number and more of the question's words; "chunks, each consisting of 256
    tokens" says the chunks' size (through "each", which stands for them)."""
    answer = extractive.generate("What chunk size is used when splitting the knowledge base for the "
                                 "embedding-model retrieval experiment?", CHUNKS)
    assert answer.citations[0].sentence_ids == ["m/text_0-195"]
    assert answer.verdict.state == "supported" and answer.verdict.evidence[0].measured == "chunk"
