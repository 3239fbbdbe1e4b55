"""kgslab: a Jupyter coursework kit on kernel methods and Bayesian kernel classifiers.

Modules (one idea each): kernels (kernel functions; normalising and centring a kernel
matrix), text (a text's words, k-grams, stop words and stems; the
text kernels), regression, adatron (the kernel adatron: the handout's two algorithms
and the estimator), perceptron;
versionspace (the geometry both samplers share), circle (the KGS's steps on one
great circle and its vote per draw, as the paper writes them), kgs (the kernel Gibbs sampler and
BayesPointMachine), evidence (its section 4: likelihood, entropy, evidence),
billiard_ball (the billiard's ball: its flight, and the paper's step as written),
billiard (runs of the billiard into p+, BayesianTransduction, Figure 2's curve), stopping
(when a sampler has run long enough, Hoeffding's rule of the billiard paper), diagnostics
(R-hat, ESS, Monte Carlo error), label_noise (labels that may be wrong: the
model and its EM), kfd (kernel Fisher discriminants, with label noise); papers (one module per paper's
experiments), data, widgets, check, report, release.  Import the one you need,
e.g. ``from kgslab import kernels``.
"""

__version__ = "0.1.0"
