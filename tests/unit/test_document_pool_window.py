"""Jobs are handed to the worker pool a few at a time, so watching them costs the same for 100 or 100,000."""

import threading
from concurrent.futures import ThreadPoolExecutor, wait

from kgcore.index.document_pool import _submitter


def test_jobs_are_handed_out_in_order_and_never_more_than_the_limit_at_once():
    gate = threading.Event()
    with ThreadPoolExecutor(2) as pool:
        futures = {}
        submit = _submitter(pool, list(range(10)), futures, lambda i: (lambda: gate.wait(5) and i,), limit=3)
        first = submit(0)
        assert len(first) == 3 and submit(3) == set()  # full: nothing more until some finish
        gate.set()
        done, _ = wait(first)
        handed = sorted(futures[f] for f in first)
        while True:
            more = submit(0)
            if not more:
                break
            assert len(more) <= 3
            wait(more)
            handed += sorted(futures[f] for f in more)
        assert handed == list(range(10)) and sorted(f.result() for f in futures) == list(range(10))


def test_a_pool_that_no_longer_takes_jobs_leaves_the_rest_unstarted():
    pool = ThreadPoolExecutor(1)
    futures = {}
    submit = _submitter(pool, [0, 1, 2], futures, lambda i: (lambda: i,), limit=1)
    assert len(submit(0)) == 1
    pool.shutdown(wait=True)
    assert submit(0) == set() and submit(0) == set()  # shut down: the jobs left stay for the next round
    assert sorted(futures.values()) == [0]
