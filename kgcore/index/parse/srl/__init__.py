"""The ``srl`` parser: PropBank-style frames read off spaCy's dependency parse.

:mod:`~kgcore.index.parse.srl.parser` finds predicates and runs the parser,
:mod:`~kgcore.index.parse.srl.clause` collects one predicate's arguments,
:mod:`~kgcore.index.parse.srl.tokens` holds the word tables and token tests
and :mod:`~kgcore.index.parse.srl.graph` turns frames into a sentence graph.
"""

from kgcore.index.parse.srl.graph import frame_dict, frames_to_graph
from kgcore.index.parse.srl.parser import SrlParser, entity_frame, extract_frames, frames_of
from kgcore.index.parse.srl.tokens import entity_label, merge_key

__all__ = [
    "SrlParser", "entity_frame", "entity_label", "extract_frames", "frame_dict", "frames_of", "frames_to_graph",
    "merge_key",
]
