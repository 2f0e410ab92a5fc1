"""The Streamlit app's building blocks; ``pages/`` lays the pages out with them.

Named by what they do, and ``tests/unit/test_ui_collections.py`` holds every module to its name:

* ``*_panel.py`` draws with Streamlit (``st.*``): shared widgets, the Ask page's panels, the app's cached
  resources and session state, sign-in;
* ``*_view.py`` and ``*_html.py`` are pure builders of HTML, tables and charts, with doctests, testable without a
  Streamlit runtime; every piece of document text they show is escaped;
* the :data:`SUPPORT` modules are neither: the user-facing names of kgcore's choices (``labels``) and the copies of
  uploaded files (``sources``).

The lists below are read from this folder, not written by hand:

>>> "ask_panel" in PANELS and "ask_view" in BUILDERS and "labels" in SUPPORT
True
"""

from pathlib import Path

_HERE = Path(__file__).resolve().parent
_MODULES = sorted(p.stem for p in _HERE.glob("*.py") if p.stem != "__init__")
#: Modules that draw with Streamlit.
PANELS = [m for m in _MODULES if m.endswith("_panel")]
#: Pure builders of HTML, tables and charts.
BUILDERS = [m for m in _MODULES if m.endswith(("_view", "_html"))]
#: Everything else (pure too).
SUPPORT = [m for m in _MODULES if m not in PANELS and m not in BUILDERS]
