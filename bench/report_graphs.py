"""Report sections on what the graph views list: top-level communities against hand labels, entity neighbours."""

from __future__ import annotations

from pathlib import Path

from report_format import load, md_table, missing

#: The collections counted, with their role in the labels' split.
SPLITS = (("papers", "24 arXiv papers (design sample of 100)"), ("classic", "4 classic papers (held out, all)"))


def _label_row(collection: str, when: str, found: dict | None) -> list:
    c = (found or {}).get(collection)
    if not c:
        return [collection, when] + [None] * 8
    s = c.get("labels") or {}
    return [collection, when, f"{c['listed_top_level']} / {c['top_level']}", s.get("labelled"), s.get("listed"),
            s.get("listed_good"), s.get("listed_junk"), s.get("hidden_good"), s.get("precision"), s.get("recall")]


def communities_section(results: Path) -> str:
    """Listed top-level communities before and after the listing rule, scored by the hand labels."""
    after, before = load("community_counts.json", results), load("community_counts_before.json", results)
    if after is None:
        return "## Listed communities\n\n" + missing("community_counts.json", "experiments/community_counts.py")
    rows = [_label_row(name, when, found) for name, _ in SPLITS for when, found in (("before", before),
                                                                                 ("after", after))]
    splits = "; ".join(f"{name}: {what}" for name, what in SPLITS)
    return ("## Listed communities\n\nTop-level communities the Communities tab lists (`bench/experiments/"
            "community_counts.py`), scored by hand labels made before the listing rule changed "
            f"(`bench/data/community_labels.csv`; {splits}). Precision: good among the listed labelled ones; "
            "recall: listed among the good ones.\n\n" + md_table(
                ["collection", "rule", "listed / top-level", "labelled", "listed", "listed-good",
                 "listed-junk", "hidden-good", "precision", "recall"], rows) + "\n")


def neighbours_section(results: Path) -> str:
    """The Entity page's top neighbours of well-known entities, before and after."""
    after, before = load("entity_neighbours.json", results), load("entity_neighbours_before.json", results)
    if after is None:
        return "## Entity neighbours\n\n" + missing("entity_neighbours.json", "experiments/entity_neighbours.py")
    rows = []
    for collection in ("classic", "papers"):
        for entity, found in after.get(collection, {}).get("neighbours", {}).items():
            old = ((before or {}).get(collection, {}).get("neighbours", {}) or {}).get(entity)
            show = lambda names: None if names is None else "; ".join(names[:8]) or "(none)"  # noqa: E731
            rows.append([collection, entity, show(old), show(found)])
    return ("## Entity neighbours\n\nThe first eight neighbours the Entity page lists (name, shared actions) of "
            "well-known entities (`bench/experiments/entity_neighbours.py`).\n\n"
            + md_table(["collection", "entity", "before", "after"], rows) + "\n")
