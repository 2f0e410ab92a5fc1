"""Safe by default: the app listens on loopback only, from ``make run`` and from the config."""

from __future__ import annotations

import re
import shlex
import tomllib

from paths import ROOT


def test_the_streamlit_config_binds_loopback():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["server"]["address"] == "127.0.0.1"


def test_make_run_binds_loopback():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8").replace("\\\n", " ")
    recipe = re.search(r"^run:.*\n((?:\t.*\n)+)", makefile, re.MULTILINE)
    assert recipe, "the Makefile has no run target"
    commands = [shlex.split(line) for line in recipe.group(1).splitlines()]
    (streamlit,) = [c for c in commands if "streamlit" in c[0] and "run" in c]
    assert streamlit[streamlit.index("--server.address") + 1] == "127.0.0.1"
    assert not any(a.startswith("--server.address=") and a != "--server.address=127.0.0.1" for a in streamlit)
