"""The papers' experiments, one module per paper; the notebooks call these, the algorithms never import them.

- `kgs2000`: Graepel and Herbrich, "The kernel Gibbs sampler", NIPS 2000 (seed 001): Figure 4's quadratic SVM.
- `bt1999`: Graepel, Herbrich and Obermayer, "Bayesian transduction", NIPS 1999 (seed 002): exact spherical
  volumes (the reference for the billiard) and Figure 2's comparison with the SVM.
- `kfd2001`: the noisy kernel Fisher discriminant paper (seed 003): notebook 10's paper-sized runs.
"""
