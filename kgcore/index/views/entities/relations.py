"""Typed relations between entities, derived from the frames (action nodes and their role edges).

For papers (the cross-document entity graph's relation types), an action whose predicate says what the relation is joins
its agent and its object:

* ``methodology`` / ``tool/resource``: "X uses / employs / leverages / builds on Y" (methodology when Y is a
  method, topic or concept; tool/resource when Y is a model, dataset, metric or anything else), "X is trained on Y";
* ``result``: "X outperforms / surpasses / improves Y", and "X is evaluated / tested on Y" (the dataset);
* ``citation``: an entity named in a sentence whose citation markers resolve to a reference entry cites it;
* ``co-author`` / ``affiliation``: people named together in an authors line, and a person with an institution there.

Narrative relations keep their SRL roles: every pair of entity arguments of one action becomes a relation of
type ``srl`` with the predicate and the two roles (``ARG0`` gave ``ARG1``).  Every relation carries the ids of
the sentences that ground it (the action's sentences, or the citing sentence).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kgcore.core.graph import GroundedGraph, is_pronoun_label
from kgcore.core.types import ACTION, AUTHORS, ENTITY, Edge
from kgcore.index.store.in_memory import ENTITIES, CacheKey, Index
from kgcore.index.views.entities.model import entity_groups
from kgcore.index.views.entities.resolve import resolution

METHODOLOGY, TOOL, RESULT, CITATION, CO_AUTHOR, AFFILIATION, SRL = (
    "methodology", "tool/resource", "result", "citation", "co-author", "affiliation", "srl")
RELATION_TYPES = (METHODOLOGY, TOOL, RESULT, CITATION, CO_AUTHOR, AFFILIATION, SRL)

_USE = frozenset({"use", "utilize", "utilise", "employ", "leverage", "apply", "adopt", "build", "base", "rely",
                  "incorporate", "integrate", "combine", "exploit", "extend", "adapt", "follow"})
_TRAIN = frozenset({"train", "fine-tune", "finetune", "pretrain", "pre-train", "tune"})
_BETTER = frozenset({"outperform", "surpass", "beat", "exceed", "improve", "achieve", "obtain", "match", "reach"})
_EVALUATE = frozenset({"evaluate", "test", "benchmark", "assess", "measure", "validate", "experiment", "compare"})
#: Roles naming where an evaluation or training happened ("on Natural Questions").
_WHERE = ("ARGM-LOC", "on", "ARG2", "in", "with")
_INSTITUTION = re.compile(r"(?i)\b(university|universit[éa]|institute|college|school|laborator(y|ies)|lab|labs|"
                          r"inc|corporation|research|academy|microsoft|google|meta|deepmind|openai|nvidia)\b")


@dataclass(frozen=True)
class Relation:
    """One typed relation from entity ``source`` to ``target`` (entity ids; for a citation, the target is
    ``document#reference-key``), the action node it comes from ("" for citations and authors lines), the
    predicate, the roles of the two ends, and its grounding sentence ids in reading order."""

    source: str
    target: str
    relation_type: str
    predicate: str
    action: str
    roles: tuple[str, str]
    grounded_texts: tuple[str, ...]


ENTITY_RELATIONS: CacheKey[tuple[Relation, ...]] = CacheKey("entity-relations", group=ENTITIES)


def entity_relations(index: Index) -> tuple[Relation, ...]:
    """The typed relations between the entities of ``index`` (built once per loaded index)."""

    def build() -> tuple[Relation, ...]:
        groups = entity_groups(index)
        of = {n: g.entity_id for g in groups for n in g.node_ids}
        kind = {g.entity_id: g.entity_type for g in groups}
        research = resolution(index).type_set == "research"
        out = list(frame_relations(index.graph, of, kind, research))
        if research:
            out += citation_relations(index, of, kind)
            out += author_relations(index, of, kind)
        return tuple(out)

    return index.cache.get(ENTITY_RELATIONS, build)


def frame_relations(graph: GroundedGraph, entity_of: Mapping[str, str], type_of: Mapping[str, str],
                    research: bool) -> list[Relation]:
    """Relations from the actions of ``graph`` (see the module docstring); ``entity_of`` maps entity nodes to
    entity ids and ``type_of`` entity ids to types.

    >>> from kgcore.core.types import Node
    >>> nodes = {"p/use_0": Node("p/use_0", "use", ["uses"], "action", ["p/text_0-1"]),
    ...          "rag": Node("rag", "RAG", ["RAG"], "entity", ["p/text_0-1"]),
    ...          "dpr": Node("dpr", "DPR", ["DPR"], "entity", ["p/text_0-1"])}
    >>> edges = [Edge("p/use_0", "rag", "ARG0", "action-entity", ["p/text_0-1"]),
    ...          Edge("p/use_0", "dpr", "ARG1", "action-entity", ["p/text_0-1"])]
    >>> g = GroundedGraph(nodes, edges)
    >>> [(r.source, r.relation_type, r.target) for r in frame_relations(g, {"rag": "rag", "dpr": "dpr"},
    ...                                                                   {"dpr": "model"}, research=True)]
    [('rag', 'tool/resource', 'dpr')]
    >>> [(r.source, r.relation_type, r.roles) for r in frame_relations(g, {"rag": "rag", "dpr": "dpr"}, {}, False)]
    [('rag', 'srl', ('ARG0', 'ARG1'))]
    """
    arguments: dict[str, list[Edge]] = {}
    for edge in graph.edges:
        if edge.source in graph.nodes and graph.nodes[edge.source].node_type == ACTION \
                and edge.target in entity_of and graph.nodes[edge.target].node_type == ENTITY \
                and not is_pronoun_label(graph.nodes[edge.target].label):  # "we use X": no entity of its own
            arguments.setdefault(edge.source, []).append(edge)
    out: list[Relation] = []
    for action, edges in arguments.items():
        node = graph.nodes[action]
        grounded = tuple(node.grounded_texts)
        typed = _typed(node.label, edges, entity_of, type_of) if research else None
        if typed is not None:
            source, target, relation_type, roles = typed
            out.append(Relation(source, target, relation_type, node.label, action, roles, grounded))
        elif not research:
            out += _srl(node.label, action, edges, entity_of, grounded)
    return out


def _typed(predicate: str, edges: Sequence[Edge], entity_of: Mapping[str, str],
           type_of: Mapping[str, str]) -> tuple[str, str, str, tuple[str, str]] | None:
    """(source, target, type, roles) of a research relation the predicate names, or None."""
    lemma = predicate.split()[-1] if predicate else ""
    if predicate.startswith("not "):
        return None
    role = {e.edge_role: entity_of[e.target] for e in edges}
    agent, thing = role.get("ARG0"), role.get("ARG1")
    where = next((role[r] for r in _WHERE if r in role), None)
    if lemma in _USE and agent and thing and agent != thing:
        kind = METHODOLOGY if type_of.get(thing) in ("method", "topic", "concept") else TOOL
        return agent, thing, kind, ("ARG0", "ARG1")
    if lemma in _BETTER and agent and thing and agent != thing:
        return agent, thing, RESULT, ("ARG0", "ARG1")
    if lemma in _EVALUATE and where and (thing or agent) and where != (thing or agent):
        return thing or agent or "", where, RESULT, ("ARG1" if thing else "ARG0", "on")
    if lemma in _TRAIN and where and (thing or agent) and where != (thing or agent):
        return thing or agent or "", where, TOOL, ("ARG1" if thing else "ARG0", "on")
    return None


def _srl(predicate: str, action: str, edges: Sequence[Edge], entity_of: Mapping[str, str],
         grounded: tuple[str, ...]) -> list[Relation]:
    """Every ordered pair of an action's entity arguments, by role (ARG0 before ARG1 ...), keeping the roles."""
    ordered = sorted({(e.edge_role, entity_of[e.target]) for e in edges})
    return [Relation(a, b, SRL, predicate, action, (ra, rb), grounded)
            for i, (ra, a) in enumerate(ordered) for rb, b in ordered[i + 1:] if a != b]


def citation_relations(index: Index, entity_of: Mapping[str, str], type_of: Mapping[str, str]) -> list[Relation]:
    """An entity (model, method, dataset, metric, paper) named in a sentence with resolved citation markers cites
    the reference entries ("BERT (Devlin et al., 2019)")."""
    cited = ("model", "method", "dataset", "metric", "paper")
    by_sentence = _entities_by_sentence(index.graph, entity_of)
    out = []
    for s in index.sentences:
        if not s.citations:
            continue
        for entity in by_sentence.get(s.id, ()):
            if type_of.get(entity) in cited:
                out += [Relation(entity, f"{s.doc_id}#{ref}", CITATION, "cite", "", ("entity", "reference"), (s.id,))
                        for ref in s.citations]
    return out


def author_relations(index: Index, entity_of: Mapping[str, str], type_of: Mapping[str, str]) -> list[Relation]:
    """People named together in an authors line are co-authors; a person and an institution there, affiliated."""
    names = {n: index.graph.nodes[n].label for n in entity_of}
    by_sentence = _entities_by_sentence(index.graph, entity_of)
    out = []
    for s in index.sentences:
        if s.role != AUTHORS:
            continue
        present = by_sentence.get(s.id, ())
        people = [e for e in present if type_of.get(e) == "person"]
        places = [e for e in present if _INSTITUTION.search(names.get(e, e)) and e not in people]
        out += [Relation(a, b, CO_AUTHOR, "co-author", "", ("person", "person"), (s.id,))
                for i, a in enumerate(people) for b in people[i + 1:]]
        out += [Relation(p, i, AFFILIATION, "affiliated", "", ("person", "institution"), (s.id,))
                for p in people for i in places]
    return out


def _entities_by_sentence(graph: GroundedGraph, entity_of: Mapping[str, str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for node_id, entity in entity_of.items():
        for sid in graph.nodes[node_id].grounded_texts:
            found = out.setdefault(sid, [])
            if entity not in found:
                found.append(entity)
    return out
