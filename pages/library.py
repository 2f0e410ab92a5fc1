"""Library: create collections from uploaded files, add documents to them, and manage them."""

from __future__ import annotations

import math

import streamlit as st

from kgcore.api import (
    COREF_BACKENDS,
    EMBEDDING_VARIANTS,
    JOB_FINISHED,
    SUPPORTED_EXTENSIONS,
    CollectionManifest,
    IndexOptions,
    InputError,
    KgcoreError,
    Upload,
    remove_documents,
)
from ui import auth_panel as auth
from ui import resources_panel as resources
from ui.boot_panel import ensure_app_navigation
from ui.errors_panel import headline, reported, short_reason
from ui.identity_panel import REVIEWER_KEY, reviewer_sidebar
from ui.ingest_panel import ingestion
from ui.ingest_view import report_warnings
from ui.jobs_panel import jobs_panel
from ui.jobs_view import outcomes_of
from ui.labels import COREF_LABELS, EMBEDDING_LABELS, NEW_COLLECTION, PARSER_LABELS
from ui.library_view import (
    DocumentLine,
    collection_name,
    collections_table,
    document_lines,
    documents_table,
    narrator_message,
    options_summary,
)
from ui.markup_html import md_escape
from ui.sources import drop_source, find_source
from ui.state_panel import Pending, get_state

SAMPLE_BUTTON = "Index the sample book (Peter Rabbit)"
UPLOAD_BUTTON = "Index uploaded files"
FLASH_KEY = "library.flash"
DATE_COLUMNS = {
    "indexed at": st.column_config.DatetimeColumn(format="YYYY-MM-DD HH:mm"),
    "updated": st.column_config.DatetimeColumn(format="YYYY-MM-DD HH:mm"),
    "seconds": st.column_config.NumberColumn(format="%.1f s"),
}


# -- adding documents ------------------------------------------------------------------------------
def options_form(settings, fixed: IndexOptions | None = None) -> IndexOptions | None:
    """The index options chosen on the page (an existing collection's own when ``fixed``), or None when invalid."""
    if fixed is not None:
        st.caption(f"Documents added to this collection are indexed with its options: {options_summary(fixed)}.")
        return fixed
    amr_ok, amr_reason = resources.amr_status(settings.amr_model)
    col_parser, col_coref, col_embed = st.columns(3)
    with col_parser:
        parser = st.radio("Parser", ("srl", "amr"), index=0, horizontal=True, disabled=not amr_ok,
                          format_func=PARSER_LABELS.get, help=amr_reason, key="library.parser")
        if not amr_ok:
            st.caption(f":material/block: AMR unavailable — {md_escape(headline(amr_reason))}")
            with st.expander("How to enable AMR"):
                st.caption(md_escape(amr_reason))
    coref = col_coref.selectbox("Coreference", COREF_BACKENDS, format_func=COREF_LABELS.get, key="library.coref")
    embedding = col_embed.selectbox("Node embedding", EMBEDDING_VARIANTS, format_func=EMBEDDING_LABELS.get,
                                    key="library.embedding")
    narrator = st.text_input(
        "Narrator of a first-person book", value="auto", key="library.narrator",
        help="Questions name the narrator (\"Crusoe\") while the book says \"I\". *auto* resolves \"I\" outside "
             "quotes to the name the text gives itself (\"I, poor miserable Robinson Crusoe\"); *none* leaves \"I\" "
             "alone; or type the narrator's name.",
    )
    try:
        return IndexOptions(parser=parser if amr_ok else "srl", coref=coref, embedding=embedding, narrator=narrator)
    except InputError as exc:
        st.error(f"Cannot index with these options — {md_escape(str(exc))}", icon=":material/error:")
        return None


def target_picker(names: list[str]) -> tuple[str | None, bool]:
    """The collection uploads go to (None: one collection per file) and whether the choice is valid."""
    col_target, col_name = st.columns(2)
    choice = col_target.selectbox("Add to collection", [NEW_COLLECTION, *names], key="library.target",
                                  help="A new collection, or an existing one to add the files to")
    if choice != NEW_COLLECTION:
        return choice, True
    typed = col_name.text_input("New collection name", key="library.new_name",
                                placeholder="empty: one collection per file, named after it")
    try:
        name = collection_name(typed)
    except InputError as exc:
        col_name.error(md_escape(exc), icon=":material/error:")
        return None, False
    if name in names:
        col_name.caption(f"**{md_escape(name)}** exists: the files are added to it.")
    elif name and name != typed.strip():
        col_name.caption(f"It will be called **{md_escape(name)}**.")
    return name or None, True


def submit(files: list[Upload], collection: str | None, options: IndexOptions, force: bool = False) -> None:
    """Queue indexing ``files`` into ``collection`` as a background job (the jobs panel shows it, the page shows
    its outcome when it ends); a refusal that needs no model is shown at once."""
    state = get_state()
    state.index_errors = []
    try:
        job, new = resources.jobs().submit(files, collection, options, force, owner=_who())
    except KgcoreError as exc:
        state.index_errors.append(("Indexing", short_reason(exc)))
        return
    state.jobs = [job.id]
    names = ", ".join(job.filenames)
    st.session_state[FLASH_KEY] = (f"Queued {names} for indexing: follow it under “Indexing” below. It goes on if "
                                   "you leave this page." if new else
                                   f"{names} is already being indexed into the same collection: see “Indexing”.")


def _who() -> str:
    """Who asked for a job: the signed-in user, else the reviewer chosen in the sidebar."""
    return auth.identity() or st.session_state.get(REVIEWER_KEY) or ""


def add_documents(settings, by_name: dict[str, CollectionManifest]) -> None:
    """Target collection, index options, the sample-book button and the uploader."""
    st.subheader("Add documents")
    target, valid = target_picker(list(by_name))
    existing = by_name.get(target) if target else None
    options = options_form(settings, existing.options if existing else None)
    sample = by_name.get(resources.SAMPLE_COLLECTION)
    col_sample, col_upload = st.columns([1, 2])
    with col_sample.container(border=True):
        st.markdown("**Sample book** — *The Tale of Peter Rabbit* (Beatrix Potter, about 1,000 words), "
                    f"as collection *{resources.SAMPLE_COLLECTION}*.")
        if not by_name:
            st.caption("Nothing is indexed yet: start here, it takes about a minute.")
        sample_clicked = st.button(SAMPLE_BUTTON, type="primary", icon=":material/auto_stories:",
                                   disabled=options is None and sample is None)
    with col_upload.container(border=True):
        files = st.file_uploader(
            f"Upload .txt, .md or .pdf files (up to {settings.max_file_mb:g} MB each)",
            type=[e.lstrip(".") for e in SUPPORTED_EXTENSIONS], accept_multiple_files=True,
            max_upload_size=max(1, math.ceil(settings.max_file_mb)), key="library.files",
        )
        upload_clicked = st.button(UPLOAD_BUTTON, icon=":material/upload_file:",
                                   disabled=not files or options is None or not valid)
    if sample_clicked:
        book = resources.SAMPLE_BOOK
        submit([(book.name, book.read_bytes(), resources.SAMPLE_DOC_ID)], resources.SAMPLE_COLLECTION,
               sample.options if sample else options)
        st.rerun()  # the jobs panel shows the job from the next run on
    if upload_clicked and files and options is not None:
        submit([(f.name, f.getvalue()) for f in files], target, options)
        st.rerun()


def show_line(line: DocumentLine, metrics: bool) -> None:
    where = f"collection **{md_escape(line.collection)}**"
    if line.status == "failed":
        st.error(f"**{md_escape(line.filename)}** could not be indexed into {where} — {md_escape(line.reason)}",
                 icon=":material/error:")
        return
    m = line.manifest
    assert m is not None
    if line.status == "reused":
        st.info(f"**{md_escape(m.doc_id)}** ({md_escape(line.filename)}) is already in {where} with the same "
                "content and options; it is kept as it is (use *Re-index document…* below to rebuild it).",
                icon=":material/info:")
        return
    st.success(f"Indexed **{md_escape(m.doc_id)}** ({md_escape(line.filename)}) into {where} — open the *Ask* page "
               "to question it.", icon=":material/check_circle:")
    if metrics:
        cols = st.columns(5)
        for col, (name, value) in zip(cols, (("Sentences", m.counts.sentences), ("Nodes", m.counts.nodes),
                                             ("Edges", m.counts.edges), ("Words", m.counts.words),
                                             ("Time", f"{m.seconds:.1f} s"))):
            col.metric(name, value)
    for warning in report_warnings(m.doc_id, m.ingest):
        st.warning(warning, icon=":material/warning:")
    message = narrator_message(m.narrator)
    if message and message[0] == "warning":
        st.warning(f"**{md_escape(m.doc_id)}**: {message[1]}", icon=":material/record_voice_over:")
    elif message:
        st.caption(message[1])


def show_last_run() -> None:
    """The refusals and, once it ended, what this session's last job did to each file and collection."""
    state = get_state()
    for what, reason in state.index_errors:
        st.error(f"**{md_escape(what)}** failed — {md_escape(reason)}", icon=":material/error:")
    outcomes = []
    for job in _finished_jobs(state.jobs):
        if job.state != "done":
            verb = "was cancelled" if job.state == "cancelled" else "failed"
            st.error(f"Indexing {md_escape(', '.join(job.filenames))} {verb} — {md_escape(job.error)}",
                     icon=":material/error:")
        outcomes += outcomes_of(job)
    for outcome in outcomes:
        if outcome.collection is not None:
            state.remember_collection(outcome.name)
    lines = document_lines(outcomes)
    added = sum(line.status == "added" for line in lines)
    for line in lines:
        show_line(line, metrics=added == 1)
    for outcome in outcomes:
        c = outcome.collection
        if c is not None and (outcome.added or outcome.reused):
            st.caption(f"Collection **{md_escape(c.name)}**: {c.counts.documents} document(s), "
                       f"{c.counts.sentences:,} sentences, {c.counts.nodes:,} nodes, {c.counts.edges:,} edges, "
                       f"{c.counts.shared_entities:,} shared entities — {outcome.seconds:.1f} s")
        for note in outcome.notes:
            st.warning(f"Collection **{md_escape(outcome.name)}**: {md_escape(note)}", icon=":material/warning:")


def _finished_jobs(ids: list[str]) -> list:
    """This session's jobs that ended (a job removed from the queue meanwhile is skipped)."""
    queue, out = resources.jobs(), []
    for job_id in ids:
        try:
            job = queue.get(job_id)
        except KgcoreError:
            continue
        if job.state in JOB_FINISHED:
            out.append(job)
    return out


# -- managing collections ----------------------------------------------------------------------------
def manage(manifests: list[CollectionManifest]) -> None:
    """The chosen collection's documents with remove / re-index / delete (each confirmed)."""
    state = get_state()
    names = [m.name for m in manifests]
    default = names.index(state.collection) if state.collection in names else 0
    name = st.selectbox("Collection", names, index=default, key="library.collection")
    state.remember_collection(name)
    manifest = manifests[names.index(name)]
    st.markdown(f"**Documents of {md_escape(name)}** — {options_summary(manifest.options)}")
    st.dataframe(documents_table(manifest), hide_index=True, column_config=DATE_COLUMNS, key="library.documents")
    col_doc, col_remove, col_reindex, col_delete = st.columns([3, 2, 2, 2], vertical_alignment="bottom")
    doc_id = col_doc.selectbox("Document", manifest.doc_ids, key=f"library.document.{name}")
    if col_remove.button("Remove document…", icon=":material/remove_circle:", width="stretch"):
        state.pending = Pending("remove", name, doc_id)
    if col_reindex.button("Re-index document…", icon=":material/refresh:", width="stretch"):
        state.pending = Pending("reindex", name, doc_id)
    if col_delete.button("Delete collection…", icon=":material/delete:", width="stretch"):
        state.pending = Pending("delete", name)
    pending = state.pending
    if pending and pending.collection == name and (pending.action == "delete" or pending.doc_id in manifest.doc_ids):
        confirm(pending, manifest)
    if doc_id:
        ingestion(name, manifest, doc_id)


#: What every removal, re-index and deletion leaves as it was: the team's audit trail.
KEPT_RECORDS = ("The audit records of questions asked about it and their labels are kept (shown as asked of a "
                "collection that changed since).")
#: The Library's actions that need a role when sign-in is on (ui.auth_view.NEEDS), by pending action.
GUARDED = {"remove": "remove documents", "delete": "delete collections"}


def confirm(pending: Pending, manifest: CollectionManifest) -> None:
    state = get_state()
    if pending.action in GUARDED and not auth.permitted(GUARDED[pending.action]):
        state.pending = None  # refused with the reason; asked again only on the next click
        return
    doc, name = md_escape(pending.doc_id), md_escape(pending.collection)
    if pending.action == "remove" and len(manifest.documents) == 1:
        st.warning(f"**{doc}** is the only document of **{name}**, and a collection cannot be empty. "
                   "Delete the whole collection instead?", icon=":material/warning:")
        yes, no, _ = st.columns([2, 1, 3])
        if yes.button("Delete the collection…", key="library.instead"):
            state.pending = Pending("delete", pending.collection)
            st.rerun()
        if no.button("Cancel", key="library.cancel"):
            state.pending = None
            st.rerun()
        return
    question = {
        "remove": f"Remove **{doc}** from **{name}**? Its sentences, and every node and edge grounded only in it, "
                  "leave the collection's graph. This cannot be undone.",
        "reindex": f"Re-index **{doc}** in **{name}** from its kept source file, with the collection's options "
                   f"({options_summary(manifest.options)})?",
        "delete": f"Delete the collection **{name}** and its {len(manifest.documents)} document(s)? "
                  "This cannot be undone." if not manifest.damaged else
                  f"Delete the damaged collection **{name}** and everything in its folder? This cannot be undone.",
    }[pending.action] + " " + KEPT_RECORDS
    st.warning(question, icon=":material/warning:")
    yes, no, _ = st.columns([1, 1, 4])
    if no.button("Cancel", key="library.cancel"):
        state.pending = None
        st.rerun()
    verb = {"remove": "remove", "reindex": "re-index", "delete": "delete"}[pending.action]
    if yes.button(f"Yes, {verb}", type="primary", key="library.confirm"):
        state.pending = None
        with reported(f"{verb.capitalize()} {pending.doc_id or pending.collection}"):
            ACTIONS[pending.action](pending, manifest)


def do_remove(pending: Pending, manifest: CollectionManifest) -> None:
    remove_documents(resources.store(), pending.collection, [pending.doc_id], resources.settings())
    _forget_answer(pending.collection)
    st.session_state[FLASH_KEY] = f"Removed {pending.doc_id} from {pending.collection}."
    st.rerun()


def do_reindex(pending: Pending, manifest: CollectionManifest) -> None:
    job = source_job(pending.collection, pending.doc_id)
    if job is None:
        st.error(f"The source file of **{md_escape(pending.doc_id)}** was not kept (it was indexed by an older "
                 "version); upload it again into this collection to re-index it.", icon=":material/error:")
        return
    submit([job], pending.collection, manifest.options, force=True)
    _forget_answer(pending.collection)
    st.rerun()


def do_delete(pending: Pending, manifest: CollectionManifest) -> None:
    store = resources.store()
    store.delete(pending.collection)
    drop_source(store.root, pending.collection)  # a source copy kept by an older version of the app
    resources.forget(pending.collection)
    get_state().forget_collection(pending.collection)
    st.session_state[FLASH_KEY] = f"Deleted the collection {pending.collection}."
    st.rerun()


ACTIONS = {"remove": do_remove, "reindex": do_reindex, "delete": do_delete}


def show_damaged(manifests: list[CollectionManifest]) -> None:
    """Collections whose manifest cannot be read: each with the reason, and a delete button (confirmed)."""
    state = get_state()
    for m in manifests:
        st.error(f"Collection **{md_escape(m.name)}** is damaged — {md_escape(m.damaged)}", icon=":material/error:")
        if st.button(f"Delete {md_escape(m.name)}…", key=f"library.damaged.{m.name}", icon=":material/delete:"):
            state.pending = Pending("delete", m.name)
        if state.pending and state.pending.action == "delete" and state.pending.collection == m.name:
            confirm(state.pending, m)


def _forget_answer(collection: str) -> None:
    """The Ask page's last answer may cite sentences of a document that changed: drop it."""
    state = get_state()
    if state.ask and state.ask.doc_id == collection:
        state.ask = None


def source_job(collection: str, doc_id: str) -> Upload | None:
    """The upload that indexes ``doc_id`` again from the source file the store kept (or an older app's copy); the
    collection is not loaded, so a document whose files are damaged can be re-indexed."""
    store = resources.store()
    entry = store.manifest(collection).document(doc_id)
    path = store.source_path(collection, doc_id) or find_source(store.root, doc_id)
    if path is None and doc_id == resources.SAMPLE_DOC_ID and resources.SAMPLE_BOOK.is_file():
        path = resources.SAMPLE_BOOK
    if path is None:
        return None
    return entry.manifest.source_file or path.name, path.read_bytes(), doc_id


def main() -> None:
    settings = resources.settings()
    st.title("Library")
    st.caption("Index books and documents into collections: each collection is one grounded knowledge graph over "
               "its documents, and every node and edge keeps the ids of the sentences it came from.")
    message = st.session_state.pop(FLASH_KEY, None)
    if message:
        st.success(md_escape(message), icon=":material/check_circle:")
    manifests = resources.collections()
    damaged = [m for m in manifests if m.damaged]
    manifests = [m for m in manifests if not m.damaged]
    add_documents(settings, {m.name: m for m in manifests})
    jobs_panel(resources.jobs(), settings, _who())
    show_last_run()
    st.subheader("Collections")
    show_damaged(damaged)
    if not manifests:
        if not damaged:
            st.info("No documents indexed yet.", icon=":material/inbox:")
        return
    st.dataframe(collections_table(manifests), hide_index=True, column_config=DATE_COLUMNS, key="library.collections")
    manage(manifests)


ensure_app_navigation()
reviewer_sidebar()  # the "reviewing as" choice, on every page
with reported("Library"):
    main()
