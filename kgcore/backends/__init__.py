"""Optional and swappable implementations behind kgcore's stage interfaces (coreference, ...)."""
