"""kgcore: grounded knowledge-graph indexing, retrieval, answering and auditing.

The pipeline (see :mod:`kgcore.pipeline`) is::

    ingest -> coref -> srl | amr -> graph -> embed -> store      (indexing)
    retrieve -> answer -> evaluate / audit                      (querying)

kgcore never imports streamlit; the app in ``app.py``/``pages/`` is a thin
layer over it.
"""

__version__ = "0.1.0"
