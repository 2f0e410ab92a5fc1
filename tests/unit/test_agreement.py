"""Agreement per error stage for any number of reviewers: equal to the krippendorff package and scikit-learn
on generated label sets, and to hand-checked small cases."""

from __future__ import annotations

import doctest

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score, confusion_matrix

from kgcore.audit import agreement
from kgcore.audit.agreement import STAGES, TARGETS, Ratings, alpha, cohen, kappa_samples, report, verdict


def test_doctests():
    result = doctest.testmod(agreement)
    assert result.attempted > 0 and result.failed == 0


def generated(seed: int, reviewers: int = 3, records: int = 40, missing: float = 0.3) -> Ratings:
    """Random stage labels; nobody uses 'gold-not-in-document'; some records are not rated by some reviewers."""
    rng = np.random.default_rng(seed)
    stages = ["I", "II", "III", "correct"]
    data: dict[str, dict[int, set[str]]] = {}
    for r in range(reviewers):
        for record in range(records):
            if rng.random() < missing:
                continue
            if rng.random() < 0.3:
                chosen = {"correct"}
            else:
                chosen = {s for s in stages[:3] if rng.random() < 0.5} or {stages[int(rng.integers(0, 3))]}
            data.setdefault(f"rev{r}", {})[record] = chosen
    return Ratings.of(data)


def package_alpha(ratings: Ratings, target: str) -> float:
    """The reliability matrix built independently of the module, given to the krippendorff package."""
    rows = []
    for reviewer in ratings.reviewers:
        row = []
        for record in ratings.records:
            types = ratings.by_reviewer[reviewer].get(record)
            if not types:
                row.append(np.nan)
            elif target == "verdict":
                row.append(STAGES.index(verdict(types)))
            else:
                row.append(1.0 if target in types else 0.0)
        rows.append(row)
    return krippendorff.alpha(reliability_data=np.array(rows), level_of_measurement="nominal")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_alpha_and_kappa_equal_the_packages_on_generated_labels(seed):
    ratings = generated(seed)
    result = report(ratings, samples=200, seed=seed)
    assert result.reviewers == ["rev0", "rev1", "rev2"]
    for target in ("I", "II", "III", "correct", "verdict"):
        figure = result.target(target)
        assert figure.alpha == pytest.approx(package_alpha(ratings, target), abs=1e-12), target
        assert figure.ci is not None and figure.ci[0] <= figure.alpha + 1e-9 and figure.ci[1] >= figure.alpha - 1e-9
        assert figure.reviewers == 3 and 0 < figure.items <= 40
    # A stage nobody used has no alpha: the package refuses it too (one value in the domain).
    unused = result.target("gold-not-in-document")
    assert unused.alpha is None and unused.used == 0 and unused.items == result.target("II").items
    with pytest.raises(ValueError):
        package_alpha(ratings, "gold-not-in-document")
    # Cohen's kappa of every pair equals scikit-learn on the records both rated, with the same confusion matrix.
    for pair in result.pairs:
        a, b = ratings.by_reviewer[pair.a], ratings.by_reviewer[pair.b]
        shared = sorted(set(a) & set(b))
        if pair.target == "verdict":
            ya, yb = [verdict(a[r]) for r in shared], [verdict(b[r]) for r in shared]
            labels = list(STAGES)
        else:
            ya, yb = [pair.target in a[r] for r in shared], [pair.target in b[r] for r in shared]
            labels = [False, True]
        assert pair.items == len(shared)
        assert pair.confusion == tuple(map(tuple, confusion_matrix(ya, yb, labels=labels).tolist()))
        if pair.target == "gold-not-in-document":
            assert pair.kappa is None
        else:
            assert pair.kappa == pytest.approx(cohen_kappa_score(ya, yb), abs=1e-12)


def test_hand_checked_verdict_kappa_between_two_reviewers():
    """po = 3/4; pe = (2/4)(1/4) + (1/4)(2/4) + (1/4)(1/4) = 5/16; kappa = (12/16 - 5/16) / (11/16) = 7/11."""
    ratings = Ratings.of({"ada": {1: {"II", "I"}, 2: {"II"}, 3: {"I"}, 4: {"III"}, 5: {"correct"}},
                          "bob": {1: {"I"}, 2: {"II"}, 3: {"II"}, 4: {"III"}}})
    pair = report(ratings, samples=0).pair("ada", "bob")
    assert pair.items == 4 and pair.observed == 0.75
    assert pair.kappa == pytest.approx(7 / 11)
    assert pair.ci is None  # no bootstrap asked for
    # Stage II on the raw labels: ada (1,1,0,0), bob (0,1,1,0) -> po = 1/2, pe = 1/2, kappa 0.
    assert report(ratings, samples=0).pair("ada", "bob", "II").kappa == pytest.approx(0.0)


def test_hand_checked_alpha_with_a_missing_label():
    """Coincidences o11 = 4, o10 = o01 = 1, o00 = 5: D_o = 2/11, D_e = 6/11, alpha = 2/3."""
    data = np.array([[1, 1, 0, 0], [1, 1, 0, np.nan], [1, 0, 0, 0]])
    assert alpha(data) == pytest.approx(2 / 3)
    # A record only one reviewer rated is not compared.
    assert alpha(np.c_[data, [1, np.nan, np.nan]]) == pytest.approx(2 / 3)


def test_undefined_figures_are_none():
    assert alpha(np.array([[1.0, np.nan], [1.0, 0.0]])) is None  # one record rated twice
    assert cohen([0], [0]) is None and cohen([1, 1, 1], [1, 1, 1]) is None
    empty = report(Ratings.of({}), samples=10)
    assert empty.records == 0 and empty.pairs == [] and all(t.alpha is None and t.items == 0 for t in empty.targets)
    assert [t.target for t in empty.targets] == list(TARGETS)


def test_perfect_agreement_and_the_bootstrap():
    ratings = Ratings.of({r: {i: {"II" if i % 2 else "correct"} for i in range(20)} for r in ("a", "b", "c")})
    result = report(ratings, samples=300)
    assert result.target("II").alpha == pytest.approx(1.0) and result.target("II").ci == (1.0, 1.0)
    assert result.pair("a", "c", "verdict").kappa == pytest.approx(1.0)
    # The vectorised bootstrap computes the same kappa as scikit-learn on each resample.
    a, b = np.array([0, 1, 2, 2, 1, 0, 1]), np.array([0, 1, 1, 2, 1, 2, 1])
    values = kappa_samples(a, b, 3, 50, seed=4)
    idx = np.random.default_rng(4).integers(0, 7, size=(50, 7))
    for row, value in zip(idx, values):
        expected = cohen(a[row].tolist(), b[row].tolist())
        if expected is None:
            assert np.isnan(value)
        else:
            assert value == pytest.approx(expected)


def test_report_to_json_names_items_behind_each_figure():
    out = report(generated(5), samples=50).to_dict()
    assert {"reviewers", "records", "targets", "pairs", "bootstrap_samples"} <= set(out)
    assert all({"alpha", "ci", "items", "ratings"} <= set(t) for t in out["targets"])
    assert all({"a", "b", "kappa", "items", "confusion", "categories"} <= set(p) for p in out["pairs"])
    assert len(out["pairs"]) == 3 * len(TARGETS)
