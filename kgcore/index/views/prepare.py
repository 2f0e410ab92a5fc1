"""Build a loaded collection's views ahead of the pages that read them, one step at a time.

The Entity page, the Graph explorer's Communities tab, the Merge review and the Sentence page each build a view
of the collection on their first open (entity resolution and types, the links between entities, the merge
candidates, the communities and their summaries, the sentence parses); on four papers that took 15 to 57 s
while the analyst waited.  :func:`prepare_views` builds them in that order; each view caches itself in
``index.cache`` (built once however many threads ask), so a page opened meanwhile waits for the step in
progress instead of starting it again, and one opened afterwards finds it built.  ``before_step(name)`` is
called before each step: the app uses it to say what it is preparing and to wait while a question is being
answered, so that the preparation never slows one down.

>>> [name for name, _ in view_steps(None, None)]
['entities', 'entity links', 'merge candidates', 'communities', 'sentence parses']
"""

from __future__ import annotations

import time
from collections.abc import Callable

from kgcore.core.settings import Settings
from kgcore.index.views.communities.stored import communities
from kgcore.index.views.entities.model import entity_groups
from kgcore.index.views.entities.neighbours import name_document_frequency
from kgcore.index.views.entities.overview import entity_links
from kgcore.index.views.entities.review import review_queue


def view_steps(index, embedder, settings: Settings | None = None) -> list[tuple[str, Callable[[], object]]]:
    """(name, build) of each view a page reads, in the order :func:`prepare_views` builds them."""
    return [
        ("entities", lambda: entity_groups(index)),
        ("entity links", lambda: (entity_links(index), name_document_frequency(index))),  # and the neighbours'
        ("merge candidates", lambda: review_queue(index)),
        ("communities", lambda: communities(index, embedder, settings)),
        ("sentence parses", lambda: index.analyses()),
    ]


def prepare_views(index, embedder, settings: Settings | None = None,
                  before_step: Callable[[str], None] | None = None) -> dict[str, float]:
    """Build every view of :func:`view_steps` (those built already cost nothing); seconds per step."""
    seconds = {}
    for name, build in view_steps(index, embedder, settings):
        if before_step is not None:
            before_step(name)
        start = time.perf_counter()
        build()
        seconds[name] = round(time.perf_counter() - start, 3)
    return seconds
