"""A throwaway PostgreSQL server for the audit tests and the audit benchmark.

:func:`start_cluster` creates a cluster with ``initdb`` in a new temporary directory, starts it with ``pg_ctl`` on
a free loopback port (no other address, its socket inside that directory), with a superuser ``kgcore`` that logs
in with a random password (so URLs carry one, as real ones do); :meth:`Cluster.stop` stops it and removes the
directory.  :func:`unavailable` says why no cluster can be started (the tests are skipped with that reason).

The binaries are found on ``PATH`` or under Debian's ``/usr/lib/postgresql/<version>/bin`` (``apt-get install
postgresql``).  PostgreSQL refuses to run as root, so as root the cluster belongs to a non-root user (``postgres``,
which Debian's package creates, else ``nobody``) and ``initdb``/``pg_ctl`` run as that user through ``runuser``
(or ``setpriv``).

Importable as ``pgkit`` (``tests/`` is on ``sys.path`` via its conftest; the benchmark adds it).
"""

from __future__ import annotations

import glob
import os
import pwd
import secrets
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from netkit import free_port

SUPERUSER = "kgcore"
#: Settings for a test cluster: nothing needs to survive a crash of the machine.
FAST = ("fsync=off", "synchronous_commit=off", "full_page_writes=off")
RUN_AS = ("postgres", "nobody")


def binaries() -> Path | None:
    """The folder holding ``initdb``, ``pg_ctl`` and ``postgres`` (the newest Debian version), or None."""
    on_path = shutil.which("initdb")
    candidates = [Path(on_path).resolve().parent] if on_path else []
    candidates += sorted((Path(p) for p in glob.glob("/usr/lib/postgresql/*/bin")),
                         key=lambda p: _version(p.parent.name), reverse=True)
    for folder in candidates:
        if all((folder / name).is_file() for name in ("initdb", "pg_ctl", "postgres")):
            return folder
    return None


def _version(name: str) -> tuple[int, ...]:
    return tuple(int(part) for part in name.split(".") if part.isdigit())


def _run_as() -> tuple[list[str], pwd.struct_passwd | None]:
    """The command prefix that runs a server binary as a non-root user, and that user (None: we are not root)."""
    if os.geteuid() != 0:
        return [], None
    for name in RUN_AS:
        try:
            user = pwd.getpwnam(name)
        except KeyError:
            continue
        if runuser := shutil.which("runuser"):
            return [runuser, "-u", name, "--"], user
        if setpriv := shutil.which("setpriv"):
            return [setpriv, f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--init-groups", "--"], user
    raise RuntimeError(f"running as root, and none of the users {', '.join(RUN_AS)} (with runuser or setpriv) "
                       "exists to run PostgreSQL as")


def unavailable() -> str | None:
    """Why no cluster can be started here, or None."""
    if binaries() is None:
        return ("PostgreSQL server binaries (initdb, pg_ctl, postgres) not found on PATH or under "
                "/usr/lib/postgresql/*/bin: install Debian's postgresql package")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed (pip install 'psycopg[binary]')"
    try:
        _run_as()
    except RuntimeError as exc:
        return str(exc)
    return None


@dataclass
class Cluster:
    """A running throwaway cluster."""

    root: Path
    port: int
    password: str
    bin: Path
    prefix: list[str]

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://{SUPERUSER}:{self.password}@127.0.0.1:{self.port}/{database}"

    def sql(self, statement: str, database: str = "postgres") -> list[tuple]:
        """Run one statement as the superuser, outside a transaction (CREATE DATABASE needs that)."""
        import psycopg

        with psycopg.connect(host="127.0.0.1", port=self.port, user=SUPERUSER, password=self.password,
                             dbname=database, autocommit=True) as conn:
            cursor = conn.execute(statement)
            return cursor.fetchall() if cursor.description else []

    def create_database(self, name: str | None = None) -> str:
        """A new empty database; returns its URL."""
        name = name or f"audit_{secrets.token_hex(6)}"
        self.sql(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        """Stop the server at once and remove the cluster's directory."""
        subprocess.run([*self.prefix, str(self.bin / "pg_ctl"), "stop", "-D", str(self.root / "data"), "-m",
                        "immediate", "-w"], capture_output=True, timeout=60, check=False)
        shutil.rmtree(self.root, ignore_errors=True)


def start_cluster(fast: bool = True, settings: tuple[str, ...] = ()) -> Cluster:
    """initdb and start a cluster in a new temporary directory (``fast``: without fsync, see :data:`FAST`)."""
    folder = binaries()
    if folder is None:
        raise RuntimeError(unavailable())
    prefix, user = _run_as()
    root = Path(tempfile.mkdtemp(prefix="kgcore-pg-"))
    password = secrets.token_urlsafe(16)
    (root / "pw").write_text(password + "\n", encoding="utf-8")
    if user is not None:
        for path in (root, root / "pw"):
            os.chown(path, user.pw_uid, user.pw_gid)
    try:
        _run([*prefix, str(folder / "initdb"), "-D", str(root / "data"), "-U", SUPERUSER, f"--pwfile={root / 'pw'}",
              "--auth=scram-sha-256", "--no-locale", "--encoding=UTF8", "--no-sync"], root)
        options = ["listen_addresses=127.0.0.1", "max_connections=200", *(FAST if fast else ()), *settings]
        for _ in range(3):  # another process may take the free port first
            port = free_port()
            command = [*prefix, str(folder / "pg_ctl"), "start", "-w", "-t", "60", "-D", str(root / "data"),
                       "-l", str(root / "server.log"),
                       "-o", " ".join([f"-p {port}", f"-k {root}", *(f"-c {o}" for o in options)])]
            if subprocess.run(command, capture_output=True, text=True, timeout=90, check=False).returncode == 0:
                return Cluster(root, port, password, folder, prefix)
        raise RuntimeError(f"PostgreSQL did not start: {(root / 'server.log').read_text(errors='replace')[-2000:]}")
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise


def _run(command: list[str], root: Path) -> None:
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False, cwd=root)
    if done.returncode != 0:
        binary = next(Path(c).name for c in command if Path(c).name in ("initdb", "pg_ctl"))
        raise RuntimeError(f"{binary} failed: {done.stderr[-2000:]}")
