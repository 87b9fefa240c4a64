"""Offline stand-in data of the MeMd paper (Dukkipati et al., ``../shared/papers/memd_generative_maxent.txt``):
:func:`make_gene_like` (dense p >> n "microarray" data, stand-in for Table II's gene-expression sets) and
:func:`make_text_like` (sparse row-normalised term frequencies, Sec. VI-C weights, stand-in for Table III's
20 Newsgroups problems). Pure functions of their arguments and seed (moved from the engine's data layer,
earlier from ``randml_core/models/memd.py``; the code and hence the data are unchanged). Registered for
dataset cards (``source: {kind: generated, generator: "randml_papers.memd.generators:make_gene_like"}``).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state

from randml_core.data.sources.generated import register_generator

__all__ = ["make_gene_like", "make_text_like"]


@register_generator
def make_gene_like(n=60, d=2000, n_classes=2, random_state=None, *, n_informative=10,
                   effect=2.0, n_constant=0, return_informative=False):
    """Dense p >> n 'microarray' data: Gaussian log-expression with a few informative genes.

    Gene g has a baseline mean ~ N(7, 1.5^2) and a standard deviation ~ U(0.2, 1). Each of the
    ``n_informative`` genes is up-regulated by ``effect`` standard deviations in one class
    (classes assigned in turn). ``n_constant`` genes are constant (a degenerate statistic that
    exercises ``floor``). Columns are shuffled; labels are balanced and shuffled.

    Returns
    -------
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,), integer labels 0..n_classes-1
    informative : ndarray of the informative column indices (only if ``return_informative``)
    """
    rng = check_random_state(random_state)
    if n_informative + n_constant > d:
        raise ValueError("n_informative + n_constant must not exceed d.")
    y = rng.permutation(np.arange(n) % n_classes)
    base = rng.normal(7.0, 1.5, size=d)
    sd = rng.uniform(0.2, 1.0, size=d)
    X = base + sd * rng.standard_normal((n, d))
    inf_cls = np.arange(n_informative) % n_classes
    X[:, :n_informative] += effect * sd[:n_informative] * (y[:, None] == inf_cls[None, :])
    X[:, n_informative:n_informative + n_constant] = np.round(
        base[n_informative:n_informative + n_constant])
    perm = rng.permutation(d)
    X = X[:, perm]
    informative = np.sort(np.flatnonzero(perm < n_informative))
    return (X, y, informative) if return_informative else (X, y)


@register_generator
def make_text_like(n_docs=1000, n_words=5000, n_classes=2, random_state=None, *,
                   doc_length=100, n_topic_words=100, topic_boost=10.0, zipf_exponent=1.1):
    """Sparse multinomial bag-of-words with row-normalised term frequencies (Sec. VI-C weights).

    Background word probabilities follow a Zipf law (exponent ``zipf_exponent``) over a random
    word order; each class multiplies the probability of its own ``n_topic_words`` words
    (disjoint sets) by ``topic_boost``. A document has 1 + Poisson(doc_length - 1) tokens drawn
    from its class's word distribution (one vectorised draw per class); X[j, w] is the count of
    w in document j divided by the document's length, so every row sums to 1.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_docs, n_words), float64
    y : ndarray of shape (n_docs,), integer labels 0..n_classes-1
    """
    rng = check_random_state(random_state)
    if n_classes * n_topic_words > n_words:
        raise ValueError("n_classes * n_topic_words must not exceed n_words.")
    y = rng.permutation(np.arange(n_docs) % n_classes)
    base = 1.0 / np.arange(1, n_words + 1) ** zipf_exponent
    base = base[rng.permutation(n_words)]
    topics = rng.permutation(n_words)[:n_classes * n_topic_words].reshape(n_classes, -1)
    lengths = 1 + rng.poisson(max(doc_length - 1, 0), size=n_docs)
    rows, cols = [], []
    for c in range(n_classes):
        p = base.copy()
        p[topics[c]] *= topic_boost
        p /= p.sum()
        docs = np.flatnonzero(y == c)
        n_tok = lengths[docs]
        rows.append(np.repeat(docs, n_tok))
        cols.append(rng.choice(n_words, size=int(n_tok.sum()), p=p))
    rows = np.concatenate(rows)
    cols = np.concatenate(cols)
    counts = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n_docs, n_words))
    counts.sum_duplicates()
    X = sp.diags(1.0 / lengths) @ counts
    return sp.csr_matrix(X), y
