"""The Ask page's small browser script: citation markers pin their sentence; a new question starts at the top.

* Clicking a citation marker ``[n]`` (``a.kg-cite``, whose ``href`` is the
  sentence's anchor) scrolls the sentence list to that sentence and pins it
  (class ``kg-pinned``, see :mod:`ui.style_html`) until another marker is
  clicked or a new question is asked; the pin survives reruns (a
  ``MutationObserver`` puts it back when Streamlit redraws the list).  The
  page's URL is left alone.
* On a new question (``run_id`` changes) every sentence list
  (``.kg-scroll``) scrolls to its first sentence the answer cites
  (``.kg-cited-sent``; to its top when none is cited) and the pin is dropped.

The only value written into the script is the integer ``run_id``; no
document text ever reaches it.

>>> html = ask_script_html(3)
>>> html.startswith("<script>") and 'const RUN = "3";' in html
True
>>> ask_script_html("3; alert(1)")
Traceback (most recent call last):
...
TypeError: run_id must be an int, got str
"""

from __future__ import annotations

SCRIPT = """<script>
(() => {
  const RUN = "__RUN__";
  const w = window;
  const pin = () => {
    document.querySelectorAll(".kg-sent.kg-pinned").forEach((el) => {
      if (el.id !== w.__kgPinned) el.classList.remove("kg-pinned");
    });
    const el = w.__kgPinned ? document.getElementById(w.__kgPinned) : null;
    if (el && !el.classList.contains("kg-pinned")) el.classList.add("kg-pinned");
  };
  if (!w.__kgCites) {
    w.__kgCites = true;
    document.addEventListener("click", (event) => {
      const link = event.target.closest ? event.target.closest("a.kg-cite") : null;
      if (!link) return;
      const id = decodeURIComponent((link.getAttribute("href") || "").replace(/^#/, ""));
      const target = document.getElementById(id);
      if (!target) return;
      event.preventDefault();
      (w.__kgTopTimers || []).forEach(clearTimeout);  // a late "back to top" must not undo this scroll
      w.__kgTopTimers = [];
      w.__kgPinned = id;
      pin();
      target.scrollIntoView({block: "center", behavior: "smooth"});
    }, true);
    new MutationObserver(() => { if (w.__kgPinned) pin(); })
      .observe(document.body, {childList: true, subtree: true});
  }
  if (w.__kgRun !== RUN) {
    w.__kgRun = RUN;
    w.__kgPinned = null;
    pin();
    const top = () => document.querySelectorAll(".kg-scroll").forEach((el) => {
      const cited = el.querySelector(".kg-cited-sent");
      el.scrollTop = cited ? el.scrollTop + cited.getBoundingClientRect().top - el.getBoundingClientRect().top : 0;
    });
    top();
    (w.__kgTopTimers || []).forEach(clearTimeout);
    w.__kgTopTimers = [50, 300, 1000, 2500].map((ms) => setTimeout(top, ms));
  }
})();
</script>"""


def ask_script_html(run_id: int) -> str:
    """The script for the answer of question number ``run_id`` (see the module doc)."""
    if not isinstance(run_id, int):
        raise TypeError(f"run_id must be an int, got {type(run_id).__name__}")
    return SCRIPT.replace("__RUN__", str(run_id))
