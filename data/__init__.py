"""The kit's shipped data, installed as the package ``kgslab._files`` (see kgslab/_resources.py).

This folder holds data, not code: the file only makes the folder a package, so that the wheel
ships it and ``importlib.resources`` finds it in every install. Provenance: README.md here.
"""
