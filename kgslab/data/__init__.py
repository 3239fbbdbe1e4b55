"""Every data set the notebooks use: generators (seeded) and loaders of the files in data/.

One module per family, re-exported here so that ``kgslab.data.linear_data`` etc. work.
"""

from ._paths import DATA_DIR
from .synthetic import *  # noqa: F401,F403
from .classification import *  # noqa: F401,F403
from .corpus import *  # noqa: F401,F403
from .kfd import *  # noqa: F401,F403
from .uci import *  # noqa: F401,F403
from .kgs import *  # noqa: F401,F403
