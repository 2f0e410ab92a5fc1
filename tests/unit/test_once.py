"""Work done once per key however many threads ask at the same time (the app's sessions share one engine)."""

from __future__ import annotations

import threading
import time

from kgcore.index.store.in_memory import CacheKey, IndexCache

SLOT: CacheKey[list[int]] = CacheKey("slot")
OTHER: CacheKey[list[int]] = CacheKey("other", group="entities")


def test_a_value_asked_for_while_it_is_built_is_built_once():
    cache, builds, started, release = IndexCache(), [], threading.Event(), threading.Event()

    def build():
        builds.append(1)
        if len(builds) == 1:  # the first build takes a while; a second one would not
            started.set()
            release.wait(5)
        return [len(builds)]

    found = []
    first = threading.Thread(target=lambda: found.append(cache.get(SLOT, build)))
    first.start()
    started.wait(5)
    second = threading.Thread(target=lambda: found.append(cache.get(SLOT, build)))
    second.start()
    time.sleep(0.2)  # the second asks while the first is still building
    release.set()
    first.join(5), second.join(5)
    assert builds == [1] and found == [[1], [1]] and found[0] is found[1]


def test_other_keys_are_built_while_one_is_being_built():
    cache, release = IndexCache(), threading.Event()
    slow = threading.Thread(target=lambda: cache.get(SLOT, lambda: release.wait(5) and [1]))
    slow.start()
    try:
        assert cache.get(OTHER, lambda: [2]) == [2]  # not blocked behind SLOT's build
    finally:
        release.set()
        slow.join(5)
    cache.drop_group("entities")
    assert cache.get(OTHER, lambda: [3]) == [3] and cache.get(SLOT, lambda: [4]) == [1]


def test_a_value_of_none_is_kept_and_not_built_again():
    cache, builds = IndexCache(), []
    assert cache.get(CacheKey[None]("none"), lambda: builds.append(1)) is None
    assert cache.get(CacheKey[None]("none"), lambda: builds.append(1)) is None and builds == [1]
