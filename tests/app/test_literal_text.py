"""Document and user text shown literally, and damaged collections on the Library page,
through ``streamlit.testing.v1.AppTest`` with the real models.

AppTest gives the Markdown source of what the browser renders; :func:`shown` reads its backslash escapes the
way CommonMark does, and the assertions require the literal characters and that no Streamlit directive, icon,
emoji or arrow can form (Streamlit finds icons and emoji in the text after the escapes are read: a colon followed
by a name must never appear there; a word joiner after the colon is invisible).
"""

from __future__ import annotations

import re

import pytest
from apptest import settle
from streamlit.testing.v1 import AppTest

from kgcore.audit import AuditDB
from kgcore.index.pipeline import Job, index_files
from kgcore.index.store.disk import Store
from paths import APP
from ui.markup_html import WORD_JOINER

TIMEOUT = 240
EVIL = ":red[RED] :blue-background[x] :material/warning: :smile:"
SIGN = f"The sign on the gate said {EVIL} to every rabbit."
TEXT = f"Peter squeezed under the gate of the garden. {SIGN} Mr. McGregor planted cabbages."


def shown(markdown: str) -> str:
    """The text a reader sees of ``markdown`` (backslash escapes read, HTML entities and word joiners dropped)."""
    text = re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown)
    return text.replace("&#8288;", "").replace(WORD_JOINER, "")


def formable(markdown: str) -> list[str]:
    """Streamlit directives, icons or emoji that could still form in ``markdown``."""
    text = re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown)
    return re.findall(r":[A-Za-z_+\-][\w/\-]*[:\[]", text)


def app(page: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.fixture
def sign_store(tmp_path, monkeypatch):
    root = tmp_path / "store"
    (outcome,) = index_files([Job("sign.txt", data=TEXT.encode())], Store(root), "signs", workers=1)
    assert not outcome.failed
    monkeypatch.setenv("KGCORE_STORE", str(root))
    return root


def test_the_question_heading_and_the_missing_sentence_search_show_directives_literally(sign_store):
    AuditDB.for_store(sign_store).add_reviewer("Ada")
    at = app("pages/ask.py")
    at.sidebar.selectbox(key="identity.choice").set_value("Ada").run()
    question = f"What did the sign say, {EVIL}?"
    at.text_input(key="ask.question").input(question)
    at.button(key="ask.go").click().run()
    assert not at.exception and not [e.value for e in at.error], [e.value for e in at.error]
    (heading,) = [m.value for m in at.markdown if m.value.startswith("#### ")]
    assert shown(heading) == f"#### {question}" and formable(heading) == []
    (search,) = [t for t in at.text_input if str(t.key).startswith("label.search.")]
    search.input("sign on the gate").run()
    (hit,) = [m.value for m in at.markdown if "The sign on the gate" in shown(m.value) and m.value.startswith("`")]
    assert SIGN in shown(hit) and formable(hit) == []
    assert all(formable(m.value) == [] for m in at.markdown)  # the context's HTML too


def test_a_file_name_in_an_error_banner_is_shown_literally(tmp_path, monkeypatch):
    monkeypatch.setenv("KGCORE_STORE", str(tmp_path / "empty"))
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    name = ":red[RED]:material/warning::smile:.txt"
    at.file_uploader(key="library.files").set_value((name, b"\x00\x01" * 50, "text/plain")).run()
    (button,) = [b for b in at.button if b.label == "Index uploaded files"]
    settle(button.click().run())
    banners = [e.value for e in at.error if "binary" in e.value]
    assert banners and all(name in shown(b) and formable(b) == [] for b in banners), banners


def test_a_damaged_collection_is_shown_on_the_library_page_and_can_be_deleted(sign_store):
    (sign_store / "signs" / "collection.json").write_text('{"name": "signs", "documents": [', encoding="utf-8")
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    assert not at.exception
    (banner,) = [e.value for e in at.error if "is damaged" in e.value]
    assert "signs" in banner and "collection.json" in shown(banner) and "delete --collection signs" in shown(banner)
    (delete,) = [b for b in at.button if b.label.startswith("Delete signs")]
    delete.click().run()
    assert any("Delete the damaged collection **signs**" in w.value for w in at.warning)
    assert Store(sign_store).exists("signs")  # nothing happens before the confirmation
    (yes,) = [b for b in at.button if b.label == "Yes, delete"]
    yes.click().run()
    assert not at.exception and not (sign_store / "signs").exists() and Store(sign_store).list() == []
