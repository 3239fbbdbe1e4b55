"""Print the installed version of every dependency kgslab declares (runtime and the test extra), one line.

CI prints this for each job (newest, oldest), so its log says which versions were tested.
"""

import re
import sys
from importlib.metadata import PackageNotFoundError, requires, version

names = sorted({re.match(r"[A-Za-z0-9_.\-]+", requirement).group(0) for requirement in requires("kgslab")},
               key=str.lower)
found = []
for name in names:
    try:
        found.append(f"{name}=={version(name)}")
    except PackageNotFoundError:
        found.append(f"{name}: not installed")
print(f"Python {sys.version.split()[0]}: " + " ".join(found))
