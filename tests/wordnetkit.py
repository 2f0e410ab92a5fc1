"""WordNet's noun files for the tests that read them: Debian's ``wordnet-base`` (``.ci/run`` installs it); where they
are missing, those tests are skipped with the reason, as the browser tests are without Chromium."""

import pytest

from kgcore.core import wordnet

REASON = (f"WordNet's noun files are not in {wordnet.folder()} (apt-get install wordnet-base) - the answer kinds "
          "read them")
requires_wordnet = pytest.mark.skipif(not wordnet.available(), reason=REASON)


def reads_wordnet(item: pytest.Item) -> bool:
    """Whether a collected doctest reads WordNet's files (those of ``kgcore/core/wordnet.py``, of the spans found
    through it, and of respelling)."""
    return item.path.name in ("wordnet.py", "spelling.py") or item.name.endswith("._kinds_of")
