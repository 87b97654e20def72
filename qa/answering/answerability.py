"""Answerability: whether the sentence chosen to answer a question does answer it.

One cosine threshold cannot tell: a sentence that names the person a question asks about
is similar to a question about that person's pay, and a table row that answers a
question reads unlike it. So the decision is a small logistic regression over two named
features of the question and the chosen sentence (`FEATURES`, computed by
`qa.answering.quoted.assess`): how similar the best candidate is, and the verifier's score of
the sentence (`qa.answering.verifier`, a model trained to tell whether a sentence answers).
Eight were tried with the verifier: the rarest question word the sentence and its
neighbours lack (and whether any candidate holds it), a number or a negation of the
question it lacks, and the reader's best span and no-answer scores. Beside the verifier
they refused no more of the unanswerable questions on any fold (docs/figures.md), so
they went: a feature stays when it changes what the folds refuse.

The weights are fitted to public reading-comprehension data with unanswerable questions
(SQuAD 2.0's articles in `shared/datasets/squad` that the reader and the verifier were not
trained on) by `benchmarks/answerability.py`, which reports every leave-one-article-out
fold and writes `answerability.json` beside this module: a few hundred bytes, no model
download. The fit is plain Newton's method on the L2-penalised log-loss, each class
weighted to half, so it is exact and repeatable. The shipped threshold is the
probability below which 4% of the out-of-fold probabilities of answerable questions fall:
the folds then refuse at most 5% of them, as issue 33 asks.
"""

import functools
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

WEIGHTS_FILE = Path(__file__).with_name("answerability.json")
FEATURES = (
    "similarity",  # the highest cosine of a candidate sentence to the question
    "verifier",  # the verifier's score of the sentence (`qa.answering.verifier`)
)
MARGIN_CLIP = 30.0  # scores beyond this tell nothing more
L2 = 1.0  # the penalty on the weights (features are standardised first)


@dataclass(frozen=True, slots=True)
class Model:
    """A fitted logistic regression over FEATURES: each feature is standardised by `mean`
    and `scale`, weighted, and summed with `bias`; `threshold` is the probability below
    which an answer is refused; `span_margin` the reader's margin (`qa.answering.reader`) from
    which the value it reads is said before the quote."""

    weights: Mapping[str, float]
    bias: float
    mean: Mapping[str, float]
    scale: Mapping[str, float]
    threshold: float
    span_margin: float = math.inf

    def probability(self, features: Mapping[str, float]) -> float:
        """The estimated probability that the sentence answers the question."""
        z = self.bias + sum(self.weights[name] * (features[name] - self.mean[name])
                            / self.scale[name] for name in FEATURES)
        return logistic(z)

    def to_dict(self) -> dict:
        def rounded(values: Mapping[str, float]) -> dict[str, float]:
            return {name: round(values[name], 6) for name in FEATURES}
        return {"features": list(FEATURES), "weights": rounded(self.weights),
                "bias": round(self.bias, 6), "mean": rounded(self.mean),
                "scale": rounded(self.scale), "threshold": round(self.threshold, 6),
                "span_margin": round(self.span_margin, 6)}


def logistic(z: float) -> float:
    """1 / (1 + e^-z), for any z (clamped where it is 0 or 1 to double precision)."""
    return 1.0 / (1.0 + math.exp(-max(min(z, 40.0), -40.0)))


@functools.cache
def shipped() -> Model:
    """The model fitted by benchmarks/answerability.py, as shipped in the package."""
    data = json.loads(WEIGHTS_FILE.read_text(encoding="utf-8"))
    if tuple(data["features"]) != FEATURES:
        raise RuntimeError(f"{WEIGHTS_FILE.name} was fitted to other features: refit it with "
                           "benchmarks/answerability.py")
    return Model(data["weights"], data["bias"], data["mean"], data["scale"], data["threshold"],
                 data["span_margin"])


def verifier_feature(scores: Sequence[float]) -> float:
    """The verifier's score of the sentence (0, undecided, when nothing verified it)."""
    return max(-MARGIN_CLIP, min(scores[0], MARGIN_CLIP)) if scores else 0.0


def fit(rows: Sequence[Mapping[str, float]], labels: Sequence[bool], threshold: float = 0.5,
        iterations: int = 50) -> Model:
    """Logistic regression of `labels` (True: answerable) on the FEATURES of `rows`, by
    Newton's method on the log-loss with an L2 penalty, each class weighted to half."""
    x = np.array([[row[name] for name in FEATURES] for row in rows], dtype=np.float64)
    y = np.array(labels, dtype=np.float64)
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    z = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    positives = y.sum()
    weight = np.where(y == 1, 0.5 / max(positives, 1), 0.5 / max(len(y) - positives, 1))
    penalty = np.full(z.shape[1], L2 / len(y))
    penalty[-1] = 0.0  # the bias is not penalised
    beta = np.zeros(z.shape[1])
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-z @ beta))
        gradient = z.T @ (weight * (p - y)) + penalty * beta
        hessian = (z * (weight * p * (1 - p))[:, None]).T @ z + np.diag(penalty)
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if np.abs(step).max() < 1e-10:
            break
    return Model(dict(zip(FEATURES, beta[:-1].tolist(), strict=True)), float(beta[-1]),
                 dict(zip(FEATURES, mean.tolist(), strict=True)),
                 dict(zip(FEATURES, scale.tolist(), strict=True)), threshold)
