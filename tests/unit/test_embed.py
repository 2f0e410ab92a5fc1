"""Node embedding variants (paper 3.3): contextualisation on hand-made vectors."""

import numpy as np

from kgcore.core.embed import contextualize, normalize


def test_attention_prefers_similar_neighbour():
    base = normalize(np.array([[1.0, 0.2, 0.0], [0.9, 0.1, 0.0], [0.0, 0.0, 1.0]], dtype=np.float32))
    out = contextualize(base, lambda i: [1, 2] if i == 0 else [], "attention", beta=0.5)
    avg = contextualize(base, lambda i: [1, 2] if i == 0 else [], "neighbor", beta=0.5)
    # attention weights the similar neighbour (row 1) more than plain averaging does
    assert out[0] @ base[1] > avg[0] @ base[1]
