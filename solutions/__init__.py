"""The solution notebooks, installed as the package ``kgslab._solutions`` (see kgslab/_resources.py).

Not code: the file only makes the folder a package so that the wheel ships the notebooks.
"""
