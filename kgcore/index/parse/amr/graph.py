"""Turn one AMR graph (PENMAN notation) into a sentence graph of entities and actions.

This is the paper's "GroundedKG from AMR parses" (section 3.2, Table 3):
concepts become nodes, relations become edges, modifiers become node texts.
The conversion is pure; parsing sentences into AMR is :mod:`kgcore.index.parse.amr.parser`.

The conversion rules (nodes, edges, order) are documented in :mod:`kgcore.index.parse.amr`;
their word and role tables are :mod:`kgcore.index.parse.amr.roles`.

>>> sg = penman_to_graph("text_0-0", '''(g / give-01 :polarity -
...     :ARG0 (p / person :name (n / name :op1 "Peter"))
...     :ARG1 (t / tea :mod (c / camomile)))''')
>>> [(n.key, n.label, n.node_type, n.merge_key) for n in sg.nodes]
[('g', 'not give', 'action', None), ('p', 'Peter', 'entity', 'peter'), ('t', 'tea', 'entity', 'tea')]
>>> [(e.source, e.edge_role, e.target) for e in sg.edges]
[('g', 'ARG0', 'p'), ('g', 'ARG1', 't')]
>>> sg.nodes[2].texts
('tea', 'camomile tea')
"""

from __future__ import annotations

import re
from collections import defaultdict

import penman
from penman.models.amr import model as AMR_MODEL

from kgcore.core.errors import InputError
from kgcore.core.types import (
    ACTION,
    ACTION_ACTION,
    ACTION_ENTITY,
    ENTITY,
    ENTITY_ENTITY,
    LocalEdge,
    LocalNode,
    SentenceGraph,
)
from kgcore.index.parse.amr.align import alignments
from kgcore.index.parse.amr.roles import (
    ADVERBS,
    CONNECTIVES,
    DATE_ROLES,
    FOLD_ROLES,
    GENERIC,
    PARTICLES,
    PREPOSITIONS,
    ROLE_FRAMES,
    ROLE_TABLE,
)

_FRAME_RE = re.compile(r"^(.+)-(\d\d+)$")
_OPERAND_RE = re.compile(r"^:(op|snt)\d+$")
ACTION_KIND, ENTITY_KIND, UNKNOWN, CONNECTIVE, ROLE, PREP, NAME = (
    "action", "entity", "unknown", "connective", "role", "prep", "name"
)


def decode_penman(penman_text: str, where: str = "PENMAN") -> tuple[penman.Graph, penman.Tree]:
    """Parse PENMAN text with the AMR role model (so ``:consist-of`` stays un-inverted).

    >>> g, tree = decode_penman('(b / bark-01 :ARG0-of (x / x))')
    >>> g.edges()
    [Edge(source='x', role=':ARG0', target='b')]
    >>> decode_penman('(b / bark-01', 'text_0-3')  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    kgcore.core.errors.InputError: text_0-3: invalid PENMAN (...)
    """
    if not penman_text or "(" not in penman_text:
        raise InputError(where, "no PENMAN graph given")
    try:
        tree = penman.parse(penman_text)
        return penman.interpret(tree, model=AMR_MODEL), tree
    except penman.PenmanError as exc:
        raise InputError(where, f"invalid PENMAN ({type(exc).__name__}: {exc})") from None


def penman_to_graph(sentence_id: str, penman_text: str | penman.Graph, sentence_text: str = "") -> SentenceGraph:
    """The sentence graph of one AMR graph; see the module docstring for the rules.

    ``analysis`` keeps ``penman`` (the PENMAN string) and ``sentence``.
    """
    if isinstance(penman_text, penman.Graph):
        graph, tree = penman_text, None
        text = penman.encode(penman_text, model=AMR_MODEL)
    else:
        graph, tree = decode_penman(penman_text, f"PENMAN of {sentence_id}")
        text = penman_text.strip()
    converter = _Converter(graph, tree, sentence_text or graph.metadata.get("snt", ""))
    nodes, edges = converter.convert()
    return SentenceGraph(sentence_id, nodes, edges, {"penman": text, "sentence": converter.sentence})


def _unique(texts) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for text in texts:
        text = " ".join(text.split())
        if text:
            seen.setdefault(text, None)
    return tuple(seen)


def _constant(value: str) -> str:
    return value[1:-1] if len(value) > 1 and value[0] == value[-1] == '"' else value


def _operand_number(role: str) -> int:
    return int(re.sub(r"\D", "", role) or 0)


class _Converter:
    """One AMR graph, indexed for the conversion (see :func:`penman_to_graph`)."""

    def __init__(self, graph: penman.Graph, tree: penman.Tree | None, sentence: str):
        self.graph = graph
        self.sentence = sentence
        # a node written without a concept, "(x :ARG0 ...)", is read as an unspecified thing
        self.concept = {i.source: i.target or "thing" for i in graph.instances()}
        self.out: dict[str, list[tuple[str, str]]] = defaultdict(list)
        self.inc: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for source, role, target in graph.triples:
            if role != ":instance":
                self.out[source].append((role, target))
                if target in self.concept:
                    self.inc[target].append((source, role))
        self.kind = {v: self._classify(v) for v in self.concept}
        self.roles = self._role_frames()
        self.nodes = self._node_vars()
        tokens = graph.metadata.get("tok") or sentence
        self.anchors, self.surface = alignments(graph, tree, self.concept, tokens.split())

    # -- classification ----------------------------------------------------
    def _classify(self, var: str) -> str:
        concept = self.concept[var]
        if concept in CONNECTIVES:
            return CONNECTIVE
        if concept in ROLE_FRAMES:
            return ROLE
        if concept == "name":
            return NAME
        if concept == "amr-unknown":
            return UNKNOWN
        if _FRAME_RE.match(concept):
            return ACTION_KIND
        if concept in PREPOSITIONS and any(_OPERAND_RE.match(r) and t in self.concept for r, t in self.out[var]):
            return PREP
        return ENTITY_KIND

    def _arg(self, var: str, role: str) -> str | None:
        return next((t for r, t in self.out[var] if r == role and t in self.concept), None)

    def _role_frames(self) -> dict[str, list[tuple[str, str | None, str | None, bool]]]:
        """holder var -> [(role label, role var, possessor var, is org role)]."""
        roles = defaultdict(list)
        for var, kind in self.kind.items():
            if kind != ROLE:
                continue
            role_var = self._arg(var, ":ARG2")
            label = self.concept[role_var] if role_var else "role"
            org = self.concept[var] == "have-org-role-91"
            for holder in self._members(self._arg(var, ":ARG0") or role_var):
                roles[holder].append((label, role_var, self._arg(var, ":ARG1"), org))
        return dict(roles)

    def _members(self, var: str | None, seen: frozenset = frozenset()) -> list[str]:
        """``var``, or the operands of a connective (recursively)."""
        if var is None or var in seen:
            return []
        if self.kind[var] == CONNECTIVE:
            return [m for o in self._operands(var) for m in self._members(o, seen | {var})]
        return [var]

    def _is_particle(self, var: str) -> bool:
        return self.concept.get(var) in PARTICLES and not self.out[var]

    def _is_argument_use(self, source: str, role: str, target: str) -> bool:
        kind = self.kind[source]
        if kind == NAME or role in FOLD_ROLES or role == ":domain":
            return False
        if role in DATE_ROLES and self.concept[source] == "date-entity":
            return False
        if kind == ROLE:
            return role in (":ARG0", ":ARG1") or (role == ":ARG2" and not self._arg(source, ":ARG0"))
        return not (role == ":direction" and kind == ACTION_KIND and self._is_particle(target))

    def _node_vars(self) -> set[str]:
        used = set()
        top = self.graph.top
        if top and not any(r == ":domain" for r, _ in self.out[top]):
            used.add(top)
        for source, role, target in self.graph.edges():
            if self._is_argument_use(source, role, target) or role == ":domain":
                used.add(target)
        nodes = set()
        for var, kind in self.kind.items():
            named = self._name(var) is not None
            if kind in (ACTION_KIND, UNKNOWN) or (kind == ENTITY_KIND and (var in used or named or var in self.roles)):
                nodes.add(var)
        return nodes

    # -- structure ---------------------------------------------------------
    def _operands(self, var: str) -> list[str]:
        return [t for r, t in self.out[var] if t in self.concept and self._is_operand_role(var, r)]

    def resolve(self, var: str | None, seen: frozenset = frozenset()) -> list[str]:
        """The node vars standing for ``var`` (operands of connectives, role holders)."""
        if var is None or var in seen:
            return []
        kind, seen = self.kind.get(var), seen | {var}
        if kind in (CONNECTIVE, PREP):
            return [n for o in self._operands(var) for n in self.resolve(o, seen)]
        if kind == ROLE:
            return self.resolve(self._arg(var, ":ARG0") or self._arg(var, ":ARG2"), seen)
        return [var] if var in self.nodes else []

    def _is_operand_role(self, source: str, role: str) -> bool:
        if self.kind[source] not in (CONNECTIVE, PREP):
            return False
        # "but" is the frame contrast-01; its ARG1/ARG2 are the contrasted clauses
        contrasted = self.concept[source] == "contrast-01" and role in (":ARG1", ":ARG2")
        return bool(_OPERAND_RE.match(role)) or contrasted

    def _edges(self) -> tuple[LocalEdge, ...]:
        found: dict[tuple[str, str, str], None] = {}
        for source, role, target in self.graph.edges():
            if role == ":name" or self.kind[source] in (NAME, ROLE) or self._is_operand_role(source, role):
                continue
            name = ROLE_TABLE.get(role, role[1:])
            for a in self.resolve(source):
                found.update({(a, b, name): None for b in self.resolve(target) if a != b})
        for holder, roles in self.roles.items():
            for label, _, possessor, _ in roles:
                for a in self.resolve(holder):
                    found.update({(a, b, f"{label}-of"): None for b in self.resolve(possessor) if a != b})
        return tuple(LocalEdge(a, b, role, self._edge_type(a, b)) for a, b, role in found)

    def _edge_type(self, a: str, b: str):
        actions = (self.kind[a] == ACTION_KIND) + (self.kind[b] == ACTION_KIND)
        return (ENTITY_ENTITY, ACTION_ENTITY, ACTION_ACTION)[actions]

    # -- labels and texts --------------------------------------------------
    def _name(self, var: str) -> str | None:
        name_var = self._arg(var, ":name")
        if name_var is None:
            return None
        ops = sorted((_operand_number(r), _constant(t)) for r, t in self.out[name_var] if _OPERAND_RE.match(r))
        return " ".join(op for _, op in ops) or None

    def _negated(self, var: str) -> bool:
        return (":polarity", "-") in self.out[var]

    def label(self, var: str) -> str:
        concept, kind = self.concept[var], self.kind[var]
        if kind == ACTION_KIND:
            lemma = _FRAME_RE.sub(r"\1", concept).replace("-", " ")
            return f"not {lemma}" if self._negated(var) else lemma
        name = self._name(var)
        if name or kind == UNKNOWN:
            return name or concept
        if var in self.roles:
            return self.roles[var][0][0]
        if concept == "date-entity":
            parts = [self.concept.get(t) or _constant(t) for r, t in self.out[var] if r in DATE_ROLES]
            return " ".join(parts) or "date"
        unit = self._arg(var, ":unit")
        return self.concept[unit] if concept.endswith("-quantity") and unit else concept

    def _describers(self, var: str) -> list[str]:
        """Vars that describe ``var`` as a prefix (``camomile`` of ``tea``)."""
        mods = [t for r, t in self.out[var] if r in (":mod", ":degree", ":ord") and t in self.concept]
        mods += [s for s, r in self.inc[var] if r == ":domain"]
        return [m for m in mods if self.kind[m] != UNKNOWN]

    def phrase(self, value: str, depth: int = 0) -> str:
        """Short text for a var or constant: its describers and its label (``young rabbit``)."""
        if value not in self.concept:
            return _constant(value)
        if self.kind[value] == UNKNOWN:
            return ""
        mods = [self.phrase(m, depth + 1) for m in self._describers(value)] if depth < 2 else []
        return " ".join([*mods, self.label(value)])

    def _targets(self, var: str, role: str) -> list[str]:
        """Describing phrases of ``var``'s ``role`` targets, minus unknowns and bare generic concepts."""
        targets = [t for r, t in self.out[var] if r == role]
        return [p for p in map(self._owner_phrase, targets) if p]

    def _sources(self, var: str, role: str) -> list[str]:
        return [s for s, r in self.inc[var] if r == role]

    def _owner_phrase(self, value: str) -> str:
        # "person's shop" says nothing: generic concepts only describe through a name or role.
        if self.concept.get(value) in GENERIC and not (self._name(value) or value in self.roles):
            return ""
        return self.phrase(value)

    def _role_texts(self, var: str) -> list[str]:
        texts = []
        for label, role_var, possessor, org in self.roles.get(var, []):
            role_text = self.phrase(role_var) if role_var else label
            owners = [self._owner_phrase(p) for p in self._flat(possessor)]
            texts += [f"{role_text} of {o}" if org else f"{o}'s {role_text}" for o in owners if o] or [role_text]
        return texts

    def _flat(self, var: str | None) -> list[str]:
        return [m for m in self._members(var) if self.kind[m] != UNKNOWN]

    def _entity_texts(self, var: str) -> tuple[str, ...]:
        core = self.phrase(var)
        texts = [self.label(var), core]
        texts += [f"{q} {core}" for q in self._targets(var, ":quant")]
        texts += [f"{p}'s {core}" for p in self._targets(var, ":poss")]
        texts += [f"{core} of {c}" for c in self._targets(var, ":consist-of")]
        texts += [f"{core} of {w}" for w in map(self._owner_phrase, self._sources(var, ":part")) if w]
        texts += [f"{self.concept[p]} {core}" for p, r in self.inc[var] if self.kind[p] == PREP]
        texts += self._role_texts(var)
        if self._negated(var):
            texts.append(f"no {core}")
        return _unique([*texts, *self.surface.get(var, ())])

    def _action_texts(self, var: str) -> tuple[str, ...]:
        label = self.label(var)
        particles = [self.concept[t] for r, t in self.out[var] if r == ":direction" and self._is_particle(t)]
        with_particles = " ".join([label, *particles])
        return _unique([label, with_particles, *self.surface.get(var, ())])

    def merge_key(self, var: str, seen: frozenset = frozenset()) -> str | None:
        """How equal entities are recognised across sentences (None: never merged)."""
        kind, concept = self.kind[var], self.concept[var]
        if kind != ENTITY_KIND or var in seen:
            return None
        name = self._name(var)
        if name:
            return name.lower()
        if var in self.roles:
            label, _, possessor, _ = self.roles[var][0]
            owners = [o for o in self._flat(possessor) if o != var]
            if owners:
                owner = owners[0]
                owner_key = self.merge_key(owner, seen | {var}) or self.phrase(owner).lower()
                return f"{owner_key}'s {label}".lower() if owner_key else label.lower()
            return label.lower()
        if concept in GENERIC or (concept in ADVERBS and not self.out[var]):
            return None
        return self.label(var).lower()

    # -- assembly ----------------------------------------------------------
    def _orders(self, node_vars: list[str]) -> dict[str, int]:
        """Rank nodes by aligned token; unaligned ones follow the aligned node before them."""
        keyed, last = [], -1.0
        for index, var in enumerate(node_vars):
            name_var = self._arg(var, ":name")
            positions = [*self.anchors.get(var, ()), *self.anchors.get(name_var, ())]
            position = float(min(positions)) if positions else last + 0.5
            last = position if positions else last
            keyed.append((position, index, var))
        return {var: rank for rank, (_, _, var) in enumerate(sorted(keyed))}

    def _node(self, var: str, order: int) -> LocalNode:
        if self.kind[var] == ACTION_KIND:
            return LocalNode(var, self.label(var), self._action_texts(var), ACTION, None, order)
        unknown = self.kind[var] == UNKNOWN
        return LocalNode(
            var, self.label(var), self._entity_texts(var), ENTITY, self.merge_key(var), order, is_unknown=unknown
        )

    def convert(self) -> tuple[tuple[LocalNode, ...], tuple[LocalEdge, ...]]:
        node_vars = [v for v in self.concept if v in self.nodes]
        orders = self._orders(node_vars)
        nodes = sorted((self._node(v, orders[v]) for v in node_vars), key=lambda n: n.order)
        return tuple(nodes), self._edges()
