"""The penalised least-squares system of random-intercept models (lme4's form).

Random intercepts only: every observation belongs to exactly one level of each
grouping, so ``Z`` is a set of indicator matrices and every cross-product is a
weighted count (``np.bincount``). With the relative covariance factor
``Λ = diag(θ_j)`` and spherical random effects ``u`` (Bates et al. 2015, *Fitting
linear mixed-effects models using lme4*, §3), the system is

    [ΛZ'WZΛ + I   ΛZ'WX] [u]   [ΛZ'Wz]
    [X'WZΛ        X'WX ] [β] = [X'Wz ]

The grouping with the most levels forms a diagonal block ``D``; the other
groupings' columns (and ``X``) form a small dense block. Eliminating ``D``
(a Schur complement) gives the sparse Cholesky factorisation lme4 computes,
in O(n + q₀·m + m³) with m the dense block's size.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import linalg

__all__ = [
    "Factorised",
    "Gram",
    "Structure",
    "factorise",
    "factorise_gram",
    "weighted_gram",
]


@dataclass(frozen=True)
class Structure:
    """What does not change while fitting: the groupings and the design.

    ``codes[j]`` holds each observation's level index of grouping ``j``
    (0..sizes[j]-1); grouping 0 has the most levels.
    """

    codes: tuple[np.ndarray, ...]
    sizes: tuple[int, ...]
    X: np.ndarray

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def p(self) -> int:
        return self.X.shape[1]

    @property
    def q(self) -> int:
        return int(sum(self.sizes))

    def group_sum(self, j: int, values: np.ndarray) -> np.ndarray:
        """Σ over the observations of each level of grouping j (vector or columns)."""
        if values.ndim == 1:
            return np.bincount(self.codes[j], weights=values, minlength=self.sizes[j])
        out = np.empty((self.sizes[j], values.shape[1]))
        for col in range(values.shape[1]):
            out[:, col] = self.group_sum(j, values[:, col])
        return out

    def cross_count(self, j: int, k: int, w: np.ndarray) -> np.ndarray:
        """Z_j' W Z_k: weighted counts of the level pairs of groupings j and k."""
        flat = self.codes[j] * self.sizes[k] + self.codes[k]
        counts = np.bincount(flat, weights=w, minlength=self.sizes[j] * self.sizes[k])
        return counts.reshape(self.sizes[j], self.sizes[k])

    def z_times(self, theta: np.ndarray, u: np.ndarray) -> np.ndarray:
        """ZΛu: each observation's sum of its scaled random intercepts."""
        out = np.zeros(self.n)
        start = 0
        for j, size in enumerate(self.sizes):
            out += theta[j] * u[start : start + size][self.codes[j]]
            start += size
        return out

    def zt_times(self, theta: np.ndarray, values: np.ndarray) -> np.ndarray:
        """ΛZ'v for a vector v."""
        if not self.sizes:
            return np.zeros(0)
        return np.concatenate(
            [theta[j] * self.group_sum(j, values) for j in range(len(self.sizes))]
        )


@dataclass(frozen=True)
class Factorised:
    """The factorised system at one (θ, W).

    ``logdet_u`` is log|ΛZ'WZΛ + I| (lme4's log|L|²); with ``X`` included,
    ``logdet_x`` is log|RX'RX| (the Schur complement of the random effects).
    """

    d: np.ndarray  # diagonal block (grouping 0), length q0
    b: np.ndarray  # q0 × m coupling to the dense block
    chol: np.ndarray  # Cholesky factor (lower) of the dense Schur complement
    m_u: int  # dense columns that belong to random effects (the rest are X)
    logdet_u: float
    logdet_x: float

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        """Solve the system for one right-hand side ordered [u0, u_rest, β]."""
        q0 = self.d.size
        r1, r2 = rhs[:q0], rhs[q0:]
        if self.chol.size:
            tail = linalg.cho_solve((self.chol, True), r2 - self.b.T @ (r1 / self.d))
        else:
            tail = r2[:0]
        head = (r1 - self.b @ tail) / self.d if q0 else r1
        return np.concatenate([head, tail])

    def beta_covariance(self) -> np.ndarray:
        """(RX'RX)⁻¹: the β block of the inverse of the whole system."""
        inverse = linalg.cho_solve((self.chol, True), np.eye(self.chol.shape[0]))
        return inverse[self.m_u :, self.m_u :]


@dataclass(frozen=True)
class Gram:
    """The weighted cross-products of one W: what the system needs besides θ.

    A linear model's weights never change, so its fit computes them once and
    each evaluation of the criterion only scales them by θ.
    """

    counts: tuple[np.ndarray, ...]  # Z_j'WZ_j (diagonal), per grouping
    cross: dict[tuple[int, int], np.ndarray]  # Z_j'WZ_k, j ≠ k
    zx: tuple[np.ndarray, ...]  # Z_j'WX, per grouping
    xx: np.ndarray  # X'WX


def weighted_gram(structure: Structure, w: np.ndarray, *, with_x: bool) -> Gram:
    """The cross-products of :func:`factorise` at weights w (θ-independent)."""
    s = structure
    k = len(s.sizes)
    X = s.X if with_x else s.X[:, :0]
    wx = w[:, None] * X
    cross = {
        (j, kk): s.cross_count(j, kk, w)
        for j in range(k)
        for kk in range(1, k)
        if j != kk and (j == 0 or kk != 0)
    }
    return Gram(
        counts=tuple(s.group_sum(j, w) for j in range(k)),
        cross=cross,
        zx=tuple(s.group_sum(j, wx) for j in range(k)),
        xx=X.T @ wx,
    )


def factorise(
    structure: Structure, theta: np.ndarray, w: np.ndarray, *, with_x: bool
) -> Factorised:
    """Factorise [ΛZ'WZΛ + I (, ΛZ'WX; X'WZΛ, X'WX)] at θ and weights w."""
    return factorise_gram(weighted_gram(structure, w, with_x=with_x), theta)


def factorise_gram(g: Gram, theta: np.ndarray) -> Factorised:
    """:func:`factorise` from the cross-products of its weights."""
    k = len(g.counts)
    d = theta[0] ** 2 * g.counts[0] + 1.0 if k else np.zeros(0)
    # Dense block: groupings 1.. then X.
    blocks_b = []  # coupling of grouping 0 with each dense part
    dense_rows = []
    dense_parts = list(range(1, k))
    for j in dense_parts:
        row = []
        for kk in dense_parts:
            if kk == j:
                block = np.diag(theta[j] ** 2 * g.counts[j] + 1.0)
            else:
                block = theta[j] * theta[kk] * g.cross[(j, kk)]
            row.append(block)
        row.append(theta[j] * g.zx[j])
        dense_rows.append(row)
        blocks_b.append(theta[0] * theta[j] * g.cross[(0, j)])
    x_row = [(theta[j] * g.zx[j]).T for j in dense_parts] + [g.xx]
    dense_rows.append(x_row)
    m = int(sum(c.size for c in g.counts[1:])) + g.xx.shape[1]
    c = np.block(dense_rows) if m else np.zeros((0, 0))
    if k:
        blocks_b.append(theta[0] * g.zx[0])
        b = np.concatenate(blocks_b, axis=1) if m else np.zeros((d.size, 0))
    else:
        b = np.zeros((0, m))
    m_u = int(sum(c.size for c in g.counts[1:]))
    schur = c - (b.T / d) @ b if k else c
    chol = linalg.cholesky(schur, lower=True) if schur.size else schur
    logdiag = 2.0 * np.log(np.diag(chol)) if chol.size else np.zeros(0)
    logdet_u = float(np.log(d).sum() + logdiag[:m_u].sum())
    logdet_x = float(logdiag[m_u:].sum())
    return Factorised(d, b, chol, m_u, logdet_u, logdet_x)
