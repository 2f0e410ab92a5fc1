"""The Library's ingestion reports (Streamlit): every document's numbers and warnings, and the chosen document's
report with paragraphs and sentences per role and thumbnails of its first pages, optionally outlined by role."""

from __future__ import annotations

import streamlit as st

from kgcore.api import CollectionManifest, page_regions, render_page

from . import resources_panel as resources
from .errors_panel import reported
from .ingest_view import (
    NO_REPORT,
    THUMBNAIL_SCALE,
    ingest_overview,
    missing_reports,
    report_metrics,
    report_warnings,
    roles_table,
    thumbnail_pages,
)
from .markup_html import md_escape
from .roles_view import legend_html, role_rgba

OUTLINE_KEY = "library.thumbnails.roles"


@st.cache_data(show_spinner=False, max_entries=256)
def thumbnail(root: str, collection: str, stamp: str, doc_id: str, page: int,
              outline: bool) -> tuple[bytes, tuple[str, ...]] | None:
    """A small render of one page of a kept PDF (its paragraphs outlined in their role's colour when ``outline``)
    and the roles outlined; None when the document's source is not a kept PDF.  Keyed by the collection's stamp."""
    index = resources.get_engine(root).index(collection)
    pdf = index.source_path(doc_id)
    if pdf is None or pdf.suffix.lower() != ".pdf":
        return None
    regions = page_regions(index.paragraphs(doc_id), page) if outline else []
    image = render_page(pdf, page, scale=THUMBNAIL_SCALE, regions=[(box, role_rgba(role)) for role, box in regions])
    return image.png, tuple(role for role, _ in regions)


def ingestion(name: str, manifest: CollectionManifest, doc_id: str) -> None:
    """The overview of every document of the collection, all their warnings, then ``doc_id``'s own report."""
    st.markdown(f"**Ingestion of {md_escape(name)}** — what reading each file found")
    st.dataframe(ingest_overview(manifest), hide_index=True, key="library.ingest")
    missing = missing_reports(manifest)
    if missing:
        st.caption(f":material/history: {missing}")
    for entry in manifest.documents:
        for line in report_warnings(entry.doc_id, entry.manifest.ingest):
            st.warning(line, icon=":material/warning:")
    with reported(f"Ingestion report of {doc_id}"):
        document_report(name, manifest, doc_id)


def document_report(name: str, manifest: CollectionManifest, doc_id: str) -> None:
    """One document's report: headline numbers, the roles table and page thumbnails."""
    document = manifest.document(doc_id).manifest
    report = document.ingest
    file = f" ({md_escape(document.source_file)})" if document.source_file else ""
    st.markdown(f"**Ingestion report of {md_escape(doc_id)}**{file}")
    if report is None:
        st.info(f"**{md_escape(doc_id)}** was {NO_REPORT}.", icon=":material/history:")
        return
    for col, (what, value, tip) in zip(st.columns(5), report_metrics(report)):
        col.metric(what, f"{value:,}", help=tip)
    st.dataframe(roles_table(report), hide_index=True, key=f"library.roles.{name}.{doc_id}")
    thumbnails(name, manifest, doc_id, thumbnail_pages(report), report.pages)


def thumbnails(name: str, manifest: CollectionManifest, doc_id: str, pages: list[int], total: int) -> None:
    if not pages or not manifest.document(doc_id).manifest.source_file.lower().endswith(".pdf"):
        return
    outline = st.toggle("Outline paragraphs by role", key=OUTLINE_KEY,
                        help="Draw every paragraph's box in its role's colour on the thumbnails")
    root = resources.store_root()
    drawn = [(page, thumbnail(root, name, manifest.stamp, doc_id, page, outline)) for page in pages]
    drawn = [(page, image) for page, image in drawn if image is not None]
    if not drawn:
        st.caption("The source PDF of this document was not kept: no page thumbnails.")
        return
    st.image([png for _, (png, _) in drawn], caption=[f"page {page}" for page, _ in drawn], width="content")
    more = f"The first {len(drawn)} of {total} pages. " if total > len(drawn) else ""
    st.caption(f"{more}Open a sentence on the *Sentence* page to see its page at full size.")
    if outline:
        st.markdown(legend_html([role for _, (_, roles) in drawn for role in roles]), unsafe_allow_html=True)
