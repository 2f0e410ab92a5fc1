"""LLM-as-judge (as the community-summaries study and the QA-pair graph method judge): relevance, correctness and
completeness of an answer, each 1–5.

The judge is the configured OpenAI-compatible endpoint (:class:`kgcore.core.chat.ChatClient`), with its own model and
base URL when ``KGCORE_JUDGE_MODEL`` / ``KGCORE_JUDGE_BASE_URL`` are set (else the answerer's; the key is always the
answerer's, from the environment).  The rubric is that of the community-summaries study (relevance, correctness,
completeness): each criterion from 1 (very poor) to 5 (fully correct and comprehensive), 3 meaning partially correct; an
answer **succeeds** when relevance ≥ 4, correctness ≥ 4 and completeness ≥ 3 (:data:`SUCCESS_RULE`).

The judge must reply with one JSON object ``{"relevance": r, "correctness": c, "completeness": m,
"rationale": "..."}`` (a single ```` ```json ```` fence around it is tolerated, nothing else): missing keys,
non-integers and scores outside 1–5 are refused with the reason (:func:`parse_reply`).  A failed call (HTTP
error, timeout, unparseable reply) is a :class:`JudgeScore` with ``ok=False`` and its ``error`` — never a
zero — and :func:`aggregate` averages only the successful calls and counts the failures.

Every score records :data:`PROMPT_VERSION` and the judge model.  Successful scores are cached in SQLite
(:class:`JudgeCache`, ``<store>/judge_cache.sqlite`` for ``kgcore eval`` and the Evaluate page) under the hash
of (question, answer, references, judge model, prompt version); failures are not cached, so the next run asks
again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import sqlite3
import statistics
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from kgcore.core.chat import ChatClient
from kgcore.core.errors import GenerationError, InputError, KgcoreError
from kgcore.core.settings import Settings

#: Bump whenever :data:`PROMPT` or the parsing rule changes: cached scores of another version are not reused.
PROMPT_VERSION = "judge-v1"
CRITERIA = ("relevance", "correctness", "completeness")
#: As in the community-summaries study, an answer succeeds when every criterion reaches its threshold.
SUCCESS_RULE = {"relevance": 4, "correctness": 4, "completeness": 3}
CACHE_FILE = "judge_cache.sqlite"
_MAX_ERROR_CHARS = 300

PROMPT = """You are an impartial judge of answers to questions about documents.
Score the ANSWER to the QUESTION on three criteria, each an integer from 1 to 5:
- relevance: does the answer address the question that was asked (1 = off-topic, 5 = fully on point)?
- correctness: are the answer's statements right according to the REFERENCE (1 = wrong or contradicts it,
  3 = partially correct, 5 = fully correct)? An answer saying the information is insufficient is not correct.
- completeness: does the answer cover every point of the REFERENCE (1 = none, 3 = some, 5 = all of them)?
1 means very poor, 3 partially correct, 5 fully correct and comprehensive. Judge only against the REFERENCE;
paraphrases and different wording are fine.

QUESTION:
{question}

REFERENCE (gold answers or the key points a good answer covers):
{reference}

ANSWER:
{answer}

Reply with one JSON object and nothing else, exactly in this form:
{{"relevance": <1-5>, "correctness": <1-5>, "completeness": <1-5>, "rationale": "<one sentence>"}}"""

_FENCE = re.compile(r"^```(?:json)?\s*\n?(.*?)\n?```$", re.DOTALL | re.IGNORECASE)


class JudgeReplyError(KgcoreError):
    """The judge's reply is not the JSON object the prompt asks for (the message says why)."""


@dataclass(frozen=True)
class JudgeScore:
    """One judged answer: three 1–5 scores when ``ok``, else ``error`` says why the call failed."""

    ok: bool
    relevance: int | None = None
    correctness: int | None = None
    completeness: int | None = None
    rationale: str = ""
    error: str = ""
    model: str = ""
    prompt_version: str = PROMPT_VERSION
    cached: bool = False
    ms: float = 0.0

    @property
    def success(self) -> bool | None:
        """The community-summaries study's rule; None for a failed call (a failure is not a wrong answer).

        >>> JudgeScore(True, 4, 4, 3).success, JudgeScore(True, 5, 3, 5).success, JudgeScore(False).success
        (True, False, None)
        """
        if not self.ok:
            return None
        return all(getattr(self, c) >= t for c, t in SUCCESS_RULE.items())

    def to_dict(self) -> dict:
        return {**asdict(self), "success": self.success}


def build_prompt(question: str, answer: str, references: Sequence[str]) -> str:
    """The judge prompt of :data:`PROMPT_VERSION`; several references are one bullet each.

    >>> p = build_prompt("Who ran?", "Peter.", ["Peter", "Peter Rabbit"])
    >>> p.split("REFERENCE (gold")[1].splitlines()[1:3]
    ['- Peter', '- Peter Rabbit']
    """
    refs = [r.strip() for r in references if r and r.strip()]
    reference = "\n".join(f"- {r}" for r in refs) if len(refs) > 1 else (refs[0] if refs else "(none given)")
    return PROMPT.format(question=question.strip(), reference=reference, answer=answer.strip() or "(empty)")


def parse_reply(text: str) -> dict:
    """The three scores and the rationale from the judge's reply, or :class:`JudgeReplyError` saying why not.

    >>> parse_reply('{"relevance": 5, "correctness": 4, "completeness": 3, "rationale": "ok"}')
    {'relevance': 5, 'correctness': 4, 'completeness': 3, 'rationale': 'ok'}
    >>> parse_reply('```json\\n{"relevance": 1, "correctness": 1, "completeness": 1}\\n```')["completeness"]
    1
    >>> parse_reply('Scores: {"relevance": 5}')
    Traceback (most recent call last):
    ...
    kgcore.evaluate.judge.JudgeReplyError: the reply is not a JSON object: Scores: {"relevance": 5}
    >>> parse_reply('{"relevance": 6, "correctness": 4, "completeness": 3}')
    Traceback (most recent call last):
    ...
    kgcore.evaluate.judge.JudgeReplyError: relevance is 6, outside 1-5
    """
    raw = text.strip()
    fenced = _FENCE.match(raw)
    body = fenced.group(1).strip() if fenced else raw
    try:
        data = json.loads(body)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise JudgeReplyError(f"the reply is not a JSON object: {_short(raw)}")
    scores: dict = {}
    for name in CRITERIA:
        if name not in data:
            raise JudgeReplyError(f"the reply has no {name!r} score: {_short(raw)}")
        value = data[name]
        if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
            raise JudgeReplyError(f"{name} is {value!r}, not an integer")
        if not 1 <= value <= 5:
            raise JudgeReplyError(f"{name} is {value!r}, outside 1-5")
        scores[name] = int(value)
    rationale = data.get("rationale", "")
    scores["rationale"] = rationale if isinstance(rationale, str) else json.dumps(rationale)
    return scores


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text[:_MAX_ERROR_CHARS] + ("…" if len(text) > _MAX_ERROR_CHARS else "")


def cache_key(question: str, answer: str, references: Sequence[str], model: str,
              prompt_version: str = PROMPT_VERSION) -> str:
    """SHA-256 of what a score depends on.

    >>> cache_key("q", "a", ["r"], "m") == cache_key("q", "a", ["r"], "m")
    True
    >>> cache_key("q", "a", ["r"], "m") == cache_key("q", "a", ["r"], "m", "judge-v0")
    False
    """
    payload = json.dumps([question, answer, list(references), model, prompt_version], ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class JudgeCache:
    """Successful scores in one SQLite file (table ``scores``: key, model, prompt_version, score JSON)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        try:
            with self._lock, self._connect() as db:
                db.execute("CREATE TABLE IF NOT EXISTS scores (key TEXT PRIMARY KEY, model TEXT, "
                           "prompt_version TEXT, score TEXT, created_at REAL)")
        except sqlite3.DatabaseError as exc:
            raise InputError(str(self.path), f"is not a judge cache ({exc}); move it away or delete it") from None

    @classmethod
    def for_store(cls, root: str | Path) -> JudgeCache:
        return cls(Path(root) / CACHE_FILE)

    @contextlib.contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """A connection that commits on success and is always closed."""
        db = sqlite3.connect(self.path, timeout=30)
        try:
            with db:
                yield db
        finally:
            db.close()

    def get(self, key: str) -> JudgeScore | None:
        with self._lock, self._connect() as db:
            row = db.execute("SELECT score FROM scores WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        data = json.loads(row[0])
        data.pop("success", None)
        return replace(JudgeScore(**data), cached=True)

    def put(self, key: str, score: JudgeScore) -> None:
        with self._lock, self._connect() as db:
            db.execute("INSERT OR REPLACE INTO scores VALUES (?, ?, ?, ?, ?)",
                       (key, score.model, score.prompt_version, json.dumps(score.to_dict()), time.time()))

    def __len__(self) -> int:
        with self._lock, self._connect() as db:
            return int(db.execute("SELECT COUNT(*) FROM scores").fetchone()[0])


def judge_settings(settings: Settings) -> Settings:
    """The answerer's settings with the judge's own base URL and model where they are set."""
    return settings.with_(openai_base_url=settings.judge_base_url or settings.openai_base_url,
                          openai_model=settings.judge_model or settings.openai_model)


def judge_unavailable(settings: Settings) -> str:
    """Why no judge can run with ``settings`` ("" when one can): what to set.

    >>> judge_unavailable(Settings(openai_base_url="http://127.0.0.1:1/v1", openai_model="m"))
    ''
    >>> "KGCORE_JUDGE_MODEL" in judge_unavailable(Settings(openai_base_url="http://127.0.0.1:1/v1"))
    True
    """
    chosen = judge_settings(settings)
    if not chosen.openai_base_url and not chosen.openai_api_key:
        return ("no OpenAI-compatible endpoint is configured: set KGCORE_OPENAI_BASE_URL (or "
                "KGCORE_JUDGE_BASE_URL) and KGCORE_JUDGE_MODEL or KGCORE_OPENAI_MODEL")
    if not chosen.openai_model:
        return "no judge model is configured: set KGCORE_JUDGE_MODEL (or KGCORE_OPENAI_MODEL)"
    return ""


class Judge:
    """Scores answers with the configured endpoint; see the module docstring."""

    def __init__(self, settings: Settings, cache: JudgeCache | None = None):
        self.client = ChatClient(judge_settings(settings), task="Judging")
        self.model = self.client.model
        self.cache = cache
        self.calls = 0

    def score(self, question: str, answer: str, references: Sequence[str]) -> JudgeScore:
        """One judged answer (from the cache when it was scored before); never raises for a failed call."""
        key = cache_key(question, answer, references, self.model)
        if self.cache is not None and (hit := self.cache.get(key)) is not None:
            return hit
        started = time.perf_counter()
        self.calls += 1
        try:
            response, _ = self.client.complete(build_prompt(question, answer, references))
            text, _ = self.client.text_of(response)
            scores = parse_reply(text)
        except GenerationError as exc:
            return self._failure(str(exc), started)
        except JudgeReplyError as exc:
            return self._failure(f"Judging failed at {self.client.endpoint}: unusable reply: {exc}", started)
        score = JudgeScore(True, **scores, model=self.model, ms=_ms(started))
        if self.cache is not None:
            self.cache.put(key, score)
        return score

    def _failure(self, error: str, started: float) -> JudgeScore:
        return JudgeScore(False, error=self.client.scrub(error), model=self.model, ms=_ms(started))


def _ms(started: float) -> float:
    return round(1000 * (time.perf_counter() - started), 1)


def aggregate(scores: Sequence[JudgeScore | dict | None]) -> dict:
    """Means of the successful calls (1–5), the success rate (×100) and the failure count.

    ``None`` entries (answers that were never judged) are skipped; dicts are :meth:`JudgeScore.to_dict` rows.

    >>> good = [JudgeScore(True, 5, 4, 3), JudgeScore(True, 3, 2, 2)]
    >>> aggregate(good + [JudgeScore(False, error="HTTP 500"), None])
    {'judged': 2, 'judge_failures': 1, 'relevance': 4.0, 'correctness': 3.0, 'completeness': 2.5, 'success_rate': 50.0}
    >>> aggregate([JudgeScore(False, error="timeout")])["success_rate"] is None
    True
    """
    rows = [s.to_dict() if isinstance(s, JudgeScore) else s for s in scores if s is not None]
    ok = [r for r in rows if r["ok"]]
    means = {c: round(statistics.fmean(r[c] for r in ok), 2) if ok else None for c in CRITERIA}
    rate = round(100 * sum(bool(r["success"]) for r in ok) / len(ok), 1) if ok else None
    return {"judged": len(ok), "judge_failures": len(rows) - len(ok), **means, "success_rate": rate}
