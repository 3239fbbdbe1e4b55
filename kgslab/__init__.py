"""kgslab: a Jupyter coursework kit on kernel methods and Bayesian kernel classifiers.

Modules (one idea each): kernels, text, regression, adatron, perceptron, kgs,
billiard, kfd, data, widgets, check, release.  Import the one you need,
e.g. ``from kgslab import kernels``.
"""

__version__ = "0.1.0"
