"""AMR parser backend (paper section 3.2): amrlib parses, penman reads, we convert.

:class:`AmrParser` runs an amrlib sentence-to-graph model on the
coreference-resolved sentences and turns each PENMAN graph into a
:class:`~kgcore.core.types.SentenceGraph` with :func:`penman_to_graph`
(:mod:`kgcore.index.parse.amr.graph` documents the conversion rules).
:class:`PenmanParser` does the same from PENMAN graphs parsed earlier
(an AMR corpus file, a cache), so indexes can be built without the model.

The amrlib model is not bundled: :func:`model_problem` says what is
missing and how to get it.

>>> parser = PenmanParser({"text_0-0": '(r / run-02 :ARG0 (p / person :name (n / name :op1 "Peter")))'})
>>> s = Sentence("text_0-0", 0, 0, 0, "He ran.", "He ran.", "Peter ran.")
>>> [n.label for n in parser.parse([s])[0].nodes]
['run', 'Peter']
>>> AmrParser.available("/nonexistent")[0]
False
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import penman

from kgcore.core.errors import InputError, ModelUnavailableError
from kgcore.core.nlp import MODEL_LOADING
from kgcore.core.types import Sentence, SentenceGraph
from kgcore.index.parse.amr.graph import decode_penman, penman_to_graph
from kgcore.index.parse.base import QUERY_ID, Progress

ENV_VAR = "KGCORE_AMR_MODEL"
AMRLIB_REQUIREMENT = "amrlib==0.8.1"
MODEL_RELEASE = "model_parse_xfm_bart_large-v0_1_0"
RELEASES_URL = "https://github.com/bjascob/amrlib-models/releases"
# amrlib loads the tokenizer named in the model config (facebook/bart-large) from the
# Hugging Face hub unless the model directory carries its own tokenizer files.
_TOKENIZER_FILES = ("tokenizer.json", "vocab.json", "tokenizer_config.json")


def amrlib_default_dir() -> Path | None:
    """``<amrlib package>/data/model_stog``, amrlib's own default, without importing amrlib."""
    spec = importlib.util.find_spec("amrlib")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0]) / "data" / "model_stog"


def resolve_model_dir(model_dir: str = "", env: Mapping[str, str] | None = None) -> Path | None:
    """The model directory to use: the argument, else ``KGCORE_AMR_MODEL``, else amrlib's default if present."""
    env = os.environ if env is None else env
    chosen = model_dir or env.get(ENV_VAR, "")
    if chosen:
        return Path(chosen).expanduser()
    default = amrlib_default_dir()
    return default if default is not None and default.exists() else None


def _howto() -> str:
    default = amrlib_default_dir() or "<amrlib package>/data/model_stog"
    return (
        f"On a machine with internet, download an amrlib parse model release such as "
        f"{MODEL_RELEASE}.tar.gz from {RELEASES_URL}, unpack it there "
        f"(tar xzf {MODEL_RELEASE}.tar.gz), copy the unpacked directory to this machine (e.g. ~/models/) "
        f"and set {ENV_VAR}=/path/to/{MODEL_RELEASE} (or link that directory as {default}). "
        f"Offline, also save the facebook/bart-large tokenizer into that directory "
        f"(with transformers' AutoTokenizer: load it by that name, then save_pretrained into the directory)."
    )


def model_problem(model_dir: str = "", env: Mapping[str, str] | None = None) -> str:
    """Why the AMR parser cannot run ('' when amrlib and a parse model are in place).

    >>> "KGCORE_AMR_MODEL" in model_problem("/nonexistent/amr")
    True
    """
    if importlib.util.find_spec("amrlib") is None:
        return f"the amrlib package is not installed: pip install -r requirements-amr.txt ({AMRLIB_REQUIREMENT})"
    path = resolve_model_dir(model_dir, env)
    if path is None:
        return f"no AMR parse model: {ENV_VAR} is not set and {amrlib_default_dir()} does not exist. {_howto()}"
    if not path.is_dir():
        return f"AMR model directory {path} does not exist (set by model_dir or {ENV_VAR}). {_howto()}"
    meta_path = path / "amrlib_meta.json"
    if not meta_path.is_file():
        return f"{path} has no amrlib_meta.json, so it is not an unpacked amrlib model. {_howto()}"
    try:
        model_type = json.loads(meta_path.read_text(encoding="utf-8")).get("model_type")
    except (OSError, ValueError, AttributeError) as exc:
        return f"{meta_path} is unreadable ({exc}). {_howto()}"
    if model_type != "stog":
        return f"{path} holds an amrlib {model_type!r} model, not a sentence-to-graph ('stog') parse model. {_howto()}"
    return ""


def _load_stog(model_dir: str, device: str, batch_size: int):
    """Load the amrlib parse model, or raise :class:`ModelUnavailableError` saying what to fix."""
    problem = model_problem(model_dir)
    if problem:
        raise ModelUnavailableError(f"AMR parser unavailable: {problem}")
    path = resolve_model_dir(model_dir)
    if path is None:  # model_problem() found none; a folder removed in between
        raise ModelUnavailableError(f"AMR parser unavailable: no amrlib model folder found. {_howto()}")
    kwargs: dict[str, object] = {"device": device, "batch_size": batch_size}
    if any((path / name).is_file() for name in _TOKENIZER_FILES):
        kwargs["tok_name_or_path"] = str(path)
    try:
        with MODEL_LOADING:  # never beside spaCy's first import, which hides torch meanwhile
            import amrlib

            return amrlib.load_stog_model(model_dir=str(path), **kwargs)
    except Exception as exc:  # amrlib, transformers and torch raise OSError, ValueError, RuntimeError...
        raise ModelUnavailableError(
            f"could not load the amrlib model at {path}: {type(exc).__name__}: {exc}. {_howto()}"
        ) from exc


def _parse_texts(stog, texts: list[str]) -> list:
    """PENMAN strings (None where amrlib produced no graph), or the exception per sentence."""
    try:
        return list(stog.parse_sents(texts, add_metadata=True))
    except Exception as exc:  # one bad sentence must not lose the batch: retry one by one
        if len(texts) == 1:
            return [exc]
        return [result for text in texts for result in _parse_texts(stog, [text])]


def _error_graph(graph_id: str, text: str, error: str, penman_text: str = "") -> SentenceGraph:
    analysis = {"sentence": text, "error": error}
    if penman_text:
        analysis["penman"] = penman_text
    return SentenceGraph(graph_id, (), (), analysis)


def _convert(graph_id: str, parsed, text: str) -> SentenceGraph:
    """The sentence graph of one amrlib result; failures give an empty graph with ``analysis['error']``."""
    if isinstance(parsed, Exception):
        return _error_graph(graph_id, text, f"amrlib failed: {type(parsed).__name__}: {parsed}")
    if not parsed:
        return _error_graph(graph_id, text, "amrlib produced no valid AMR graph for this sentence")
    try:
        return penman_to_graph(graph_id, parsed, text)
    except InputError as exc:
        return _error_graph(graph_id, text, str(exc), parsed)


class AmrParser:
    """The ``amr`` parser: an amrlib sentence-to-graph model, loaded on first use."""

    name = "amr"

    def __init__(self, model_dir: str = "", device: str = "cpu", batch_size: int = 16):
        self.model_dir = model_dir
        self.device = device
        self.batch_size = max(1, int(batch_size))
        self._stog = None

    @staticmethod
    def available(model_dir: str = "") -> tuple[bool, str]:
        """(True, where the model is) or (False, why not and what to do); never raises."""
        problem = model_problem(model_dir)
        return (False, problem) if problem else (True, f"amrlib parse model at {resolve_model_dir(model_dir)}")

    def _model(self):
        if self._stog is None:
            self._stog = _load_stog(self.model_dir, self.device, self.batch_size)
        return self._stog

    def parse(self, sentences: Sequence[Sentence], progress: Progress | None = None) -> list[SentenceGraph]:
        if not sentences:
            return []
        stog = self._model()
        graphs: list[SentenceGraph] = []
        for start in range(0, len(sentences), self.batch_size):
            batch = sentences[start : start + self.batch_size]
            texts = [s.resolved or s.normalized or s.original for s in batch]
            for sentence, text, parsed in zip(batch, texts, _parse_texts(stog, texts)):
                graphs.append(_convert(sentence.id, parsed, text))
            if progress:
                progress(len(graphs), len(sentences))
        return graphs

    def parse_question(self, question: str) -> SentenceGraph:
        text = " ".join(question.split())
        if not text:
            raise InputError("question", "the question is empty")
        return _convert(QUERY_ID, _parse_texts(self._model(), [text])[0], text)


def _has_graph(block: str) -> bool:
    return any(line.strip() and not line.lstrip().startswith("#") for line in block.splitlines())


def normalized_key(text: str) -> str:
    """``text`` with whitespace collapsed: how pre-parsed graphs and questions are looked up.

    >>> normalized_key("  Peter   ran. ")
    'Peter ran.'
    """
    return " ".join(text.split())


class PenmanParser:
    """The ``amr`` parser over PENMAN graphs parsed earlier.

    ``graphs`` maps a sentence id or a sentence text (resolved, normalized
    or original; a question's text) to its PENMAN string or
    :class:`penman.Graph`.
    """

    name = "amr"

    def __init__(self, graphs: Mapping[str, str | penman.Graph]):
        self.graphs = {normalized_key(k): v for k, v in graphs.items()}

    @classmethod
    def from_text(cls, text: str, where: str = "PENMAN text") -> PenmanParser:
        """Read graphs in AMR corpus layout: blank-line separated, keyed by ``# ::id`` and ``# ::snt``."""
        graphs: dict[str, str] = {}
        blocks = [b.strip() for b in re.split(r"\n[ \t]*\n", text) if _has_graph(b)]
        for number, block in enumerate(blocks, start=1):
            graph, _ = decode_penman(block, f"{where}, graph {number}")
            keys = [graph.metadata.get("id", ""), graph.metadata.get("snt", "")]
            if not any(keys):
                raise InputError(f"{where}, graph {number}", "has neither '# ::id' nor '# ::snt' metadata")
            graphs.update({k: block for k in keys if k})
        return cls(graphs)

    @classmethod
    def from_file(cls, path: str | os.PathLike) -> PenmanParser:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise InputError(str(path), f"cannot read PENMAN file ({exc.strerror or exc})") from None
        return cls.from_text(text, str(path))

    def _lookup(self, *keys: str):
        return next((self.graphs[normalized_key(k)] for k in keys if k and normalized_key(k) in self.graphs), None)

    def parse(self, sentences: Sequence[Sentence], progress: Progress | None = None) -> list[SentenceGraph]:
        graphs = []
        for sentence in sentences:
            # text first: ids repeat across documents, a sentence's text names its graph
            found = self._lookup(sentence.resolved, sentence.normalized, sentence.original, sentence.id)
            if found is None:
                missing = f"no PENMAN graph for sentence {sentence.id}"
                graphs.append(_error_graph(sentence.id, sentence.resolved, missing))
            else:
                graphs.append(penman_to_graph(sentence.id, found, sentence.resolved))
            if progress:
                progress(len(graphs), len(sentences))
        return graphs

    def parse_question(self, question: str) -> SentenceGraph:
        found = self._lookup(question)
        if found is None:
            raise InputError("question", f"no pre-parsed PENMAN graph for {normalized_key(question)!r}")
        return penman_to_graph(QUERY_ID, found, normalized_key(question))
