"""SRL frames -> one sentence graph (the pure half of the ``srl`` parser).

Paper section 3.2: every predicate becomes an action node, every argument
an entity node, and each action is linked to its arguments by an
``action-entity`` edge labelled with the semantic role.  ``next`` edges are
*not* added here; :func:`kgcore.index.graph.with_next_edges` adds them.

How :class:`~kgcore.core.types.Frame` arguments are read:

* a *core* role (``ARG0`` .. ``ARG5``, ``ARGM-*``, or ``mention`` in an
  entity-only frame) hangs off the frame's action;
* any other role (``poss``, ``of``, ``in`` ...) marks a *nested* entity
  found inside another argument ("Peter's mother", "the root of a fir
  tree"); it hangs off the smallest other argument of the same frame whose
  span contains it, by an ``entity-entity`` edge with that role;
* an argument with an empty ``key`` is no mergeable entity: a wh-word
  (label ``what``, ``where`` ...) becomes an *unknown* node; a clause
  (its label is the predicate of a frame lying inside its span) becomes an
  ``action-action`` edge to that frame's action; anything else (a
  pronoun that coreference left unresolved, ``there``) stays in the
  frames only;
* a frame with an empty predicate carries the entities of a verbless
  sentence or question and yields entity nodes only;
* in a question, a pro-verb asked about ("What does FLARE do when ...?":
  ``do`` with a wh-word object, :data:`PRO_VERBS`) is itself what is asked,
  an *unknown* action: matching it found the graph's hundreds of "do"
  actions, none of them about FLARE.

Entities with the same key are one node per sentence, so "Peter" as ARG1
of *put* and ARG2 of *give* is a single node.

>>> from kgcore.core.types import Argument, Frame
>>> put = Frame("put", "put", (Argument("ARG0", "Peter's mother", "mother", "mother", 0, 14),
...     Argument("poss", "Peter", "Peter", "peter", 0, 5),
...     Argument("ARG1", "Peter", "Peter", "peter", 19, 24)), start=15, end=18)
>>> g = frames_to_graph("text_0-0", [put])
>>> [(n.key, n.label) for n in g.nodes]
[('action:0', 'put'), ('entity:mother', 'mother'), ('entity:peter', 'Peter')]
>>> for e in g.edges: print(e.source, e.edge_role, e.target, e.edge_type)
action:0 ARG0 entity:mother action-entity
entity:mother poss entity:peter entity-entity
action:0 ARG1 entity:peter action-entity
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from kgcore.core.types import (
    ACTION,
    ACTION_ACTION,
    ACTION_ENTITY,
    ENTITY,
    ENTITY_ENTITY,
    Argument,
    Frame,
    LocalEdge,
    LocalNode,
    SentenceGraph,
)

#: Question words; as arguments they become unknown query nodes.
WH_WORDS = frozenset("what who whom whose which where when why how".split())
#: Verbs that stand in for another ("What did Peter do?"): with a wh-word object, the action is the unknown.
PRO_VERBS = frozenset({"do"})
#: Role of the arguments of an entity-only frame (a sentence without a verb).
MENTION = "mention"
#: Words stripped from the front of an argument text to get the entity's own text.
PREPOSITIONS = frozenset(
    """about above across after against along amid among amongst around as at before behind below
    beneath beside besides between beyond by down during for from in inside into like near of off
    on onto out outside over past round since through throughout till to toward towards under
    underneath until up upon with within without""".split()
)
#: Longest verb phrase (characters) kept as an extra text of an action node.
MAX_PHRASE_CHARS = 120


def is_core_role(role: str) -> bool:
    """True for roles that link an action to an argument (not a nested entity).

    >>> is_core_role("ARG1"), is_core_role("ARGM-TMP"), is_core_role("poss")
    (True, True, False)
    """
    return role.startswith("ARG") or role == MENTION


def strip_preposition(text: str) -> str:
    """The argument text without a leading preposition.

    >>> strip_preposition("to Peter"), strip_preposition("up"), strip_preposition("Peter")
    ('Peter', 'up', 'Peter')
    """
    words = text.split(maxsplit=1)
    if len(words) == 2 and words[0].lower() in PREPOSITIONS:
        return words[1]
    return text


@dataclass
class _EntityDraft:
    label: str
    merge_key: str | None
    order: int
    is_unknown: bool = False
    texts: list[str] = field(default_factory=list)

    def add_text(self, text: str) -> None:
        if text and text not in self.texts:
            self.texts.append(text)


class _GraphDraft:
    """Collects nodes and edges while the frames are walked."""

    def __init__(self) -> None:
        self.actions: list[LocalNode] = []
        self.entities: dict[str, _EntityDraft] = {}
        self.edges: list[LocalEdge] = []
        self._edge_keys: set[tuple[str, str, str]] = set()

    def entity(self, arg: Argument) -> str:
        node_key = f"entity:{arg.key}"
        draft = self.entities.get(node_key)
        if draft is None:
            draft = self.entities[node_key] = _EntityDraft(arg.label, arg.key, max(arg.start, 0))
        draft.order = min(draft.order, max(arg.start, 0))
        draft.add_text(strip_preposition(arg.text))
        draft.add_text(arg.label)
        return node_key

    def unknown(self, frame_index: int, arg_index: int, arg: Argument) -> str:
        node_key = f"unknown:{frame_index}:{arg_index}"
        draft = self.entities[node_key] = _EntityDraft(arg.label, None, max(arg.start, 0), True)
        draft.add_text(arg.label)
        return node_key

    def edge(self, source: str, target: str, role: str, edge_type) -> None:
        if source != target and (source, target, role) not in self._edge_keys:
            self._edge_keys.add((source, target, role))
            self.edges.append(LocalEdge(source, target, role, edge_type))

    def nodes(self) -> tuple[LocalNode, ...]:
        entities = tuple(
            LocalNode(key, d.label, tuple(d.texts), ENTITY, d.merge_key, d.order, d.is_unknown)
            for key, d in self.entities.items()
        )
        return tuple(self.actions) + entities


def frames_to_graph(
    sentence_id: str, frames: Sequence[Frame], sent_text: str = "", *, keep_unknown: bool = True
) -> SentenceGraph:
    """The sentence graph of ``frames`` (see the module docstring for the rules).

    ``sent_text`` (the parsed sentence) lets action nodes carry their verb
    phrase as an extra text; ``keep_unknown=False`` drops wh-word arguments,
    which only make sense in question graphs.
    """
    draft = _GraphDraft()
    for index, frame in enumerate(frames):
        if frame.predicate:
            draft.actions.append(_action_node(index, frame, sent_text, keep_unknown and asks_the_action(frame)))
    for index, frame in enumerate(frames):
        action = f"action:{index}" if frame.predicate else None
        for arg_index, arg in enumerate(frame.arguments):
            _add_argument(draft, frames, index, action, arg_index, arg, keep_unknown)
    analysis = {"parser": "srl", "sentence": sent_text, "frames": [frame_dict(f) for f in frames]}
    return SentenceGraph(sentence_id, draft.nodes(), tuple(draft.edges), analysis)


def frame_dict(frame: Frame) -> dict:
    """``frame.to_dict()`` without :func:`dataclasses.asdict`'s deep copies (several times faster)."""
    data = {k: getattr(frame, k) for k in ("predicate", "text", "negated", "start", "end")}
    data["arguments"] = [
        {"role": a.role, "text": a.text, "label": a.label, "key": a.key, "start": a.start, "end": a.end}
        for a in frame.arguments
    ]
    return data


def _add_argument(draft, frames, index, action, arg_index, arg, keep_unknown) -> None:
    frame = frames[index]
    if not is_core_role(arg.role):
        parent = _parent(arg, frame.arguments)
        child = draft.entity(arg) if arg.key else None
        if parent is not None and child is not None:
            draft.edge(draft.entity(parent), child, arg.role, ENTITY_ENTITY)
        return
    if arg.key:
        target = draft.entity(arg)
    elif arg.label in WH_WORDS:
        if not keep_unknown:
            return
        target = draft.unknown(index, arg_index, arg)
    else:
        clause = _clause_frame(arg, frames, index)
        if clause is not None and action is not None:
            draft.edge(action, f"action:{clause}", arg.role, ACTION_ACTION)
        return
    if action is not None:
        draft.edge(action, target, arg.role, ACTION_ENTITY)


def _parent(arg: Argument, arguments: Sequence[Argument]) -> Argument | None:
    """The smallest keyed argument whose span strictly contains ``arg``'s span."""
    size = arg.end - arg.start
    containing = [
        a
        for a in arguments
        if a is not arg and a.key and a.start <= arg.start and arg.end <= a.end and a.end - a.start > size
    ]
    return min(containing, key=lambda a: a.end - a.start, default=None)


def _clause_frame(arg: Argument, frames: Sequence[Frame], own: int) -> int | None:
    """Index of the frame whose predicate heads the clause argument ``arg``."""
    for index, frame in enumerate(frames):
        if index != own and frame.predicate == arg.label and arg.start <= frame.start < arg.end:
            return index
    return None


def asks_the_action(frame: Frame) -> bool:
    """Whether ``frame`` is a pro-verb whose object is a wh-word: the action is what the question asks for.

    >>> from kgcore.core.types import Argument
    >>> what = Argument("ARG1", "What", "what", "", 0, 4)
    >>> asks_the_action(Frame("do", "do", (what,))), asks_the_action(Frame("eat", "eat", (what,)))
    (True, False)
    """
    return frame.predicate in PRO_VERBS and any(
        a.role == "ARG1" and not a.key and a.label in WH_WORDS for a in frame.arguments)


def _action_node(index: int, frame: Frame, sent_text: str, unknown: bool = False) -> LocalNode:
    texts = [frame.text or frame.predicate]
    phrase = _verb_phrase(frame, sent_text)
    if phrase and phrase not in texts:
        texts.append(phrase)
    return LocalNode(f"action:{index}", frame.predicate, tuple(texts), ACTION, None, max(frame.start, 0),
                     is_unknown=unknown)


def _verb_phrase(frame: Frame, sent_text: str) -> str:
    """The predicate with its following ARG1/ARG2 ("gave a dose of tea to Peter")."""
    objects = [
        a for a in frame.arguments if a.role in ("ARG1", "ARG2") and a.start >= frame.end and a.end > a.start
    ]
    if not objects:
        return ""
    if sent_text and frame.start >= 0:
        phrase = sent_text[frame.start : max(a.end for a in objects)]
    else:
        phrase = " ".join([frame.text] + [a.text for a in sorted(objects, key=lambda a: a.start)])
    phrase = " ".join(phrase.split())
    return phrase if len(phrase) <= MAX_PHRASE_CHARS else ""
