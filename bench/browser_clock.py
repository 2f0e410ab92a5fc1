"""Time an Ask-page question inside the browser, to the frame, instead of by polling from Playwright.

Playwright's ``expect`` polls a condition after 0, 20, 50, 100 and 100 ms and then every 500 ms, so a stage timed
by it is late by up to half a second; and an idle check that must see the app calm twice, 150 ms apart, adds at
least 0.3 s more.  :func:`watch` installs a ``requestAnimationFrame`` loop in the page *before* the click; on each
frame (about 16 ms) it notes the first time that

* ``answer``: the question's heading and an answer (``.kg-answer``) are shown, both in element containers that
  Streamlit does not mark stale (``data-stale``: what the previous question left on screen until it is replaced);
* ``graph``: the matched subgraph's frame holds a new document (the previous question's stays until replaced)
  that has drawn its bar ("N nodes, M edges") and its canvas;
* ``idle``: the app's script state is back to ``notRunning`` with no spinner, after the click's run began (a
  rerun that follows resets it);

all in milliseconds after the click (a capturing listener notes the click itself).  :func:`read` returns seconds
once Playwright has confirmed the app idle in its own, slower way.
"""

from __future__ import annotations

WATCH_JS = """(question) => {
  const kg = window.__kgClock = {start: null, answer: null, graph: null, idle: null, running: false};
  const fresh = (el) => {
    const box = el.closest("[data-testid='stElementContainer']");
    return !box || box.getAttribute("data-stale") !== "true";
  };
  const shown = () => {
    const heading = [...document.querySelectorAll("h4")].some((h) => h.textContent.trim() === question && fresh(h));
    return heading && [...document.querySelectorAll(".kg-answer")].some(fresh);
  };
  const frames = () => [...document.querySelectorAll('iframe[title="Matched subgraph"]')];
  const before = new Set(frames().map((frame) => frame.contentDocument));
  const drawn = () => frames().some((frame) => {
    const doc = frame.contentDocument;
    const bar = doc && doc.getElementById("bar");
    return !before.has(doc) && bar && bar.textContent.includes("nodes") && doc.querySelector("#graph canvas");
  });
  document.addEventListener("click", () => { if (kg.start === null) kg.start = performance.now(); },
                            {capture: true});
  const tick = () => {
    if (kg.start !== null) {
      const now = performance.now() - kg.start;
      const app = document.querySelector("[data-testid='stApp']");
      const state = app ? app.getAttribute("data-test-script-state") : "";
      if (state !== "notRunning") { kg.running = true; kg.idle = null; }
      else if (kg.running && kg.idle === null && !document.querySelector("[data-testid='stSpinner']")) kg.idle = now;
      if (kg.answer === null && shown()) kg.answer = now;
      if (kg.graph === null && drawn()) kg.graph = now;
    }
    if (!kg.stop) requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}"""


def watch(page, question: str) -> None:
    """Start the in-page clock for ``question``; call it just before clicking *Ask*."""
    page.evaluate(WATCH_JS, question)


def read(page) -> dict[str, float | None]:
    """Stop the clock: seconds from the click to each stage (``None``: not seen, e.g. no subgraph drawn)."""
    times = page.evaluate("() => { const kg = window.__kgClock; kg.stop = true; return kg; }")
    return {key: None if times[key] is None else round(times[key] / 1000, 3) for key in ("answer", "graph", "idle")}
