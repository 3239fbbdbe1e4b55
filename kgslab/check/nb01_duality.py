"""Checks for notebook 01 (duality): placeholder list filled in below."""

__all__: list[str] = []
