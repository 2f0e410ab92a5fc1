"""``python -m kgcore audit ...``: reviewers, review queues, agreement, disagreements, export and import.

Every subcommand reads the audit database of the store (``<store>/audit.sqlite``).

* ``audit reviewers [--add NAME]`` lists the reviewers and the spellings that look like one person;
* ``audit merge-authors --into NAME --from A,B [--apply]`` shows a merge, and applies it with ``--apply``;
* ``audit queue create|list|progress`` makes a queue from a filter, a question set or an evaluation run;
* ``audit agreement [--queue Q] [--collection C] --json`` prints per-stage alpha, pairwise kappa and the
  number of records behind each figure;
* ``audit disagreements [--queue Q]`` lists the records reviewers labelled differently;
* ``audit export --out FILE`` / ``audit import FILE`` (JSONL, CSV or Parquet, by the file's extension; the
  schema is documented in :mod:`kgcore.audit.exchange`);
* ``audit errors [--by method|collection|document|index] --json``: the error-stage distribution.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from kgcore.api import (
    DEFAULT_SAMPLES,
    GROUPINGS,
    AgreementReport,
    AuditDB,
    InputError,
    Selection,
    Settings,
    agreement_report,
    check_merge,
    create_queue,
    disagreements,
    distribution,
    error_analysis,
    export_file,
    import_file,
    label_counts,
    list_queues,
    load_qa,
    merge_authors,
    parse_values,
    progress,
    queue_record_ids,
    read_run_outcomes,
    records_for_questions,
    records_for_run,
    select_records,
    suggest_merges,
)


def _db(args: argparse.Namespace) -> AuditDB:
    return AuditDB.for_store(Path(args.store) if getattr(args, "store", None) else Settings.from_env().store_root)


def _values(text: str | None, flag: str) -> list[str] | None:
    return parse_values(text, str, flag) if text else None


def _print(data, as_json: bool, text: str) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=1) if as_json else text)


def cmd_reviewers(args: argparse.Namespace) -> int:
    db = _db(args)
    if args.add:
        print(f"registered {db.add_reviewer(args.add)!r}", file=sys.stderr)
    people = [{"name": r.name, "origin": r.origin, "labels": r.labels} for r in db.reviewers()]
    merges = [{"into": g.into, "from": list(g.spellings), "labels": dict(g.labels)} for g in suggest_merges(db)]
    lines = [f"{p['name']}  ({p['origin']}, {p['labels']} labels)" for p in people]
    lines += [f"looks like one person: merge {', '.join(m['from'])} into {m['into']}" for m in merges]
    _print({"reviewers": people, "suggested_merges": merges}, args.json, "\n".join(lines) or "no reviewers yet")
    return 0


def cmd_merge(args: argparse.Namespace) -> int:
    db = _db(args)
    spellings = _values(args.from_, "--from") or []
    if not args.apply:
        counts = {**{r.name: r.labels for r in db.reviewers()}, **label_counts(db)}
        into, chosen = check_merge(args.into, spellings, counts)
        changing = {s: counts[s] for s in chosen}
        plan = {"into": into, "from": list(chosen), "labels": changing, "applied": False}
        _print(plan, args.json, f"would merge {', '.join(chosen)} into {into}, changing "
                                f"{sum(changing.values())} label(s) (add --apply to do it)")
        return 0
    done = merge_authors(db, args.into, spellings, merged_by=args.by or "")
    _print({"into": done.into, "from": list(done.merged), "labels_changed": done.labels_changed,
            "assignments_changed": done.assignments_changed, "applied": True}, args.json,
           f"merged {', '.join(done.merged)} into {done.into}: {done.labels_changed} label(s) changed")
    return 0


def _selection(db: AuditDB, args: argparse.Namespace) -> Selection:
    collections, methods = _values(args.collection, "--collection"), _values(args.method, "--method")
    if args.questions and args.run:
        raise InputError("--questions", "choose either a question set or an evaluation run, not both")
    if args.questions:
        questions = [item.question for item in load_qa(args.questions)]
        return records_for_questions(db, questions, Path(args.questions).name, collections, methods)
    if args.run:
        return records_for_run(db, read_run_outcomes(args.run), Path(args.run).name)
    return select_records(db, collections, methods, _values(args.document, "--document"),
                          _values(args.diagnosis, "--diagnosis"))


def cmd_queue(args: argparse.Namespace) -> int:
    db = _db(args)
    if args.action == "list":
        rows = [{"name": q.name, "records": q.records, "overlap": q.overlap, "created_at": q.created_at,
                 "created_by": q.created_by, "source": q.source} for q in list_queues(db)]
        _print(rows, args.json, "\n".join(f"{r['name']}: {r['records']} records" for r in rows) or "no queues yet")
        return 0
    if not args.name:
        raise InputError("name", f"name the queue to {args.action}")
    if args.action == "create":
        chosen = _selection(db, args)
        if chosen.missing:
            print(f"warning: {len(chosen.missing)} question(s) have no audit record, e.g. {chosen.missing[0]}",
                  file=sys.stderr)
        create_queue(db, args.name, chosen.record_ids, _values(args.reviewers, "--reviewers") or [], args.overlap,
                     args.by or "", chosen.source, args.full_overlap, args.seed)
    state = progress(db, args.name)
    data = {"queue": state.queue.name, "records": state.queue.records, "records_done": state.records_done,
            "overlapping": state.overlapping, "reviewers": [
                {"reviewer": p.reviewer, "assigned": p.assigned, "done": p.done, "skipped": p.skipped,
                 "pending": p.pending} for p in state.reviewers]}
    lines = [f"{state.queue.name}: {state.records_done}/{state.queue.records} records done, "
             f"{state.overlapping} labelled by two or more"]
    lines += [f"  {p.reviewer}: {p.done}/{p.assigned} done, {p.skipped} skipped" for p in state.reviewers]
    _print(data, args.json, "\n".join(lines))
    return 0


def _filters(db: AuditDB, args: argparse.Namespace) -> tuple[list[int] | None, dict]:
    record_ids = queue_record_ids(db, args.queue) if args.queue else None
    filters = {k: v for k, v in (("doc_ids", _values(args.collection, "--collection")),
                                 ("methods", _values(args.method, "--method"))) if v}
    return record_ids, filters


def _figure(value: float | None, ci) -> str:
    if value is None:
        return "n/a"
    return f"{value:.3f}" + (f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else "")


def format_agreement(report: AgreementReport) -> str:
    """The agreement report as a text table: one line per target, then one per pair (verdict kappa)."""
    lines = [f"{len(report.reviewers)} reviewer(s), {report.records} record(s); 95 % bootstrap intervals "
             f"({report.samples} resamples)", f"{'target':<22}{'alpha':<24}{'records':>8}{'ratings':>9}"]
    lines += [f"{t.target:<22}{_figure(t.alpha, t.ci):<24}{t.items:>8}{t.ratings:>9}" for t in report.targets]
    lines += [f"kappa {p.a} / {p.b} ({p.target}): {_figure(p.kappa, p.ci)} on {p.items} record(s)"
              for p in report.pairs if p.target == "verdict"]
    return "\n".join(lines)


def cmd_agreement(args: argparse.Namespace) -> int:
    db = _db(args)
    record_ids, filters = _filters(db, args)
    if args.bootstrap < 0:
        raise InputError("--bootstrap", "must be 0 (no intervals) or positive")
    report = agreement_report(db, record_ids, args.bootstrap, args.seed, **filters)
    _print({"queue": args.queue, **filters, **report.to_dict()}, args.json, format_agreement(report))
    return 0


def cmd_disagreements(args: argparse.Namespace) -> int:
    db = _db(args)
    record_ids, filters = _filters(db, args)
    found = disagreements(db, record_ids, **filters)
    rows = [{"record_id": d.record_id, "question": d.question, "collection": d.doc_id, "method": d.method,
             "stages": {k: list(v) for k, v in d.stages.items()}, "adjudicated": d.adjudicated} for d in found]
    _print(rows, args.json, "\n".join(f"#{d.record_id} {d.question}: " + "; ".join(
        f"{who} {', '.join(s)}" for who, s in d.stages.items()) + (" (adjudicated)" if d.adjudicated else "")
        for d in found) or "no disagreements")
    return 0


def cmd_errors(args: argparse.Namespace) -> int:
    db = _db(args)
    record_ids, filters = _filters(db, args)
    rows = [r for r in error_analysis(db, args.source, **filters) if record_ids is None or r.record_id in record_ids]
    table = {value: dict(counts) for value, counts in distribution(rows, args.by).items()}
    _print({"by": args.by, "source": args.source, "records": len(rows), "distribution": table}, args.json,
           "\n".join(f"{value}: " + ", ".join(f"{stage} {n}" for stage, n in counts.items())
                     for value, counts in table.items()) or "no labelled records")
    return 0


def cmd_transfer(args: argparse.Namespace) -> int:
    db = _db(args)
    if args.audit_command == "export":
        path = Path(args.out)
        filters = {k: v for k, v in (("doc_ids", _values(args.collection, "--collection")),
                                     ("methods", _values(args.method, "--method")),
                                     ("label_types", _values(args.label_type, "--label-type"))) if v}
        print(json.dumps({"exported": export_file(db, path, **filters), "path": str(path)}))
        return 0
    report = import_file(db, args.file)
    print(json.dumps({"records_added": report.records_added, "records_existing": report.records_existing,
                      "labels_added": report.labels_added, "labels_existing": report.labels_existing}))
    return 0


def _common(p: argparse.ArgumentParser, json_flag: bool = True) -> argparse.ArgumentParser:
    p.add_argument("--store", default=argparse.SUPPRESS, help="store root (default: $KGCORE_STORE or data/)")
    p.add_argument("--quiet", action="store_true", default=argparse.SUPPRESS, help="no progress output")
    if json_flag:
        p.add_argument("--json", action="store_true", help="print JSON")
    return p


def _scope(p: argparse.ArgumentParser) -> None:
    p.add_argument("--queue", help="only the records of this review queue")
    p.add_argument("--collection", help="only records of these collections (comma-separated)")
    p.add_argument("--method", help="only records of these methods (comma-separated)")


def _add_queue(sub) -> None:
    qu = _common(sub.add_parser("queue", help="create a review queue, list queues, show a queue's progress"))
    qu.add_argument("action", choices=("create", "list", "progress"))
    qu.add_argument("name", nargs="?")
    qu.add_argument("--reviewers", help="comma-separated registered reviewers (create)")
    qu.add_argument("--overlap", type=float, default=0.0, help="share of records labelled by two reviewers")
    qu.add_argument("--full-overlap", action="store_true", help="every reviewer labels every record")
    qu.add_argument("--collection", help="records of these collections (comma-separated)")
    qu.add_argument("--method", help="records of these methods (comma-separated)")
    qu.add_argument("--document", help="records with context from these documents (comma-separated)")
    qu.add_argument("--diagnosis", help="records whose automatic diagnosis is one of these stages")
    qu.add_argument("--questions", help="a question set (QA CSV): the records asking its questions")
    qu.add_argument("--run", help="an evaluation run's results.jsonl: the records of its outcomes")
    qu.add_argument("--by", help="who creates the queue (a registered reviewer)")
    qu.add_argument("--seed", type=int, default=0, help="which records overlap (random, reproducible)")
    qu.set_defaults(func=cmd_queue)


def add_audit(sub) -> None:
    """The ``audit`` command and its subcommands."""
    au = sub.add_parser("audit", help="review as a team: reviewers, queues, agreement, disagreements, export")
    inner = au.add_subparsers(dest="audit_command", required=True)
    rv = _common(inner.add_parser("reviewers", help="list reviewers and spellings that look like one person"))
    rv.add_argument("--add", help="register a reviewer")
    rv.set_defaults(func=cmd_reviewers)
    me = _common(inner.add_parser("merge-authors", help="merge spellings of one reviewer (shown unless --apply)"))
    me.add_argument("--into", required=True)
    me.add_argument("--from", dest="from_", required=True, help="comma-separated spellings to merge")
    me.add_argument("--apply", action="store_true")
    me.add_argument("--by", help="who merges (kept in the merge log)")
    me.set_defaults(func=cmd_merge)
    _add_queue(inner)
    ag = _common(inner.add_parser("agreement", help="per-stage Krippendorff's alpha and pairwise Cohen's kappa"))
    _scope(ag)
    ag.add_argument("--bootstrap", type=int, default=DEFAULT_SAMPLES, help="bootstrap resamples (0 = none)")
    ag.add_argument("--seed", type=int, default=0)
    ag.set_defaults(func=cmd_agreement)
    di = _common(inner.add_parser("disagreements", help="records reviewers labelled differently"))
    _scope(di)
    di.set_defaults(func=cmd_disagreements)
    er = _common(inner.add_parser("errors", help="error-stage distribution per method, collection, document or index"))
    _scope(er)
    er.add_argument("--by", choices=GROUPINGS, default="method")
    er.add_argument("--source", choices=("human", "automatic"), default="human",
                    help="reviewers' final labels (default) or the automatic diagnoses")
    er.set_defaults(func=cmd_errors)
    ex = _common(inner.add_parser("export", help="export records and labels (.jsonl, .csv or .parquet)"),
                 json_flag=False)
    ex.add_argument("--out", required=True, help="the file; its extension chooses the format")
    ex.add_argument("--collection", help="only records of these collections (comma-separated)")
    ex.add_argument("--method", help="only records of these methods (comma-separated)")
    ex.add_argument("--label-type", help="only records with a label of these types (comma-separated)")
    ex.set_defaults(func=cmd_transfer)
    im = _common(inner.add_parser("import", help="import an export (.jsonl, .csv or .parquet)"), json_flag=False)
    im.add_argument("file")
    im.set_defaults(func=cmd_transfer)
