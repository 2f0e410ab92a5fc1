"""The kgcore version, recorded in every manifest, audit record and evaluation run."""

__version__ = "0.3.0"
