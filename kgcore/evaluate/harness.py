"""Evaluation harness: the paper's Table 1/2 for any document and QA set.

A QA set is a CSV with ``question,answer1[,answer2][,evidence]``
(:func:`kgcore.evaluate.qaset.load_qa`).  :func:`evaluate` runs every
retrieval setting of a grid (:func:`~kgcore.evaluate.grid.settings_grid`: methods × K ×
VectorSim τ × RetCount ≥ n × budget) over every question, answers with one
answerer and scores the answers with :mod:`kgcore.evaluate.metrics`.  The result
(:class:`~kgcore.evaluate.records.EvalRun`) holds per-question records and a summary table with one
row per setting.  Answers are cached by (question, ranked context): settings that
select the same sentences in the same rank order share one answer (``answer_cached``).

One run evaluates one index.  Index-time variants (SRL vs AMR parse,
``basic``/``neighbor``/``attention`` embedding) need one index each: build
them under different document ids and evaluate each; the summary rows carry
``doc_id`` and ``index`` (parser/coref/embedding) so their tables
concatenate (the CLI accepts ``--doc a,b`` and does exactly that).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from kgcore.core.errors import GenerationError, InputError
from kgcore.core.settings import RetrievalOptions
from kgcore.core.types import Answer, QueryResult
from kgcore.core.version import __version__
from kgcore.evaluate.grid import canonical_options, setting_label
from kgcore.evaluate.judge import PROMPT_VERSION, Judge
from kgcore.evaluate.metrics import BertScorer, answer_token_recall, evidence_hit, exact_match, rouge_l, sequence_match
from kgcore.evaluate.qaset import QAItem
from kgcore.evaluate.records import EvalRecord, EvalRun, is_failure
from kgcore.evaluate.report import summarize
from kgcore.index.store.disk import Index
from kgcore.query.answer import default_answerer
from kgcore.query.engine import QueryEngine

Progress = Callable[[str, int, int], None]


def evaluate(engine: QueryEngine, doc_id: str, qa_items: Sequence[QAItem], settings_grid: Sequence[RetrievalOptions],
             answerer: str | None = None, progress: Progress | None = None, scorer: BertScorer | None = None,
             keep_failures: bool = False, judge: Judge | None = None) -> EvalRun:
    """Run every setting over every question on ``doc_id``; see the module docstring.

    With a ``judge`` (:class:`kgcore.evaluate.judge.Judge`) every answer is also scored by the LLM judge
    against the QA set's answers (``record.judge``; summary columns ``judge_*``).

    ``progress("eval", done, total)`` is called after each question;
    ``keep_failures`` keeps the QueryResult and Answer of failed records in
    :attr:`EvalRun.kept` so they can be sent to the audit queue.
    """
    if not qa_items:
        raise InputError("qa", "no questions to evaluate")
    grid = list(dict.fromkeys(canonical_options(o) for o in settings_grid))
    if not grid:
        raise InputError("methods", "no retrieval settings to evaluate")
    started = time.perf_counter()
    index = engine.index(doc_id)
    answerer = answerer or default_answerer(engine.settings)
    generator = engine.generator(answerer)  # fails fast when e.g. no endpoint is configured
    scorer = scorer or BertScorer()
    answers: dict[tuple, tuple] = {}
    records: list[EvalRecord] = []
    kept: dict[int, tuple[QueryResult, Answer | None]] = {}
    total = len(grid) * len(qa_items)
    for options, item in itertools.product(grid, qa_items):
        record, result, answer = _evaluate_one(engine, index, item, options, answerer, scorer, answers)
        if judge is not None and answer is not None:
            record.judge = judge.score(item.question, record.prediction, item.answers).to_dict()
        if keep_failures and is_failure(record):
            kept[len(records)] = (result, answer)
        records.append(record)
        if progress:
            progress("eval", len(records), total)
    meta = _provenance(index, answerer, generator.model, scorer, len(qa_items), grid, started)
    if judge is not None:
        meta.update(judge_model=judge.model, judge_prompt_version=PROMPT_VERSION)
    return EvalRun([meta], records, summarize(records, {doc_id: meta["index"]}), kept)


def _provenance(index: Index, answerer: str, answer_model: str, scorer: BertScorer, questions: int,
                grid: list[RetrievalOptions], started: float) -> dict:
    """Which index, models and settings one evaluation ran with (the run's ``meta``)."""
    manifest = index.manifest
    return {
        "doc_id": index.collection, "index": manifest.variant, "index_options": manifest.options.to_dict(),
        "index_created_at": manifest.created_at, "models": manifest.to_dict()["models"],
        "book_words": index.total_words, "answerer": answerer, "answer_model": answer_model,
        "bertscore_model": scorer.model_name, "questions": questions, "settings": [setting_label(o) for o in grid],
        "kgcore_version": __version__, "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "seconds": round(time.perf_counter() - started, 2),
    }


def _evaluate_one(engine: QueryEngine, index: Index, item: QAItem, options: RetrievalOptions, answerer: str,
                  scorer: BertScorer, cache: dict[tuple, tuple[Answer, float]]
                  ) -> tuple[EvalRecord, QueryResult, Answer | None]:
    result = engine.retrieve(index.collection, item.question, options)
    context = [s.text for s in result.sentences]
    record = EvalRecord(
        index.collection, setting_label(options), options.method, options.to_dict(), item.row, item.question,
        list(item.answers), item.evidence, "",
        evidence_hit=evidence_hit(item.evidence, context) if item.evidence else None,
        answer_token_recall=answer_token_recall(item.answers, context),
        context_sentences=len(context), context_words=result.context_words,
        book_pct=round(100 * result.context_words / max(index.total_words, 1), 2),
        retrieval_ms=result.timings_ms.get("retrieval", 0.0), sentence_ids=result.sentence_ids,
    )
    # The answer depends only on the question and its context, ranks included (the extractive answerer reads the
    # best-ranked sentences first): equal ranked contexts are answered once.
    key = (item.question, tuple((s.id, s.rank) for s in result.sentences))
    if key in cache:
        answer, record.answer_ms = cache[key]
        record.answer_cached = True
    else:
        try:
            answer = engine.answer(result, answerer)
        except GenerationError as exc:
            record.error = str(exc)
            return record, result, None
        record.answer_ms = result.timings_ms.get("answer", 0.0)
        cache[key] = (answer, record.answer_ms)
    record.prediction = answer.text
    record.exact_match = exact_match(record.prediction, item.answers)
    record.sequence_match = sequence_match(record.prediction, item.answers)
    record.rouge_l = round(rouge_l(record.prediction, item.answers), 4)
    record.bertscore = scorer.score(record.prediction, item.answers)
    return record, result, answer
