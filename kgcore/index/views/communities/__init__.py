"""Communities of a collection's grounded graph and their grounded summaries.

:mod:`.graph` (which nodes and links take part), :mod:`.detect` (hierarchical Leiden / Louvain),
:mod:`.summaries` (extractive and abstractive grounded summaries), :mod:`.stored` (built once per collection
generation, stored in its linked folder, reused incrementally), :mod:`.overview` (the markdown overview).
"""

from kgcore.index.views.communities.detect import ALGORITHMS, Community, Hierarchy, detect
from kgcore.index.views.communities.stored import BuildStats, CommunityIndex, Params, communities
from kgcore.index.views.communities.summaries import Claim, Summary

__all__ = ["ALGORITHMS", "BuildStats", "Claim", "Community", "CommunityIndex", "Hierarchy", "Params", "Summary",
           "communities", "detect"]
