"""Two papers that cite each other, in ACM's capitals and in author-year style, indexed with the real models:
``python -m kgcore cites --collection NAME --graph`` prints the edge each way with the citing sentences."""

import json

from kgcore.cli import main
from kgcore.index.pipeline import Job, index_files
from kgcore.index.store.disk import Store
from tests.pdfs import citing_paper

GFS = citing_paper(
    "The Google File System", "Sanjay Ghemawat, Howard Gobioff and Shun-Tak Leung",
    ["We present a file system for large distributed data-intensive",
     "applications. Structured data is kept in tables on top of it",
     "(Chang et al., 2006) by several services at Google. A master keeps",
     "the metadata and chunk servers keep the chunk replicas."],
    [["Chang, F., Dean, J., Ghemawat, S., et al. (2006). Bigtable: a", "    distributed storage system for structured "
      "data. In OSDI."],
     ["Lamport, L. (1998). The part-time parliament. ACM TOCS, 16(2)."]])
BIGTABLE = citing_paper(
    "Bigtable: A Distributed Storage System for Structured Data", "Fay Chang, Jeffrey Dean and Sanjay Ghemawat",
    ["Bigtable is a distributed storage system for structured data.",
     "Bigtable uses the distributed Google File System (GFS)",
     "[2] to store log and data files. Chubby uses the Paxos algorithm",
     "[1] to keep its replicas consistent in the face of failure."],
    [["[1] LAMPORT, L. The part-time parliament. ACM TOCS 16, 2 (1998)."],
     ["[2] GHEMAWAT, S., GOBIOFF, H., AND LEUNG, S.-T. The Google file", "system. In Proc. of the 19th ACM SOSP "
      "(Dec. 2003)."],
     ["[3] SOLTIS, S. R., RUWART, T. M., AND O'KEEFE, M. T. The Gobal", "File System. In Proc. of the NASA MSS "
      "(1996)."]])


def test_papers_citing_each_other_make_an_edge_each_way(tmp_path, capsys):
    (tmp_path / "gfs.pdf").write_bytes(GFS)
    (tmp_path / "bigtable.pdf").write_bytes(BIGTABLE)
    store = Store(tmp_path / "store")
    (outcome,) = index_files([Job("gfs.pdf", tmp_path / "gfs.pdf"), Job("bigtable.pdf", tmp_path / "bigtable.pdf")],
                             store, "classic", workers=1)
    assert not outcome.failed
    index = store.load("classic")
    uses_gfs = next(s for s in index.sentences if s.original.startswith("Bigtable uses the distributed"))
    assert uses_gfs.original.endswith("[2] to store log and data files.") and uses_gfs.citations == ("ref-2",)
    assert main(["cites", "--collection", "classic", "--graph", "--store", str(store.root)]) == 0
    edges = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(e["citing"], e["cited"], e["references"]) for e in edges] == [
        ("bigtable", "gfs", ["ref-2"]), ("gfs", "bigtable", ["ref-chang-2006"])]
    assert edges[0]["sentences"] == [uses_gfs.id]
    cites_bigtable = index.sentence(edges[1]["sentences"][0])
    assert "(Chang et al., 2006)" in cites_bigtable.original and cites_bigtable.doc_id == "gfs"
    assert main(["cites", "Gobal", "--collection", "classic", "--graph", "--store", str(store.root)]) == 2
