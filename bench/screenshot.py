"""The README's picture of the Ask page (``docs/ask.png``), taken in Chromium from the app as it is.

    python bench/screenshot.py                       # writes docs/ask.png
    python bench/screenshot.py --question "Where did Peter lose his shoes?" --out /tmp/ask.png

Indexes the Peter Rabbit sample (``../shared/data/peter_rabbit.txt``) into a scratch store, starts
``streamlit run app.py`` on it with a 200-word budget (the sample is shorter than the default budget, which would
select it all), opens the Ask page, waits until the collection is prepared in the background (so
the picture shows no passing status), asks the question, waits for its answer, its verdict and its matched
subgraph to be drawn and the app to be idle, and saves the window.  A picture of a
wrong or unsupported answer would teach a reader the wrong thing: the default question is one of the sample's
development questions whose answer and verdict are right, and the run fails if the answer does not show
``--expect``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from ask_bench import SUBGRAPH, TIMEOUT_MS, ask, idle, wait_prepared
from common import ROOT
from startup_bench import CHROMIUM, CHROMIUM_ARGS, free_port, wait_healthy

PETER = ROOT.parent / "shared" / "data" / "peter_rabbit.txt"
COLLECTION = "peter-rabbit"
QUESTION = "What did Mrs. Rabbit buy at the baker's?"
EXPECT = "currant buns"
#: The word budget the page starts from: under the sample's 964 words, so that the picture shows a selection.
BUDGET_WORDS = 200
#: The page's size in the picture (Streamlit scrolls inside its own container, so the window is made tall).
VIEWPORT = {"width": 1400, "height": 3900}


def index(store: Path) -> None:
    from kgcore.api import Store, index_file

    index_file(PETER, Store(store), name=COLLECTION)


def shoot(store: Path, question: str, expect_text: str, out: Path, log: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "KGCORE_STORE": str(store), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "ANONYMIZED_TELEMETRY": "False", "KGCORE_BUDGET_WORDS": str(BUDGET_WORDS)}
    with log.open("w") as sink:
        server = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.port",
             str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"],
            cwd=ROOT, env=env, stdout=sink, stderr=subprocess.STDOUT)
        try:
            wait_healthy(url, server, timeout_s=120)
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
                try:
                    page = browser.new_page(viewport=VIEWPORT, device_scale_factor=1)
                    page.goto(f"{url}/ask?doc={COLLECTION}")
                    expect(page.get_by_role("heading", name="Ask", exact=True)).to_be_visible(timeout=TIMEOUT_MS)
                    idle(page)
                    wait_prepared(page)
                    ask(page, question)
                    expect(page.locator(".kg-answer").first).to_contain_text(expect_text, timeout=TIMEOUT_MS)
                    page.frame_locator(SUBGRAPH).locator("#bar").wait_for(timeout=TIMEOUT_MS)
                    page.wait_for_timeout(1500)  # the subgraph's layout settles
                    page.screenshot(path=str(out))
                finally:
                    browser.close()
        finally:
            server.terminate()
            server.wait(timeout=30)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--question", default=QUESTION)
    parser.add_argument("--expect", default=EXPECT, help="text the answer must show")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "ask.png")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="kgcore-screenshot-") as tmp:
        store = Path(tmp) / "store"
        index(store)
        shoot(store, args.question, args.expect, args.out, Path(tmp) / "streamlit.log")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
