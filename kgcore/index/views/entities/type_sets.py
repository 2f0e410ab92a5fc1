"""Which entity types a collection has: its **type set**, declared in its folder (:data:`DECLARED_FILE`, a JSON
object ``{"types": {"regulation": "a law or directive ...", ...}}``), else chosen from its documents' kind:
:data:`RESEARCH` (the cross-document entity graph's types) when most documents are PDFs, :data:`NARRATIVE`
otherwise.  Each type has the description zero-shot typing compares names against
(:mod:`~kgcore.index.views.entities.types`).

>>> choose_type_set(["a.pdf", "b.pdf", "c.txt"]).name, choose_type_set(["peter.txt"]).name
('research', 'narrative')
>>> "system" in RESEARCH.descriptions, "place" in NARRATIVE.types
(True, True)
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from kgcore.core.errors import InputError

#: A per-collection type list, in the collection folder.
DECLARED_FILE = "entity_types.json"


@dataclass(frozen=True)
class TypeSet:
    """A named list of entity types, each with the description zero-shot typing compares names against."""

    name: str
    descriptions: Mapping[str, str]

    @property
    def types(self) -> tuple[str, ...]:
        return tuple(self.descriptions)


RESEARCH = TypeSet("research", {
    "concept": "an abstract idea or notion in research, such as attention, relevance, hallucination or knowledge",
    "topic": "a research area or task, such as question answering, information retrieval or summarization",
    "person": "a person, such as an author or researcher, named by first and last name",
    "system": "a software system, service, library, database, file system or tool, such as Hadoop, Lucene or "
              "PostgreSQL",
    "organisation": "a company, university, laboratory or institution, such as IBM, MIT or a research lab",
    "paper": "a published research paper or article, cited by title or by its authors",
    "model": "a trained neural network or language model, such as BERT, GPT-4, T5 or a retriever model",
    "method": "a method, technique, algorithm, approach or training procedure proposed or used in a paper",
    "dataset": "a dataset, corpus or benchmark used for training or evaluation, such as Natural Questions",
    "metric": "an evaluation metric or score, such as accuracy, F1, exact match, recall or BLEU",
    "equation": "a mathematical equation, formula, loss or probability expression",
    "variable": "a mathematical symbol or variable in a formula, such as x, y, k or theta",
})
NARRATIVE = TypeSet("narrative", {
    "person": "a person or character in a story, a man, woman, child or animal who speaks and acts",
    "place": "a place or location, such as a town, country, house, garden, room, island or road",
    "organisation": "an organisation, company, publisher, institution, army or group of people",
    "object": "a physical object or thing, such as a tool, food, clothes, a boat or an animal's shoe",
    "concept": "an abstract idea, feeling, quality, time or event, such as joy, danger, a moment or a storm",
})
#: An example of a declared type set (the community-summaries study's ontology for regulations), as
#: ``entity_types.json`` declares one.
REGULATORY = TypeSet("regulatory", {
    "regulation": "a regulation, rulebook, act, law, directive, schedule or chapter of a rulebook",
    "organisation": "a named organisation or authority, such as the Regulator, a court, an exchange or a government",
    "legal entity": "a regulated person or role, such as an Authorised Person, a Fund Manager or an Applicant",
    "rule": "a numbered rule, section or paragraph of a rulebook, such as Rule 3.2.1 or Section 4",
    "financial instrument": "a financial instrument or asset, such as a share, bond, derivative, fund unit or currency",
    "concept": "an abstract regulatory notion, such as risk, compliance, disclosure, capital or a requirement",
})

def choose_type_set(source_files: Sequence[str], declared: TypeSet | None = None) -> TypeSet:
    """The declared type set, else research when most documents are PDFs, else narrative."""
    if declared is not None:
        return declared
    pdfs = sum(f.lower().endswith(".pdf") for f in source_files)
    return RESEARCH if source_files and pdfs * 2 > len(source_files) else NARRATIVE


def read_declared(folder: Path) -> TypeSet | None:
    """The type set declared in ``folder/entity_types.json`` (a dict of descriptions or a list of names)."""
    file = folder / DECLARED_FILE
    if not file.exists():
        return None
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
        types = data["types"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InputError(str(file), f"cannot read the declared entity types: {exc}") from None
    descriptions = types if isinstance(types, dict) else {str(t): str(t) for t in types}
    if not descriptions:
        raise InputError(str(file), "declares no entity types")
    return TypeSet(str(data.get("name", "declared")), {str(k): str(v or k) for k, v in descriptions.items()})


def type_set_of(index) -> TypeSet:
    """The type set of a loaded index: declared in its folder, else by its documents' kind."""
    files = [entry.manifest.source_file or entry.doc_id for entry in index.manifest.documents]
    return choose_type_set(files, read_declared(index.path))
