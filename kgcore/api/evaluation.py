"""Evaluation: QA sets, the settings grid, metrics, the harness, the LLM judge and run comparisons.
"""

from __future__ import annotations

from kgcore.evaluate import SUMMARY_COLUMNS
from kgcore.evaluate.diagnose import diagnose
from kgcore.evaluate.diff import QuestionDiff, SettingsDiff, compare_settings, question_diff
from kgcore.evaluate.grid import parse_method, parse_tau, parse_values, settings_grid
from kgcore.evaluate.harness import evaluate
from kgcore.evaluate.judge import PROMPT_VERSION, Judge, JudgeCache, judge_settings, judge_unavailable
from kgcore.evaluate.metrics import BertScorer, answer_token_recall, evidence_hit
from kgcore.evaluate.qaset import MAX_QA_BYTES, QAItem, load_qa, parse_qa
from kgcore.evaluate.records import EvalRecord, EvalRun, is_failure
from kgcore.evaluate.report import format_table, write_outputs

__all__ = ["BertScorer", "EvalRecord", "EvalRun", "Judge", "JudgeCache", "MAX_QA_BYTES", "PROMPT_VERSION", "QAItem",
    "QuestionDiff", "SUMMARY_COLUMNS", "SettingsDiff", "answer_token_recall", "compare_settings", "diagnose",
    "evaluate", "evidence_hit", "format_table", "is_failure", "judge_settings", "judge_unavailable", "load_qa",
    "parse_method", "parse_qa", "parse_tau", "parse_values", "question_diff", "settings_grid", "write_outputs"]
