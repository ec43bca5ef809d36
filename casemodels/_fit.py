"""Fitting random-intercept models as lme4 does (contract §2).

- :func:`fit_linear`: ``lmer(y ~ X + (1|g1) + …, REML = TRUE)``; the REML
  criterion profiled over β and σ (Bates et al. 2015, eq. 42), minimised over
  the relative standard deviations θ ≥ 0; vcov(β) = σ²(RX'RX)⁻¹ = σ²(X'V⁻¹X)⁻¹.
- :func:`fit_binomial`: ``glmer(y ~ X + (1|g1) + …, family = binomial)`` by
  maximum likelihood with the Laplace approximation, in lme4's two stages:
  θ with (β, u) from penalised iteratively reweighted least squares (PIRLS),
  then (θ, β) together with u from PIRLS. vcov(β) = 2·H⁻¹ restricted to β, with
  H the finite-difference Hessian of the Laplace deviance in (θ, β)
  (``vcov(use.hessian = TRUE)``); where H is not positive definite, the
  fixed-effects block (RX'RX)⁻¹ at the optimum, with a warning.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import optimize
from scipy.special import expit

from ._system import Structure, factorise

__all__ = ["FitResult", "fit_binomial", "fit_linear", "separated"]

# lme4's isSingular(): a relative standard deviation below this is a boundary fit.
SINGULAR_TOL = 1e-4
# lme4's deriv12() step for the Hessian of the Laplace deviance.
HESSIAN_STEP = 1e-4
# Largest |H⁻¹·gradient| at the optimum accepted as converged (lme4: 0.002).
CONVERGENCE_TOL = 2e-3
_PIRLS_MAX_ITER = 60


@dataclass
class FitResult:
    """Estimates of one fitted model (plain numbers; the caller names them)."""

    beta: np.ndarray | None
    vcov: np.ndarray | None
    variances: np.ndarray | None  # one per grouping, in Structure order
    residual_variance: float | None = None
    deviance: float | None = None
    converged: bool = True
    warnings: list[str] = field(default_factory=list)


# ---------------------------------------------------------------- linear


def _pls_linear(s: Structure, y: np.ndarray, theta: np.ndarray):
    ones = np.ones(s.n)
    f = factorise(s, theta, ones, with_x=True)
    rhs = np.concatenate([s.zt_times(theta, y), s.X.T @ y])
    solution = f.solve(rhs)
    u, beta = solution[: s.q], solution[s.q :]
    resid = y - s.X @ beta - s.z_times(theta, u)
    r2 = float(resid @ resid + u @ u)
    return f, beta, r2


def _reml_deviance(s: Structure, y: np.ndarray, theta: np.ndarray) -> float:
    f, _, r2 = _pls_linear(s, y, theta)
    dof = s.n - s.p
    return f.logdet_u + f.logdet_x + dof * (1.0 + np.log(2.0 * np.pi * r2 / dof))


def fit_linear(s: Structure, y: np.ndarray) -> FitResult:
    """REML fit of a linear mixed model with random intercepts."""
    k = len(s.sizes)
    if k:
        # The criterion is even in θ: optimising |θ| without bounds never
        # stalls at θ = 0, where the gradient vanishes by symmetry.
        res = optimize.minimize(
            lambda t: _reml_deviance(s, y, np.abs(t)),
            np.ones(k),
            method="L-BFGS-B",
            options={"ftol": 1e-14, "gtol": 1e-9, "maxiter": 500},
        )
        theta = _polish(lambda t: _reml_deviance(s, y, t), np.abs(res.x), k)
    else:
        theta = np.zeros(0)
    f, beta, r2 = _pls_linear(s, y, theta)
    sigma2 = r2 / (s.n - s.p)
    return FitResult(
        beta=beta,
        vcov=sigma2 * f.beta_covariance(),
        variances=sigma2 * theta**2,
        residual_variance=sigma2,
        deviance=_reml_deviance(s, y, theta),
    )


def _polish(fun, x: np.ndarray, n_bounded: int) -> np.ndarray:
    """Refine an optimum with Nelder–Mead on |θ| (the criterion is even in θ)."""

    def folded(z):
        z = np.array(z, dtype=float)
        z[:n_bounded] = np.abs(z[:n_bounded])
        return fun(z)

    res = optimize.minimize(
        folded,
        x,
        method="Nelder-Mead",
        options={"xatol": 1e-9, "fatol": 1e-12, "maxiter": 4000, "maxfev": 8000},
    )
    best = res.x if res.fun <= fun(x) else x
    best = np.array(best, dtype=float)
    best[:n_bounded] = np.abs(best[:n_bounded])
    return best


# ---------------------------------------------------------------- binomial


def _bernoulli_deviance(y: np.ndarray, eta: np.ndarray) -> float:
    """Σ −2·log p(y | η) for 0/1 outcomes (the saturated deviance is 0)."""
    return float(2.0 * np.sum(np.logaddexp(0.0, eta) - y * eta))


class _Laplace:
    """The Laplace deviance of a binomial GLMM with warm-started PIRLS."""

    def __init__(self, s: Structure, y: np.ndarray):
        self.s, self.y = s, y
        self.u = np.zeros(s.q)
        self.beta = np.zeros(s.p)

    def _pirls(self, theta, beta, u, *, joint: bool):
        """Newton steps on the penalised deviance; returns (u, β, pdev, f)."""
        s, y = self.s, self.y

        def penalised(u_, b_):
            eta = s.X @ b_ + s.z_times(theta, u_)
            return _bernoulli_deviance(y, eta) + float(u_ @ u_), eta

        pdev, eta = penalised(u, beta)
        for _ in range(_PIRLS_MAX_ITER):
            mu = expit(eta)
            w = mu * (1.0 - mu)
            f = factorise(s, theta, w, with_x=joint)
            grad_u = s.zt_times(theta, y - mu) - u
            if joint:
                step = f.solve(np.concatenate([grad_u, s.X.T @ (y - mu)]))
                du, db = step[: s.q], step[s.q :]
            else:
                du, db = f.solve(grad_u), np.zeros_like(beta)
            scale = 1.0
            while True:
                new_u, new_b = u + scale * du, beta + scale * db
                new_pdev, new_eta = penalised(new_u, new_b)
                if new_pdev <= pdev + 1e-12 or scale < 1e-10:
                    break
                scale /= 2.0
            change = pdev - new_pdev
            u, beta, pdev, eta = new_u, new_b, new_pdev, new_eta
            if abs(change) < 1e-11 * (1.0 + abs(pdev)):
                break
        mu = expit(eta)
        f = factorise(s, theta, mu * (1.0 - mu), with_x=True)
        return u, beta, pdev, f

    def stage1(self, theta: np.ndarray) -> float:
        """Deviance at θ with β and u both from PIRLS (glmer's nAGQ = 0 stage)."""
        u, beta, pdev, f = self._pirls(theta, self.beta, self.u, joint=True)
        self.u, self.beta = u, beta
        return pdev + f.logdet_u

    def laplace(self, params: np.ndarray) -> float:
        """Laplace deviance at (θ, β) with u from PIRLS."""
        k = len(self.s.sizes)
        theta, beta = np.abs(params[:k]), params[k:]
        u, _, pdev, f = self._pirls(theta, beta, self.u, joint=False)
        self.u = u
        return pdev + f.logdet_u

    def fixed_block_vcov(self, theta, beta) -> np.ndarray:
        _, _, _, f = self._pirls(theta, beta, self.u, joint=False)
        return f.beta_covariance()


def _central_gradient(fun, x: np.ndarray, h: float = 1e-5) -> np.ndarray:
    grad = np.empty_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = h
        grad[i] = (fun(x + e) - fun(x - e)) / (2.0 * h)
    return grad


def _hessian(fun, x: np.ndarray, h: float = HESSIAN_STEP) -> np.ndarray:
    """Central-difference Hessian (as lme4's deriv12)."""
    n = x.size
    f0 = fun(x)
    H = np.empty((n, n))
    for i in range(n):
        ei = np.zeros(n)
        ei[i] = h
        H[i, i] = (fun(x + ei) - 2.0 * f0 + fun(x - ei)) / h**2
        for j in range(i):
            ej = np.zeros(n)
            ej[j] = h
            H[i, j] = H[j, i] = (
                fun(x + ei + ej)
                - fun(x + ei - ej)
                - fun(x - ei + ej)
                + fun(x - ei - ej)
            ) / (4.0 * h**2)
    return H


def _hessian_vcov(H: np.ndarray, k: int) -> np.ndarray | None:
    """2·H⁻¹ restricted to β, or None where lme4 would fall back to RX
    (H singular, or the β block not positive definite)."""
    try:
        inverse = np.linalg.inv(H)
    except np.linalg.LinAlgError:
        return None
    block = inverse[k:, k:]
    vcov = block + block.T
    if not np.all(np.isfinite(vcov)) or np.linalg.eigvalsh(vcov).min() <= 0:
        return None
    return vcov


def separated(X: np.ndarray, y: np.ndarray) -> bool:
    """Whether the 0/1 outcomes are (quasi-)completely separated by X.

    Separation: a direction b ≠ 0 with x_i'b ≥ 0 for every failure and ≤ 0 for
    every success (Konis 2007, linear programme): the likelihood then keeps
    growing along b and the estimates run off to infinity.
    """
    sign = np.where(y > 0.5, 1.0, -1.0)
    A = sign[:, None] * X
    # maximise Σ A b subject to A b ≥ 0, −1 ≤ b ≤ 1
    res = optimize.linprog(
        -A.sum(axis=0),
        A_ub=-A,
        b_ub=np.zeros(len(y)),
        bounds=[(-1.0, 1.0)] * X.shape[1],
        method="highs",
    )
    return bool(res.status == 0 and -res.fun > 1e-7 * len(y))


def fit_binomial(s: Structure, y: np.ndarray) -> FitResult:
    """Laplace maximum-likelihood fit of a binomial GLMM with random intercepts."""
    k = len(s.sizes)
    model = _Laplace(s, y)
    if k:
        # Derivative-free on |θ| (lme4 uses bobyqa here): a gradient method
        # started at θ = 1 can jump to the symmetric stationary point θ = 0.
        stage1 = optimize.minimize(
            lambda t: model.stage1(np.abs(t)),
            np.ones(k),
            method="Nelder-Mead",
            options={"xatol": 1e-6, "fatol": 1e-9, "maxiter": 2000},
        )
        theta1 = np.abs(stage1.x)
        model.stage1(theta1)
        start = np.concatenate([theta1, model.beta])
    else:
        model.stage1(np.zeros(0))
        start = model.beta.copy()
    res = optimize.minimize(
        model.laplace,
        start,
        jac=lambda x: _central_gradient(model.laplace, x),
        method="L-BFGS-B",
        options={"ftol": 1e-13, "gtol": 1e-7, "maxiter": 1000},
    )
    x = res.x
    theta, beta = np.abs(x[:k]), x[k:]
    warnings: list[str] = []
    H = _hessian(model.laplace, x)
    grad = _central_gradient(model.laplace, x)
    vcov = _hessian_vcov(H, k)
    if vcov is not None:
        free = np.concatenate([theta > SINGULAR_TOL, np.ones(s.p, bool)])
        scaled = np.linalg.solve(H[np.ix_(free, free)], grad[free])
        converged = bool(np.max(np.abs(scaled)) < CONVERGENCE_TOL)
    else:
        vcov = model.fixed_block_vcov(theta, beta)
        converged = bool(np.max(np.abs(grad[k:])) < 1e-3 * max(1.0, s.n / 100))
        warnings.append(
            "The Hessian of the deviance is not positive definite; standard errors "
            "come from the fixed-effects block alone and may be too narrow."
        )
    if not converged:
        warnings.append("The optimiser did not converge (the gradient is not zero).")
    return FitResult(
        beta=beta,
        vcov=vcov,
        variances=theta**2,
        deviance=model.laplace(x),
        converged=converged,
        warnings=warnings,
    )
