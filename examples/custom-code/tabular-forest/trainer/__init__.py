"""A random forest for a tabular dataset version, run as a module: ``python -m trainer``."""
