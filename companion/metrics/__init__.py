"""Metrics, one submodule per family (geometry, clustering, retrieval, distance geometry…)."""
