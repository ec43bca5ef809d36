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

Both take a :class:`~casemodels._budget.FitBudget`: every evaluation of the
criterion is one iteration of it, and every PIRLS step checks its time bound.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import linalg, optimize
from scipy.special import expit

from ._budget import FitBudget
from ._system import Factorised, Structure, factorise, factorise_gram, weighted_gram

__all__ = ["FitResult", "fit_binomial", "fit_linear", "separated"]

# lme4's isSingular(): a relative standard deviation below this is a boundary fit.
SINGULAR_TOL = 1e-4
# lme4's deriv12() step for the Hessian of the Laplace deviance.
HESSIAN_STEP = 1e-4
# Largest |H⁻¹·gradient| at the optimum accepted as converged (lme4: 0.002).
CONVERGENCE_TOL = 2e-3
_PIRLS_MAX_ITER = 60
_PIRLS_TOL = 1e-13  # relative Newton decrement: converged conditional modes


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


def _unbounded() -> FitBudget:
    return FitBudget(max_iterations=None, max_seconds=None)


# ---------------------------------------------------------------- linear


class _LinearREML:
    """The REML criterion of one linear model as a function of θ.

    The weights are all one, so the system's cross-products and those with y
    are computed once; an evaluation only scales them by θ, factorises and
    solves (no pass over the observations): the penalised residual sum of
    squares of the solution s of A s = c is y'y − s'c.
    """

    def __init__(self, s: Structure, y: np.ndarray, budget: FitBudget):
        self.s, self.y, self.budget = s, y, budget
        self.gram = weighted_gram(s, np.ones(s.n), with_x=True)
        self.zy = [s.group_sum(j, y) for j in range(len(s.sizes))]
        self.xy = s.X.T @ y
        self.yy = float(y @ y)

    def solve(self, theta: np.ndarray) -> tuple[Factorised, np.ndarray, float]:
        f = factorise_gram(self.gram, theta)
        zy = [theta[j] * self.zy[j] for j in range(len(self.zy))]
        rhs = np.concatenate([*zy, self.xy])
        solution = f.solve(rhs)
        return f, solution, self.yy - float(solution @ rhs)

    def deviance(self, theta: np.ndarray) -> float:
        self.budget.iteration()
        f, _, r2 = self.solve(theta)
        return _reml_value(self.s, f, r2)

    def final(self, theta: np.ndarray) -> tuple[Factorised, np.ndarray, float]:
        """β and the residual sum of squares at the optimum, from the residuals
        themselves (no cancellation in y'y − s'c)."""
        f, solution, _ = self.solve(theta)
        u, beta = solution[: self.s.q], solution[self.s.q :]
        resid = self.y - self.s.X @ beta - self.s.z_times(theta, u)
        return f, beta, float(resid @ resid + u @ u)


def _reml_value(s: Structure, f: Factorised, r2: float) -> float:
    dof = s.n - s.p
    return f.logdet_u + f.logdet_x + dof * (1.0 + np.log(2.0 * np.pi * r2 / dof))


def fit_linear(
    s: Structure, y: np.ndarray, *, budget: FitBudget | None = None
) -> FitResult:
    """REML fit of a linear mixed model with random intercepts (``budget``:
    its bounds; raises :class:`~casemodels._budget.BudgetExceeded` past them)."""
    k = len(s.sizes)
    criterion = _LinearREML(s, y, budget or _unbounded())
    if k:
        # The criterion is even in θ: optimising |θ| without bounds never
        # stalls at θ = 0, where the gradient vanishes by symmetry.
        res = optimize.minimize(
            lambda t: criterion.deviance(np.abs(t)),
            np.ones(k),
            method="L-BFGS-B",
            options={"ftol": 1e-14, "gtol": 1e-9, "maxiter": 500},
        )
        theta = _polish(criterion.deviance, np.abs(res.x), k)
    else:
        theta = np.zeros(0)
    f, beta, r2 = criterion.final(theta)
    sigma2 = r2 / (s.n - s.p)
    return FitResult(
        beta=beta,
        vcov=sigma2 * f.beta_covariance(),
        variances=sigma2 * theta**2,
        residual_variance=sigma2,
        deviance=_reml_value(s, f, r2),
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

    def __init__(self, s: Structure, y: np.ndarray, budget: FitBudget):
        self.s, self.y, self.budget = s, y, budget
        self.u = np.zeros(s.q)
        self.beta = np.zeros(s.p)

    def _pirls(self, theta, beta, u, *, joint: bool):
        """Newton steps on the penalised deviance; returns (u, β, pdev, f) with
        f factorised at the returned point (so its log-determinant matches)."""
        s, y = self.s, self.y

        def penalised(u_, b_):
            eta = s.X @ b_ + s.z_times(theta, u_)
            return _bernoulli_deviance(y, eta) + float(u_ @ u_), eta

        pdev, eta = penalised(u, beta)
        for _ in range(_PIRLS_MAX_ITER):
            self.budget.check_time()
            mu = expit(eta)
            f = factorise(s, theta, mu * (1.0 - mu), with_x=joint)
            grad = s.zt_times(theta, y - mu) - u
            if joint:
                grad = np.concatenate([grad, s.X.T @ (y - mu)])
            step = f.solve(grad)
            # Newton decrement = predicted fall of the penalised deviance.
            if float(grad @ step) < _PIRLS_TOL * (1.0 + pdev):
                break
            du, db = step[: s.q], step[s.q :] if joint else np.zeros_like(beta)
            scale = 1.0
            while True:
                new_u, new_b = u + scale * du, beta + scale * db
                new_pdev, new_eta = penalised(new_u, new_b)
                if new_pdev <= pdev + 1e-12 * (1.0 + pdev) or scale < 1e-10:
                    break
                scale /= 2.0
            u, beta, pdev, eta = new_u, new_b, new_pdev, new_eta
        return u, beta, pdev, f

    def stage1(self, theta: np.ndarray) -> float:
        """Deviance at θ with β and u both from PIRLS (glmer's nAGQ = 0 stage)."""
        self.budget.iteration()
        u, beta, pdev, f = self._pirls(theta, self.beta, self.u, joint=True)
        self.u, self.beta = u, beta
        return pdev + f.logdet_u

    def laplace(self, params: np.ndarray) -> float:
        """Laplace deviance at (θ, β) with u from PIRLS."""
        self.budget.iteration()
        k = len(self.s.sizes)
        theta, beta = np.abs(params[:k]), params[k:]
        u, _, pdev, f = self._pirls(theta, beta, self.u, joint=False)
        self.u = u
        return pdev + f.logdet_u

    def laplace_and_gradient(self, params: np.ndarray) -> tuple[float, np.ndarray]:
        """The Laplace deviance and its exact gradient in (θ, β).

        With û the conditional modes, A = ΛZ'WZΛ + I and h_i the i-th diagonal
        entry of ZΛA⁻¹ΛZ', the deviance's dependence through û vanishes for
        dev + ‖u‖² (û minimises it) and enters log|A| via the weights:
        ∂log|A|/∂η_i = h_i·w_i(1 − 2μ_i), with dû/dφ = A⁻¹∂F/∂φ from the mode
        equation F = ΛZ'(y − μ) − u = 0; the direct θ_j term is
        (2/θ_j)(q_j − tr_j A⁻¹).
        """
        self.budget.iteration()
        s, y = self.s, self.y
        k = len(s.sizes)
        signs = np.where(params[:k] < 0, -1.0, 1.0)
        theta, beta = np.abs(params[:k]), params[k:]
        u, _, pdev, f = self._pirls(theta, beta, self.u, joint=False)
        self.u = u
        eta = s.X @ beta + s.z_times(theta, u)
        mu = expit(eta)
        w = mu * (1.0 - mu)
        resid = y - mu
        diag_inv, block_trace, h = _inverse_parts(s, theta, f)
        v = h * w * (1.0 - 2.0 * mu)
        a = f.solve(s.zt_times(theta, v))  # A⁻¹ΛZ'v
        wx = w[:, None] * s.X
        lzwx = (
            np.concatenate([theta[j] * s.group_sum(j, wx) for j in range(k)])
            if k
            else np.zeros((0, s.p))
        )
        grad_beta = -2.0 * s.X.T @ resid + s.X.T @ v - lzwx.T @ a
        grad_theta = np.zeros(k)
        start = 0
        for j in range(k):
            size = s.sizes[j]
            u_j = u[start : start + size]
            zu = u_j[s.codes[j]]  # Z_j u_j per observation
            c = -s.zt_times(theta, w * zu)
            c[start : start + size] += s.group_sum(j, resid)
            direct = (
                2.0 / theta[j] * (size - block_trace[j]) if theta[j] > 1e-12 else 0.0
            )
            grad_theta[j] = (
                -2.0 * float(u_j @ s.group_sum(j, resid))
                + direct
                + float(v @ zu)
                + float(c @ a)
            )
            start += size
        del diag_inv
        return pdev + f.logdet_u, np.concatenate([signs * grad_theta, grad_beta])

    def fixed_block_vcov(self, theta, beta) -> np.ndarray:
        """(RX'RX)⁻¹ with the weights at the conditional modes (use.hessian = FALSE)."""
        u, _, _, _ = self._pirls(theta, beta, self.u, joint=False)
        eta = self.s.X @ beta + self.s.z_times(theta, u)
        mu = expit(eta)
        return factorise(self.s, theta, mu * (1.0 - mu), with_x=True).beta_covariance()


def _inverse_parts(s: Structure, theta: np.ndarray, f):
    """Diagonal of A⁻¹, its trace per grouping, and h = diag(ZΛA⁻¹ΛZ')."""
    k = len(s.sizes)
    if not k:
        return np.zeros(0), np.zeros(0), np.zeros(s.n)
    m = f.chol.shape[0]
    s_inv = linalg.cho_solve((f.chol, True), np.eye(m)) if m else np.zeros((0, 0))
    M = f.b / f.d[:, None]  # D⁻¹B
    MS = M @ s_inv
    diag0 = 1.0 / f.d + np.einsum("ij,ij->i", MS, M)
    diag = np.concatenate([diag0, np.diag(s_inv)])
    offsets = np.concatenate([[0], np.cumsum(s.sizes)])
    traces = np.array([diag[offsets[j] : offsets[j + 1]].sum() for j in range(k)])
    l0 = s.codes[0]
    h = theta[0] ** 2 * diag0[l0]
    rest = [offsets[j] - s.sizes[0] + s.codes[j] for j in range(1, k)]
    for j, col in zip(range(1, k), rest, strict=True):
        h -= 2.0 * theta[0] * theta[j] * MS[l0, col]
        for kk, col2 in zip(range(1, k), rest, strict=True):
            h += theta[j] * theta[kk] * s_inv[col, col2]
    return diag, traces, h


def _central_gradient(fun, x: np.ndarray, h: float = 1e-5) -> np.ndarray:
    grad = np.empty_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = h
        grad[i] = (fun(x + e) - fun(x - e)) / (2.0 * h)
    return grad


def _hessian_from_gradient(
    gradient, x: np.ndarray, h: float = HESSIAN_STEP
) -> np.ndarray:
    """Central differences of the exact gradient, symmetrised (lme4's deriv12
    differences the deviance itself; this is the same Hessian, more precisely)."""
    H = np.empty((x.size, x.size))
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = h
        H[i] = (gradient(x + e) - gradient(x - e)) / (2.0 * h)
    return (H + H.T) / 2.0


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


def fit_binomial(
    s: Structure, y: np.ndarray, *, budget: FitBudget | None = None
) -> FitResult:
    """Laplace maximum-likelihood fit of a binomial GLMM with random intercepts
    (``budget``: its bounds; raises :class:`~casemodels._budget.BudgetExceeded`
    past them)."""
    k = len(s.sizes)
    model = _Laplace(s, y, budget or _unbounded())
    if k:
        # Derivative-free on |θ| (lme4 uses bobyqa here): a gradient method
        # started at θ = 1 can jump to the symmetric stationary point θ = 0.
        stage1 = optimize.minimize(
            lambda t: model.stage1(np.abs(t)),
            np.ones(k),
            method="Nelder-Mead",
            options={"xatol": 1e-3, "fatol": 1e-4, "maxiter": 2000},
        )
        theta1 = np.abs(stage1.x)
        model.stage1(theta1)
        start = np.concatenate([theta1, model.beta])
    else:
        model.stage1(np.zeros(0))
        start = model.beta.copy()
    res = optimize.minimize(
        model.laplace_and_gradient,
        start,
        jac=True,
        method="L-BFGS-B",
        options={"ftol": 1e-13, "gtol": 1e-5, "maxiter": 1000},
    )
    x = res.x
    theta, beta = np.abs(x[:k]), x[k:]
    x = np.concatenate([theta, beta])
    warnings: list[str] = []
    H = _hessian_from_gradient(lambda z: model.laplace_and_gradient(z)[1], x)
    grad = model.laplace_and_gradient(x)[1]
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
