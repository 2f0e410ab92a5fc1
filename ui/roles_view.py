"""Sentence and paragraph roles on screen: one colour per role (page outlines and their legend), what retrieval
does with a role, and the role and citation badges of a context sentence (pure: no streamlit).

>>> ROLE_COLOURS["heading"], role_rgba("caption"), role_rgba("a-role-from-a-newer-kgcore")
('#1f77b4', (44, 160, 44, 255), (140, 140, 140, 255))
>>> retrieval_of("caption"), retrieval_of("heading"), retrieval_of("table")
('retrieved', 'with front matter only', 'never retrieved')
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from kgcore.api import BODY, OPT_IN, RETRIEVABLE, ROLES

from .labels import ROLE_LABELS, label
from .markup_html import badge, esc

#: The fixed role palette: body grey, headings blue, captions green, tables orange, equations purple, footnotes
#: brown, references red, running headers pink, the paper's title block teal.
ROLE_COLOURS = {
    "body": "#8c8c8c",
    "heading": "#1f77b4",
    "front_matter": "#17becf",
    "title": "#00897b",
    "authors": "#00897b",
    "abstract": "#00897b",
    "list_item": "#5b6770",
    "caption": "#2ca02c",
    "table": "#ff7f0e",
    "equation": "#9467bd",
    "figure": "#bcbd22",
    "footnote": "#8c564b",
    "header_footer": "#e377c2",
    "reference": "#d62728",
    "appendix": "#393b79",
}
#: The colour of a role this version does not know.
OTHER_COLOUR = ROLE_COLOURS[BODY]


def role_rgba(role: str) -> tuple[int, int, int, int]:
    """The role's colour as an opaque RGBA tuple (what :func:`kgcore.index.views.source.render_page` outlines with)."""
    colour = ROLE_COLOURS.get(role, OTHER_COLOUR).lstrip("#")
    red, green, blue = (int(colour[i:i + 2], 16) for i in (0, 2, 4))
    return red, green, blue, 255


def retrieval_of(role: str) -> str:
    """What retrieval does with a sentence of this role."""
    if role in RETRIEVABLE:
        return "retrieved"
    return "with front matter only" if role in OPT_IN else "never retrieved"


def ordered_roles(roles: Iterable[str]) -> list[str]:
    """Distinct roles in :data:`kgcore.core.types.ROLES` order, unknown ones last (alphabetically).

    >>> ordered_roles(["table", "zzz", "body", "table"])
    ['body', 'table', 'zzz']
    """
    found = set(roles)
    return [r for r in ROLES if r in found] + sorted(found - set(ROLES))


def legend_html(roles: Iterable[str]) -> str:
    """A legend of role colours, one coloured key per role (in the order of :func:`ordered_roles`).

    >>> print(legend_html(["caption", "<x>"]).replace(" <", "\\n<"))
    <div class="kg-legend"><span class="kg-key" style="border-color:#2ca02c">caption</span>
    <span class="kg-key" style="border-color:#8c8c8c">&lt;x&gt;</span></div>
    """
    keys = [f'<span class="kg-key" style="border-color:{ROLE_COLOURS.get(r, OTHER_COLOUR)}">'
            f'{esc(label(ROLE_LABELS, r))}</span>' for r in ordered_roles(roles)]
    return f'<div class="kg-legend">{" ".join(keys)}</div>'


def role_badges(role: str, cites: Sequence[str] = ()) -> str:
    """Badges for a context sentence: its role unless body text, and how many works it cites (named in the tooltip).

    >>> role_badges("body")
    ''
    >>> print(role_badges("caption", ["Lewis 2020 — <RAG>"]).replace(" <", "\\n<"))
    <span class="kg-role" title="caption: retrieved">caption</span>
    <span class="kg-cites" title="Lewis 2020 — &lt;RAG&gt;">cites 1</span>
    """
    parts = []
    if role and role != BODY:
        name = label(ROLE_LABELS, role)
        parts.append(badge(name, "kg-role", f"{name}: {retrieval_of(role)}"))
    if cites:
        parts.append(badge(f"cites {len(cites)}", "kg-cites", "; ".join(cites)))
    return " ".join(parts)
