"""Worker processes that end when the process that started them dies, however it dies.

A pool's workers (:mod:`kgcore.index.parallel`, :mod:`kgcore.index.document_pool`) wait on a queue their parent
feeds.  When the parent is stopped (SIGTERM, Ctrl-C) it stops them; when it is killed outright (SIGKILL: the
out-of-memory killer, or by hand) it cannot, and the queue never reports the parent gone, because every worker
holds the queue's writing end too: the workers would wait forever, each holding its loaded models.  So each worker
watches its parent (:func:`exit_with_parent`): once it has a new parent (the dead one's orphans are adopted, on
Linux by process 1 or a subreaper) it exits.  A pool's initializer calls it first thing::

    def _init_worker(threads: int) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        exit_with_parent()

(``tests/faults/test_orphans.py`` kills a parent with SIGKILL and sees its worker go within seconds.)
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time

#: How often a worker looks whether its parent is still the one that started it (seconds).
POLL_S = 1.0


def exit_with_parent(poll_s: float = POLL_S) -> threading.Thread:
    """Start a daemon thread that ends this process (``os._exit``) once the process that started it has died;
    returns the thread.  A :mod:`multiprocessing` child waits on the sentinel its parent holds open, so a parent
    that died before the child got this far (killed while the child was still importing) is seen too; any other
    process watches whether its parent changes, every ``poll_s`` seconds."""
    parent = multiprocessing.parent_process()
    started_by = os.getppid()

    def watch() -> None:
        if parent is not None:
            parent.join()  # returns once the parent's end of the sentinel is closed: it has died
        else:
            while os.getppid() == started_by:
                time.sleep(poll_s)
        os._exit(1)  # the parent died: nothing here is wanted any more, and nothing can be handed back

    thread = threading.Thread(target=watch, name="kgcore-exit-with-parent", daemon=True)
    thread.start()
    return thread
