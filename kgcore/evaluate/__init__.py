"""Evaluation: QA sets, the paper's metrics, automatic diagnosis and the harness that runs a settings grid.

:mod:`~kgcore.evaluate.qaset` reads QA CSVs, :mod:`~kgcore.evaluate.metrics`
scores answers and contexts, :mod:`~kgcore.evaluate.diagnose` suggests the
failing stage of a wrong answer, :mod:`~kgcore.evaluate.grid`,
:mod:`~kgcore.evaluate.harness`, :mod:`~kgcore.evaluate.records` and
:mod:`~kgcore.evaluate.report` run and summarise an evaluation.
"""

from kgcore.evaluate.diagnose import Diagnosis, diagnose
from kgcore.evaluate.grid import canonical_options, parse_values, setting_label, settings_grid
from kgcore.evaluate.harness import evaluate
from kgcore.evaluate.metrics import BertScorer, answer_token_recall, evidence_hit, exact_match, rouge_l, sequence_match
from kgcore.evaluate.qaset import QAItem, load_qa, parse_qa
from kgcore.evaluate.records import SUMMARY_COLUMNS, EvalRecord, EvalRun, is_failure
from kgcore.evaluate.report import format_table, summarize, summary_csv, write_outputs

__all__ = [
    "SUMMARY_COLUMNS", "BertScorer", "Diagnosis", "EvalRecord", "EvalRun", "QAItem", "answer_token_recall",
    "canonical_options", "diagnose", "evaluate", "evidence_hit", "exact_match", "format_table", "is_failure", "load_qa",
    "parse_qa", "parse_values", "rouge_l", "sequence_match", "setting_label", "settings_grid", "summarize",
    "summary_csv", "write_outputs",
]
