"""``overview``: a collection's structured overview as markdown, every statement citing sentence ids.

``--kind entities`` (:mod:`kgcore.index.views.entities.overview`): central entities by PageRank and degree, their
depth-limited subgraphs and subtopics; ``--kind communities`` (:mod:`kgcore.index.views.communities.overview`): the
top-level communities with their grounded summaries.  Further kinds plug into :data:`KINDS`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from kgcore.api import (
    Index,
    Settings,
    Store,
    collection_overview,
    communities,
    communities_overview_markdown,
    entities_overview_markdown,
    query_embedder,
)


def _entities(index: Index, args: argparse.Namespace, settings: Settings) -> str:
    found = collection_overview(index, query_embedder(settings), settings, top=args.top, depth=args.depth)
    return entities_overview_markdown(found)


def _communities(index: Index, args: argparse.Namespace, settings: Settings) -> str:
    ci = communities(index, query_embedder(settings), settings)
    return communities_overview_markdown(index.name, ci, limit=args.top)


#: Overview kinds -> the function writing that overview's markdown.
KINDS: dict[str, Callable[[Index, argparse.Namespace, Settings], str]] = {"entities": _entities,
                                                                           "communities": _communities}


def add_overview(sub) -> None:
    """The ``overview`` subcommand."""
    ov = sub.add_parser("overview", help="a collection's structured overview as markdown (every statement cited)")
    ov.add_argument("--collection", required=True)
    ov.add_argument("--kind", choices=sorted(KINDS), default="entities",
                    help="entities: central entities by PageRank, their neighbourhoods and subtopics; communities: "
                         "the top-level communities of the grounded graph with their grounded summaries")
    ov.add_argument("--top", type=int, default=10, help="central entities (entities) or top-level communities "
                                                        "(communities; 0: all) listed")
    ov.add_argument("--depth", type=int, default=2, choices=(1, 2, 3), help="subgraph depth (entities)")
    ov.add_argument("--out", help="write the markdown to this file instead of stdout")
    ov.set_defaults(func=cmd_overview)


def cmd_overview(args: argparse.Namespace) -> int:
    settings = Settings.from_env()
    store = Store(Path(args.store) if args.store else settings.store_root)
    markdown = KINDS[args.kind](store.load(args.collection), args, settings)
    if args.out:
        Path(args.out).write_text(markdown, encoding="utf-8")
        if not args.quiet:
            print(f"wrote {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(markdown)
    return 0
