"""Cutting a document into the paper's numbered sentences.

    paragraphs -> chunks (~5000 tokens) -> spaCy sentence boundaries -> merge false splits -> Sentence

Sentence ids are ``{doc_id}/text_{chunk}-{index}`` (the paper's id behind the
document id); ``position`` counts over the whole document.  Every sentence
keeps its provenance: paragraph, section, page, character span in the
document text and role (body, heading, front matter).
"""

from __future__ import annotations

import re

from kgcore.core.document import Document, LineBox, Paragraph
from kgcore.core.errors import InputError
from kgcore.core.nlp import load_spacy
from kgcore.core.settings import Settings
from kgcore.core.types import EQUATION, FIGURE, HEADER_FOOTER, PARSED, REFERENCE, TABLE, Sentence, sentence_id
from kgcore.index.bounds import SERIAL, Parallel, cap_spans
from kgcore.index.clean import ends_with_title
from kgcore.index.narrator import outside_quotes
from kgcore.index.parallel import pipe_mapped
from kgcore.index.pdf.citations import resolve
from kgcore.index.pdf.extract import FOOTNOTE_MARK

#: Roles whose paragraphs are never cut by spaCy (a table is cut by its rows).
WHOLE_ROLES = frozenset({TABLE, EQUATION, FIGURE, HEADER_FOOTER, REFERENCE})
# Components whose output sentence splitting never reads (same sentences without them, ~1/3 faster).
SPLIT_DISABLED_PIPES = ("ner", "lemmatizer", "attribute_ruler", "tagger")
#: Abbreviations after which a sentence never ends ("et al." is always followed by its citation or more text).
_NON_FINAL_ABBREVIATION_RE = re.compile(r"\b(?:viz|i\.e|e\.g|cf|vs|et al|resp|approx|w\.r\.t)\.$", re.IGNORECASE)
#: Scholarly references to numbered things: a number (or bracket) follows ("Fig. 3", "Eq. (2)", "Sec. 4.1").
_NUMBERED_ABBREVIATION_RE = re.compile(
    r"\b(?:Figs?|Eqs?|Secs?|Sects?|Tabs?|Refs?|Thm|Lem|Def|Alg|Ch|Apps?|Appx|No|pp|p|Vol|Nos?)\.$", re.IGNORECASE)
#: A single capital initial ("J. Smith", "by A. B. Jones"); not "I" ("so said I. Then ...").
_INITIAL_RE = re.compile(r"(?:^|[\s(\[])[A-HJ-Z]\.$")
#: A span that is only citation markers ("[47].", "[3, 7-9]", "(Lewis et al., 2020; Guu et al., 2020).").
_CITATION_ONLY = re.compile(r"^(?:\s*(?:\[[\d\s,;–—-]{1,60}\]|\([^()]{1,200}?(?:19|20)\d{2}[a-z]?\)))+\s*[.,;:]?$")
#: A citation marker opening a span: "[17]", "[9, 23]", "[Lam78]", "(Smith et al., 2003)".
_LABEL = r"[A-Z][A-Za-z+]*\d{2,4}[a-z]?"
CITATION_START = re.compile(rf"^(?:\[[\d\s,;–—-]{{1,60}}\]|\[{_LABEL}(?:[,;]\s*{_LABEL})*\]"
                            r"|\([^()]{1,200}?(?:19|20)\d{2}[a-z]?\))")
#: A quotation's closing mark followed by a lower-case dialogue tag (the tail of '"Who?" moaned Richard.').
_DIALOGUE_TAG = re.compile(r"^[\"\u201d]\s+[a-z]")
#: A full stop, with any closing marks after it: a lower-case span after it stays a sentence of its own ('"Yes." why
#: not.'); after "!", "?" or a quotation closed by them or a comma it goes on ('But alas!' + 'a few days wore it all
#: off', '"I swore not to tell!"' + 'gasped Meg.').
_FULL_STOP = re.compile(r"\.[\"'\u201d\u2019)\]]*$")
#: A short aside in brackets closed right after an abbreviation's dot ("(#Input Tok.)", "(resp.)"), ending a span.
_ABBREVIATED_ASIDE = re.compile(r"[(\[][^()\[\]]{0,30}\b[A-Za-z]{1,5}\.[)\]]$")
#: An ellipsis or a list item's number ("2.") ending a span: a lower-case span after it goes on.
_RUNS_ON_END = re.compile(r"(?:\.\s?\.\s?\.|…|(?:^|\s)\d{1,2}\.)[\"'\u201d\u2019]?$")
#: Closing quotation marks a splitter left at the start of the next span, glued to the stop they follow
#: ('leave."[5]', 'him."--The Persian'); not an apostrophe that begins a word.
_GLUED_CLOSE = re.compile(r"[\"\u201d\u2019']+(?!\w)")
#: What an opening quotation mark may be, when a splitter left it at the end of a span ("DIRECTION. 'Erik,'").
_OPEN_MARKS = "\"'\u201c\u2018"
#: A dash and one word, all that is left of "--The Persian, by the way, ..." after its cut '"' went back.
_DASH_FRAGMENT = re.compile(r"^(?:-{2,}|[\u2013\u2014])\w+$")
#: A web address or file path that a line break cut after a dot ("https://github.com/…/README." + "md.").
_ADDRESS_END = re.compile(r"(?:https?://|www\.|\w/)\S*\.$")
_ADDRESS_TAIL = re.compile(r"^[a-z]{1,5}\b")
#: Longest joined span when brackets are unbalanced (a stray "(" must not swallow a paragraph).
MAX_BRACKET_JOIN = 600

def chunk_paragraphs(paragraphs, max_tokens: int = 5000) -> list[list[str]]:
    """Group paragraphs into chunks of at most ``max_tokens`` whitespace tokens.

    This approximates the paper's LangChain recursive splitter (~5000
    tokens, paragraph boundaries first, no overlap).  A paragraph longer
    than ``max_tokens`` is split after sentence ends (". ") instead of
    being dropped.

    >>> chunk_paragraphs(["a b", "c d", "e"], max_tokens=4)
    [['a b', 'c d'], ['e']]
    >>> chunk_paragraphs(["One two. Three four. Five."], max_tokens=3)
    [['One two.'], ['Three four. Five.']]
    """
    _check_max_tokens(max_tokens)
    pieces = [(0, piece, 0) for paragraph in paragraphs for piece in _split_oversize(paragraph, max_tokens)]
    return [[text for _, text, _ in chunk] for chunk in _chunk_pieces(pieces, max_tokens)]


#: A piece of a paragraph: (paragraph index, text, offset of the text in the paragraph or -1).
Piece = tuple[int, str, int]


def _check_max_tokens(max_tokens: int) -> None:
    if max_tokens < 1:
        raise InputError("max_tokens", f"must be at least 1, got {max_tokens}")


def _chunk_pieces(pieces: list[Piece], max_tokens: int) -> list[list[Piece]]:
    _check_max_tokens(max_tokens)
    chunks: list[list[Piece]] = []
    size = 0
    for piece in pieces:
        tokens = len(piece[1].split())
        if not chunks or size + tokens > max_tokens:
            chunks.append([])
            size = 0
        chunks[-1].append(piece)
        size += tokens
    return chunks


def paragraph_pieces(paragraphs: tuple[Paragraph, ...], max_tokens: int) -> list[Piece]:
    """Every paragraph as one piece, or cut into pieces of at most ``max_tokens`` words, with offsets.

    >>> paragraph_pieces((Paragraph("One two. Three four."),), 2)
    [(0, 'One two.', 0), (0, 'Three four.', 9)]
    """
    _check_max_tokens(max_tokens)
    pieces = []
    for number, paragraph in enumerate(paragraphs):
        cursor = 0
        for text in _split_oversize(paragraph.text, max_tokens):
            offset = paragraph.text.find(text, cursor)
            pieces.append((number, text, offset))
            cursor = offset + len(text) if offset >= 0 else cursor
    return pieces


def _split_oversize(paragraph: str, max_tokens: int) -> list[str]:
    if len(paragraph.split()) <= max_tokens:
        return [paragraph]
    pieces: list[list[str]] = [[]]
    for sentence in re.split(r"(?<=[.!?])\s+", paragraph):
        words = sentence.split()
        for start in range(0, len(words), max_tokens):  # a sentence longer than a chunk is cut by words
            window = words[start : start + max_tokens]
            if len(pieces[-1]) + len(window) > max_tokens:
                pieces.append([])
            pieces[-1].extend(window)
    return [" ".join(words) for words in pieces if words]


_DASHES = re.compile(r"\s*(?:--+|\u2014)\s*")
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
                         "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"'})


def normalize_sentence(text: str) -> str:
    """Collapse whitespace, straighten curly quotes and detach dashes.

    Gutenberg writes dashes as ``--`` glued to words ("and--Jumped"), which
    spaCy reads as one odd token and then misparses the whole clause.

    >>> normalize_sentence("  \\u201cDon\\u2019t,\\u201d  she\\n said. ")
    '"Don\\'t," she said.'
    >>> normalize_sentence("the tool-shed and--Jumped")
    'the tool-shed and -- Jumped'
    """
    return " ".join(_DASHES.sub(" -- ", text.translate(_QUOTES)).split())


def _sentence_spans(doc) -> list[tuple[int, int]]:
    return [(s.start_char, s.end_char) for s in doc.sents]


def split_sentences(doc: Document, nlp=None, chunk_tokens: int = 5000,
                    max_words: int = Settings.max_sentence_words, parallel: Parallel = SERIAL) -> list[Sentence]:
    """The document's sentences with ids ``{doc}/text_{chunk}-{index}`` and their provenance.

    Paragraphs are chunked (:func:`chunk_paragraphs`); prose is split by
    spaCy (parser-based boundaries; ``ner``/``lemmatizer``/tagging are
    skipped), a table by its rows, and a reference entry, an equation or the
    text of a figure stays whole.  ``index`` restarts in every chunk,
    ``position`` counts over the whole document.  ``resolved`` starts equal
    to ``normalized``; coreference fills it later.  A sentence longer than
    ``max_words`` words is cut into clauses (:func:`kgcore.index.bounds.cap_spans`).
    """
    if nlp is None:
        nlp = load_spacy()
    chunks = _chunk_pieces(paragraph_pieces(doc.paragraphs, chunk_tokens), chunk_tokens)
    located = [(c, piece) for c, chunk in enumerate(chunks) for piece in chunk]
    prose = [i for i, (_, (number, _, _)) in enumerate(located) if doc.paragraphs[number].kind not in WHOLE_ROLES]
    disabled = [name for name in SPLIT_DISABLED_PIPES if name in nlp.pipe_names]
    found = pipe_mapped(nlp, [located[i][1][1] for i in prose], disabled, _sentence_spans,
                        parallel.processes_for(len(prose)), timeout_s=parallel.timeout_s)
    spans_of = dict(zip(prose, found))
    sentences: list[Sentence] = []
    per_chunk: dict[int, int] = {}
    for i, (chunk, (number, text, offset)) in enumerate(located):
        paragraph = doc.paragraphs[number]
        spans = (merge_false_splits(whole_tokens(spans_of[i], text), text) if i in spans_of
                 else _whole_spans(paragraph, text, offset))
        spans = cap_spans(spans, text, max_words)
        for start, end in spans:
            if not any(ch.isalnum() for ch in text[start:end]):
                continue
            index = per_chunk.get(chunk, 0)
            per_chunk[chunk] = index + 1
            sentences.append(_sentence(doc, (chunk, index, len(sentences)), number, text, offset, start, end))
    return sentences


def _whole_spans(paragraph: Paragraph, text: str, offset: int) -> list[tuple[int, int]]:
    """One span per table row, else the whole piece."""
    if paragraph.kind != TABLE or len(paragraph.lines) < 2:
        return [(0, len(text))]
    starts = sorted({max(0, line.start - offset) for line in paragraph.lines if 0 <= line.start - offset < len(text)})
    return [(a, b) for a, b in zip(starts, starts[1:] + [len(text)]) if b > a]


def _sentence(doc: Document, where: tuple[int, int, int], number: int, text: str, offset: int, start: int,
              end: int) -> Sentence:
    """The sentence ``text[start:end]`` of paragraph ``number`` (a piece of it starting at ``offset``)."""
    chunk, index, position = where
    paragraph = doc.paragraphs[number]
    raw = text[start:end]
    original = raw.strip()
    local = offset + start + len(raw) - len(raw.lstrip()) if offset >= 0 else -1
    begin = paragraph.start + local if paragraph.start >= 0 and local >= 0 else -1
    normalized = normalize_sentence(original)
    citations = resolve(original, doc.references) if doc.references and paragraph.kind in PARSED else ()
    boxes = tuple((b.page, *b.box) for b in _lines_of(paragraph, local, local + len(original)))
    return Sentence(sentence_id(chunk, index, doc.name), chunk, index, position, original, normalized, normalized,
                    doc.name, number, paragraph.section, paragraph.page, begin,
                    begin + len(original) if begin >= 0 else -1, paragraph.kind, citations, boxes)


def _lines_of(paragraph: Paragraph, start: int, end: int) -> list[LineBox]:
    """The printed lines of a paragraph that hold some of ``[start, end)`` (offsets in the paragraph)."""
    if start < 0 or not paragraph.lines:
        return []
    bounds = [line.start for line in paragraph.lines[1:]] + [len(paragraph.text)]
    return [line for line, stop in zip(paragraph.lines, bounds) if line.start < end and stop > start]


def whole_tokens(spans: list[tuple[int, int]], text: str) -> list[tuple[int, int]]:
    """Sentence spans moved where a splitter cut between a stop and the marks glued to it, with no space between.

    Closing quotation marks at the start of a span go back to the sentence they close ('leave."[5]' was cut as
    'leave.' + '"[5]'); an opening mark at the end of a span goes on to the sentence it opens ("DIRECTION. 'Erik,'"
    was cut as "DIRECTION. '" + "Erik,'"); and what a dash and one word are left of a sentence ('him."--The' +
    'Persian, by the way, ...') joins the rest of it.  Spans that meet at a space are left as they are.

    >>> text = 'I see. "You will."[5] He left.'
    >>> [text[a:b] for a, b in whole_tokens([(0, 17), (17, 21), (22, 30)], text)]
    ['I see. "You will."', '[5]', 'He left.']
    >>> text = "Hush. 'Erik,' I cried."
    >>> [text[a:b] for a, b in whole_tokens([(0, 7), (7, 22)], text)]
    ['Hush.', "'Erik,' I cried."]
    >>> text = '"It was him."--The Persian, by the way, smiled.'
    >>> [text[a:b] for a, b in whole_tokens([(0, 12), (12, 18), (19, 47)], text)]
    ['"It was him."', '--The Persian, by the way, smiled.']
    """
    out = [list(span) for span in spans]
    for k in range(1, len(out)):
        before, after = out[k - 1], out[k]
        joint = before[1]
        if joint != after[0] or not 0 < joint < len(text) or text[joint - 1].isspace() or text[joint].isspace():
            continue
        close = _GLUED_CLOSE.match(text, joint, after[1])
        if close:
            before[1] = after[0] = close.end()
        elif text[joint - 1] in _OPEN_MARKS and (joint - 1 == before[0] or text[joint - 2].isspace()):
            before[1], after[0] = before[0] + len(text[before[0]:joint - 1].rstrip()), joint - 1
        if k + 1 < len(out) and _DASH_FRAGMENT.match(text[after[0]:after[1]].strip()):
            out[k + 1][0], after[1] = after[0], after[0]
    return [(a, b) for a, b in out if b > a]


def merge_false_splits(spans: list[tuple[int, int]], text: str) -> list[tuple[int, int]]:
    """Join sentence spans that a statistical splitter cut in the wrong place.

    A span is glued to the previous one when the previous ends with a title
    ("Mrs.") and this one starts upper-case, when this one starts lower-case
    and the previous does not end with a full stop (after "!", "?" or a
    quotation closed by them or a comma, the sentence or its dialogue tag goes
    on), or when this one is only punctuation (a stray closing quote), or
    when this one is the (closing quote and) lower-case dialogue tag of the
    previous one's quotation.

    A footnote mark alone ("2", "†") opens the sentence after it; a citation
    marker ("[17]", "(Smith et al., 2003)") never opens one.

    Scholarly text adds: never after "et al.", "e.g.", "i.e.", "cf.", "vs.";
    not after "Fig."/"Eq."/"Sec." when a number or bracket follows; not after
    an initial when a capital follows; not inside an open bracket.

    >>> text = "It was Mrs. McGregor. She asked the way but he ran."
    >>> spans = [(0, 11), (12, 21), (22, 39), (40, 51)]
    >>> [text[a:b] for a, b in merge_false_splits(spans, text)]
    ['It was Mrs. McGregor.', 'She asked the way but he ran.']
    >>> text = "Retrieval helps [47]. [48]. So it does."
    >>> [text[a:b] for a, b in merge_false_splits([(0, 15), (16, 21), (22, 27), (28, 39)], text)]
    ['Retrieval helps [47]. [48].', 'So it does.']
    >>> text = '"Well, who could have thought it?" moaned Richard. "But do not be afraid."'
    >>> [text[a:b] for a, b in merge_false_splits([(0, 33), (33, 50), (51, 74)], text)]
    ['"Well, who could have thought it?" moaned Richard.', '"But do not be afraid."']
    >>> text = '"I swore not to tell!" gasped Meg.'
    >>> [text[a:b] for a, b in merge_false_splits([(0, 22), (23, 34)], text)]
    ['"I swore not to tell!" gasped Meg.']
    >>> text = "But alas! a few days wore it off. Yes. why not."
    >>> [text[a:b] for a, b in merge_false_splits([(0, 9), (10, 33), (34, 38), (39, 47)], text)]
    ['But alas! a few days wore it off.', 'Yes.', 'why not.']
    >>> text = "It is shorter. 2 Strictly speaking, it is not."
    >>> [text[a:b] for a, b in merge_false_splits([(0, 14), (15, 16), (17, 46)], text)]
    ['It is shorter.', '2 Strictly speaking, it is not.']
    >>> text = "As Lewis et al. (2020) show in Fig. 3 and J. Smith (see Sec. 2. Here) too. Done."
    >>> spans = [(0, 15), (16, 35), (36, 48), (49, 61), (62, 74), (75, 80)]
    >>> [text[a:b] for a, b in merge_false_splits(spans, text)]
    ['As Lewis et al. (2020) show in Fig. 3 and J. Smith (see Sec. 2. Here) too.', 'Done.']
    """
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        previous = text[merged[-1][0] : merged[-1][1]].strip() if merged else ""
        if merged and (FOOTNOTE_MARK.match(previous) or _continues(previous, text[start:end].strip())):
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def _continues(previous: str, current: str) -> bool:
    """Whether ``current``, a span the splitter cut, goes on from ``previous`` (see :func:`merge_false_splits`).

    >>> _continues("It is faster (#Input Tok.)", "than the LLM."), _continues("(See Fig. 3.)", "then it ends.")
    (True, False)
    """
    if not any(ch.isalnum() for ch in current) or _CITATION_ONLY.match(current):
        return True  # a stray closing quote; "[47]." or "(Ho et al., 2020)." cut off the claim it supports
    if CITATION_START.match(current):
        return True  # "... the Google File System (GFS)" + "[17] to store log and data files."
    if current[:1] in ",;:":
        return True  # no sentence starts there: 'a warning "... adviser."' + '; and (e) if the Offer ...'
    if _DIALOGUE_TAG.match(current) and outside_quotes(previous)[1]:  # the previous one ends inside a quotation
        return True  # '"Well, who could have thought it?' + '" moaned Richard.': the tag belongs to its speech
    if ends_with_title(previous):
        return current[:1].isupper()
    if _NON_FINAL_ABBREVIATION_RE.search(previous):
        return True  # "by this one thing--viz. that ...", "Lewis et al. (2020) show"
    if _NUMBERED_ABBREVIATION_RE.search(previous) and current[:1] in "0123456789([":
        return True
    if _INITIAL_RE.search(previous) and current[:1].isupper():
        return True
    if _unclosed(previous) and len(previous) + len(current) < MAX_BRACKET_JOIN:
        return True  # a split inside "(see Sec. 3. Results ...)" or "[12. 13]"
    # '"I swore not to tell!"' + 'gasped Meg.' (62 such cuts in The Phantom of the Opera), 'But alas!' + 'a few
    # days wore it all off' (32 in Robinson Crusoe); "Yes." + "why not." stays two
    if address_cut(previous, current):
        return True
    if current[:1].islower() and _RUNS_ON_END.search(previous):
        return True  # '... think about programs. . .' + 'conventional languages ...'; 'storage 4.' + 'a base set ...'
    if current[:1].islower() and _ABBREVIATED_ASIDE.search(previous):
        return True  # '... more efficiently (#Input Tok.)' + 'than the LLM': an abbreviation closed the aside
    return current[:1].islower() and not _FULL_STOP.search(previous)


def address_cut(previous: str, current: str) -> bool:
    """Whether a splitter cut a web address or file path that a line break left with a space after a dot.

    >>> address_cut("see github.com/fairseq/ blob/master/README.", "md.")
    True
    >>> address_cut("It runs.", "md files are text.")
    False
    """
    last = previous.rsplit(None, 1)[-1] if previous.strip() else ""  # the address is one token: never rescan all
    return bool(_ADDRESS_TAIL.match(current) and _ADDRESS_END.search(last))


def _unclosed(text: str) -> bool:
    """Whether ``text`` opens more round or square brackets than it closes."""
    return text.count("(") > text.count(")") or text.count("[") > text.count("]")
