"""Inputs that used to cause unbounded work or a wrong answer, each refused (or read) with a clear reason naming
the file: compression and page bombs, noise named .txt, symbolic links, unusable collection names, a PDF whose
only line repeats on every page, an encrypted PDF anyone may open, a PDF without pages, too much text; a questions
CSV without its column, a bad number on the command line, a closed output pipe."""

from __future__ import annotations

import errno
import json
import os
import random
import subprocess
import sys
import time

import pytest
from pdfs import blank_pages, encrypted, inflating_page, no_pages, plain_pages, repeated_line

from kgcore.cli import main
from kgcore.cli.commands import read_questions
from kgcore.core.errors import InputError
from kgcore.core.settings import Settings
from kgcore.index.load import check_file, load_bytes


def test_a_compression_bomb_is_refused_before_pdfium_reads_it():
    bomb = inflating_page(206)  # 206 MB of page content in about 200 kB
    assert len(bomb) < 1_000_000
    started = time.monotonic()
    with pytest.raises(InputError) as refused:
        load_bytes(bomb, "bomb.pdf")
    assert time.monotonic() - started < 10
    assert refused.value.where == "bomb.pdf"
    assert "page 1's content inflates to more than 32 MB" in refused.value.reason
    assert "KGCORE_MAX_PAGE_STREAM_MB" in refused.value.reason


def test_the_page_and_file_budgets_are_settings():
    with pytest.raises(InputError, match="inflates to more than 4 MB.*KGCORE_MAX_PDF_STREAM_MB"):
        load_bytes(inflating_page(6), "bomb.pdf", Settings(max_pdf_stream_mb=4))
    assert load_bytes(inflating_page(6), "fine.pdf").text == "A bomb."  # under the default limits: read


def test_a_page_bomb_is_refused_in_seconds():
    started = time.monotonic()
    with pytest.raises(InputError, match=r"pages.pdf: 20,002 pages exceed the limit of 2,000 pages per PDF"):
        load_bytes(blank_pages(20_002), "pages.pdf")
    assert time.monotonic() - started < 20


def test_too_much_text_is_refused():
    with pytest.raises(InputError, match="exceed the limit of 100 characters of text per document"):
        load_bytes(b"Peter ran home. " * 20, "long.txt", Settings(max_text_chars=100))
    with pytest.raises(InputError, match="long.pdf: .* characters of text per document"):
        load_bytes(plain_pages([["Peter ran home to his mother."] * 20]), "long.pdf", Settings(max_text_chars=100))


def test_printable_noise_named_txt_is_refused_as_binary():
    rng = random.Random(7)
    noise = bytes(rng.randrange(0x20, 0x100) for _ in range(20_000))
    with pytest.raises(InputError, match=r"noise.txt: binary file \(not UTF-8, and no text encoding reads it"):
        load_bytes(noise, "noise.txt")
    latin = "Le café était fermé; à l'été, la forêt brûlait.\n".encode("cp1252") * 30  # real text in cp1252
    assert load_bytes(latin, "cafe.txt").text.startswith("Le café était fermé")


def test_a_line_on_every_page_is_kept_when_it_is_all_the_text():
    line = "The committee met on Tuesday to discuss the harbour."
    doc = load_bytes(repeated_line(line, pages=3), "minutes.pdf")
    assert [p.text for p in doc.paragraphs] == [line] * 3  # on every page, so three times


def test_an_encrypted_pdf_with_an_empty_password_is_read():
    doc = load_bytes(encrypted(plain_pages([["Peter lost his shoes in the garden."]])), "open.pdf")
    assert "Peter lost his shoes" in doc.text
    with pytest.raises(InputError, match="closed.pdf: encrypted PDF"):
        load_bytes(encrypted(plain_pages([["Secret."]]), "a password"), "closed.pdf")


def test_a_pdf_without_pages_says_so():
    with pytest.raises(InputError) as refused:
        load_bytes(no_pages(), "zero.pdf")
    assert refused.value.reason == "PDF has no pages" and "Success" not in str(refused.value)


def test_a_symbolic_link_is_refused(tmp_path, capsys):
    target = tmp_path / "secret.txt"
    target.write_text("Nothing to see.", encoding="utf-8")
    link = tmp_path / "x.txt"
    os.symlink(target, link)
    with pytest.raises(InputError, match="x.txt: is a symbolic link"):
        check_file(link, Settings())
    assert main(["index", str(link), "--store", str(tmp_path / "store"), "--quiet"]) == 2
    assert "x.txt: is a symbolic link" in capsys.readouterr().err
    assert not (tmp_path / "store" / "x").exists()


@pytest.mark.parametrize("name, message", [
    ("", "collection: the name is empty; give a collection name"),
    ("a" * 300, "collection: the name is 300 bytes long; the limit is 200"),
    ("tab\there", "not a valid collection name"),
])
def test_unusable_collection_names_exit_2(tmp_path, capsys, name, message):
    book = tmp_path / "book.txt"
    book.write_text("Peter ran home.", encoding="utf-8")
    assert main(["index", str(book), "--collection", name, "--store", str(tmp_path / "store"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert message in err and "internal error" not in err


def test_a_questions_csv_without_a_question_column_is_refused(tmp_path):
    """A .csv whose header names no 'question' column is not read as one question per line (its header would be
    asked as a question): the error names the file and the header it found."""
    path = tmp_path / "qs.csv"
    path.write_text("q,answer\nWho ran?,Peter\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"qs.csv: a CSV needs a 'question' column; its header is q, answer"):
        read_questions(str(path), Settings())
    path.write_text("Question,answer\nWho ran?,Peter\n", encoding="utf-8")
    assert read_questions(str(path), Settings()) == ["Who ran?"]


@pytest.mark.parametrize("flag, value, message", [("--budget-words", "-5", "must be 0 (none) or a positive"),
                                                   ("--k", "0", "must be a whole number of 1 or more"),
                                                   ("--budget-sentences", "x", "must be a whole number")])
def test_a_bad_number_on_the_command_line_names_its_flag(tmp_path, capsys, flag, value, message):
    with pytest.raises(SystemExit) as stop:
        main(["ask", "Who?", "--collection", "c", "--store", str(tmp_path), flag, value])
    assert stop.value.code == 2
    assert f"argument {flag}: {message}" in capsys.readouterr().err


def test_a_closed_pipe_ends_the_command_quietly(tmp_path):
    """``kgcore sentences ... | head -1``: the reader closing the pipe is no internal error."""
    book = tmp_path / "b.txt"
    book.write_text(" ".join(f"Peter ran to the gate number {i}." for i in range(400)), encoding="utf-8")
    store = tmp_path / "store"
    assert main(["index", str(book), "--collection", "b", "--store", str(store), "--quiet"]) == 0
    cli = f"{sys.executable} -c 'import sys; from kgcore.cli import main; sys.exit(main())'"
    shell = f"{cli} sentences --collection b --store {store} --all | head -1"
    done = subprocess.run(["bash", "-c", f"set -o pipefail; {shell}"], capture_output=True, text=True, timeout=300)
    assert done.stdout.count("\n") == 1 and "internal error" not in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("number, said", [(errno.ENOSPC, "no space left on the device"),
                                          (errno.EROFS, "the file system is read-only")])
def test_a_full_or_read_only_store_is_named_with_what_to_do_not_an_internal_error(tmp_path, capsys, monkeypatch,
                                                                                   number, said):
    """Writing the store fails for want of room or write access (a full disk, a read-only mount, which root's tests
    cannot make by chmod): the command exits 2 naming the file and what to do, not 'internal error'."""
    from kgcore.index.store import disk

    def full(self, *args, **kwargs):
        raise OSError(number, os.strerror(number), str(tmp_path / "store" / ".staging" / "1.lock"))

    monkeypatch.setattr(disk.Store, "list", full)
    assert main(["list", "--store", str(tmp_path / "store")]) == 2
    err = capsys.readouterr().err
    assert f"1.lock: {said}" in err and "internal error" not in err and "nothing committed before" in err
    assert "--store" not in err or number == errno.EROFS


def test_runs_without_spaces_are_no_words_and_a_text_of_nothing_else_is_refused(tmp_path, capsys):
    """A 1 MB line without a space (encoded data) never becomes a sentence: a file of nothing else is refused
    before parsing, naming why; one with prose around an embedded image keeps the prose and says what it dropped."""
    from kgcore.index.load import load_bytes

    blob = tmp_path / "blob.txt"
    blob.write_text("QUJD" * 250_000, encoding="utf-8")
    assert main(["index", str(blob), "--store", str(tmp_path / "store"), "--quiet"]) == 2
    assert "blob.txt: no words: all its text is in runs of more than 200 ASCII characters" in capsys.readouterr().err
    doc = load_bytes(("Peter ran home.\n\n![map](data:image/png;base64," + "iVBORw0K" * 5000 + ")\n\nHe slept.")
                     .encode(), "notes.md")
    assert len(doc.text) < 100 and "Peter ran home." in doc.text and "He slept." in doc.text
    assert doc.report.warnings == ("dropped 1 run(s) of more than 200 characters without a space (40,030 characters: "
                                   "encoded data, not words)",)
    story = load_bytes(("从前有座山，山里有座庙。" * 30).encode(), "story.txt")  # prose written without spaces
    assert story.text.startswith("从前有座山") and not story.report.warnings


@pytest.mark.parametrize("options, message", [
    ({"k": "5"}, "k: must be a whole number, not '5'"),
    ({"k": 2.5}, "k: must be a whole number, not 2.5"),
    ({"budget_words": 1.5}, "budget_words: must be a whole number, not 1.5"),
    ({"min_count": True}, "min_count: must be a whole number, not True"),
    ({"documents": "peter_rabbit"}, "documents: give a list of document ids, not 'peter_rabbit'"),
    ({"tau": "0.2"}, "tau: must be a number or None, not '0.2'"),
])
def test_the_apis_options_of_the_wrong_type_are_refused_by_name(options, message):
    """kgcore.api callers get the field and the reason, not a TypeError from deep in a retrieval method (or a
    string of document ids split into letters)."""
    from kgcore.api import RetrievalOptions

    with pytest.raises(InputError) as caught:
        RetrievalOptions(**options)
    assert str(caught.value) == message


def test_document_ids_given_as_a_generator_are_kept():
    from kgcore.api import RetrievalOptions

    assert RetrievalOptions(documents=(d for d in ["alpha", "beta"])).documents == ("alpha", "beta")


def test_the_apis_question_and_files_of_the_wrong_type_are_refused_by_name(tmp_path):
    from kgcore.api import Store, index_files, validate_question

    for question in (42, ["Who?"]):
        with pytest.raises(InputError, match="question: must be text, not"):
            validate_question(question)
    with pytest.raises(InputError, match=r"jobs: give a list of files, not one: \['/x/latin1.txt'\]"):
        index_files("/x/latin1.txt", Store(tmp_path / "store"))


def test_index_workers_are_a_count_and_not_more_than_the_cores_can_hold(tmp_path, capsys):
    book = tmp_path / "book.txt"
    book.write_text("Peter ran home.", encoding="utf-8")
    with pytest.raises(SystemExit):
        main(["index", str(book), "--store", str(tmp_path / "store"), "--workers", "-1"])
    assert "argument --workers: must be 0 (one process per core) or a positive whole number, got -1" \
        in capsys.readouterr().err
    assert main(["index", str(book), "--store", str(tmp_path / "store"), "--workers", "100000", "--quiet"]) == 2
    assert "--workers: 100000 processes on" in capsys.readouterr().err
    assert not (tmp_path / "store" / "book").exists()


def test_ask_json_says_why_it_failed_in_json_too(tmp_path, capsys):
    """A caller reading ``ask --json`` gets the error as one JSON object on stdout (and the message on stderr)."""
    assert main(["ask", "--store", str(tmp_path / "store"), "--collection", "nope", "--json", "Who?"]) == 2
    captured = capsys.readouterr()
    failure = json.loads(captured.out)
    assert failure["exit_code"] == 2 and "No collection 'nope'" in failure["error"]
    assert "error: No collection 'nope'" in captured.err
    assert main(["ask", "--store", str(tmp_path / "store"), "--collection", "nope", "Who?"]) == 2
    assert capsys.readouterr().out == ""  # without --json nothing goes to stdout
    with pytest.raises(SystemExit):  # an argument argparse refuses, too
        main(["ask", "--store", str(tmp_path / "store"), "--collection", "nope", "--json", "--k", "0", "Who?"])
    assert json.loads(capsys.readouterr().out) == {"error": "argument --k: must be a whole number of 1 or more, got 0",
                                                   "field": None, "exit_code": 2}


def test_a_truncated_pdf_is_refused_in_kgcores_words_alone(tmp_path):
    """No third-party log line ("EOF marker not found") prints beside kgcore's own reason (a real process: the
    test runner would capture the log records itself)."""
    cut = tmp_path / "cut.pdf"
    cut.write_bytes(b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n")
    cli = [sys.executable, "-c", "import sys; from kgcore.cli import main; sys.exit(main())"]
    done = subprocess.run([*cli, "index", str(cut), "--store", str(tmp_path / "store"), "--quiet"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "cut.pdf: malformed or unreadable PDF" in done.stderr
    assert "EOF marker" not in done.stderr


def test_a_text_surely_over_the_sentence_limit_is_refused_before_splitting(tmp_path, capsys, monkeypatch):
    """Twice the limit's sentence stops is over the limit whatever the splitter does: refused while planning (by
    the check that reads no model), as the batch reports it."""
    from kgcore.index.load import check_readable

    monkeypatch.setenv("KGCORE_MAX_SENTENCES", "1000")
    with pytest.raises(InputError, match="many.txt: 2,500 sentences exceed the limit of 1,000"):
        check_readable(b"Go. " * 2_500, "many.txt", Settings.from_env())
    check_readable(b"Mr. Go. " * 900, "near.txt", Settings.from_env())  # 1,800 stops: the splitter decides
    many = tmp_path / "many.txt"
    many.write_text("Go. " * 2_500, encoding="utf-8")
    assert main(["index", str(many), "--store", str(tmp_path / "store"), "--quiet"]) == 2
    assert "many.txt: 2,500 sentences exceed the limit of 1,000" in capsys.readouterr().err
