"""Evaluation: QA sets, the settings grid, metrics, the harness, the LLM judge and run comparisons.
"""

from __future__ import annotations

from kgcore.evaluate import SUMMARY_COLUMNS
from kgcore.evaluate.correct import CORRECT_RECALL, answer_share
from kgcore.evaluate.diagnose import (
    SUPPORT_MIN,
    Diagnosis,
    diagnose,
    diagnose_without_gold,
    evidence_rows,
    gold_support,
    stage_from_evidence,
)
from kgcore.evaluate.diff import QuestionDiff, SettingsDiff, compare_settings, paired_bootstrap, question_diff
from kgcore.evaluate.grid import parse_method, parse_tau, parse_values, settings_grid
from kgcore.evaluate.harness import evaluate
from kgcore.evaluate.judge import PROMPT_VERSION, Judge, JudgeCache, judge_settings, judge_unavailable
from kgcore.evaluate.metrics import BertScorer, answer_token_recall, evidence_hit
from kgcore.evaluate.qaset import MAX_QA_BYTES, QAItem, load_qa, parse_qa
from kgcore.evaluate.records import EvalRecord, EvalRun, is_failure
from kgcore.evaluate.report import format_table, write_outputs

__all__ = ["answer_share", "answer_token_recall", "BertScorer", "CORRECT_RECALL", "compare_settings", "diagnose",
    "Diagnosis", "diagnose_without_gold", "EvalRecord", "EvalRun", "evaluate", "evidence_hit", "evidence_rows",
    "format_table", "gold_support", "is_failure", "Judge",
    "judge_settings", "judge_unavailable", "JudgeCache", "load_qa", "MAX_QA_BYTES", "parse_method", "parse_qa",
    "paired_bootstrap", "parse_tau", "parse_values", "PROMPT_VERSION", "QAItem", "question_diff", "QuestionDiff",
    "settings_grid", "SettingsDiff", "stage_from_evidence", "SUMMARY_COLUMNS", "SUPPORT_MIN", "write_outputs"]
