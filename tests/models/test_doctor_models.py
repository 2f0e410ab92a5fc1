"""``python -m kgcore doctor`` with the real models and a real Chroma server: healthy, then the server stopped."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from chromakit import start_chroma

from kgcore.api.health import check_chroma
from kgcore.cli import main
from kgcore.core.settings import Settings
from kgcore.index.pipeline import index_file
from kgcore.index.store.chroma import ChromaServer
from kgcore.index.store.disk import Store
from kgcore.index.store.integrity import mapped_file
from paths import PETER, PETER_ID, ROOT


def _doctor(capsys, *args: str) -> tuple[int, dict[str, dict]]:
    code = main(["doctor", "--json", *args])
    return code, {c["name"]: c for c in map(json.loads, capsys.readouterr().out.splitlines())}


def test_doctor_with_a_chroma_server_healthy_then_stopped(tmp_path, monkeypatch, capsys):
    running = start_chroma(tmp_path / "chroma-db")
    try:
        store = Store(tmp_path / "store", chroma=ChromaServer(running.url))
        index_file(PETER, store, name=PETER_ID)
        for name, value in {"KGCORE_STORE": str(store.root), "KGCORE_CHROMA_URL": running.url}.items():
            monkeypatch.setenv(name, value)
        code, checks = _doctor(capsys)
        assert code == 0, checks
        assert all(c["ok"] for c in checks.values()) and not any(c["fix"] for c in checks.values())
        assert f"server {running.url} answers; holds 1 of 1 collections" in checks["chroma"]["detail"]
        assert checks["embedding model"]["detail"].startswith("all-MiniLM-L6-v2, 384 dimensions")
        assert checks["spaCy model"]["ok"] and "not configured" in checks["AMR parser"]["detail"]
    finally:
        running.stop()
    code, checks = _doctor(capsys, "--no-models")
    assert code == 1 and "spaCy model" not in checks
    chroma = checks["chroma"]
    assert not chroma["ok"] and f"server {running.url} does not answer" in chroma["detail"]
    assert f"chroma run --path DIR --host HOST --port {running.url.rsplit(':', 1)[1]}" in chroma["fix"]
    assert all(c["ok"] for name, c in checks.items() if name != "chroma")


def test_the_doctor_command_exits_non_zero_and_prints_the_fix(tmp_path):
    env = {**os.environ, "KGCORE_STORE": str(tmp_path), "KGCORE_CHROMA_URL": "http://127.0.0.1:9",
           "KGCORE_OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "KGCORE_OPENAI_MODEL": "m"}
    done = subprocess.run([sys.executable, "-m", "kgcore", "doctor", "--no-models"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert any(line.startswith("FAIL  chroma") for line in lines)
    assert any(line.startswith("FAIL  answer endpoint") for line in lines)
    assert sum(line.strip().startswith("fix: ") for line in lines) == 2
    assert done.stderr == ""


def test_embedded_chroma_is_checked_without_a_server(peter_store):
    result = check_chroma(Settings(store_root=peter_store.root))
    assert result.ok and result.detail.startswith("embedded (chromadb ")


def test_doctor_reports_a_loaded_collections_resident_size_with_its_vectors_mapped(tmp_path, monkeypatch, capsys):
    store = Store(tmp_path / "store")
    index_file(PETER, store, name=PETER_ID)
    monkeypatch.setenv("KGCORE_STORE", str(store.root))
    code, checks = _doctor(capsys, "--no-models", "--collection", PETER_ID)
    memory = checks["collection memory"]
    assert code == 0 and memory["ok"], memory
    counts = store.manifest(PETER_ID).counts
    assert f"{PETER_ID}: 1 documents, {counts.sentences:,} sentences, {counts.nodes:,} nodes" in memory["detail"]
    assert "MB own" in memory["detail"] and "MB mapped files" in memory["detail"] and "MB available" in memory["detail"]
    index = store.load(PETER_ID)
    for vectors in (index.node_vectors, index.sentence_vectors):
        assert mapped_file(vectors) is not None and not vectors.flags.writeable
    assert "sentence vectors copied" not in memory["detail"]
    code, checks = _doctor(capsys, "--no-models", "--collection", "nothing-here")
    assert code == 1 and "No collection 'nothing-here'" in checks["collection memory"]["detail"]
