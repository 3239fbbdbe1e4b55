"""Mutants of the solutions that compute the same function as the solution (`tests/mutation.py`), with why.

{exercise key: {mutant description: the reason it is the same function}}.  `tests/test_mutation.py` runs each
against the solution on grading cases drawn from other secrets (inputs beyond the check's cases).

Three kinds recur: a symmetric call with its arguments swapped (max, np.maximum, min); the student's own
choice changed (noise levels, gammas: the check reruns the reference at the student's choice, which the
docstring leaves free within its rules); and code that only saves work (a stopping test, a sort by size).
"""

_NOISE_LINE = "`noise_levels = np.array([0.1, 1.0, 3.0, 10.0])`"
_NOISE = "the student's own noise levels, still within the docstring's rules (the check reruns the study at them)"
_GAMMA_LINE = "`gammas = np.array([0.0, 1e-6, 1e-3, 1e-2, 1e-1, 1.0, 10.0])`"
_GAMMAS = "the student's own gammas, still within the rules (0 first, increasing, two powers of ten): the check " \
          "reruns the table at them"
_SYMMETRIC = "the call is symmetric in its first two arguments"
_EARLY_STOP = ("the perceptron stops early after a clean epoch only to save time: every later epoch of a separated "
               "sample makes no update, so running them (or counting mistakes differently) gives the same result")

_FROZEN = ("a flip rate at 0 is a fixed point of EM: the E-step gives the other class posterior weight 0 "
           "(log 0 = -inf) and the M-step's rate is the mean of that weight, 0; freezing it is a safeguard, "
           "not a change")

EQUIVALENT: dict[str, dict[str, str]] = {
    "nb01_exercise_1_noise": {
        **{f"line 16: constant {c} in {_NOISE_LINE}": _NOISE
           for c in ["0.1 halved", "1.0 +1", "3.0 +1", "3.0 -1", "3.0 halved", "10.0 +1", "10.0 -1", "10.0 halved"]},
        "line 22: drop the keyword d= in `X, y, _ = data.linear_data(n=n_train + 100, d=10, noise=noise, "
        "random_state=generator)`": "d = 10 is data.linear_data's default",
    },
    "nb02_exercise_2_table": {
        f"line 11: constant {c} in {_GAMMA_LINE}": _GAMMAS
        for c in ["1e-06 halved", "0.001 halved", "0.01 halved", "0.1 halved", "1.0 +1", "10.0 +1", "10.0 -1",
                  "10.0 halved"]},
    "nb03_exercise_4a": {
        "line 4: drop the keyword lower= in `factor = scipy.linalg.cho_factor(K + sigma2 * np.eye(l), lower=True)`":
            "cho_factor returns which triangle it used, cho_solve reads it, and both triangles have the same "
            "diagonal (the ln det)",
    },
    "nb03_exercise_4b": {
        "line 7: swap the first two arguments in `return mean, np.maximum(var, 0.0)`": _SYMMETRIC,
        "line 7: maximum(x, ...) -> x in `return mean, np.maximum(var, 0.0)`":
            "clipping at 0 only removes rounding below 0 (eq. 14 is a variance, >= 0), far inside the tolerance; "
            "the docstring does not ask for it",
        "line 7: constant 0.0 -1 in `return mean, np.maximum(var, 0.0)`":
            "a variance is never below -1, so clipping at -1 is no clipping (see the line above)",
    },
    "nb04_exercise_5b": {
        "line 3: constant 0 +1 in `l = K.shape[0]`": "a kernel matrix is square: shape[1] = shape[0]",
        "line 3: constant 0 -1 in `l = K.shape[0]`": "a kernel matrix is square: shape[-1] = shape[0]",
    },
    "nb04_exercise_5b_norms": {
        "line 4: swap the first two arguments in `mean_norm = np.sqrt(max(K.mean(), 0.0))    # rounding can leave "
        "a tiny negative mean when `": _SYMMETRIC,
    },
    "nb05_exercise_6_no_bias": {
        "line 8: swap the first two arguments in `beta = np.clip(alpha + eta * gradient, 0.0, C)   # step 2`":
            "np.clip(0, v, C) = min(max(0, v), C) = np.clip(v, 0, C) for C >= 0",
        "line 11: Lt -> LtE in `if change[i] < tol:`":
            "differs only when the largest change equals tol exactly; for tol > 0 that is a tie of floats, and at "
            "tol = 0 a change of exactly 0 leaves alpha as it is",
    },
    "nb05_exercise_6_with_bias": {
        "line 9: swap the first two arguments in `beta = np.clip(alpha + eta * gradient, 0.0, C)   # step 3`":
            "np.clip(0, v, C) = min(max(0, v), C) = np.clip(v, 0, C) for C >= 0",
        "line 12: Lt -> LtE in `if change[i] < tol:`":
            "differs only when the largest change equals tol exactly (a tie of floats; at tol = 0 the cases show "
            "no change of exactly 0 before the cap)",
    },
    "nb05_exercise_6_cv": {
        "line 19: swap the first two arguments in `hinge[k] += np.mean(np.maximum(0.0, 1.0 - y[held_out] * f)) / "
        "len(folds)`": _SYMMETRIC,
        "line 18: GtE -> Gt in `accuracy[k] += np.mean(np.where(f >= 0, 1.0, -1.0) == y[held_out]) / len(folds)`":
            "differs only on a decision value of exactly 0, which the adatron's bias (a running sum of floats) "
            "does not give on held-out points; the tie rule is checked where a case can force it (06's "
            "pair_accuracy with a stand-in adatron)",
    },
    "nb06_exercise_7_naive": {
        "line 6: range bound +1 in `for i in range(n):`": "i = n only starts an empty inner loop range(n, n)",
        "line 9: drop the keyword key= in `small, large = sorted((counts[i], counts[j]), key=len)`":
            "the sort only picks the dictionary to loop over; the sum of products is the same either way",
    },
    "nb06_exercise_7_sparse": {
        "line 8: drop the keyword shape= in `counts = scipy.sparse.csr_matrix((np.ones(len(rows)), (rows, "
        "columns)), shape=(len(docs), `": "the inferred shape is the same: every document has a word (the kit "
                                          "refuses one without) and every column is a word that occurs",
        "line 9: MatMult -> Mult in `return (counts @ counts.T).toarray()`":
            "for a scipy.sparse matrix (csr_matrix), * is the matrix product",
    },
    "nb06_exercise_7_timing": {
        "line 16: swap the first two arguments in `seconds[k, s] = min(seconds[k, s], timer() - tic)   # toc`":
            _SYMMETRIC,
    },
    "nb06_exercise_7_classify": {
        "line 12: flatnonzero(x, ...) -> x in `chosen = np.flatnonzero((language == first) | (language == second))`":
            "np.ix_ and array indexing take the boolean mask itself and select the same documents in the same order",
        "line 16: swap the first two arguments in `for train, test in GroupKFold(n_splits=n_folds).split(K_chosen, "
        "labels, groups=article[cho`": "GroupKFold.split reads only the number of rows of X and y (both the same) "
                                      "and the groups",
        "line 18: Mult -> Div in `decisions = K_chosen[np.ix_(test, train)] @ (alpha * labels[train]) + b`":
            "the labels are -1 and +1, so dividing by them is multiplying by them",
    },
    "nb07_exercise_5a": {
        "line 13: drop the statement in `if mistakes == 0:`": _EARLY_STOP,
        "line 7: constant 0 +1 in `mistakes = 0`": _EARLY_STOP,
        "line 12: Add= -> Sub= in `mistakes += 1`": _EARLY_STOP,
        "line 13: constant 0 -1 in `if mistakes == 0:`": _EARLY_STOP,
        "line 12: constant 1 +1 in `mistakes += 1`": _EARLY_STOP,
    },
    "nb07_exercise_5b": {
        "line 11: drop the statement in `if mistakes == 0:`": _EARLY_STOP,
        "line 6: constant 0 +1 in `mistakes = 0`": _EARLY_STOP,
        "line 10: Add= -> Sub= in `mistakes += 1`": _EARLY_STOP,
        "line 11: constant 0 -1 in `if mistakes == 0:`": _EARLY_STOP,
        "line 10: constant 1 +1 in `mistakes += 1`": _EARLY_STOP,
        "line 8: Mult -> Div in `if y[j] * (K[j] @ (alpha * y)) <= 0:`":
            "the labels are -1 and +1, so dividing by them is multiplying by them",
    },
    "nb07_exercise_5d": {
        "line 8: diag(x, ...) -> x in `radius_squared = np.max(np.diag(K_tilde))`":
            "the largest entry of a positive semi-definite matrix is on its diagonal (|K_ij| <= sqrt(K_ii K_jj))",
    },
    "nb08_exercise_2": {
        "line 5: Gt -> GtE in `errors_at_start = np.count_nonzero(angles[:m] > angles[m:])`":
            "a point's two crossing angles are half a turn apart, never equal",
    },
    "nb08_exercise_5": {
        "line 5: Gt -> GtE in `kept = eigenvalues > 1e-10 * eigenvalues.max()     # the span: rounding error (and its "
        "neg`": "an eigenvalue exactly at the threshold: the rule's boundary, met by no kernel of rounded numbers",
        "line 5: constant 1e-10 halved in `kept = eigenvalues > 1e-10 * eigenvalues.max()     # the span: rounding "
        "error (and its neg`": "the rule's threshold is one choice in the gap between rounding (about 1e-16 of the "
                              "largest eigenvalue) and the span's eigenvalues; the check accepts any threshold there",
    },
    "nb08_exercise_4": {
        "line 5: swap the first two arguments in `return np.where(outputs > 0, 1.0, 0.0)`":
            "np.where(1.0, outputs > 0, 0.0) takes the always-true condition's branch: outputs > 0 as floats 1.0 / 0.0",
    },
    "nb09_exercise_1": {
        "line 3: swap the first two arguments in `return np.arctan2(np.maximum(margins, 0.0), -slopes)`": _SYMMETRIC
        + " (np.maximum(margins, 0.0))",
    },
    "nb09_exercise_4": {
        "line 3: drop the keyword dtype= in `confidence = np.asarray(confidence, dtype=float)`":
            "the confidences are numbers already; comparing them with the thresholds is the same",
        "line 4: drop the keyword dtype= in `correct = np.asarray(correct, dtype=bool)`":
            "correct is boolean, as the docstring says",
        "line 5: drop the keyword dtype= in `rejected = confidence[None, :] < np.asarray(thresholds, "
        "dtype=float)[:, None]`": "the thresholds are numbers already",
        "line 9: drop the keyword where= in `error = np.divide(wrong, n_accepted, out=np.full(len(thresholds), "
        "np.nan), where=n_accepte`": "where nothing is accepted the division is 0 / 0 = NaN, the value out= "
                                     "holds there anyway",
        "line 9: Gt -> GtE in `error = np.divide(wrong, n_accepted, out=np.full(len(thresholds), np.nan), "
        "where=n_accepte`": "dividing where n_accepted = 0 gives 0 / 0 = NaN, the value out= holds there anyway",
        "line 9: constant 0 -1 in `error = np.divide(wrong, n_accepted, out=np.full(len(thresholds), np.nan), "
        "where=n_accepte`": "n_accepted > -1 is n_accepted >= 0: see the line above",
    },
    "nb10_exercise_2": {
        "line 3: drop the keyword dtype= in `flip_rates = np.asarray(flip_rates, dtype=float)`":
            "the flip rates are numbers already",
        "line 7: drop the keyword divide= in `with np.errstate(divide=\"ignore\"):            # log 0 = -inf for a "
        "frozen rate is exactly `": "np.errstate() without arguments changes nothing: log 0 is still -inf (with a "
                                    "warning, which the check reports without failing)",
    },
    "nb10_exercise_3": {
        "line 5: Sub -> Add in `scatters = np.array([(posterior[:, [c]] * (X - means[c])).T @ (X - means[c]) for c "
        "in (0, `": "the posterior-weighted deviations from the weighted mean sum to 0, so sum_n q_n (x_n + m) "
                    "(x_n - m)' = sum_n q_n (x_n - m)(x_n - m)' (either factor)",
    },
    "nb10_exercise_4": {
        "line 6: drop the keyword dtype= in `frozen = np.asarray(initial_flip_rates, dtype=float) == 0`":
            "the starting rates are numbers; == 0 is the same on ints and floats",
        "line 6: constant 0 +1 in `frozen = np.asarray(initial_flip_rates, dtype=float) == 0`": _FROZEN,
        "line 6: constant 0 -1 in `frozen = np.asarray(initial_flip_rates, dtype=float) == 0`": _FROZEN,
        "line 7: drop the keyword dtype= in `flip_rates = np.asarray(initial_flip_rates, dtype=float)`":
            "the starting rates are numbers already",
        "line 17: swap the first two arguments in `flip_rates = np.where(frozen, 0.0, new_rates)                # a "
        "rate started at 0 stays f`": _FROZEN,
        "line 12: Lt -> LtE in `converged = bool(history) and log_likelihood - history[-1] < tol`":
            "differs only when the rise equals tol exactly, a tie of floats",
    },
}
