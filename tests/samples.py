"""Sample texts several test tiers share: Peter Rabbit sentences, the paper's Table 3 sentence and its AMR, and a
two-document harbour collection for the entity tests.

Importable as ``samples`` (``tests/`` is on ``sys.path`` via its conftest).
"""

from __future__ import annotations

from kgcore.core.types import SelectedSentence

# -- answers: retrieved context ----------------------------------------------------------------
# Sentences of assets/peter_rabbit.txt with their ids and coref-resolved text as the
# heuristic resolver writes them.
PETER_CONTEXT = [
    SelectedSentence(
        "text_0-19",
        19,
        'Your father had an accident there; he was put in a pie by Mrs. McGregor."',
        'Your father had an accident there; your father was put in a pie by Mrs. McGregor."',
    ),
    SelectedSentence(
        "text_0-22",
        22,
        "Then old Mrs. Rabbit took a basket and her umbrella and went through the wood to the baker's.",
        "Then old Mrs. Rabbit took a basket and old Mrs. Rabbit's umbrella and went through the wood to the baker's.",
    ),
    SelectedSentence(
        "text_0-23",
        23,
        "She bought a loaf of brown bread and five currant buns.",
        "Old Mrs. Rabbit bought a loaf of brown bread and five currant buns.",
    ),
    SelectedSentence(
        "text_0-30",
        30,
        "Mr. McGregor was on his hands and knees planting out young cabbages, but he jumped up and "
        'ran after Peter, waving a rake and calling out "Stop thief!"',
        "Mr. McGregor was on Mr. McGregor's hands and knees planting out young cabbages, but Mr. McGregor "
        'jumped up and ran after Peter, waving a rake and calling out "Stop thief!"',
    ),
    SelectedSentence(
        "text_0-32",
        32,
        "He lost one shoe among the cabbages, and the other amongst the potatoes.",
        "Peter lost one shoe among the cabbages, and the other amongst the potatoes.",
    ),
    SelectedSentence(
        "text_0-45",
        45,
        "Peter sat down to rest; he was out of breath and trembling with fright, and he had not "
        "the least idea which way to go.",
        "Peter sat down to rest; Peter was out of breath and trembling with fright, and Peter had not the "
        "least idea which way to go.",
    ),
    SelectedSentence(
        "text_0-65",
        65,
        "Mr. McGregor hung up the little jacket and the shoes for a scare-crow to frighten the blackbirds.",
        "Mr. McGregor hung up the little jacket and the shoes for a scare-crow to frighten the blackbirds.",
    ),
    SelectedSentence(
        "text_0-69",
        69,
        "It was the second little jacket and pair of shoes that Peter had lost in a fortnight!",
        "It was the second little jacket and pair of shoes that Peter had lost in a fortnight!",
    ),
]
BY_ID = {s.id: s for s in PETER_CONTEXT}


# -- coreference -------------------------------------------------------------------------------
PAPER = "Peter's mother put Peter to bed and made some camomile tea; and she gave a dose of it to Peter!"
PAPER_RESOLVED = (
    "Peter's mother put Peter to bed and made some camomile tea; "
    "and Peter's mother gave a dose of some camomile tea to Peter!"
)
MRS_RABBIT = [
    "Then old Mrs. Rabbit took a basket and her umbrella and went through the wood to the baker's.",
    "She bought a loaf of brown bread and five currant buns.",
]


# -- AMR ---------------------------------------------------------------------------------------
# Section 7, Table 3 of the GroundedKG-RAG paper, copied as printed.
TABLE3_SENTENCE = (
    "Peter’s mother put Peter to bed and made some camomile tea; "
    "and Peter’s mother gave a dose of some camomile tea to Peter!"
)
TABLE3_AMR = """(a / and
    :op1 (p / put-01
        :ARG0 (p2 / person
            :ARG0-of (h / have-rel-role-91
                :ARG1 (p3 / person
                    :name (n / name
                        :op1 "Peter"))
                :ARG2 (m / mother)))
        :ARG1 p3
        :ARG2 (b / bed))
    :op2 (m2 / make-01
        :ARG0 p2
        :ARG1 (t / tea
            :mod (c / camomile)
            :quant (s / some)))
    :op3 (d / dose-01
        :ARG0 p2
        :ARG1 p3
        :ARG2 t))"""


# -- a two-document collection for the entity tests: Marta Vell and the Harbour Council are named in several
# sentences, Port Ness in both documents; most other entities in one.
LIGHT = ("Marta Vell kept the lighthouse on Gull Rock for thirty years. Every night Marta Vell climbed the tower "
         "and lit the great lamp. The lamp could be seen from the harbour of Port Ness. During the winter storm "
         "Marta Vell rescued two fishermen from a sinking boat. The fishermen later thanked Marta Vell at the "
         "harbour. The Harbour Council gave Marta Vell a silver medal for her courage.")
COUNCIL = ("The Harbour Council of Port Ness meets every Monday in the old customs house. The Harbour Council "
           "decided to repair the northern pier in the spring. The Harbour Council also raised the fees for fishing "
           "boats. Many fishermen protested against the new fees. The mayor of Port Ness supported the fishermen.")


def harbour_collection(tmp_path_factory, folder: str, **env: str):
    """Index LIGHT and COUNCIL as collection ``harbour`` in a new store under ``folder`` and yield it loaded, with
    ``KGCORE_STORE`` (and ``env``) set for the pages while the fixture lives (a module fixture's body)."""
    import pytest

    from kgcore.index.pipeline import Job, index_files
    from kgcore.index.store.disk import Store

    root = tmp_path_factory.mktemp(folder)
    store = Store(root)
    index_files([Job("light.txt", data=LIGHT.encode()), Job("council.txt", data=COUNCIL.encode())], store,
                "harbour", workers=1)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KGCORE_STORE", str(root))
        for name, value in env.items():
            mp.setenv(name, value)
        yield store.load("harbour")


# -- a longer public-domain text ---------------------------------------------------------------------------------
def long_tale(copies: int = 3) -> bytes:
    """The Tale of Peter Rabbit (the bundled Gutenberg text, public domain) told ``copies`` times as chapters of one
    book: about 40 paragraphs and 1,000 words a copy, enough paragraphs and sentences for the parsers to take
    their worker processes once ``KGCORE_PARALLEL_MIN_TEXTS`` is lowered under them."""
    from paths import PETER

    text = PETER.read_text(encoding="utf-8").replace("\r\n", "\n")
    tale = [p.strip() for p in text[text.index("Once upon a time"):text.index("*** END OF THIS")].split("\n\n")]
    prose = [p for p in tale if "Gutenberg" not in p]  # its last line would end the book for the cleaner
    return "\n\n".join(f"CHAPTER {n}\n\n" + "\n\n".join(prose) for n in range(1, copies + 1)).encode("utf-8")


def text_jobs(items) -> list:
    """Index jobs for ``(name, text)`` pairs, each a document's UTF-8 bytes."""
    from kgcore.index.pipeline import Job

    return [Job(name, data=text.encode("utf-8")) for name, text in items]


def indexed_store(root, texts, collection: str):
    """A store at ``root`` holding ``collection``, indexed from ``texts`` (name -> text) with one worker."""
    from kgcore.index.pipeline import index_files
    from kgcore.index.store.disk import Store

    store = Store(root)
    index_files(text_jobs(texts.items()), store, collection, workers=1)
    return store


# -- three short documents and a fourth to append (the stored sentence matrix and table) ---------------------
THREE_DOCS = {
    "rabbit.txt": "Peter was a young rabbit who lived under a fir tree. His father had been put in a pie by "
                  "Mrs. McGregor. Peter squeezed under the gate of the garden and ate some radishes.",
    "ship.txt": "The ship left the harbour at dawn with twelve sailors on board. A storm broke the mast on the "
                "third day. The captain ordered the crew to throw the cargo into the sea.",
    "mill.txt": "The miller ground the wheat every morning. His daughter carried the flour to the market in "
                "Dover. Merchants from London paid her in silver coins.",
}
THREE_DOCS_VISIT = ("visit.txt", "Peter visited the miller in Dover. The captain of the ship followed them to the "
                    "river.")
THREE_DOCS_QUESTIONS = ("What did Peter eat in the garden?", "Who paid the miller's daughter?")
