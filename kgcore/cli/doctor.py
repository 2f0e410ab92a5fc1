"""``python -m kgcore doctor``: check the store, Chroma, the audit database, the models and the answer endpoint.

Prints one line per check (``ok`` or ``FAIL``, what was found, and for a failure how to fix it), or with
``--json`` one JSON object per check; exits 1 when any check failed, 0 when all are ok.
"""

from __future__ import annotations

import argparse
import json

from kgcore.api.health import Check, doctor_checks, healthy


def add_doctor(sub) -> None:
    """The ``doctor`` subcommand."""
    dr = sub.add_parser("doctor", help="check the store, Chroma, the audit database, the models and the answer "
                                       "endpoint; say what is wrong and how to fix it")
    dr.add_argument("--json", action="store_true", help="one JSON object per check")
    dr.add_argument("--no-models", action="store_true", help="skip loading the spaCy and embedding models")
    dr.add_argument("--collection", help="also load this collection and report its resident size (the memory "
                                         "serving it takes)")
    dr.set_defaults(func=cmd_doctor)


def format_check(check: Check) -> str:
    """One check as text: status, name, detail, and the fix on its own line.

    >>> print(format_check(Check("chroma", False, "server down", "start it")))
    FAIL  chroma            server down
          fix: start it
    """
    line = f"{'ok' if check.ok else 'FAIL':<5} {check.name:<17} {check.detail}"
    return line + (f"\n      fix: {check.fix}" if check.fix and not check.ok else "")


def cmd_doctor(args: argparse.Namespace) -> int:
    results = doctor_checks(args.store, models=not args.no_models, collection=args.collection)
    for check in results:
        print(json.dumps(check.to_dict(), ensure_ascii=False) if args.json else format_check(check))
    return 0 if healthy(results) else 1
