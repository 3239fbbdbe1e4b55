"""Every data set the notebooks use: generators (seeded) and loaders of the files in data/.

One module per family, re-exported here so that ``kgslab.data.linear_data`` etc. work.
The files are package resources (kgslab/_resources.py), so every loader works from an
installed wheel as well as from a clone; `result_path` / `load_result` find committed
result files in data/results/.
"""

from ._paths import DATA_DIR
from .synthetic import *  # noqa: F401,F403
from .classification import *  # noqa: F401,F403
from .corpus import *  # noqa: F401,F403
from .kfd import *  # noqa: F401,F403
from .uci import *  # noqa: F401,F403
from .kgs import *  # noqa: F401,F403
from .results import *  # noqa: F401,F403
