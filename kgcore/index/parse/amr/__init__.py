"""The ``amr`` parser: amrlib parses sentences into AMR, penman reads them, we convert them to graphs.

:mod:`~kgcore.index.parse.amr.parser` loads the amrlib model (or reads
pre-parsed PENMAN), :mod:`~kgcore.index.parse.amr.graph` converts one AMR
graph into a sentence graph using the tables in
:mod:`~kgcore.index.parse.amr.roles`, and :mod:`~kgcore.index.parse.amr.align`
reads surface alignments.

Conversion rules (the paper's "GroundedKG from AMR parses", section 3.2, Table 3):

Nodes

* a PropBank frame (``give-01``, ``come-up-11``, ``be-located-at-91``) is an
  action labelled with its lemma (``give``, ``come up``); ``:polarity -``
  makes it ``not give``;
* every other concept is an entity labelled with its concept, its name
  (``:name (n / name :op1 "Mr." :op2 "McGregor")`` -> ``Mr. McGregor``) or
  its role (below).  ``merge_key`` is the lowercased name or label, so
  ``tea`` merges across sentences; it is ``None`` (one node per mention)
  for ``amr-unknown``, pronouns, generic concepts (``person``, ``thing``)
  and bare adverbs (``then``, ``ever``) that would otherwise become hubs
  linking unrelated sentences;
* ``amr-unknown`` (the wh-word of a question) is an entity with
  ``is_unknown=True``; it keeps its edges, whatever role reaches it;
* ``have-rel-role-91`` / ``have-org-role-91`` are relations, not actions:
  ``(p2 / person :ARG0-of (h / have-rel-role-91 :ARG1 p3 :ARG2 (m / mother)))``
  labels ``p2`` ``mother`` with the text ``Peter's mother`` and adds the
  entity-entity edge ``p2 -mother-of-> p3`` (``role-of`` when ``:ARG2`` is
  missing); ``have-org-role-91`` reads ``president of ACME``.  A possessed
  role merges under ``"{possessor key}'s {role}"`` (``peter's mother``) so
  that Peter's mother and Benjamin's mother stay two nodes, while their
  label ``mother`` still matches a query "mother"; a named holder keeps its
  name as label and key;
* connectives (``and or either neither slash multi-sentence contrast-01``)
  and prepositions with operands (``(u / underneath :op1 (g / gate))``)
  are not nodes: an edge to them becomes one edge per operand, and their
  own non-operand roles are given to every operand;
* ``name`` nodes and modifier-only concepts are not nodes: they are folded
  into the texts of the node they describe (``tea`` with ``:mod camomile
  :quant some`` -> ``tea``, ``camomile tea``, ``some camomile tea``); a
  bare particle under ``:direction`` is folded into the action
  (``hang up``); ``(t / tall :domain (b / boy))`` reads as ``tall boy``;
  a ``date-entity`` is labelled with its values (``monday evening``), a
  ``*-quantity`` with its unit (``day``, texts ``3 day``).

Edges (all triples are read de-inverted, so ``:ARG1-of`` is an ``ARG1``
edge from the frame to the noun): ``:ARGn`` keeps its name; ``:poss``,
``:part`` and ``:consist-of`` make both ends nodes and an entity-entity
edge besides the folded text; ``:mod``-like roles give an edge only when
both ends are nodes anyway; other roles follow :data:`ROLE_TABLE` or keep
their name without the colon.

Order: nodes are ordered by surface alignments (``~e.N`` markers or an
ISI-style ``# ::alignments`` line) where present, else in depth-first
graph order; :func:`kgcore.index.graph.with_next_edges` uses it for ``next``.
"""

from kgcore.index.parse.amr.graph import decode_penman, penman_to_graph
from kgcore.index.parse.amr.parser import AmrParser, PenmanParser, model_problem, resolve_model_dir
from kgcore.index.parse.amr.roles import ROLE_TABLE

__all__ = ["ROLE_TABLE", "AmrParser", "PenmanParser", "decode_penman", "model_problem", "penman_to_graph",
           "resolve_model_dir"]
