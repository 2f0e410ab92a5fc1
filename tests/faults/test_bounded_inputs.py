"""Hostile PDFs through a real ``python -m kgcore index``: a compression bomb (one 200 kB page whose content stream
inflates to 206 MB) and a page bomb (20,002 empty pages) are refused in seconds, in bounded memory, with a message
naming the file, the limit and how to raise it; the store is left without the collection."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from faultkit import ENV, assert_no_traceback, kgcore_args
from pdfs import blank_pages, inflating_page

from kgcore.index.store.disk import Store
from paths import ROOT

#: Reports the peak resident memory (KB) of the one command it runs, then exits with that command's status.
PEAK = ("import resource, subprocess, sys; code = subprocess.run(sys.argv[1:]).returncode; "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); sys.exit(code)")


@pytest.mark.parametrize("name, make, message", [
    ("bomb.pdf", lambda: inflating_page(206), "page 1's content inflates to more than 32 MB, the limit (a "
                                             "compression bomb; or raise it with the environment variable "
                                             "KGCORE_MAX_PAGE_STREAM_MB)"),
    ("pages.pdf", lambda: blank_pages(20_002), "20,002 pages exceed the limit of 2,000 pages per PDF (raise it "
                                               "with the environment variable KGCORE_MAX_PDF_PAGES); it protects "
                                               "the time of reading one PDF (a file of blank pages can hold "
                                               "millions)"),
])
def test_a_pdf_bomb_is_refused_in_seconds_and_bounded_memory(tmp_path, name, make, message):
    path = tmp_path / name
    path.write_bytes(make())
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", PEAK, *kgcore_args("index", path, "--quiet", store=tmp_path / "s")],
                          cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=300)
    seconds = time.monotonic() - started
    *lines, peak = done.stderr.strip().splitlines()
    assert done.returncode == 2 and f"error: {name}: {message}" in lines, done.stderr
    assert_no_traceback(done.stderr)
    assert seconds < 30 and int(peak) < 500 * 1024, (seconds, int(peak) // 1024)
    assert not Store(tmp_path / "s").list()
    print(f"{name}: refused in {seconds:.1f} s, peak {int(peak) // 1024} MB")
