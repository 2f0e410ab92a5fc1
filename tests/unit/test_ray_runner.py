"""``index --ray`` refuses what cannot work before anything is built: a malformed or unreachable address, Ray not
installed.  No Ray is started here (tests/models/test_ray_models.py indexes on a real local Ray)."""

from __future__ import annotations

import socket
import sys
import time

import pytest

from kgcore.cli import build_parser, main
from kgcore.core.errors import InputError, ModelUnavailableError
from kgcore.core.settings import Settings
from kgcore.index.ray_runner import RayRunner, check_address, import_ray


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_ray_option_without_address_means_a_local_ray():
    parse = build_parser().parse_args
    assert parse(["index", "a.txt", "--collection", "c"]).ray is None
    assert parse(["index", "a.txt", "b.txt", "--ray"]).ray == "local"
    assert parse(["index", "a.txt", "--ray", "10.0.0.5:6379"]).ray == "10.0.0.5:6379"
    assert parse(["index", "--ray=auto", "a.txt"]).ray == "auto"
    assert check_address("local") == check_address("") == "local"


@pytest.mark.parametrize("address", ["head", "head:port", "10.0.0.5:0", "ray://:10001", "a.txt"])
def test_malformed_addresses_are_refused_naming_the_option(address):
    with pytest.raises(InputError, match=r"--ray: expected HOST:PORT"):
        RayRunner(address)


def test_an_unreachable_cluster_is_refused_at_once_with_what_to_do():
    port = _closed_port()
    runner = RayRunner(f"127.0.0.1:{port}", settings=Settings(ray_connect_timeout_s=2))
    started = time.perf_counter()
    with pytest.raises(InputError, match=rf"no Ray cluster answers at 127.0.0.1:{port} .*ray start --head"):
        runner.start()
    assert time.perf_counter() - started < 3


def test_cli_with_an_unreachable_cluster_fails_cleanly_and_indexes_nothing(tmp_path, capsys):
    text = tmp_path / "note.txt"
    text.write_text("The lamp was lit at dusk.", encoding="utf-8")
    store = tmp_path / "store"
    address = f"127.0.0.1:{_closed_port()}"
    code = main(["index", str(text), "--collection", "c", "--store", str(store), "--ray", address])
    assert code == 2
    err = capsys.readouterr().err
    assert "no Ray cluster answers at 127.0.0.1" in err and "Traceback" not in err
    assert not (store / "c").exists()


def test_without_ray_installed_the_error_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # what `import ray` sees when the package is absent
    with pytest.raises(ModelUnavailableError, match=r"pip install -r requirements-ray\.txt \(ray==2\.60\.0\)"):
        import_ray()
