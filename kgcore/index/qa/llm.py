"""The ``llm`` QA backend: atomic question–answer pairs per chunk from an OpenAI-compatible endpoint.

The QA-pair graph method generates pairs per text chunk with a prompt-driven model.  Here a chunk is
:data:`CHUNK_SENTENCES` consecutive sentences, each sent with its id; the model answers with a JSON list of
``{"question", "answer", "sentence_ids"}``.  A pair is kept only when its ids are sentences *of that chunk*
(others are invented and dropped), when at least half of the answer's content words are in the cited
sentences (the answer is grounded) and when it passes the quality filter
(:func:`kgcore.index.qa.base.pair_problem`).  It is grounded in its first valid sentence id.  The request,
retries and errors are :class:`kgcore.core.chat.ChatClient`'s; a failed chunk fails the indexing with the
endpoint's reason (a half-generated index would silently differ from a whole one).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from kgcore.core.chat import ChatClient
from kgcore.core.qa_pair import QAPair
from kgcore.core.settings import Settings
from kgcore.core.types import RETRIEVABLE, Sentence
from kgcore.index.qa.base import content, is_number, pair_problem, unique_pairs

CHUNK_SENTENCES = 15
PROMPT = """Generate atomic question-answer pairs from the text below. Each pair asks about one fact stated in \
one sentence; the answer is a short phrase copied from that sentence (a name, a thing, a place, a time, a \
reason). Replace pronouns with the names they refer to. Cite the id of the sentence that states the fact.

Text:
{text}

Answer with a JSON list only, one object per pair:
[{{"question": "...", "answer": "...", "sentence_ids": ["..."]}}]"""
WH_TYPES = {"who": "person", "whom": "person", "whose": "person", "where": "place", "when": "time",
            "why": "reason", "how": "manner", "what": "thing", "which": "thing"}
_JSON_LIST = re.compile(r"\[.*\]", re.DOTALL)


class LLMQAGenerator:
    """The ``llm`` backend (:class:`kgcore.index.qa.base.QAGenerator`); ``chat`` replaces the client in tests."""

    name = "llm"

    def __init__(self, settings: Settings, chat: ChatClient | None = None):
        self.chat = chat or ChatClient(settings, "QA pair generation")
        self.dropped = 0

    def generate(self, sentences: Sequence[Sentence], analyses: dict[str, dict]) -> list[QAPair]:
        usable = [s for s in sentences if s.role in RETRIEVABLE]
        pairs: list[QAPair] = []
        for start in range(0, len(usable), CHUNK_SENTENCES):
            pairs += self.chunk_pairs(usable[start:start + CHUNK_SENTENCES])
        return pairs

    def chunk_pairs(self, chunk: Sequence[Sentence]) -> list[QAPair]:
        """Validated pairs of one chunk (one request)."""
        text = "\n".join(f"[{s.id}] {s.resolved or s.normalized}" for s in chunk)
        response, _ = self.chat.complete(PROMPT.format(text=text))
        reply, _ = self.chat.text_of(response)
        by_id = {s.id: s for s in chunk}
        found = []
        for item in parse_reply(reply):
            pair = self._validated(item, by_id)
            if pair is None:
                self.dropped += 1
            else:
                found.append(pair)
        pairs = unique_pairs(found)
        for n, pair in enumerate(pairs):
            pair.id = f"{pair.sentence_id}#llm{n}"
        return pairs

    def _validated(self, item: dict, by_id: dict[str, Sentence]) -> QAPair | None:
        question, answer = str(item.get("question", "")).strip(), str(item.get("answer", "")).strip()
        ids = [str(i).strip("[] ") for i in item.get("sentence_ids", ()) or ()]
        ids = [i for i in ids if i in by_id]
        if not ids or not question or pair_problem(question, answer):
            return None
        cited = content(" ".join(f"{by_id[i].resolved} {by_id[i].original}" for i in ids))
        wanted = content(answer)
        if len(wanted & cited) < 0.5 * len(wanted):
            return None
        wh = next((w for w in re.findall(r"[a-z]+", question.lower()) if w in WH_TYPES), "what")
        answer_type = "number" if wh == "how" and "many" in question.lower() or is_number(answer.split()[0]) \
            else WH_TYPES[wh]
        question = question if question.endswith("?") else question + "?"
        return QAPair("", question, answer, ids[0], wh, answer_type, "llm", "", answer, source="llm")


def parse_reply(reply: str) -> list[dict]:
    """The JSON list of pair objects in a model's reply (code fences and prose around it ignored).

    >>> parse_reply('Sure! ```json\\n[{"question": "Who ran?", "answer": "Peter", "sentence_ids": ["a"]}]\\n```')
    [{'question': 'Who ran?', 'answer': 'Peter', 'sentence_ids': ['a']}]
    >>> parse_reply("no json here")
    []
    """
    match = _JSON_LIST.search(reply)
    if not match:
        return []
    try:
        data = json.loads(match.group(0))
    except json.JSONDecodeError:
        return []
    return [d for d in data if isinstance(d, dict)] if isinstance(data, list) else []
