"""Planning a batch: every check that needs no parsing runs on every file before the first is parsed, and the
collection is read and its linked graph hashed once per batch, not once per file."""

import dataclasses

from kgcore.core.settings import IndexOptions, Settings
from kgcore.index.pipeline import Job, index_files
from kgcore.index.plan import plan_batch
from kgcore.index.store.disk import Store
from kgcore.index.workers import Built

FILES = 2_000


def _batch(folder):
    """``FILES`` small text files, with a clash of ids, an empty file and a binary one among them."""
    folder.mkdir()
    for i in range(FILES - 4):
        (folder / f"doc-{i:05d}.txt").write_text(f"Document {i} says that the number {i} is fine.\n")
    (folder / "Queen_of_Spades.txt").write_text("The queen of spades is a card.\n")
    (folder / "Queen_of_spades.txt").write_text("A story by Pushkin.\n")
    (folder / "empty.txt").write_bytes(b"")
    (folder / "picture.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    return [Job(p.name, p) for p in sorted(folder.iterdir())]


def test_every_refusal_of_a_large_batch_comes_before_any_document_is_built(tmp_path):
    events: list[tuple[str, str]] = []

    def runner(jobs, options, settings, staging, progress=None):
        events.append(("build", str(len(jobs))))
        return [Built(job, error="not built: this test only plans") for job in jobs]

    settings = dataclasses.replace(Settings(), max_batch=FILES, max_documents=FILES)
    (outcome,) = index_files(_batch(tmp_path / "in"), Store(tmp_path / "s"), "cards", settings=settings, runner=runner,
                             refused=lambda filename, reason: events.append(("refused", filename)))
    assert events[:3] == [("refused", "Queen_of_spades.txt"), ("refused", "empty.txt"), ("refused", "picture.txt")]
    assert events[3:] == [("build", str(FILES - 3))]  # the others all went on to be built, in one call
    reasons = dict(outcome.failed)
    assert "same document id 'queen_of_spades' as Queen_of_Spades.txt in this batch" in reasons["Queen_of_spades.txt"]
    assert "empty file (0 bytes)" in reasons["empty.txt"] and "binary file" in reasons["picture.txt"]


def test_limits_and_unreadable_pdfs_are_refused_while_planning(tmp_path):
    settings = dataclasses.replace(Settings(), max_documents=2, max_text_chars=30)
    jobs = [Job("a.txt", data=b"Short."), Job("long.txt", data=b"x" * 31), Job("b.txt", data=b"Short too."),
            Job("c.txt", data=b"One too many."), Job("paper.pdf", data=b"%PDF-1.7\nnot really")]
    (plan,) = plan_batch(jobs, Store(tmp_path), "c", IndexOptions(), False, settings).values()
    assert [j.filename for j in plan.build] == ["a.txt", "b.txt"]
    reasons = dict(plan.failed)
    assert "31 characters exceed the limit of 30 characters" in reasons["long.txt"]
    assert "3 documents exceed the limit of 2 documents per collection" in reasons["c.txt"]
    assert "KGCORE_MAX_DOCUMENTS" in reasons["c.txt"] and "malformed or unreadable PDF" in reasons["paper.pdf"]
    assert "it protects the memory of serving the collection" in reasons["c.txt"]  # what raising it risks
    assert "doctor --collection" in reasons["c.txt"]


def test_two_files_of_one_name_in_different_folders_are_named_by_their_paths(tmp_path):
    """Which of two "same.txt" was kept and which refused is said by path, not by the name they share."""
    for folder, text in (("dupB", b"Anne sat down."), ("dupA", b"Peter ran home.")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "same.txt").write_bytes(text)
    jobs = [Job("same.txt", tmp_path / "dupB" / "same.txt"), Job("same.txt", tmp_path / "dupA" / "same.txt")]
    (plan,) = plan_batch(jobs, Store(tmp_path / "store"), "d", IndexOptions(), False, Settings()).values()
    assert [j.path for j in plan.build] == [tmp_path / "dupB" / "same.txt"]
    ((_, reason),) = plan.failed
    assert reason == (f"same.txt: the one at {tmp_path / 'dupA' / 'same.txt'} maps to the same document id 'same' "
                      f"as {tmp_path / 'dupB' / 'same.txt'} (kept) in this batch; give one of them another name")


def test_a_name_given_to_bytes_indexed_already_under_another_is_noted(tmp_path):
    store = Store(tmp_path / "store")
    (first,) = index_files([Job("tale.txt", data=b"Peter ran home.", name="alpha")], store, "c", workers=1)
    assert not first.notes
    (again,) = index_files([Job("tale.txt", data=b"Peter ran home.", name="beta")], store, "c", workers=1)
    assert [m.doc_id for m in again.reused] == ["alpha"]
    assert again.notes == ("tale.txt: the same bytes are indexed already as 'alpha', reused under that id, not "
                           "'beta' (remove it first to index them under another)",)


def test_a_document_indexed_under_its_names_former_id_keeps_it(tmp_path, monkeypatch):
    """Ids were once made by dropping what is not ASCII ("Straße" -> "strae"); a collection indexed then keeps the
    document: the edited file is refused as other content under that id, not added beside it."""
    from kgcore.index import plan as plan_mod

    store = Store(tmp_path / "store")
    from kgcore.index import load as load_mod

    for module in (plan_mod, load_mod):  # the former reading of names
        monkeypatch.setattr(module, "doc_id_for", load_mod.legacy_doc_id)
    index_files([Job("Straße.txt", data=b"The street was long.")], store, "c", workers=1)
    monkeypatch.undo()
    assert [d.doc_id for d in store.manifest("c").documents] == ["strae"]
    (edited,) = index_files([Job("Straße.txt", data=b"The street was short.")], store, "c", workers=1)
    assert [d.doc_id for d in store.manifest("c").documents] == ["strae"]
    ((_, reason),) = edited.failed
    assert "already has a document 'strae'" in reason
    index_files([Job("Straße.txt", data=b"The street was short.")], store, "c", workers=1, force=True)
    assert [d.doc_id for d in store.manifest("c").documents] == ["strae"]  # replaced, under its id
