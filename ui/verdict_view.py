"""The verdict on an answer as HTML (pure: no streamlit): its state, its reason and, claim by claim, the evidence
it checked -- which cited sentence, which of the question's words it holds, which span holds the kind of answer
the question asks for.

In the cited sentence the answer-type span is marked ``kg-span`` and the question's words ``kg-m``:

>>> from kgcore.core.verdicts import ClaimCheck, Verdict
>>> check = ClaimCheck("Like AFS, we use standard copy-on-write techniques to implement snapshots.", "gfs/text_0-7",
...                    "Like AFS, we use standard copy-on-write techniques to implement snapshots.", ["snapshot"],
...                    ["technique"], "a name or term (the technique)", "standard copy-on-write techniques", 17, 50,
...                    answers_question="What do we use to implement snapshots?", question_cosine=0.71,
...                    state="supported", strength=2.6)
>>> html = verdict_html(Verdict("supported", "Supported: ...", [check], 2.6), {"gfs/text_0-7": 3})
>>> '<mark class="kg-span" title="a name or term (the technique)">standard copy-on-write techniques</mark>' in html
True
>>> '<mark class="kg-m">snapshots</mark>' in html and 'href="#s-gfs-text_0-7"' in html and ">[3]</a>" in html
True

A span that says the size of the very thing the question measures, and a role left unfilled, are said:

>>> size = ClaimCheck("From the corpus of 100 million sentences.", "p/text_0-93", "From the corpus of 100 million "
...                   "sentences.", ["corpus"], span="100 million sentences", span_start=19, span_end=40,
...                   measured="corpus", unfilled_role="the object of “use”")
>>> html = claim_html(size, {})
>>> "(a measure of the “corpus” the question asks about)" in html and "roles: nothing in it stands" in html
True
>>> "occasion: the question says “originally”" in claim_html(ClaimCheck("", "h/1", "Reid owns it.",
...                                                                    occasion="originally"), {})
True

A span that names the answer through coreference says whom it stands for:

>>> rescue = ClaimCheck("He rowed out.", "h/1", "He rowed out.", span="He", span_start=0, span_end=2,
...                     span_refers="Tomas")
>>> "(coreference: “Tomas”)" in claim_html(rescue, {})
True

A plain noun phrase found for "what <noun>" is said to be only a term the sentence introduces:

>>> term = ClaimCheck("A ruinous little structure.", "h/3", "A ruinous little structure.", span="ruinous little "
...                   "structure", span_start=2, span_end=26, span_introduced=True)
>>> said = "ruinous little structure</mark> (a term the sentence introduces, not said to be the asked thing)"
>>> said in claim_html(term, {})
True

A span the sentence holds only inside someone's belief is named, as no answer:

>>> sure = ClaimCheck("He was sure Peter was in the shed.", "h/4", "He was sure Peter was in the shed.",
...                   believed="in the shed")
>>> "answer span: none found (only “in the shed”, inside what someone believes)" in claim_html(sure, {})
True

The question's words are listed as the sentence holds them: another form of a word with the form, a word only
coreference supplies apart:

>>> lived = ClaimCheck("He was a resident.", "h/2", "He was a resident.", ["reside", "anne"],
...                    written_as={"reside": "resident"}, through_coreference=["anne"])
>>> "question words found: reside as “resident”; through coreference: anne" in claim_html(lived, {})
True
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from kgcore.api import Alternative, ClaimCheck, Verdict, found_words, stem

from .markup_html import anchor_id, badge, esc

STATE_LABELS = {"supported": "Supported", "not supported": "Not supported", "unsure": "Unsure"}
STATE_CSS = {"supported": "kg-v-yes", "not supported": "kg-v-no", "unsure": "kg-v-unsure"}
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’-]*")


def word_spans(check: ClaimCheck) -> list[tuple[int, int]]:
    """Character spans of the cited sentence holding the question's words the check found: where the check says
    they stand (in any form: "ran" for "run"), or for a check saved before it said so, the sentence's words that
    share a stem with them ("snapshot" marks "snapshots").

    >>> word_spans(ClaimCheck("", sentence="She ran home.", matched=["run"], word_spans=[[4, 7]]))
    [(4, 7)]
    >>> word_spans(ClaimCheck("", sentence="We use copy-on-write techniques.", matched=["technique", "use"]))
    [(3, 6), (21, 31)]
    """
    if check.word_spans or not check.matched:
        return [(a, b) for a, b in check.word_spans]
    wanted = {stem(w.lower()) for w in check.matched}
    return [(m.start(), m.end()) for m in _WORD.finditer(check.sentence) if stem(m.group().lower()) in wanted]


def marked_sentence(check: ClaimCheck) -> str:
    """The cited sentence, escaped, with the answer-type span and the question's words marked."""
    text = check.sentence
    marks: list[tuple[int, int, str]] = []
    if 0 <= check.span_start < check.span_end <= len(text):
        marks.append((check.span_start, check.span_end, "span"))
    for start, end in word_spans(check):
        if not any(a < end and start < b for a, b, _ in marks):
            marks.append((start, end, "word"))
    out, at = [], 0
    for start, end, kind in sorted(marks):
        out.append(esc(text[at:start]))
        tip = f' title="{esc(check.expected)}"' if kind == "span" else ""
        out.append(f'<mark class="{"kg-span" if kind == "span" else "kg-m"}"{tip}>{esc(text[start:end])}</mark>')
        at = end
    out.append(esc(text[at:]))
    return "".join(out)


def claim_html(check: ClaimCheck, numbers: Mapping[str, int], anchor_prefix: str = "s", claims: int = 1) -> str:
    """One claim's evidence: what it cites, the words found, the span found, the figures."""
    state = badge(STATE_LABELS.get(check.state, check.state), f"kg-badge {STATE_CSS.get(check.state, '')}")
    head = f'<div class="kg-claim-head">{state} '
    if claims > 1 or check.grounded is not None:
        head += f"<em>“{esc(check.claim)}”</em> "
    if check.sentence_id is None:
        return f'<div class="kg-claim">{head}cites no retrieved sentence.</div></div>'
    head += f"checked against {sentence_link(check.sentence_id, numbers, anchor_prefix)}</div>"
    span = f'<mark class="kg-span">{esc(check.span)}</mark>' if check.span else "none found"
    if check.believed:
        span += f" (only “{esc(check.believed)}”, inside what someone believes)"
    if check.span_refers:
        span += f" (coreference: “{esc(check.span_refers)}”)"
    if check.span_introduced:
        span += " (a term the sentence introduces, not said to be the asked thing)"
    if check.measured:
        span += f" (a measure of the “{esc(check.measured)}” the question asks about)"
    facts = [f"asks for: {esc(check.expected or 'anything')}", f"answer span: {span}",
             f"question words found: {esc(found_words(check)) if check.matched else 'none'}"
             + (f" · not found: {esc(', '.join(check.missing))}" if check.missing else "")]
    if check.grounded is not None:
        facts.append(f"claim words in the cited sentences: {check.grounded:.0%}")
    if check.answers_question and check.question_cosine is not None:
        facts.append(f"closest question generated from its parse: “{esc(check.answers_question)}” "
                     f"(cosine {check.question_cosine:.2f})")
    if check.strength is not None:
        facts.append(f"strength of the evidence: {check.strength:.2f}")
    if check.unfilled_role:
        facts.append(f"roles: nothing in it stands where the question asks ({esc(check.unfilled_role)})")
    if check.occasion:
        facts.append(f"occasion: the question says “{esc(check.occasion)}”, the sentence does not")
    items = "".join(f"<li>{f}</li>" for f in facts)
    return (f'<div class="kg-claim">{head}<blockquote class="kg-evidence">{marked_sentence(check)}</blockquote>'
            f'<ul class="kg-facts">{items}</ul></div>')


def verdict_html(verdict: Verdict, numbers: Mapping[str, int], anchor_prefix: str = "s") -> str:
    """The verdict's evidence, claim by claim (the reason is shown apart, by the state's own box)."""
    checks = verdict.evidence
    if not checks:
        return ""
    body = "".join(claim_html(c, numbers, anchor_prefix, len(checks)) for c in checks)
    return f'<div class="kg-verdict">{body}</div>'


def sentence_link(sentence_id: str, numbers: Mapping[str, int], anchor_prefix: str = "s") -> str:
    """The sentence's number in the context as a link to it there (its id, escaped, when it has no number); the
    anchor is the sentence list's own (:func:`~ui.markup_html.anchor_id`)."""
    number, sid = numbers.get(sentence_id), esc(sentence_id)
    return f'<a class="kg-cite" href="#{anchor_id(sentence_id, anchor_prefix)}" title="{sid}">[{number}]</a>' \
        if number else sid


def alternatives_html(alternatives: Sequence[Alternative], numbers: Mapping[str, int], anchor_prefix: str = "s"
                      ) -> str:
    """The answer pick's next best sentences, best first: each one's number (a link to it in the context), its
    answer score and what the answer would have quoted from it, its span of the asked kind marked.

    >>> from kgcore.api import Alternative
    >>> alt = Alternative("gfs/text_0-41", "we use <standard> copy-on-write techniques", 1.93, "copy-on-write", 18, 31)
    >>> html = alternatives_html([alt], {"gfs/text_0-41": 4})
    >>> '>[4]</a>' in html and '&lt;standard&gt; <mark class="kg-span">copy-on-write</mark> techniques' in html
    True
    >>> alternatives_html([], {})
    ''
    """
    items = []
    for alt in alternatives:
        quote = alt.quote
        if 0 <= alt.span_start < alt.span_end <= len(quote):
            quote_html = (f"{esc(quote[:alt.span_start])}<mark class=\"kg-span\">"
                          f"{esc(quote[alt.span_start:alt.span_end])}</mark>{esc(quote[alt.span_end:])}")
            if alt.span_refers:
                quote_html += f" (coreference: “{esc(alt.span_refers)}”)"
        else:
            quote_html = esc(quote)
        items.append(f"<li>{sentence_link(alt.sentence_id, numbers, anchor_prefix)} "
                     f"<span class=\"kg-muted\">score {alt.score:.2f}</span> “{quote_html}”</li>")
    return f'<ol class="kg-alternatives">{"".join(items)}</ol>' if items else ""
