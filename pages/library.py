"""Library: upload and index documents, see and manage the indexed ones."""

from __future__ import annotations

import math
from dataclasses import dataclass

import streamlit as st

from kgcore.core.errors import InputError, KgcoreError
from kgcore.core.settings import COREF_BACKENDS, EMBEDDING_VARIANTS, IndexOptions
from kgcore.index.load import SUPPORTED_EXTENSIONS, load_bytes
from kgcore.index.pipeline import STAGES, index_document
from ui import resources
from ui.boot import ensure_app_navigation
from ui.errors import headline, log, reported, short_reason
from ui.labels import COREF_LABELS, EMBEDDING_LABELS, PARSER_LABELS
from ui.library_view import documents_table, narrator_message
from ui.markup import md_escape
from ui.progress import StatusProgress
from ui.sources import drop_source, find_source, keep_source
from ui.state import get_state

SAMPLE_BUTTON = "Index the sample book (Peter Rabbit)"


@dataclass
class Job:
    filename: str
    data: bytes
    name: str | None = None
    keep: bool = True


def options_form(settings) -> IndexOptions | None:
    """The index options chosen on the page, or None (with the reason shown) when one is invalid."""
    amr_ok, amr_reason = resources.amr_status(settings.amr_model)
    col_parser, col_coref, col_embed = st.columns(3)
    with col_parser:
        parser = st.radio(
            "Parser", ("srl", "amr"), index=0, horizontal=True, disabled=not amr_ok,
            format_func=PARSER_LABELS.get,
            help=amr_reason, key="library.parser",
        )
        if not amr_ok:
            st.caption(f":material/block: AMR unavailable — {md_escape(headline(amr_reason))}")
            with st.expander("How to enable AMR"):
                st.caption(md_escape(amr_reason))
    with col_coref:
        coref = st.selectbox("Coreference", COREF_BACKENDS, format_func=COREF_LABELS.get, key="library.coref")
    with col_embed:
        embedding = st.selectbox("Node embedding", EMBEDDING_VARIANTS, format_func=EMBEDDING_LABELS.get,
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


def run_jobs(jobs: list[Job], options: IndexOptions, force: bool = False) -> None:
    """Index each job with a live bar per document; results go to the session state."""
    state, settings, store = get_state(), resources.settings(), resources.store()
    state.indexed, state.index_errors = [], []
    with st.status(f"Indexing {len(jobs)} document(s)…", expanded=True) as status:
        for job in jobs:
            progress = StatusProgress(status, STAGES, f"**{md_escape(job.filename)}**")
            try:
                document = load_bytes(job.data, job.filename, settings, name=job.name)
                outcome = index_document(document, store, options, settings, force=force, timer=progress)
            except Exception as exc:  # noqa: BLE001 - every failure is reported per file
                if not isinstance(exc, KgcoreError):
                    log.exception("indexing %s failed", job.filename)
                state.index_errors.append((job.filename, short_reason(exc)))
                continue
            progress.done()
            if job.keep:
                keep_source(store.root, outcome.doc_id, job.filename, job.data)
            state.indexed.append(outcome)
            state.remember_doc(outcome.doc_id)
        failed = bool(state.index_errors)
        label = f"Indexed {len(state.indexed)} of {len(jobs)} document(s)"
        status.update(label=label, state="error" if failed else "complete", expanded=failed)


def show_last_run() -> None:
    state = get_state()
    for filename, reason in state.index_errors:
        st.error(f"**{md_escape(filename)}** could not be indexed — {md_escape(reason)}", icon=":material/error:")
    for outcome in state.indexed:
        m = outcome.manifest
        if outcome.reused:
            st.info(f"**{md_escape(m.doc_id)}** was already indexed from the same file with the same settings; "
                    "the existing index is kept (use *Re-index* below to rebuild it).", icon=":material/info:")
            continue
        st.success(f"Indexed **{md_escape(m.doc_id)}** — open the *Ask* page to question it.",
                   icon=":material/check_circle:")
        cols = st.columns(5)
        cols[0].metric("Sentences", m.counts.sentences)
        cols[1].metric("Nodes", m.counts.nodes)
        cols[2].metric("Edges", m.counts.edges)
        cols[3].metric("Words", m.counts.words)
        cols[4].metric("Time", f"{m.seconds:.1f} s")
        message = narrator_message(m.narrator)
        if message and message[0] == "warning":
            st.warning(message[1], icon=":material/record_voice_over:")
        elif message:
            st.caption(message[1])


def source_job(doc_id: str) -> Job | None:
    path = find_source(resources.store().root, doc_id)
    if path is not None:
        return Job(path.name, path.read_bytes(), doc_id, keep=False)
    if doc_id == resources.SAMPLE_DOC_ID and resources.SAMPLE_BOOK.is_file():
        return Job(resources.SAMPLE_BOOK.name, resources.SAMPLE_BOOK.read_bytes(), doc_id, keep=False)
    return None


def manage(doc_ids: list[str], options: IndexOptions | None) -> None:
    state = get_state()
    col_doc, col_re, col_del = st.columns([3, 1, 1], vertical_alignment="bottom")
    default = doc_ids.index(state.doc_id) if state.doc_id in doc_ids else 0
    doc_id = col_doc.selectbox("Document", doc_ids, index=default, key="library.manage_doc")
    if col_re.button("Re-index…", icon=":material/refresh:", width="stretch", disabled=options is None):
        state.pending = ("reindex", doc_id)
    if col_del.button("Delete…", icon=":material/delete:", width="stretch"):
        state.pending = ("delete", doc_id)
    if state.pending and state.pending[1] in doc_ids and (options is not None or state.pending[0] == "delete"):
        confirm(*state.pending, options)


def confirm(action: str, doc_id: str, options: IndexOptions) -> None:
    state = get_state()
    if action == "delete":
        st.warning(f"Delete the index of **{md_escape(doc_id)}**? This cannot be undone.", icon=":material/warning:")
    else:
        st.warning(f"Rebuild the index of **{md_escape(doc_id)}** with parser *{options.parser}*, "
                   f"coref *{options.coref}* "
                   f"and embedding *{options.embedding}* (the options above)?", icon=":material/warning:")
    yes, no, _ = st.columns([1, 1, 4])
    if no.button("Cancel", key="library.cancel"):
        state.pending = None
        st.rerun()
    if not yes.button(f"Yes, {'delete' if action == 'delete' else 're-index'}", type="primary", key="library.confirm"):
        return
    state.pending = None
    if action == "delete":
        with reported(f"Deleting {doc_id}"):
            resources.store().delete(doc_id)
            drop_source(resources.store().root, doc_id)
            resources.engine().forget(doc_id)
            state.forget_doc(doc_id)
            st.rerun()
        return
    job = source_job(doc_id)
    if job is None:
        st.error(f"The source file of **{md_escape(doc_id)}** was not kept (it was indexed outside the app); "
                 "upload it again to re-index it.", icon=":material/error:")
        return
    run_jobs([job], options, force=True)
    st.rerun()


def main() -> None:
    settings = resources.settings()
    st.title("Library")
    st.caption("Index books and documents into a grounded knowledge graph: every node and edge keeps "
               "the ids of the sentences it came from.")
    manifests = resources.documents()
    options = options_form(settings)
    col_sample, col_upload = st.columns([1, 2])
    with col_sample.container(border=True):
        st.markdown("**Sample book** — *The Tale of Peter Rabbit* (Beatrix Potter, about 1,000 words).")
        if not manifests:
            st.caption("Nothing is indexed yet: start here, it takes about a minute.")
        sample_clicked = st.button(SAMPLE_BUTTON, type="primary", icon=":material/auto_stories:",
                                   disabled=options is None)
    with col_upload.container(border=True):
        files = st.file_uploader(
            f"Upload .txt, .md or .pdf files (up to {settings.max_file_mb:g} MB each)",
            type=[e.lstrip(".") for e in SUPPORTED_EXTENSIONS], accept_multiple_files=True,
            max_upload_size=max(1, math.ceil(settings.max_file_mb)), key="library.files",
        )
        upload_clicked = st.button("Index uploaded files", icon=":material/upload_file:",
                                   disabled=not files or options is None)
    if sample_clicked or (upload_clicked and files):
        sample = Job(resources.SAMPLE_BOOK.name, resources.SAMPLE_BOOK.read_bytes(), resources.SAMPLE_DOC_ID,
                     keep=False)
        run_jobs([sample] if sample_clicked else [Job(f.name, f.getvalue()) for f in files], options)
        st.rerun()  # redraw the whole page (table, manage box) from the new store; the summary is in the state
    show_last_run()
    st.subheader("Indexed documents")
    if not manifests:
        st.info("No documents indexed yet.", icon=":material/inbox:")
        return
    st.dataframe(documents_table(manifests), hide_index=True, column_config={
        "indexed at": st.column_config.DatetimeColumn(format="YYYY-MM-DD HH:mm"),
        "seconds": st.column_config.NumberColumn(format="%.1f s"),
    })
    manage([m.doc_id for m in manifests], options)


ensure_app_navigation()
with reported("Library"):
    main()
