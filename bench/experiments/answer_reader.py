"""Does a small reader -- the bundled MiniLM fine-tuned as a cross-encoder on the design documents' own generated
questions -- pick the answering sentence better than the hand-set answer pick?

The answer pick fails on people's questions where the right sentence says it in other words (docs/verdict.md).  The
issue allows a learned component trained by a script in the repository, small, loaded offline, and winning on the
held-out split.  Three steps:

    python bench/experiments/answer_reader.py data    # (question, sentence, label) from the design collections
    python bench/experiments/answer_reader.py train   # fine-tune MiniLM as a cross-encoder on them (CPU, minutes)
    python bench/experiments/answer_reader.py eval    # replay the design rows with the reader's score added

Training data: every design collection's questions generated from its frames (:mod:`kgcore.index.qa.frames`, the
QA-pair graph's own), each with its sentence (coref-resolved text) as a positive and, as negatives, two of the ten
sentences of the same collection closest to the question in MiniLM cosine (not holding the pair's answer) and one
drawn at random.  No people's question and no held-out document is used.  Evaluation: the verdict bench's kept
design rows (``bench/verdict_bench.py --rows``); each row's answer pick is re-scored, the best ten candidates by the
pick's score rescored as score + w * the reader's probability, and the chosen sentence is counted right as the bench
counts an answer.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the shared tools
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository: kgcore

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "bench" / "stores" / "reader"  # the training rows and the model (git-ignored)
RESULT = ROOT / "bench" / "results" / "answer_reader.json"
DESIGN_NOVELS = ("anne_of_avonlea", "house_of_the_seven_gables", "persuasion", "portrait_of_the_artist_as_a_young_man",
                 "this_side_of_paradise")
PER_COLLECTION = 4000
MAX_LENGTH = 96


def collections(novels: Path, papers: Path) -> list[tuple[Path, str]]:
    return [(novels, b) for b in DESIGN_NOVELS] + [(papers, "papers-design"), (papers, "qasper-design")]


def build_data(novels: Path, papers: Path, seed: int = 0) -> None:
    from kgcore.core.embed import get_embedder
    from kgcore.index.store.disk import Store
    from kgcore.query.answer.words import content_words
    from kgcore.query.qakg.graph import document_pairs

    rng = random.Random(seed)
    embedder = get_embedder()
    rows = []
    for root, name in collections(novels, papers):
        index = Store(root).load(name)
        by_id = {s.id: i for i, s in enumerate(index.sentences)}
        texts = [s.resolved or s.text for s in index.sentences]
        pairs = [p for _, ps, _ in document_pairs(index).values() for p in ps
                 if p.sentence_id in by_id and len(p.question.split()) >= 4]
        rng.shuffle(pairs)
        pairs = pairs[:PER_COLLECTION]
        q_vectors = embedder.encode([p.question for p in pairs])
        sims = q_vectors @ index.sentence_vectors.T
        for p, row in zip(pairs, sims):
            source = by_id[p.sentence_id]
            answer = content_words(p.answer)
            near = [int(i) for i in np.argsort(-row)[:12] if int(i) != source
                    and not (answer and answer <= content_words(texts[int(i)]))][:10]
            negatives = rng.sample(near, min(2, len(near))) + [rng.randrange(len(texts))]
            rows.append({"q": p.question, "s": texts[source], "y": 1, "c": name})
            rows += [{"q": p.question, "s": texts[i], "y": 0, "c": name} for i in negatives if i != source]
        print(name, len(pairs), "pairs", flush=True)
    OUT.mkdir(parents=True, exist_ok=True)
    with (OUT / "train.jsonl").open("w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    print(len(rows), "rows ->", OUT / "train.jsonl")


def fit(rows: list[dict], init: str | Path, epochs: int = 1, batch: int = 32, lr: float = 4e-5, seed: int = 0):
    """A cross-encoder (model, tokenizer) fine-tuned from ``init`` on ``rows`` ({"q", "s", "y"}): binary
    cross-entropy, AdamW, linear warm-up over a tenth of the steps and linear decay."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    torch.manual_seed(seed)
    rows = list(rows)
    tok = AutoTokenizer.from_pretrained(init)
    model = AutoModelForSequenceClassification.from_pretrained(init, num_labels=1)
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    steps = epochs * ((len(rows) + batch - 1) // batch)
    warm = 0.1 * steps
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda k: min(1.0, (k + 1) / warm) * max(0.0, 1 - k / steps))
    loss_fn = torch.nn.BCEWithLogitsLoss()
    model.train()
    start, k = time.time(), 0
    for epoch in range(epochs):
        random.Random(seed + epoch).shuffle(rows)
        for i in range(0, len(rows), batch):
            part = rows[i:i + batch]
            enc = tok([r["q"] for r in part], [r["s"] for r in part], truncation=True, max_length=MAX_LENGTH,
                      padding=True, return_tensors="pt")
            loss = loss_fn(model(**enc).logits.squeeze(-1), torch.tensor([float(r["y"]) for r in part]))
            loss.backward()
            opt.step()
            sched.step()
            opt.zero_grad()
            k += 1
            if k % 50 == 0:
                print(f"step {k}/{steps} loss {loss.item():.3f} {time.time() - start:.0f}s", flush=True)
    return model.eval(), tok


def train(limit: int = 32000, seed: int = 0) -> None:
    """The reader on the generated questions' rows (about 1,000 steps: 17 minutes on two CPU cores)."""
    from kgcore.core.embed.base import bundled_model_path

    rows = [json.loads(line) for line in (OUT / "train.jsonl").open(encoding="utf-8")]
    random.Random(seed).shuffle(rows)
    model, tok = fit(rows[:limit], bundled_model_path())
    model.save_pretrained(OUT / "model")
    tok.save_pretrained(OUT / "model")


class Reader:
    def __init__(self, folder: Path | None = None, fitted=None) -> None:
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        self.torch = torch
        if fitted is not None:
            self.model, self.tok = fitted
        else:
            self.tok = AutoTokenizer.from_pretrained(folder)
            self.model = AutoModelForSequenceClassification.from_pretrained(folder).eval()

    def __call__(self, question: str, texts: list[str]) -> np.ndarray:
        with self.torch.no_grad():
            enc = self.tok([question] * len(texts), texts, truncation=True, max_length=MAX_LENGTH, padding=True,
                           return_tensors="pt")
            return self.torch.sigmoid(self.model(**enc).logits.squeeze(-1)).numpy()


WEIGHTS = (0.0, 0.25, 0.5, 1.0, 2.0, 4.0, float("inf"))
TOP = 10


def evaluate() -> None:
    from verdict_bench import ROWS, SETS
    from verdict_replay import context_of
    from verdict_sets import Item, is_right

    from kgcore.query.answer.base import ParseMemo
    from kgcore.query.answer.extractive import ExtractiveGenerator

    reader = Reader(OUT / "model")
    generator = ExtractiveGenerator()
    results = {}
    for set_name in SETS:
        rows = json.loads((ROWS / f"{set_name}_extractive.json").read_text(encoding="utf-8"))
        hits = {w: [] for w in WEIGHTS}
        for row in rows:
            if not row["evidence_in_context"]:
                continue
            context = context_of(row)
            _, scored = generator._extract(row["question"], context, ParseMemo(generator.nlp))
            top = sorted(scored, key=lambda s: -s.score)[:TOP]
            probs = reader(row["question"], [s.sentence.resolved or s.sentence.text for s in top])
            item = Item(set_name, "design", "", "", row["question"], tuple(row["answers"]), (), row["kind"])
            for w in WEIGHTS:
                values = probs if w == float("inf") else np.array([s.score for s in top]) + w * probs
                hits[w].append(is_right(top[int(np.argmax(values))].sentence.text, item))
        results[set_name] = {str(w): round(float(np.mean(h)), 3) for w, h in hits.items()} | {"n": len(hits[0.0])}
        print(set_name, results[set_name], flush=True)
    _record("answer_pick", results)


RANK_WEIGHTS = (0.0, 0.5, 1.0, 2.0, float("inf"))
POOL_WORDS = 2000


def filled(order: list, budget: int) -> list[str]:
    """The texts of ``order`` up to ``budget`` words, the last one cut to fit (as the retrieval's budget does)."""
    out, used = [], 0
    for s in order:
        words = s.text.split()
        take = min(len(words), budget - used)
        if take <= 0:
            break
        out.append(" ".join(words[:take]))
        used += take
    return out


def rank(novels: Path, books: tuple[str, ...] = DESIGN_NOVELS) -> None:
    """The fused default's 2,000-word context per question, reordered by its rank plus w * the reader's probability
    and cut to 200 / 500 / 1,000 words, against the default at that budget (answer-token recall)."""
    sys.path.insert(0, str(ROOT / "bench"))
    from narrativeqa import questions
    from protocol import paired_interval

    from kgcore.api import QueryEngine, RetrievalOptions, Store
    from kgcore.evaluate.metrics import answer_token_recall

    reader = Reader(OUT / "model")
    engine = QueryEngine(Store(novels))
    per = {(b, w): [] for b in (200, 500, 1000) for w in ("default", *RANK_WEIGHTS)}
    for book in books:
        for q in questions(book):
            pool = engine.retrieve(book, q.text, RetrievalOptions(budget_words=POOL_WORDS)).sentences
            pool = sorted(pool, key=lambda s: s.rank)
            probs = reader(q.text, [s.resolved or s.text for s in pool])
            base = 1.0 - np.arange(len(pool)) / max(1, len(pool))
            for b in (200, 500, 1000):
                own = engine.retrieve(book, q.text, RetrievalOptions(budget_words=b)).sentences
                per[(b, "default")].append(answer_token_recall(list(q.answers), [s.text for s in own]))
                for w in RANK_WEIGHTS:
                    values = probs if w == float("inf") else base + w * probs
                    order = [pool[i] for i in np.argsort(-values, kind="stable")]
                    per[(b, w)].append(answer_token_recall(list(q.answers), filled(order, b)))
        print(book, "done", flush=True)
    out = {}
    for b in (200, 500, 1000):
        ref = per[(b, "default")]
        out[b] = {"default": round(float(np.mean(ref)), 3)}
        for w in RANK_WEIGHTS:
            out[b][str(w)] = [round(float(np.mean(per[(b, w)])), 3), paired_interval(per[(b, w)], ref)]
        print(b, out[b], flush=True)
    _record("ranking", out)


def _record(key: str, value: dict) -> None:
    """One part of ``bench/results/answer_reader.json`` (the other parts kept)."""
    data = json.loads(RESULT.read_text(encoding="utf-8")) if RESULT.exists() else {}
    data[key] = value
    data["training"] = {"rows": 32000, "per_collection": PER_COLLECTION, "max_length": MAX_LENGTH, "epochs": 1,
                        "batch": 32, "lr": 4e-5, "seconds": 1017}
    RESULT.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def people_rows(row: dict, rng: random.Random) -> list[dict]:
    """A design row's people's question with its gold sentences in the context as positives and, as negatives, the
    five best-ranked other context sentences and two at random."""
    gold = set(row["gold_evidence"] or ())
    context = sorted(row["context"], key=lambda c: c.get("rank") or 0)
    others = [c for c in context if c["id"] not in gold]
    negatives = others[:5] + rng.sample(others[5:], min(2, len(others[5:])))
    return [{"q": row["question"], "s": c["resolved"] or c["text"], "y": int(c["id"] in gold)}
            for c in [c for c in context if c["id"] in gold] + negatives]


def people(seed: int = 0) -> None:
    """Leave one design collection out: the generated-question reader fine-tuned further on the other
    collections' people's questions (their gold sentences in the kept contexts), measured on the left-out one's
    answer pick as :func:`evaluate` measures it."""
    from verdict_bench import ROWS, SETS
    from verdict_replay import context_of
    from verdict_sets import Item, is_right

    from kgcore.query.answer.base import ParseMemo
    from kgcore.query.answer.extractive import ExtractiveGenerator

    rng = random.Random(seed)
    items = []
    for set_name in SETS:
        for row in json.loads((ROWS / f"{set_name}_extractive.json").read_text(encoding="utf-8")):
            if row["evidence_in_context"] and row["gold_evidence"]:
                fold = row["context"][0]["document"] if set_name == "novels" else set_name
                items.append((set_name, fold, row))
    generator = ExtractiveGenerator()
    hits: dict[str, dict[float, list[bool]]] = {s: {w: [] for w in WEIGHTS} for s in SETS}
    for fold in sorted({f for _, f, _ in items}):
        train_rows = [r for _, f, row in items if f != fold for r in people_rows(row, rng)]
        reader = Reader(fitted=fit(train_rows, OUT / "model", epochs=3, batch=16, lr=2e-5, seed=seed))
        for set_name, f, row in items:
            if f != fold:
                continue
            _, scored = generator._extract(row["question"], context_of(row), ParseMemo(generator.nlp))
            top = sorted(scored, key=lambda s: -s.score)[:TOP]
            probs = reader(row["question"], [s.sentence.resolved or s.sentence.text for s in top])
            item = Item(set_name, "design", "", "", row["question"], tuple(row["answers"]), (), row["kind"])
            for w in WEIGHTS:
                values = probs if w == float("inf") else np.array([s.score for s in top]) + w * probs
                hits[set_name][w].append(is_right(top[int(np.argmax(values))].sentence.text, item))
        print(fold, len(train_rows), "rows", flush=True)
    results = {s: {str(w): round(float(np.mean(h)), 3) for w, h in hs.items()} | {"n": len(hs[0.0])}
               for s, hs in hits.items()}
    print(results)
    _record("answer_pick_people_left_out", results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=("data", "train", "eval", "rank", "people"))
    parser.add_argument("--novels", type=Path, default=Path("/work/stores/narrativeqa3"))
    parser.add_argument("--papers", type=Path, default=Path("/work/stores/verdict3"))
    args = parser.parse_args()
    if args.step == "data":
        build_data(args.novels, args.papers)
    elif args.step == "train":
        train()
    elif args.step == "people":
        people()
    elif args.step == "rank":
        rank(args.novels)
    else:
        evaluate()


if __name__ == "__main__":
    main()
