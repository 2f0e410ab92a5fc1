"""What an evaluation produces: one record per (setting, question) and the run that holds them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field

#: Summary columns with their display headers (answer metrics and rates are ×100 like the paper).
SUMMARY_COLUMNS = {
    "em": "EM", "sm": "SM", "rouge_l": "ROUGE-L", "bertscore": "BERTScore",
    "evidence_hit_rate": "EvidHit", "answer_token_recall": "AnsRecall",
    "context_sentences": "Sents", "context_words": "Words", "book_pct": "%Book",
    "retrieval_ms_p50": "Ret.ms", "answer_ms_p50": "Ans.ms",
}
#: Summary columns of a run scored by the LLM judge (means 1-5 of the successful calls, success rate ×100).
JUDGE_COLUMNS = {
    "judge_relevance": "J.Rel", "judge_correctness": "J.Cor", "judge_completeness": "J.Com",
    "judge_success_rate": "J.Succ", "judge_failures": "J.Fail",
}


@dataclass
class EvalRecord:
    """One (setting, question) outcome.  Answer metrics are in [0, 1]; ``evidence_hit`` is None without evidence."""

    doc_id: str
    label: str
    method: str
    options: dict
    question_id: int
    question: str
    answers: list[str]
    evidence: str
    prediction: str
    exact_match: float = 0.0
    sequence_match: float = 0.0
    rouge_l: float = 0.0
    bertscore: float = 0.0
    evidence_hit: bool | None = None
    answer_token_recall: float = 0.0
    context_sentences: int = 0
    context_words: int = 0
    book_pct: float = 0.0
    retrieval_ms: float = 0.0
    answer_ms: float = 0.0
    answer_cached: bool = False
    sentence_ids: list[str] = field(default_factory=list)
    error: str = ""
    #: The LLM judge's score (:meth:`kgcore.evaluate.judge.JudgeScore.to_dict`) when the run was judged.
    judge: dict | None = None

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class EvalRun:
    """Records, summary rows and provenance (``meta``) of one or more evaluations."""

    meta: list[dict]
    records: list[EvalRecord]
    summary: list[dict]
    #: (QueryResult, Answer) of failed records by record position, when kept (for the audit queue).
    kept: dict[int, tuple] = field(default_factory=dict, repr=False)

    @classmethod
    def concat(cls, runs: Iterable[EvalRun]) -> EvalRun:
        runs, kept, offset = list(runs), {}, 0
        for r in runs:
            kept.update({offset + i: pair for i, pair in r.kept.items()})
            offset += len(r.records)
        return cls([m for r in runs for m in r.meta], [x for r in runs for x in r.records],
                   [s for r in runs for s in r.summary], kept)

    def failures(self) -> list[int]:
        """Positions of the failed records (see :func:`is_failure`)."""
        return [i for i, r in enumerate(self.records) if is_failure(r)]

    def wrong_answers(self) -> list[int]:
        """Positions of the records answered wrongly: failures other than errors (an unreachable endpoint
        is not a wrong answer, and goes to no audit queue)."""
        return [i for i, r in enumerate(self.records) if is_failure(r) and not r.error]


def is_failure(record: EvalRecord) -> bool:
    """A record failed when answering raised an error or no reference is in the answer even as a token sequence."""
    return bool(record.error) or record.sequence_match == 0.0
