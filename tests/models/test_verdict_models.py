"""The verdict with the real models (spaCy, MiniLM): what a question asks for, where a sentence holds it, which
sentence the offline answer quotes, and the three-state verdict with its reason -- for the offline answerers and,
claim by claim, for an OpenAI-compatible endpoint (a real HTTP server on loopback)."""

from __future__ import annotations

import json

import pytest
from chatkit import ChatServer, completion
from wordnetkit import requires_wordnet

from kgcore.core.settings import Settings
from kgcore.core.types import SelectedSentence
from kgcore.core.verdicts import Verdict
from kgcore.query.answer.expected import Expected, expected_answer
from kgcore.query.answer.extractive import ExtractiveGenerator
from kgcore.query.answer.openai_compat import OpenAIGenerator
from kgcore.query.answer.select import asked_terms
from kgcore.query.answer.spans import answer_spans


@pytest.fixture(scope="module")
def embedder():
    from kgcore.core.embed import get_embedder

    return get_embedder()


@pytest.fixture(scope="module")
def extractive(nlp, embedder):
    return ExtractiveGenerator(embedder=embedder, nlp=nlp)


@pytest.mark.parametrize(("question", "kind", "noun"), [
    ("Roughly how large is each tablet?", "number", ""),
    ("How many replicas does GFS keep of each chunk?", "number", ""),
    ("What is the maximum size of the chunks that the corpus is split into?", "number", "size"),
    ("By what factor does CacheBlend cut the time to first token?", "number", "factor"),
    ("What fraction of tokens does CacheBlend recompute by default?", "number", "fraction"),
    ("What are the common (N,R,W) values?", "number", "values"),
    ("What technique does GFS use for snapshots?", "name", "technique"),
    ("What is the name of the mechanism Raft uses to change membership?", "name", "name"),
    ("Which pre-training task warms up the retriever?", "name", "task"),
    ("When did the cluster lose its leader?", "time", ""),
    ("In what century was the house built?", "time", "century"),
    ("Who is Paul Irving?", "definition", ""),
    ("Does the paper report macro F1?", "yes/no", ""),
    # "the name of X" asks for the person or place X is, when X is one
    ("What is the name of the school where the miller's daughter teaches?", "place", "school"),
    ("What is the name of the miller's brother?", "person", "brother"),
    ("What type of pet does the miller keep?", "name", "pet"),
    ("What colour was the mill painted?", "name", "colour"),
    ("What is the colour of the mill?", "name", "colour"),
    # how people are related asks for a relation; how things are related does not
    ("How are Beatrice and Amory related?", "relation", ""),
    ("Who is Monsignor Darcy in relation to Amory?", "relation", ""),
    ("What family relationship does Anne share with William Elliot?", "relation", "relationship"),
    ("How is the paper related to BERT?", "manner", ""),
    # someone's job asks for an occupation; the job of a component does not
    ("What is Anne's job?", "occupation", "job"),
    ("What profession does Anne have as a teenager?", "occupation", "profession"),
    ("What does Mr. Harrison do for a living?", "occupation", ""),
    ("What is the job of the retriever?", "definition", "job"),
    ("What is BERT's job?", "definition", "job"),
    ("What did he do for a living in London?", "occupation", ""),
    ("How is BERT related to ELMo?", "manner", ""),
    ("What relationship does SQuAD share with NewsQA?", "name", "relationship"),
    # a part of a place is a place; a part of a thing is a name or term
    ("What part of the country is the miller from?", "place", "country"),
    ("What part of the model is frozen?", "name", "part"),
    ("What is the relationship between perplexity and accuracy?", "definition", "relationship"),
])
def test_what_a_question_asks_for(nlp, question, kind, noun):
    assert expected_answer(nlp(question)) == Expected(kind, noun)


@pytest.mark.parametrize(("question", "sentence", "spans"), [
    # ranges with units are quantities (never times), dates and reference numbers are not
    ("Roughly how large is each tablet?", "Each tablet is approximately 100-200 MB in size by default.",
     ["100-200 MB"]),
    ("How long does a leader election take?", "Elections typically complete within 150–300 ms of a crash.",
     ["150–300 ms"]),
    ("What is the maximum size of the chunks?", "Our corpus is the December 20, 2018 snapshot of Wikipedia [12].",
     []),
    ("What chunk size is used for the knowledge base?",
     "We partition the knowledge base into chunks, each consisting of 256 tokens.", ["256 tokens"]),
    ("What chunk size is used for the knowledge base?",  # a table's number is no quantity
     "Experiment Result: Table 5 shows the retrieval result of using different embedding models.", []),
    # a name is also a technical term or noun phrase the text introduces
    ("What technique does GFS use for snapshots?",
     "Like AFS, we use standard copy-on-write techniques to implement snapshots.",
     ["AFS", "standard copy-on-write techniques"]),
    ("What is the name of the approach Raft uses for membership changes?",
     "For membership changes, Raft uses a new approach called joint consensus.", ["joint consensus"]),
    ("Which technique does GFS use to avoid internal fragmentation?",
     "Lazy space allocation avoids wasting space due to internal fragmentation.", ["Lazy space allocation"]),
    # a question about a kind of place is answered by a named place, not by any locative phrase
    ("What university does the miller's son attend?", "He attended the lectures in front of him.", []),
    ("What university does the miller's son attend?", "He wanted to go to Princeton.", ["to Princeton"]),
    ("Where is the deed found?", "It was a by-word that it would never be found.", []),  # "by-word": no "by"
    ("Which room did she hide in?", "She hid in the attic.", ["in the attic"]),  # a room is rarely named
    # a colour answers "what colour"
    ("What colour was the mill painted?", "The miller painted the mill a bright blue last spring.", ["blue"]),
    ("What colour was the mill painted?", "The miller painted the mill last spring.", []),
    # an ordinal, a model's name holding digits and markup are no quantities
    ("How many Wikipedia pages were selected?", "First, we selected pages with the ada-002 model.", []),
    ("How large is the raw corpus?", "We extract pairs $(x_{i1}, x_{i2})$ from the raw corpus.", []),
    ("How large is the raw corpus?", "From the corpus of about 100 million sentences, we obtained pairs.",
     ["100 million sentences"]),
    # a lone letter or a label of the paper's parts is no name
    ("What is the name of the cheaper decoding approximation?", "Once the candidate set Y has been generated, "
     "see Figure 3.", []),
    # "define X as Y" says how X is measured
    ("How do the authors measure how dynamic a community is?",
     "Formally, we define the dynamicity of a community as the average volatility of all utterances.",
     ["as the average volatility of all utterances"]),
    # a span made of the question's own words restates it and answers nothing
    ("What is used to keep the soup warm?", "To keep the soup warm.", []),
    ("Why was the miller tired after supper?", "I am sorry to say that the miller was very tired after supper.", []),
    ("Why did the hen run to the barn?", "The hen ran to the barn to escape the fox.", ["to escape the fox"]),
    ("Why did the hen save grain?", "She saved grain in order to feed her chicks.", ["to feed her chicks"]),
    # a degree word, a comparison's "as" and an exclamation say nothing of why; a clause after "since" does
    ("Why did Anne chase the twins?", "Why, Anne ran after them as fast as the twins' fat legs could go.", []),
    ("Why did the miller sing?", "The miller was so happy that he sang.", []),
    ("Why did the miller stay home?", "Since the miller was ill, he stayed home.", ["Since the miller was ill"]),
    ("Why was the family not happy?", "The family was, as Anne very well knew, the least to blame.", []),
    # a name runs on through a capitalised word and a hyphen; "her right name" names nobody
    ("What is the name of the cheaper decoding approximation?", "Use the Fast Decoding approach for RAG-Sequence "
     "models.", ["Fast Decoding", "RAG-Sequence"]),
    ("What are the twins' names?", "So I just gave up trying to remember the right name.", []),
    # a name joined to a person's is a person's, whatever the tagger makes of it
    ("Which college does Stephen attend?", "Cranly pushed on, linking Stephen and Temple like a celebrant.", []),
    # a count of time units says how long, not when; "through" after a verb of motion says the way, not the means
    ("In what century is the novel set?", "The story extends over the better part of two centuries.", []),
    ("In what century is the novel set?", "The story begins in the seventeenth century.", ["the seventeenth century"]),
    ("How was Stephen able to reach the hall?", "Cranly pushed solemnly through the throng of students.", []),
    # ... and a reviewer's cases the first versions of those rules got wrong
    ("How soon did he return?", "He returned within two days.", ["two days"]),
    ("When did he leave?", "He left after three years.", ["three years"]),
    ("How was Stephen able to attend Belvedere?", "He went to Belvedere through the kindness of the Jesuits.",
     ["through the kindness of the Jesuits"]),
    ("What university does he attend?", "He attended Harvard.", ["Harvard"]),
    ("What college does he attend?", "The essay was written by Heron.", []),
    ("Why did they stay home?", "So they stayed at home, as it was raining.", ["as it was raining"]),
    ("Why does it work?", "As Figure 2 shows, the method works.", []),
    ("What title did he hold?", "He held the title of baronet.", ["baronet"]),
    # a verb's complement is no purpose: "fails to hear her" says nothing of why
    ("The relationship with Rosalind fails because of what?", "(ROSALIND fails to hear her, at least takes no "
     "notice.)", []),
    # a compound preposition says no place
    ("Where is Anne's mother?", "With regard to Anne's dislike of Bath, she considered it a prejudice.", []),
    ("Where did the hen hide?", "In spite of the rain, the hen hid in the barn.", ["in the barn"]),
    # ... nor does a noun whose "of" says a clause: a fact or an act, not a place
    ("Where is Anne's mother?", "She disliked Bath from the circumstance of her having been at school there.",
     ["at school"]),
    ("Where did she walk?", "She was in the habit of walking in the garden.", ["in the garden"]),
    ("Where did she live?", "She lived in the middle of nowhere.", ["in the middle of nowhere"]),
    ("Where did they stand?", "They stood at the edge of where the forest began.",
     ["at the edge of where the forest began"]),
    ("Where did she walk?", "She was in the habit of walking where the river bends.", []),
    # a run of proper nouns that is a place names no one
    ("Who owned the house?", "A grant of lands in Waldo County was made.", []),
    ("Who owned the house?", "They made a grant of lands in Waldo County, Maine, to the family.", ["family"]),
    ("Who was in the garden?", "He found them in the garden, Phoebe and Virginia.", ["Phoebe", "Virginia"]),
    ("Who owned the house?", "Old Matthew Maule owned the house.", ["Old Matthew Maule"]),
    ("Who was Matthew Maule?", "Old Matthew Maule owned the house.", []),  # "Old" is no new word of a name
    # the asked noun named through "of"
    ("What crime was Matthew Maule accused of?", "Old Matthew Maule was executed for the crime of witchcraft.",
     ["witchcraft"]),
    ("What crime was he accused of?", "It was the crime of his father.", []),  # whose crime, not what crime
    # the asked noun with a word that only describes it names nothing; one that classifies it does
    ("What patterns do they observe?", "This enables us to observe systematic patterns.", []),
    ("What networks do they use?", "They use recurrent neural networks.", ["recurrent neural networks"]),
    ("Which Lisp did they use?", "They wrote it in Common Lisp.", ["Common Lisp"]),
    ("Who wrote the letter?", "The letter was written by Phoebe.", ["Phoebe"]),  # an agent, not a place
    ("Where did she go?", "She went to London by means of the railway.", ["to London"]),
    ("Why did he go?", "He asked her to leave.", []),  # told to, not in order to
    # an "as" clause of manner is no time
    ("When did Anne love Captain Wentworth?", "Anne loved Captain Wentworth as she ought.", []),
    ("When did the clock strike?", "As she entered the room, the clock struck.", ["As she entered the room"]),
    ("When did the phone ring?", "The phone rang as she was at home.", ["as she was at home"]),
    ("When did he cry?", "He cried as she was saying goodbye.", ["as she was saying goodbye"]),
    ("When did she arrive?", "She arrived as she had hoped.", []),
    # ... while the rules above keep what they should
    ("Why did he use a knife?", "He used a knife to cut the rope.", ["to cut the rope"]),  # a purpose all the same
    ("Where did he put the letter?", "He put the letter in the case of the clock.", ["in the case of the clock"]),
    ("Who did Holgrave marry?", "Holgrave married Phoebe.", ["Phoebe"]),  # the tagger calls Phoebe a place
    ("Who rescued Amelia?", "The Major rescued Amelia.", ["Major"]),  # a generic adjective that is the name
    # a clause saying what someone believes is no fact of the text, unless the question asks for the belief
    ("Where did the goose hide?", "The farmer was quite sure that the goose was hiding behind the well.", []),
    ("Where did the goose hide?", "The goose was hiding behind the well.", ["behind the well"]),
    # a locative preposition's object that is a number, a pronoun or a person is no place, unless possessive
    ("Where do they meet again?", "He was to meet his brother for dinner at six.", []),
    ("Where is Anne's mother?", "She attached herself as a mother to the man who was securing her happiness.", []),
    ("Where does Stephen's family move to?", "They told legends, to all of which Stephen lent an ear.", []),
    ("Where did Mrs. Rabbit go?", "She went to her grandmother's.", ["to her grandmother's"]),
    # ... and so is one whose two commonest WordNet senses name a person, a feeling, a state or a part of the body
    pytest.param("Where does Anne teach?", "\"It is interesting work,\" wrote Anne to a Queen's Academy chum.", [],
                 marks=requires_wordnet),
    pytest.param("Where did he run?", "In his excitement he ran to the garden.", ["to the garden"],
                 marks=requires_wordnet),
    pytest.param("Where did she go?", "She kept it in her heart and went to the school.", ["to the school"],
                 marks=requires_wordnet),
    # ... but a place noun, a gathering, a thing to walk on or to eat stays a place
    ("Where did they move?", "They moved to a new location.", ["to a new location"]),
    ("Where did Peter go?", "Peter went to the market.", ["to the market"]),
    ("Where did they meet?", "They met at the dance.", ["at the dance"]),
    ("Where did they walk?", "They walked along the path.", ["along the path"]),
    ("Where did Peter lose his shoes?", "He lost one of his shoes among the cabbages.", ["among the cabbages"]),
    # ... and so is a proper noun after a title, which the tagger may not call a person
    ("Where was the deed found?", "Another heavy sigh came from Miss Hepzibah.", []),
    ("Where did he take the deed?", "He took the deed to Colonel Pyncheon.", []),
    ("Where did Gilbert teach?", "Gilbert taught in White Sands.", ["in White Sands"]),
    # a noun below the asked one in WordNet names a kind of it; a synonym or a noun too general names none
    pytest.param("What punishment did Maule endure?", "His execution was watched by the whole town.", ["execution"],
                 marks=requires_wordnet),
    pytest.param("What injury did Louisa have?", "Louisa suffered a concussion.", ["concussion"],
                 marks=requires_wordnet),
    ("What punishment did Maule endure?", "His penalty was severe.", []),
    ("Which event ended the quarrel?", "They talked until the quarrel ended.", []),
    # a college the tagger calls an organisation is a place; a person's name is no college
    ("Where does Anne plan on attending college?", "Two weeks later Anne and Gilbert would leave for Redmond "
     "College.", ["Redmond College"]),
    ("Which college does Stephen attend?", "Stephen Dedalus went home.", []),
    ("Which college does Stephen attend?", "Stephen attended Clongowes Wood College.", ["Clongowes Wood College"]),
    ("Which street did Holmes live on?", "Holmes lived at 221B Baker Street.", ["221B Baker Street"]),
    ("Where did the girl hide?", "She hid in one of the rooms.", ["in one of the rooms"]),  # a part: by its whole
    ("Where are the chunk copies kept?", "The master makes sure that the copies are kept on three racks.",
     ["on three racks"]),  # "make sure that": a guarantee, not a belief
    ("Where did the farmer think the goose was?", "The farmer thought that the goose was behind the well.",
     ["behind the well"]),
    # a citation in brackets names the work leaned on: its year, authors and reference numbers answer nothing
    ("When was retrieval-augmented generation proposed?", "Retrieval-augmented generation (Lewis et al., 2020) "
     "conditions a generator on passages.", []),
    ("When was retrieval-augmented generation proposed?", "Retrieval-augmented generation was proposed in 2020 "
     "(Lewis et al., 2020).", ["2020"]),
    ("Who proposed the dense retriever?", "The dense retriever [Karpukhin 2020] encodes passages.", []),
    ("How many passages are retrieved?", "The reader sees 100 passages [3, 4].", ["100 passages"]),
    # ... but brackets that hold a date, a place and year or a number are the sentence's own words
    ("When did the war end?", "The war ended in Europe (in May 1945).", ["May 1945"]),
    ("When were the games held?", "The games were held in Berlin (Berlin 1936).", ["1936"]),
    ("How many members does the crew have?", "The crew (12) sailed at dawn.", ["12"]),
    # how long something takes is a time; a count of the asked thing, even one the tagger calls a date
    ("How long does the whole computation take?", "We compute PageRank for as many as 518 million hyperlinks.", []),
    ("How long does the whole computation take?", "This whole process takes about five hours.", ["five hours"]),
    ("How many queries are used?", "We answer queries over 50 documents, and take the 2655 queries with answers.",
     ["2655 queries"]),
    # a word that begins with a number word, a reference to a section after a name
    ("What was the price of one bitcoin?", "We propose a solution to the double-spending problem.", []),
    ("What search engine did the authors build?", "We built a web search engine called Google (Section 5).",
     ["Google"]),
])
def test_where_a_sentence_holds_it(nlp, question, sentence, spans):
    q = nlp(question)
    doc = nlp(sentence)
    assert [doc[a:b].text for a, b in answer_spans(list(doc), expected_answer(q), q)] == spans


GFS = [SelectedSentence("gfs/text_0-40", 40, "Our users use it to quickly create branch copies of huge data sets.", "",
                        rank=1, similarity=0.62),
       SelectedSentence("gfs/text_0-41", 41, "Like AFS, we use standard copy-on-write techniques to implement "
                        "snapshots.", "", rank=2, similarity=0.55),
       SelectedSentence("gfs/text_0-80", 80, "Each tablet is approximately 100-200 MB in size by default.", "",
                        rank=3, similarity=0.31)]


def test_the_answer_quotes_the_sentence_holding_the_asked_kind_and_marks_it(extractive):
    answer = extractive.generate("What technique does GFS use for snapshots?", GFS)
    assert answer.citations[0].sentence_ids == ["gfs/text_0-41"] and "copy-on-write" in answer.text
    [check] = answer.verdict.evidence
    assert check.span == "standard copy-on-write techniques"
    assert check.sentence[check.span_start:check.span_end] == check.span
    assert check.expected == "a name or term (the technique)" and "snapshot" in check.matched


def test_the_verdict_lists_the_next_best_sentences_with_their_spans(extractive):
    """Where a reviewer looks when the quoted sentence is wrong: the others, by the pick's score, each with what
    the answer would have quoted and its span of the asked kind (offsets into that quote)."""
    answer = extractive.generate("What technique does GFS use for snapshots?", GFS)
    others = answer.verdict.alternatives
    assert [a.sentence_id for a in others] == ["gfs/text_0-40", "gfs/text_0-80"] or \
        [a.sentence_id for a in others] == ["gfs/text_0-80", "gfs/text_0-40"]
    assert others[0].score >= others[1].score and any(a.span for a in others)
    for a in others:
        assert a.quote and (a.span == "" or a.quote[a.span_start:a.span_end] == a.span)
    assert Verdict.from_dict(answer.verdict.to_dict()) == answer.verdict


def test_the_reason_lists_the_question_words_as_the_sentence_holds_them(extractive):
    """A word the sentence writes in another form is given with that form, and one that only coreference supplies
    ("she" resolved to Anne) is said to come from it: a reviewer finds every listed word in the sentence."""
    context = [SelectedSentence("a/text_0-4", 4, "She was a resident of Avonlea all her life.",
                                "Anne was a resident of Avonlea all Anne's life.", rank=1, similarity=0.5)]
    answer = extractive.generate("Where did Anne reside?", context)
    [check] = answer.verdict.evidence
    assert check.written_as == {"reside": "resident"} and check.through_coreference == ["anne"]
    assert "(reside as “resident”; through coreference: anne)" in answer.verdict.reason
    assert Verdict.from_dict(answer.verdict.to_dict()) == answer.verdict


def test_the_quoted_clause_keeps_its_own_subject(extractive):
    """A participle or a second verb without its subject is no clause to quote: who did it would be cut off."""
    context = [SelectedSentence("p/text_0-7", 7, "Cranly pushed solemnly through the throng of students, linking "
                                "Stephen and Temple like a celebrant attended by his ministers.", "", rank=1,
                                similarity=0.5)]
    answer = extractive.generate("Who was linked like a celebrant?", context)
    assert answer.text.startswith("Cranly pushed solemnly")


def test_a_plain_phrase_is_called_a_term_not_the_asked_thing(extractive):
    """A noun phrase the sentence introduces is a span for "what <noun>", but the reason does not claim it names
    one: "ruinous little structure" is no rumor; "standard copy-on-write techniques" is a technique.  What decides
    is which finder found the span, not how it is written: a capital opening the sentence ("Lazy space
    allocation") makes no name, and what a sentence calls something ("a trick known as early stopping") is one."""
    context = [SelectedSentence("h/text_6-25", 25, "In its centre was a grass-plat, surrounding a ruinous little "
                                "structure.", "", rank=1, similarity=0.4)]
    answer = extractive.generate("What rumors surrounded the house?", context)
    assert answer.verdict.evidence[0].span_introduced
    assert "a term the sentence introduces, where the question asks for a name or term (the rumors)" in \
        answer.verdict.reason
    gfs = extractive.generate("What technique does GFS use for snapshots?", GFS).verdict
    assert not gfs.evidence[0].span_introduced and "a name or term (the technique) as the question asks" in gfs.reason
    lazy = [SelectedSentence("g/text_1-4", 4, "Lazy space allocation avoids wasting space due to internal "
                             "fragmentation.", "", rank=1, similarity=0.5)]
    check = extractive.generate("Which method avoids internal fragmentation?", lazy).verdict.evidence[0]
    assert check.span == "Lazy space allocation" and check.span_introduced
    known = [SelectedSentence("t/text_2-8", 8, "Training halts through a trick known as early stopping.", "",
                              rank=1, similarity=0.5)]
    check = extractive.generate("What trick halts training?", known).verdict.evidence[0]
    assert check.span == "early stopping" and not check.span_introduced


MILL = [SelectedSentence("mill/text_0-3", 3, "The miller's son was a very different type of boy from his father.", "",
                         rank=1, similarity=0.41),
        SelectedSentence("mill/text_0-9", 9, "The miller kept a parrot called Ginger in the kitchen.", "", rank=2,
                         similarity=0.38)]


def test_the_words_that_frame_the_asked_noun_do_not_pick_the_sentence(extractive):
    """"What *type* of pet": the sentence holding "type" does not answer it; the one naming the pet does."""
    answer = extractive.generate("What type of pet does the miller keep?", MILL)
    assert answer.citations[0].sentence_ids == ["mill/text_0-9"] and "parrot" in answer.text


@pytest.mark.parametrize(("question", "dropped", "kept"), [
    ("What type of pet does the miller keep?", "type", "miller"),
    ("What is the name of the school where the miller's daughter teaches?", "name", "school"),
    ("Which word embeddings do they use?", None, "word"),  # "word" said for itself, not framing a noun
    ("What is the word error rate of the model?", None, "word"),
])
def test_only_the_words_framing_the_asked_noun_are_left_out(nlp, question, dropped, kept):
    q = nlp(question)
    terms = asked_terms(q, expected_answer(q))
    assert kept in terms and (dropped is None or dropped not in terms)


CACHEBLEND = [
    SelectedSentence("cb/text_1-40", 40, "Integrating Fusor into LLM serving engine: CacheBlend performs the partial "
                     "prefill process in a layer-wise manner through three interfaces:", "", rank=2, similarity=0.69),
    SelectedSentence("cb/text_1-41", 41, "Each interface is called by the serving engine for every layer.", "", rank=3,
                     similarity=0.45),
    SelectedSentence("cb/text_1-356", 356, "We implement CacheBlend on top of vLLM with about 3K lines of code in "
                     "Python based on PyTorch v2.0.", "", rank=1, similarity=0.51)]


def test_the_answer_quotes_the_sentence_whose_span_stands_where_the_question_asks(extractive):
    """"On top of *which engine* is it implemented": "implement CacheBlend on top *of vLLM*" fills the gap; the
    sentence repeating "LLM serving engine" holds its names ("Fusor") elsewhere."""
    answer = extractive.generate("On top of which LLM serving engine is CacheBlend implemented?", CACHEBLEND)
    assert answer.citations[0].sentence_ids == ["cb/text_1-356"] and "vLLM" in answer.text


class CountingPipeline:
    """The real spaCy pipeline, recording every text it is asked to parse."""

    def __init__(self, nlp):
        self.nlp, self.parsed = nlp, []

    def pipe(self, texts):
        texts = list(texts)
        self.parsed += texts
        return self.nlp.pipe(texts)

    def __call__(self, text):
        self.parsed.append(text)
        return self.nlp(text)


def test_answers_reuse_parsed_sentences_and_stay_the_same(nlp, embedder):
    """A second question over the same sentences parses only the question; every answer and verdict is the one
    parsed afresh gives."""
    from kgcore.query.answer.base import ParseMemo

    counting = CountingPipeline(nlp)
    generator = ExtractiveGenerator(embedder=embedder, nlp=counting)
    questions = ["What technique does GFS use for snapshots?", "Roughly how large is each tablet?",
                 "What are the common (N,R,W) values?"]
    answers = [generator.generate(questions[0], GFS)]
    first = len(counting.parsed)
    answers += [generator.generate(q, GFS) for q in questions[1:]]
    later = counting.parsed[first:]
    assert not any(s.text in later for s in GFS) and set(questions[1:]) <= set(later)
    fresh_generator = ExtractiveGenerator(embedder=embedder, nlp=nlp)
    for question, answer in zip(questions, answers):
        fresh = fresh_generator.judged(question, GFS, ParseMemo(nlp))  # no shared cache: every text parsed afresh
        assert (answer.text, answer.citations, answer.verdict) == (fresh.text, fresh.citations, fresh.verdict)


def test_a_quantity_question_is_judged_on_a_quantity_not_a_time(extractive):
    answer = extractive.generate("Roughly how large is each tablet?", GFS)
    verdict = answer.verdict
    assert answer.citations[0].sentence_ids == ["gfs/text_0-80"]
    assert verdict.state == "supported" and answer.supported is True
    assert "“100-200 MB”, a quantity" in verdict.reason and "time" not in verdict.reason
    assert verdict.evidence[0].answers_question and verdict.evidence[0].question_cosine > 0.5


def test_an_answer_without_the_asked_kind_is_not_supported(extractive):
    quorum = [SelectedSentence("dyn/text_0-9", 9, "Dynamo uses a consistency protocol similar to those used in "
                               "quorum systems.", "", rank=1, similarity=0.5)]
    answer = extractive.generate("What are the common (N,R,W) values?", quorum)
    assert answer.verdict.state == "not supported" and answer.supported is False
    assert "holds no quantity (a number, size, share or range), which the question asks for" in answer.verdict.reason


CACHEBLEND_TTFT = [
    SelectedSentence("cb/text_0-10", 10, "Prefix caching stores the KV cache of a reused text once.", "", rank=2,
                     similarity=0.5),
    SelectedSentence("cb/text_0-11", 11, "Compared to full KV recompute, CacheBlend reduces time-to-first-token (TTFT) "
                     "by 2.2–3.3× on three open-source models.", "", rank=1, similarity=0.6),
    SelectedSentence("cb/text_0-12", 12, "The first token is produced after the whole input is read.", "", rank=3,
                     similarity=0.4)]
REALM_REFRESH = [
    SelectedSentence("realm/text_1-9", 9, "The index is refreshed asynchronously while the model trains.", "", rank=2,
                     similarity=0.5),
    SelectedSentence("realm/text_1-10", 10, "This results in one index refresh per approximately 500 training steps.",
                     "", rank=1, similarity=0.6)]


@pytest.mark.parametrize(("question", "context", "span"), [
    # the verb said otherwise ("cut" / "reduces"): the roles are not found through it, the figure answers
    ("By what factor does CacheBlend cut time-to-first-token relative to full KV recompute?", CACHEBLEND_TTFT,
     "2.2–3.3×"),
    # the figure is the sentence's second quantity: the verdict judges it, not "one index refresh"
    ("During pre-training, roughly how many training steps pass between index refreshes?", REALM_REFRESH,
     "500 training steps"),
    # a name holding figures, which the paper introduces for one thing
    ("On what data was the named-entity tagger for salient span masking trained?", [
        SelectedSentence("realm/text_0-167", 167, "Salient span masking hides spans that carry world knowledge.", "",
                         rank=2, similarity=0.5),
        SelectedSentence("realm/text_0-168", 168, "We use a BERT-based tagger trained on CoNLL-2003 data to identify "
                         "named entities.", "", rank=1, similarity=0.6)], "CoNLL-2003"),
])
def test_a_figure_of_the_asked_kind_is_supported(extractive, question, context, span):
    verdict = extractive.generate(question, context).verdict
    assert verdict.state == "supported", verdict.reason
    assert verdict.evidence[0].span == span and "written with figures" in verdict.reason


@pytest.mark.parametrize(("question", "sentence", "span"), [
    ("How many surges were found at Crail?", "We found 214 surges at Anstruther and 187 surges at Crail.",
     "187 surges"),
    ("How many surges were found at Anstruther?", "We found 214 surges at Anstruther and 187 surges at Crail.",
     "214 surges"),
    ("How many boats sank in 1923?", "In 1922 four boats sank, and in 1923 nine boats sank.", "nine boats"),
    ("How many boats sank in 1922?", "In 1922 four boats sank, and in 1923 nine boats sank.", "four boats"),
])
def test_of_two_figures_in_one_sentence_the_one_said_of_the_asked_place_or_year_is_marked(extractive, question,
                                                                                         sentence, span):
    context = [SelectedSentence("fife/text_0-10", 10, sentence, "", rank=1, similarity=0.6)]
    verdict = extractive.generate(question, context).verdict
    assert verdict.evidence[0].span == span and f"“{span}”, a quantity" in verdict.reason


def test_a_thing_named_in_a_participle_answers_what_its_name_was(extractive):
    cat = [SelectedSentence("harbour/text_0-2", 2, "She had travelled by train from Edinburgh with two trunks and a "
                            "small grey cat named Biscuit.", "", rank=1, similarity=0.6)]
    verdict = extractive.generate("What was the cat's name?", cat).verdict
    assert verdict.evidence[0].span == "Biscuit" and verdict.state == "supported", verdict.reason
    dog = extractive.generate("What was the dog's name?", cat).verdict  # the naming is said of another thing
    assert dog.state != "supported", dog.reason
    namer = [SelectedSentence("h/text_0-3", 3, "The boy who called the dog Rex was never seen again.", "", rank=1,
                              similarity=0.6)]
    boy = extractive.generate("What was the boy's name?", namer).verdict  # he named the dog, not himself
    assert boy.state != "supported", boy.reason


@requires_wordnet
def test_a_date_of_another_act_by_the_asked_subject_is_not_supported_for_its_figure(extractive):
    """"When did Margaret leave?" is not answered by when she arrived, though the date is a figure of the asked kind;
    a verb of the same sense is the same act ("departed")."""
    arrived = [SelectedSentence("h/text_0-1", 1, "Margaret Ellery arrived in the fishing town of Carrow Point on "
                                "14 March 1923.", "", rank=1, similarity=0.6)]
    verdict = extractive.generate("When did Margaret leave Carrow Point?", arrived).verdict
    assert verdict.evidence[0].span == "14 March 1923" and verdict.state == "unsure", verdict.reason
    assert "an adjunct of “leave” (with margaret its subject)" in verdict.reason
    departed = [SelectedSentence("h/text_0-1", 1, "Margaret Ellery departed from the fishing town of Carrow Point on "
                                 "2 September 1923.", "", rank=1, similarity=0.6)]
    verdict = extractive.generate("When did Margaret leave Carrow Point?", departed).verdict
    assert verdict.state == "supported", verdict.reason
    for question, text in [  # the asked act joined to another, and a phrasal verb with its particle
            ("When did Margaret leave Carrow Point?", "On 2 September 1923 Margaret packed her trunks and left "
                                                      "Carrow Point."),
            ("When did Margaret set off for London?", "Margaret departed for London on 2 September 1923.")]:
        verdict = extractive.generate(question, [SelectedSentence("h/text_0-2", 2, text, "", rank=1,
                                                                  similarity=0.6)]).verdict
        assert verdict.state == "supported", (question, verdict.reason)


def _judged(extractive, question: str, text: str):
    context = [SelectedSentence("h/text_0-0", 0, text, "", rank=1, similarity=0.6),
               SelectedSentence("h/text_0-1", 1, "The harbour was quiet in March.", "", rank=2, similarity=0.3)]
    return extractive.generate(question, context).verdict


def test_a_why_question_is_supported_only_by_a_sentence_giving_a_reason(extractive):
    """"because of", and "for" after a verb of judging, give a reason; a sentence with every word of the question
    but no reason is at best unsure, and its reason says so."""
    for text, span in [("Margaret left Carrow Point because of the storms that winter.", "because of the storms"),
                       ("Tomas was arrested for smuggling brandy into the harbour.", "for smuggling brandy")]:
        question = "Why did Margaret leave Carrow Point?" if "Margaret" in text else "Why was Tomas arrested?"
        verdict = _judged(extractive, question, text)
        assert verdict.state == "supported" and verdict.evidence[0].span.startswith(span), verdict.reason
    verdict = _judged(extractive, "Why did Margaret leave Carrow Point?", "Margaret left Carrow Point in the winter "
                                                                           "of 1923.")
    assert verdict.state == "unsure" and verdict.score >= 2.6, verdict.reason
    assert "holds no reason" in verdict.reason and "at best unsure" in verdict.reason


def test_a_purpose_is_not_read_into_too_and_enough(nlp):
    expected = expected_answer(nlp("Why was he tired?"))
    for text in ("Visions too indistinctly drawn to be followed by disappointment.", "He ran fast enough to win."):
        assert answer_spans(list(nlp(text)), expected, nlp("Why was he tired?")) == [], text


def test_a_question_about_one_occasion_needs_the_sentence_to_say_it(extractive):
    """"Who *originally* owned it?" is not shown by who owns it now; a sentence saying "originally" supports it."""
    now = "Captain Reid, who owns the boathouse, lives in Crail."
    verdict = _judged(extractive, "Who originally owned the boathouse?", now)
    assert verdict.state == "unsure" and verdict.evidence[0].occasion == "originally", verdict.reason
    assert "does not say “originally”" in verdict.reason
    assert _judged(extractive, "Who owned the boathouse?", now).state == "supported"
    verdict = _judged(extractive, "Who originally owned the boathouse?", "The boathouse was originally owned by "
                                                                           "Captain Reid of Crail.")
    assert verdict.state == "supported", verdict.reason


def test_a_yes_no_question_has_no_wh_slot_to_fill(nlp):
    """The "where" inside "Are X robust to *where* ... is placed?" asks nothing: the roles check gets no frame."""
    from kgcore.query.answer.select import Question

    parsed = Question.parse("Are encoder-decoder models robust to where the relevant information is placed?", nlp)
    assert parsed.expected.kind == "yes/no" and parsed.frame is None
    assert Question.parse("Where is the relevant information placed?", nlp).frame is not None


def test_a_language_is_no_person(extractive):
    drew = [SelectedSentence("h/text_0-19", 19, "He spoke little English, but he drew pictures for Margaret.",
                             "Erik spoke little English, but Erik drew pictures for Margaret.", rank=1, similarity=0.6)]
    verdict = extractive.generate("Who drew pictures for Margaret?", drew).verdict
    assert verdict.evidence[0].span != "English" and "“English”" not in verdict.reason, verdict.reason


def test_a_number_in_words_earns_no_figure_bonus(extractive):
    jail = [SelectedSentence("h/text_0-1", 1, "Clifford spent one day in the town before his long jail term ended.", "",
                             rank=1, similarity=0.5)]
    verdict = extractive.generate("How long did Clifford serve in jail?", jail).verdict
    assert verdict.state == "not supported" and "figure" not in verdict.reason


def test_three_states_follow_the_strength(extractive):
    from kgcore.query.answer.verdict import REFUSED_BELOW, SUPPORTED_FROM

    for question in ("What technique does GFS use for snapshots?", "Roughly how large is each tablet?",
                     "What are the common (N,R,W) values?"):
        verdict = extractive.generate(question, GFS).verdict
        strength = verdict.score
        expected = "supported" if strength >= SUPPORTED_FROM else "not supported" if strength < REFUSED_BELOW \
            else "unsure"
        assert verdict.state == expected, (question, strength)
        assert f"strength {strength:.2f}" in verdict.reason


# -- an OpenAI-compatible endpoint, claim by claim ------------------------------------
def _ask_endpoint(reply: str, question: str, nlp, embedder):
    with ChatServer(lambda body, n: (200, completion(reply), 0.0)) as server:
        settings = Settings(openai_base_url=server.url, openai_model="m", openai_retries=1)
        return OpenAIGenerator(settings, embedder=embedder, nlp=nlp).generate(question, GFS)


def test_an_endpoints_grounded_answer_is_judged_on_the_sentence_it_cites(nlp, embedder):
    answer = _ask_endpoint("Each tablet is about 100-200 MB [gfs/text_0-80].", "Roughly how large is each tablet?",
                           nlp, embedder)
    verdict = answer.verdict
    assert verdict.state == "supported", verdict.reason
    [check] = verdict.evidence
    assert check.sentence_id == "gfs/text_0-80" and check.span == "100-200 MB" and check.grounded >= 0.6


def test_an_endpoints_claim_the_context_does_not_hold_is_not_supported(nlp, embedder):
    reply = ("Each tablet is about 100-200 MB [gfs/text_0-80]. Tablets are compressed with zstd on every "
             "write [gfs/text_0-40].")
    verdict = _ask_endpoint(reply, "Roughly how large is each tablet?", nlp, embedder).verdict
    assert verdict.state == "not supported"
    assert "“Tablets are compressed with zstd on every write.”" in verdict.reason and "gfs/text_0-40" in verdict.reason
    assert [c.state for c in verdict.evidence] == ["supported", "not supported"]


def test_an_endpoints_claim_citing_nothing_retrieved_is_not_supported(nlp, embedder):
    verdict = _ask_endpoint("The moon is made of green cheese.", "Roughly how large is each tablet?", nlp,
                            embedder).verdict
    assert verdict.state == "not supported" and "cites no retrieved sentence" in verdict.reason


def test_ask_json_carries_the_verdict(tmp_path, capsys):
    from kgcore.cli import main

    text = tmp_path / "gfs.txt"
    text.write_text("The master stores the file and chunk namespaces. Each chunk replica is stored on a chunkserver. "
                    "Each chunk is 64 MB in size, much larger than typical file system block sizes. Clients cache "
                    "chunk locations for a limited time.\n", encoding="utf-8")
    store = tmp_path / "store"
    main(["index", str(text), "--store", str(store), "--name", "gfs"])
    capsys.readouterr()
    main(["ask", "--store", str(store), "--doc", "gfs", "--json", "--answerer", "extractive",
          "How large is each chunk?"])
    data = json.loads(capsys.readouterr().out)
    verdict = data["verdict"]
    assert verdict["state"] in ("supported", "not supported", "unsure") and verdict["reason"]
    [check] = verdict["evidence"]
    assert check["span"] == "64 MB" and check["sentence_id"] in data["citations"][0]["sentence_ids"]
    assert "64 MB" in data["answer"]
    others = verdict["alternatives"]  # the pick's next best sentences, none of them the one quoted
    assert 1 <= len(others) <= 3 and check["sentence_id"] not in {a["sentence_id"] for a in others}
    scores = [a["score"] for a in others]
    assert all(a["quote"] for a in others) and scores == sorted(scores, reverse=True)


def test_the_ask_page_marks_the_question_words_where_the_check_found_them(extractive):
    """The check says where the question's words stand in the cited sentence, in any form, and the Ask page marks
    those: "ran" for the question's "run", which a stem alone does not reach; a word only coreference supplies is
    marked nowhere."""
    from ui.verdict_view import marked_sentence

    context = [SelectedSentence("p/text_0-4", 4, "He ran as fast as he could into the garden of Mr. McGregor.",
                                "Peter ran as fast as Peter could into the garden of Mr. McGregor.", rank=1,
                                similarity=0.5)]
    check = extractive.generate("Where did Peter run?", context).verdict.evidence[0]
    assert check.through_coreference == ["peter"]
    assert [check.sentence[a:b] for a, b in check.word_spans] == ["ran"]
    assert '<mark class="kg-m">ran</mark>' in marked_sentence(check)


def test_a_month_is_no_person_and_a_pronoun_no_event(extractive):
    """A month the tagger reads as a date names no one ("during the February of which Hawthorne had completed ..."
    was the person who completed something), and a "he" coreference names is someone, not the event asked for
    ("he proffered", resolved to Amory, was the event at which a couple fall out of love)."""
    hawthorne = [SelectedSentence("h/text_0-26", 26, "IN September of the year during the February of which Hawthorne "
                                  "had completed \"The Scarlet Letter,\" he began to write the story.", "", rank=1,
                                  similarity=0.3)]
    check = extractive.generate("Who completed the book?", hawthorne).verdict.evidence[0]
    assert check.span == "Hawthorne"
    said = [SelectedSentence("t/text_13-10", 10, "\"I never fall in love in August or September,\" he proffered.",
                             "\"I never fall in love in August or September,\" Amory proffered.", rank=1,
                             similarity=0.4)]
    check = extractive.generate("At which event do the couple fall out of love?", said).verdict.evidence[0]
    assert check.span == "" and check.span_refers == ""
    dog = [SelectedSentence("c/text_2-3", 3, "He led the team down the trail.", "Buck led the team down the trail.",
                            rank=1, similarity=0.4)]
    check = extractive.generate("Which dog led the team?", dog).verdict.evidence[0]
    assert check.span == "He" and check.span_refers == "Buck"


def test_a_span_does_not_begin_inside_a_written_word(extractive):
    """"text-embedding-ada-002 model" was cut to "ada-002 model" because the question says "embedding": a span
    starts where its word starts, through hyphens; it still ends where the name ends ("Paris" of "Paris-based")."""
    context = [SelectedSentence("r/text_0-90", 90, "We compute the similarity using the text-embedding-ada-002 model.",
                                "", rank=1, similarity=0.5)]
    check = extractive.generate("Which embedding model is used to compare the questions?", context).verdict.evidence[0]
    assert check.span == "text-embedding-ada-002 model"


def test_a_word_an_idiom_empties_is_not_the_question_word(extractive):
    """"Sophy and I cannot help thinking Frederick's manners better" helps no one, and "I declare, Charles" declares
    nothing: the check does not claim the question's "help" or "declare" there, and the answer quotes the sentence
    where Frederick does help."""
    idiom = SelectedSentence("p/text_11-87", 87, "Sophy and I cannot help thinking Frederick's manners better "
                             "than his.", "", rank=1, similarity=0.5)
    helped = SelectedSentence("p/text_23-40", 40, "Frederick wrote to the agent and helped Mrs. Smith recover her "
                              "property.", "", rank=2, similarity=0.4)
    check = extractive.generate("How does Frederick help Mrs. Smith?", [idiom]).verdict.evidence[0]
    assert check.matched == ["frederick"] and "help" in check.missing
    answer = extractive.generate("How does Frederick help Mrs. Smith?", [idiom, helped])
    assert answer.verdict.evidence[0].sentence_id == "p/text_23-40"
    said = [SelectedSentence("p/text_8-89", 89, "\"I declare, Charles, I never heard him mention Anne twice.\"", "",
                             rank=1, similarity=0.5)]
    check = extractive.generate("How does Wentworth declare his love for Anne?", said).verdict.evidence[0]
    assert "declare" not in check.matched and "anne" in check.matched
    resolved = [SelectedSentence("p/text_8-89", 89, said[0].text, "\"Mary declare, Charles, Mary never heard him "
                                 "mention Anne twice.\"", rank=1, similarity=0.5)]
    check = extractive.generate("How does Wentworth declare his love for Anne?", resolved).verdict.evidence[0]
    assert "declare" not in check.matched  # the speaker's name coreference writes for "I" is still "I"


@pytest.mark.parametrize("question, sentence, word", [
    ("How did the defense prove Clifford innocent?", "The new witness proved Clifford innocent.", "prove"),
    ("Which lemma is hard to prove?", "Lemma 3 is hard to prove.", "prove"),
    ("Why did Anne not help Frederick?", "Anne did not help Frederick, but she wrote to him.", "help"),
    ("What did the critics declare?", "Critics declare, however, that the novel is a masterpiece.", "declare"),
])
def test_a_word_in_its_own_sense_stays_the_question_word(extractive, question, sentence, word):
    """A question's word used in its own sense, in the question and in the sentence, is matched: the idioms that
    empty "prove", "help" and "declare" need their own shape (nothing proved by a thing, a gerund after a negated
    help, "I declare" with nothing declared)."""
    context = [SelectedSentence("d/text_0-1", 1, sentence, "", rank=1, similarity=0.5)]
    check = extractive.generate(question, context).verdict.evidence[0]
    assert word in check.matched, (check.matched, check.missing)


def test_a_count_of_things_is_no_age_and_a_belief_is_named_not_answered(extractive):
    """"How old was Peter?" is not answered by "upsetting three plants" (a count of things is no age; "five years
    old" is one); "Where did Peter hide?" on "McGregor was sure that Peter was in the tool-shed" is refused, and the
    reason names the place as what someone believes instead of saying there is none, and does not print its
    strength as if it were under the threshold."""
    plants = [SelectedSentence("p/text_0-1", 1, "Peter jumped out of a window, upsetting three plants.", "", rank=1,
                               similarity=0.5)]
    answer = extractive.generate("How old was Peter?", plants)
    assert answer.verdict.state == "not supported" and answer.verdict.evidence[0].span == ""
    aged = [SelectedSentence("p/text_0-2", 2, "Peter was five years old that summer.", "", rank=1, similarity=0.5)]
    assert extractive.generate("How old was Peter?", aged).verdict.evidence[0].span == "five years"
    sure = [SelectedSentence("p/text_0-3", 3, "Mr. McGregor was quite sure that Peter was somewhere in the "
                             "tool-shed, perhaps hidden underneath a flower-pot.", "", rank=1, similarity=0.5)]
    verdict = extractive.generate("Where did Peter hide from Mr. McGregor?", sure).verdict
    assert verdict.state == "not supported" and verdict.evidence[0].believed == "in the tool-shed"
    assert "only what the sentence says someone believes" in verdict.reason
    from kgcore.query.answer.verdict import REFUSED_BELOW

    strength = verdict.evidence[0].strength
    assert (f"< {REFUSED_BELOW}" in verdict.reason) == (strength < REFUSED_BELOW)


def test_a_question_asking_for_several_gets_the_whole_list(extractive):
    """"Who were Peter's sisters?" is answered by the list, not its first name; "Who was ..." keeps one."""
    bunnies = [SelectedSentence("p/text_0-4", 4, "Flopsy, Mopsy, and Cotton-tail, who were good little bunnies, "
                                "went down the lane to gather blackberries.", "", rank=1, similarity=0.5)]
    span = extractive.generate("Who were Peter's sisters?", bunnies).verdict.evidence[0].span
    assert span == "Flopsy, Mopsy, and Cotton-tail"
    assert extractive.generate("Who was Peter's sister?", bunnies).verdict.evidence[0].span == "Flopsy"


@pytest.mark.parametrize("question, sentence, span", [
    # a lower-case word the tagger calls a proper noun names nobody
    ("Who does Mr. Irving marry?", "They are to be married in the garden under the honeysuckle trellis . . . the "
     "very spot where Mr. Irving proposed to her twenty-five years ago.", ""),
    # "in what century" is answered in centuries or years, not by "this time"
    ("In what century was the mill built?", "Well it may, by this time; and no blame to my father who built the "
     "mill, neither!", ""),
    ("In what century was the mill built?", "The mill was built in 1692 by the miller's grandfather.", "1692"),
    ("In what century was the mill built?", "The mill was built in the seventeenth century.",
     "the seventeenth century"),
    ("In what year was the mill built?", "The mill was built one summer long ago.", ""),
    ("When was the mill built?", "The mill was built one summer long ago.", "one summer long ago"),
])
def test_a_name_is_written_as_one_and_a_time_in_the_asked_unit(extractive, question, sentence, span):
    """A person's name has a capital or a figure ("trellis" was taken for the one Mr. Irving marries), and a
    question asking in a calendar unit takes a span in that unit ("by this time" was *unsure* for "in what
    century")."""
    context = [SelectedSentence("d/text_0-1", 1, sentence, "", rank=1, similarity=0.5)]
    verdict = extractive.generate(question, context).verdict
    assert verdict.evidence[0].span == span
    assert (verdict.state == "not supported") == (span == "")


def test_a_number_word_meets_its_figure(extractive):
    """A reader's "30 years" is the book's "thirty years", and the other way round."""
    for question, sentence in [("Who served 30 years in prison?", "Clifford served thirty years in prison."),
                               ("Who served thirty years in prison?", "Clifford served 30 years in prison.")]:
        context = [SelectedSentence("d/text_0-1", 1, sentence, "", rank=1, similarity=0.5)]
        check = extractive.generate(question, context).verdict.evidence[0]
        assert check.missing == [] and len(check.matched) == 4, (check.matched, check.missing)


@pytest.mark.parametrize("question, sentence, span, state", [
    ("How are Beatrice and Amory related?", "Amory adored Beatrice, his mother, above everyone.", "his mother",
     "supported"),
    ("What family relationship does Anne share with William Elliot?", "Anne's cousin, William Elliot, was the heir "
     "of Kellynch.", "Anne's cousin", "supported"),
    ("How are Beatrice and Amory related?", "Beatrice and Amory were married in June.", "married", "supported"),
    ("Who is Elizabeth in relation to Mr. Collins?", "Mr. Collins is a cousin of Mr. Bennet, Elizabeth's father.",
     "cousin of Mr. Bennet, Elizabeth's father", "supported"),
    ("Who is Monsignor Darcy in relation to Amory?", "Monsignor Darcy visited Amory at school.", "",
     "not supported"),
    ("How are Davy and Dora related?", "Davy and Dora are twins.", "twins", "supported"),
    # a relation word must say whose it is: "father" here is nobody's the question names
    ("How are Davy and Dora related?", "Grandma has brought father up her way, and she is helping with Davy and "
     "Dora.", "", "not supported"),
    # "engaged" makes a relation only with "to"
    ("How are Anne and Wentworth related?", "Anne was engaged in conversation with Wentworth.", "", "not supported"),
    # a question naming no one besides a pronoun cannot be checked against the sentence: at most unsure
    ("How are they related?", "She was his mother.", "his mother", "unsure"),
])
def test_a_relation_is_answered_by_a_word_for_one(extractive, question, sentence, span, state):
    """"How are Beatrice and Amory related?" is answered by "his mother" (with whose mother), a verb that makes a
    relation ("married"), or not at all by a sentence that only names them both; "related" and "share", which the
    answer need not repeat, are no words or roles the sentence must hold."""
    context = [SelectedSentence("d/text_0-1", 1, sentence, "", rank=1, similarity=0.5)]
    verdict = extractive.generate(question, context).verdict
    assert (verdict.evidence[0].span, verdict.state) == (span, state), verdict.reason
    if not span:
        assert "holds no tie between people" in verdict.reason


@pytest.mark.parametrize("question, sentence, span, state", [
    ("What is Anne's job?", "Anne was the new schoolteacher at Avonlea.", "schoolteacher", "supported"),
    ("What was Amory's job?", "Amory became a bayonet instructor at a camp in Virginia.", "bayonet instructor",
     "supported"),
    ("What does Mr. Harrison do for a living?", "Mr. Harrison is a farmer who keeps a parrot.", "farmer",
     "supported"),
    ("What is Anne's job?", "Anne shook her head and walked to the school with Diana.", "", "not supported"),
    ("What is Anne's job?", "Anne's father was a teacher.", "teacher", "supported"),
    ("What was his job?", "He was a lawyer in Boston.", "lawyer", "unsure"),
])
def test_a_job_is_answered_by_an_occupation(extractive, question, sentence, span, state):
    """"What is Anne's job?" is answered by a word for an occupation with the nouns that make it one ("bayonet
    instructor"), not by a "head" (WordNet's head of an organisation is first a part of the body) nor by kin
    ("father", whom WordNet also knows as a priest)."""
    context = [SelectedSentence("d/text_0-1", 1, sentence, "", rank=1, similarity=0.5)]
    verdict = extractive.generate(question, context).verdict
    assert (verdict.evidence[0].span, verdict.state) == (span, state), verdict.reason


@pytest.mark.parametrize("question, sentence, matched, missing", [
    ("Who dies in the 3rd chapter?", "Beth dies in the third chapter.", ["die", "3rd", "chapter"], []),
    ("Which model has 1 attention head?", "The large model is the one with sixteen attention heads.",
     ["attention", "head"], ["1"]),  # the pronoun "one" is no figure
    ("In what month did they marry?", "They married in May.", ["marry"], []),  # the sentence need not say "month"
])
def test_figures_ordinals_and_units_are_matched_as_said(extractive, question, sentence, matched, missing):
    context = [SelectedSentence("d/text_0-1", 1, sentence, "", rank=1, similarity=0.5)]
    check = extractive.generate(question, context).verdict.evidence[0]
    assert (check.matched, check.missing) == (matched, missing)


def test_a_lower_cased_text_still_names_people_and_an_empty_sentence_is_no_crash(extractive):
    """"word2vec was proposed by mikolov et al." is lower-cased throughout, so its names are too; a sentence with
    no words gets an answer and a verdict, not an error."""
    context = [SelectedSentence("d/text_0-1", 1, "word2vec was proposed by mikolov et al.", "", rank=1,
                                similarity=0.5)]
    assert extractive.generate("Who proposed word2vec?", context).verdict.evidence[0].span == "mikolov et al"
    for text in ("", "..."):
        empty = [SelectedSentence("d/text_0-1", 1, text, "", rank=1, similarity=0.5)]
        assert extractive.generate("Who is Anne?", empty).verdict.state == "not supported"
