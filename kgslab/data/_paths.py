"""Where the shipped data live: the package resource folder of data/ (kgslab._files).

In a clone installed editable that is the repository's data/ folder itself; from a
wheel it is the copy inside the installed package (kgslab/_resources.py).
"""

from .._resources import kit_folder

DATA_DIR = kit_folder("data")
