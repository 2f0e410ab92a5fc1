"""Loopback helpers shared by the tests that start real servers (Streamlit, Chroma, PostgreSQL, OIDC).

Importable as ``netkit`` (``tests/`` is on ``sys.path`` via its conftest).
"""

from __future__ import annotations

import socket


def free_port() -> int:
    """A TCP port on 127.0.0.1 nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
