"""Cutting a document into the paper's numbered sentences.

    paragraphs -> chunks (~5000 tokens) -> spaCy sentence boundaries -> merge false splits -> Sentence

Sentence ids are ``{doc_id}/text_{chunk}-{index}`` (the paper's id behind the
document id); ``position`` counts over the whole document.  Every sentence
keeps its provenance: paragraph, section, page, character span in the
document text and role (body, heading, front matter).
"""

from __future__ import annotations

import re

from kgcore.core.errors import InputError
from kgcore.core.nlp import load_spacy
from kgcore.core.types import Document, Paragraph, Sentence, sentence_id
from kgcore.index.clean import ends_with_title

# Components whose output sentence splitting never reads (same sentences without them, ~1/3 faster).
SPLIT_DISABLED_PIPES = ("ner", "lemmatizer", "attribute_ruler", "tagger")
_NON_FINAL_ABBREVIATION_RE = re.compile(r"\b(?:viz|i\.e|e\.g|cf|vs)\.$", re.IGNORECASE)

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


def split_sentences(doc: Document, nlp=None, chunk_tokens: int = 5000) -> list[Sentence]:
    """The document's sentences with ids ``{doc}/text_{chunk}-{index}`` and their provenance.

    Paragraphs are chunked (:func:`chunk_paragraphs`), then split by spaCy
    (parser-based boundaries; ``ner``/``lemmatizer``/tagging are skipped).
    ``index`` restarts in every chunk, ``position`` counts over the whole
    document.  ``resolved`` starts equal to ``normalized``; coreference
    fills it later.
    """
    if nlp is None:
        nlp = load_spacy()
    chunks = _chunk_pieces(paragraph_pieces(doc.paragraphs, chunk_tokens), chunk_tokens)
    located = [(c, piece) for c, chunk in enumerate(chunks) for piece in chunk]
    disabled = [name for name in SPLIT_DISABLED_PIPES if name in nlp.pipe_names]
    parsed = nlp.pipe((text for _, (_, text, _) in located), batch_size=64, disable=disabled)
    sentences: list[Sentence] = []
    per_chunk: dict[int, int] = {}
    for (chunk, (number, text, offset)), spacy_doc in zip(located, parsed):
        paragraph = doc.paragraphs[number]
        base = paragraph.start + offset if paragraph.start >= 0 and offset >= 0 else -1
        for start, end in merge_false_splits([(s.start_char, s.end_char) for s in spacy_doc.sents], text):
            original = text[start:end].strip()
            if not any(ch.isalnum() for ch in original):
                continue
            index = per_chunk.get(chunk, 0)
            per_chunk[chunk] = index + 1
            begin = base + start + (len(text[start:end]) - len(text[start:end].lstrip())) if base >= 0 else -1
            normalized = normalize_sentence(original)
            sentences.append(Sentence(
                sentence_id(chunk, index, doc.name), chunk, index, len(sentences), original, normalized, normalized,
                doc.name, number, paragraph.section, paragraph.page, begin, begin + len(original) if begin >= 0 else -1,
                paragraph.kind,
            ))
    return sentences


def merge_false_splits(spans: list[tuple[int, int]], text: str) -> list[tuple[int, int]]:
    """Join sentence spans that a statistical splitter cut in the wrong place.

    A span is glued to the previous one when the previous ends with a title
    ("Mrs.") and this one starts upper-case, when the previous has no
    sentence-final punctuation and this one starts lower-case, or when this
    one is only punctuation (a stray closing quote).

    >>> text = "It was Mrs. McGregor. She asked the way but he ran."
    >>> spans = [(0, 11), (12, 21), (22, 39), (40, 51)]
    >>> [text[a:b] for a, b in merge_false_splits(spans, text)]
    ['It was Mrs. McGregor.', 'She asked the way but he ran.']
    """
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and _continues(text[merged[-1][0] : merged[-1][1]].rstrip(), text[start:end].strip()):
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def _continues(previous: str, current: str) -> bool:
    if not any(ch.isalnum() for ch in current):
        return True
    if ends_with_title(previous):
        return current[:1].isupper()
    if _NON_FINAL_ABBREVIATION_RE.search(previous):
        return True  # "by this one thing--viz. that ..."
    return current[:1].islower() and not re.search(r"[.!?][\"'\u201d\u2019)\]]*$", previous)
