"""The lowest layer: value types, the exception hierarchy, typed settings and the spaCy loader.

Nothing here imports another kgcore layer; every other layer builds on it.
"""
