"""A book uploaded through the Library page in a real browser against the same book through the CLI, on one machine.

    python bench/upload_bench.py [BOOK] [--runs N]    (default: Persuasion, 86k words, from ../shared/data)

Each run indexes the book twice into fresh stores, alternating which goes first: ``python -m kgcore index`` (wall
time of the command), and a fresh ``streamlit run app.py`` whose Library page Chromium drives (from the click on
*Index uploaded files* to the job's "added 1" line, and the job's own start-to-end time from its record).  The page
runs the same pipeline in a background job, so the two should be close; the difference is the job's start (a
process that loads the models) and the page's 2-second refresh.  Writes ``bench/results/upload.json``.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, machine, write_json
from startup_bench import free_port, wait_healthy

PERSUASION = ROOT.parent / "shared" / "data" / "narrativeqa" / "persuasion.txt"
CHROMIUM = "/usr/bin/chromium"


def cli_run(book: Path, store: Path) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "kgcore", "index", str(book), "--collection", "book", "--store", str(store),
                    "--quiet"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def browser_run(book: Path, store: Path) -> dict:
    from playwright.sync_api import expect, sync_playwright

    from kgcore.api import JobQueue, Settings

    port = free_port()
    env = {**os.environ, "KGCORE_STORE": str(store), "HF_HUB_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False"}
    server = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                               "--server.port", str(port), "--server.address", "127.0.0.1"], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        wait_healthy(f"http://127.0.0.1:{port}", server)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu",
                                                                        "--disable-background-networking"])
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"http://127.0.0.1:{port}")
            expect(page.get_by_role("heading", name="Collections")).to_be_visible(timeout=120_000)
            page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']", timeout=120_000)
            page.locator('input[type="file"]').set_input_files(str(book))
            button = page.get_by_role("button", name="Index uploaded files")
            expect(button).to_be_enabled(timeout=60_000)
            started = time.perf_counter()
            button.click()
            expect(page.get_by_text(re.compile(rf"{re.escape(book.name)}.* — added 1"))).to_be_visible(
                timeout=3_600_000)
            seconds = time.perf_counter() - started
            browser.close()
        (job,) = JobQueue(store, Settings()).jobs()
        return {"page_s": round(seconds, 1), "job_s": round(job.finished - job.started, 1),
                "queued_s": round(job.started - job.created, 1)}
    finally:
        server.terminate()
        server.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("book", nargs="?", default=str(PERSUASION))
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    book = Path(args.book)
    rows = []
    for run in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            order = ("cli", "browser") if run % 2 == 0 else ("browser", "cli")
            row: dict = {"run": run, "order": list(order)}
            for what in order:
                store = Path(tmp) / what
                if what == "cli":
                    row["cli_s"] = round(cli_run(book, store), 1)
                else:
                    row.update(browser_run(book, store))
                print(row, flush=True)
            rows.append(row)
    write_json("upload.json", {"book": book.name, "words": len(book.read_text(encoding="utf-8").split()),
                               "load_average_at_end": os.getloadavg(), "machine": machine(), "runs": rows})


if __name__ == "__main__":
    main()
