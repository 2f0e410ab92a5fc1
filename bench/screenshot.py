"""The README's picture of the Ask page (``docs/ask.png``), taken in Chromium from the app as it is.

    python bench/screenshot.py                       # writes docs/ask.png
    python bench/screenshot.py --question "Where did Peter lose his shoes?" --expect shoe --out /tmp/ask.png
    python bench/screenshot.py --store bench/stores/classic --collection classic --entity Bigtable \
        --out bench/results/entity_system_name.png     # the Entity page of a named system
    python bench/screenshot.py --store bench/stores/papers24 --collection papers --question "..." --expect "..." \
        --out bench/results/ask_paper_question.png     # the Ask page on a paper question
    python bench/screenshot.py --store bench/stores/classic --collection classic --communities \
        --out bench/results/communities_treemap.png    # the explorer's Communities tab

Indexes the Peter Rabbit sample (``../shared/data/peter_rabbit.txt``) into a scratch store, starts
``streamlit run app.py`` on it with a 200-word budget (the sample is shorter than the default budget, which would
select it all), opens the Ask page, waits until the collection is prepared in the background (so
the picture shows no passing status), asks the question, waits for its answer, its verdict and its matched
subgraph to be drawn and the app to be idle, and saves the window.  A picture of a
wrong or unsupported answer would teach a reader the wrong thing: the default question is one of the sample's
development questions whose answer and verdict are right, and the run fails if the answer does not show
``--expect``.  With ``--store`` a copy of that store's collection is used instead of the sample (the app's
default budget), with ``--entity`` the Entity page is taken, the entity found by its name, and with
``--communities`` the Graph explorer's Communities tab (its treemap and the first community's summary).
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

from ask_bench import SUBGRAPH, TIMEOUT_MS, ask, idle, wait_prepared
from common import ROOT
from startup_bench import CHROMIUM, CHROMIUM_ARGS, env_for, served_app

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


def shoot(store: Path, args: argparse.Namespace, log: Path) -> None:
    from playwright.sync_api import sync_playwright

    extra = {"KGCORE_BUDGET_WORDS": str(BUDGET_WORDS)} if args.store is None else {}
    with served_app(ROOT, env_for(store, **extra), log) as url, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport=VIEWPORT, device_scale_factor=1)
            (entity_page if args.entity else communities_tab if args.communities else ask_page)(page, url, args)
            page.screenshot(path=str(args.out))
        finally:
            browser.close()


def ask_page(page, url: str, args: argparse.Namespace) -> None:
    """The Ask page with the question answered, its verdict and its subgraph drawn."""
    from playwright.sync_api import expect

    page.goto(f"{url}/ask?doc={args.collection}")
    expect(page.get_by_role("heading", name="Ask", exact=True)).to_be_visible(timeout=TIMEOUT_MS)
    idle(page)
    wait_prepared(page)
    ask(page, args.question)
    expect(page.locator(".kg-answer").first).to_contain_text(args.expect, timeout=TIMEOUT_MS)
    page.frame_locator(SUBGRAPH).locator("#bar").wait_for(timeout=TIMEOUT_MS)
    page.wait_for_timeout(1500)  # the subgraph's layout settles


def entity_page(page, url: str, args: argparse.Namespace) -> None:
    """The Entity page of the entity named ``args.entity`` (the first the search finds)."""
    from playwright.sync_api import expect

    page.goto(f"{url}/entity?doc={args.collection}")
    expect(page.get_by_role("heading", name="Entity", exact=True)).to_be_visible(timeout=TIMEOUT_MS)
    idle(page)
    box = page.get_by_label("Search entities by name or alias")
    box.fill(args.entity)
    box.press("Enter")
    page.wait_for_timeout(300)
    idle(page)
    expect(page.get_by_text(args.entity).first).to_be_visible(timeout=TIMEOUT_MS)
    page.wait_for_timeout(1500)  # the neighbourhood graph settles


def communities_tab(page, url: str, args: argparse.Namespace) -> None:
    """The Graph explorer's Communities tab, once the collection is prepared (its communities found)."""
    from playwright.sync_api import expect

    page.goto(f"{url}/ask?doc={args.collection}")
    expect(page.get_by_role("heading", name="Ask", exact=True)).to_be_visible(timeout=TIMEOUT_MS)
    idle(page)
    wait_prepared(page)
    page.goto(f"{url}/explorer?doc={args.collection}")
    expect(page.get_by_role("heading", name="Graph explorer", exact=True)).to_be_visible(timeout=TIMEOUT_MS)
    idle(page)
    page.get_by_role("tab", name="Communities").click()
    expect(page.locator(".kg-treemap").first).to_be_visible(timeout=TIMEOUT_MS)
    page.wait_for_timeout(300)
    idle(page)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--question", default=QUESTION)
    parser.add_argument("--expect", default=EXPECT, help="text the answer must show")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "ask.png")
    parser.add_argument("--store", type=Path, help="a store holding --collection (copied; default: the sample)")
    parser.add_argument("--collection", default=COLLECTION)
    parser.add_argument("--entity", help="take the Entity page of this name instead of the Ask page")
    parser.add_argument("--communities", action="store_true", help="take the Communities tab instead")
    parser.add_argument("--height", type=int, default=VIEWPORT["height"], help="the window's height (pixels)")
    args = parser.parse_args(argv)
    VIEWPORT["height"] = args.height
    with tempfile.TemporaryDirectory(prefix="kgcore-screenshot-") as tmp:
        store = Path(tmp) / "store"
        if args.store is None:
            index(store)
        else:
            shutil.copytree(args.store / args.collection, store / args.collection)
        shoot(store, args, Path(tmp) / "streamlit.log")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
