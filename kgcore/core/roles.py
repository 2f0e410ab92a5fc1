"""The roles of a document's paragraphs and sentences: what part of a book or paper each is, and which of them
retrieval reads (:data:`RETRIEVABLE`), reads on request (:data:`OPT_IN`) or parses into the graph (:data:`PARSED`).

>>> CAPTION in RETRIEVABLE, HEADING in RETRIEVABLE, HEADING in PARSED, REFERENCE in PARSED
(True, False, True, False)
"""

from __future__ import annotations

__all__ = ["ABSTRACT", "APPENDIX", "AUTHORS", "BODY", "CAPTION", "EQUATION", "FIGURE", "FOOTNOTE", "FRONT_MATTER",
           "HEADER_FOOTER", "HEADING", "LIST_ITEM", "OPT_IN", "PARSED", "REFERENCE", "RETRIEVABLE", "ROLES", "TABLE",
           "TITLE"]

#: The role of a paragraph and of its sentences.  Books: body, heading, front matter (title page, contents).
BODY, HEADING, FRONT_MATTER = "body", "heading", "front_matter"
#: Papers (kgcore.index.pdf.roles) add these.
TITLE, AUTHORS, ABSTRACT, LIST_ITEM, CAPTION = "title", "authors", "abstract", "list_item", "caption"
TABLE, EQUATION, FIGURE, FOOTNOTE = "table", "equation", "figure", "footnote"
HEADER_FOOTER, REFERENCE, APPENDIX = "header_footer", "reference", "appendix"
ROLES = (BODY, HEADING, FRONT_MATTER, TITLE, AUTHORS, ABSTRACT, LIST_ITEM, CAPTION, TABLE, EQUATION, FIGURE, FOOTNOTE,
         HEADER_FOOTER, REFERENCE, APPENDIX)
#: Retrieved by default.
RETRIEVABLE = frozenset({BODY, ABSTRACT, LIST_ITEM, CAPTION, FOOTNOTE, APPENDIX})
#: Retrieved only when asked for (``RetrievalOptions.front_matter``): title pages, contents, headings.
OPT_IN = frozenset({FRONT_MATTER, HEADING, TITLE, AUTHORS})
#: Parsed into the graph; tables, equations, figure text, running headers and reference entries stay text only
#: (kept, shown in the source view, never retrieved).
PARSED = RETRIEVABLE | OPT_IN
