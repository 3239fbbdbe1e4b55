"""The student notebooks, installed as the package ``kgslab._notebooks`` (see kgslab/_resources.py).

Not code: the file only makes the folder a package so that the wheel ships the notebooks;
`python -m kgslab.notebooks DEST` copies them from an installed kit.
"""
