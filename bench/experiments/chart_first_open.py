"""How long does a page's first chart take to draw in a fresh browser, Plotly against Vega-Lite (Altair)?

Streamlit loads each chart library's JavaScript the first time a page draws one: Plotly's chunk is 4.7 MB, the
Vega-Lite chart and vega-embed about 0.8 MB.  Each run serves a source tree on a fresh server and, each time in a
new browser context (an empty cache, as for a new user), times in the page

* ``cold_server_open_s``: from navigation start to the four label charts of ``/review?tab=Charts`` drawn (a bar
  of each Plotly chart, a mark of each Vega chart's SVG), the server's first page (``cold_server_idle_s``: to the
  app idle);
* ``tab_click_to_charts_s``: after opening the Library and then the Review page (the server warm), from the click
  on the Charts tab to the four charts drawn.

Two trees are served in turn -- ``--base`` (a git revision, exported with ``git archive``) and the working tree --
alternating base, tree, base, tree ... so that load on the shared machine hits both; medians over ``--rounds``.

    python bench/experiments/chart_first_open.py --base 6e46548 --rounds 3

The store is the Peter Rabbit sample with a few answered questions and labels of every type (built once into a
temporary folder, or ``--store``).  Writes bench/results/chart_first_open.json.
"""

from __future__ import annotations

import argparse
import io
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from common import PETER, ROOT, machine, write_json  # noqa: E402
from startup_bench import CHROMIUM, CHROMIUM_ARGS, env_for, served_app  # noqa: E402

DOC_ID = "peter-rabbit"
QUESTIONS = ("What happened to the young rabbits' father?", "Where did Peter lose his shoes?",
             "Who gave Peter camomile tea?")
#: (question index, method, label type, author) of the labels.
LABELS = ((0, "groundedkg", "II", "Ada"), (0, "groundedkg", "II", "Bob"), (1, "bm25", "correct", "Ada"),
          (1, "bm25", "III", "Bob"), (2, "groundedkg", "I", "Ada"), (2, "bm25", "gold-not-in-document", "Bob"))
CHARTS = 4
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
TIMEOUT_MS = 120_000
#: Milliseconds from navigation start to every chart element holding a drawn plot (polled each frame).
DRAWN_JS = """([n, timeoutMs]) => new Promise((resolve, reject) => {
  const drawn = (el) => el.querySelector(".main-svg .trace .point, svg.marks .role-mark path");
  const tick = () => {
    const charts = [...document.querySelectorAll("[data-testid='stPlotlyChart'], [data-testid='stVegaLiteChart']")];
    if (charts.length >= n && charts.every(drawn)) resolve({ms: performance.now(), kinds: charts.map(
      (c) => c.getAttribute("data-testid"))});
    else if (performance.now() > timeoutMs) reject(new Error(`${charts.length} charts, not all drawn`));
    else requestAnimationFrame(tick);
  };
  tick();
})"""


def prepare(store: Path) -> None:
    """Index the sample and save labelled answers (each question asked by two methods)."""
    from kgcore.api import AuditDB, QueryEngine, RetrievalOptions, Settings, Store, index_file

    index_file(PETER, Store(store), name=DOC_ID)
    engine = QueryEngine(Store(store), Settings.from_env())
    manifest = engine.index(DOC_ID).manifest
    db = AuditDB.for_store(store)
    for q, method, label_type, author in LABELS:
        record = db.save_record(*engine.ask(DOC_ID, QUESTIONS[q], RetrievalOptions(method=method)), manifest)
        db.add_label(record, label_type, author=author)


def export(revision: str, folder: Path) -> Path:
    """The tree of ``revision`` (tracked files only) in ``folder``, with this tree's virtualenv linked."""
    archive = subprocess.run(["git", "archive", revision], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    (folder / ".venv").symlink_to((ROOT / ".venv").resolve())
    return folder


def charts_drawn(page) -> dict:
    """Milliseconds (page clock) at which every chart was drawn, and the chart elements' kinds."""
    return page.evaluate(DRAWN_JS, [CHARTS, TIMEOUT_MS])


def one_open(browser, tree: Path, store: Path, log: Path) -> dict:
    """Serve ``tree``: open its Review page's Charts tab by address in a new context (the server's first page),
    then, in another new context, open the Library, go to the Review page and click the Charts tab."""
    marks = {}
    with served_app(tree, env_for(store), log) as url:
        context = browser.new_context(viewport={"width": 1500, "height": 1200})
        try:
            page = context.new_page()
            page.goto(f"{url}/review?tab=Charts", wait_until="commit")
            drawn = charts_drawn(page)
            page.wait_for_selector(IDLE, timeout=TIMEOUT_MS)
            marks["cold_server_open_s"] = drawn["ms"] / 1000
            marks["cold_server_idle_s"] = page.evaluate("performance.now()") / 1000
        finally:
            context.close()
        context = browser.new_context(viewport={"width": 1500, "height": 1200})
        try:
            page = context.new_page()
            page.goto(url)
            page.get_by_role("heading", name="Collections").wait_for(timeout=TIMEOUT_MS)
            page.wait_for_selector(IDLE, timeout=TIMEOUT_MS)
            page.get_by_role("link", name="Review", exact=True).click()
            page.get_by_role("tab", name="Charts").wait_for(timeout=TIMEOUT_MS)
            page.wait_for_selector(IDLE, timeout=TIMEOUT_MS)
            page.wait_for_timeout(500)
            clicked = page.evaluate("performance.now()")
            page.get_by_role("tab", name="Charts").click()
            marks["tab_click_to_charts_s"] = (charts_drawn(page)["ms"] - clicked) / 1000
        finally:
            context.close()
    return {**{k: round(v, 3) for k, v in marks.items()}, "chart_elements": sorted(set(drawn["kinds"]))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="HEAD", help="the git revision to compare the working tree with")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--store", type=Path, help="a store this script prepared before (default: a new one)")
    parser.add_argument("--output", default="chart_first_open.json")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="kgcore-charts-") as tmp:
        store = args.store or Path(tmp) / "store"
        if not (store / "audit.sqlite").exists():
            start = time.perf_counter()
            subprocess.run(["nice", "-n", "19", sys.executable, __file__, "--prepare", str(store)], check=True)
            print(f"store prepared in {time.perf_counter() - start:.0f} s", flush=True)
        trees = {"base": export(args.base, Path(tmp) / "base"), "tree": ROOT}
        runs: dict[str, list[dict]] = {"base": [], "tree": []}
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            try:
                for i in range(args.rounds):
                    for side, tree in trees.items():
                        runs[side].append(one_open(browser, tree, store, Path(tmp) / f"{side}-{i}.log"))
                        print(f"round {i + 1} {side}: {runs[side][-1]}", flush=True)
            finally:
                browser.close()
    keys = ("cold_server_open_s", "cold_server_idle_s", "tab_click_to_charts_s")
    median = {side: {k: round(statistics.median(r[k] for r in rows), 3) for k in keys} for side, rows in runs.items()}
    print(median)
    tree = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True, text=True).stdout
    write_json(args.output, {"machine": machine(), "base": args.base, "tree": tree.strip(),
                             "page": "/review?tab=Charts", "charts": CHARTS, "median": median, "runs": runs})


if __name__ == "__main__":
    if sys.argv[1:2] == ["--prepare"]:
        prepare(Path(sys.argv[2]))
    else:
        main()
