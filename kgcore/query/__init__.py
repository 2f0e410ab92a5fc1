"""Querying an index: match -> align -> retrieve (GroundedKG) | baselines -> answer.

:class:`~kgcore.query.engine.QueryEngine` is the façade that loads indexes
and models once and runs any method.
"""
