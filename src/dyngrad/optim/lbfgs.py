"""L-BFGS with an optional strong-Wolfe line search (PyTorch's ``torch.optim.LBFGS``).

Written as PyTorch's implementation (itself after minFunc) on flat NumPy vectors: the same
two-loop recursion, the same initial step ``min(1, 1/|g|_1) * lr``, the same stopping tests
and the same cubic-interpolation line search, so trajectories agree.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from ..autograd.grad_mode import enable_grad, no_grad
from ..tensor import Tensor
from .optimizer import Optimizer, _check_common

__all__ = ["LBFGS"]


def _cubic_interpolate(x1: float, f1: float, g1: float, x2: float, f2: float, g2: float,
                       bounds: tuple[float, float] | None = None) -> float:
    """Minimiser of the cubic through (x1, f1, g1) and (x2, f2, g2), clipped to ``bounds``
    (Nocedal & Wright, "Numerical Optimization", 2nd ed., eq. 3.59)."""
    xmin_bound, xmax_bound = bounds if bounds is not None else ((x1, x2) if x1 <= x2 else (x2, x1))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1**2 - g1 * g2
    if d2_square >= 0:
        d2 = math.sqrt(d2_square)
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, xmin_bound), xmax_bound)
    return (xmin_bound + xmax_bound) / 2.0


def _strong_wolfe(obj_func: Callable[[float], tuple[float, np.ndarray]], t: float, d: np.ndarray, f: float,
                  g: np.ndarray, gtd: float, c1: float = 1e-4, c2: float = 0.9, tolerance_change: float = 1e-9,
                  max_ls: int = 25) -> tuple[float, np.ndarray, float, int]:
    """A step ``t`` along ``d`` satisfying the strong Wolfe conditions (Nocedal & Wright,
    algorithms 3.5 and 3.6: bracketing, then zoom by cubic interpolation).

    Returns:
        (loss at the step, flat gradient there, the step, function evaluations used).
    """
    d_norm = float(np.abs(d).max())
    g = g.copy()
    f_new, g_new = obj_func(t)
    ls_func_evals = 1
    gtd_new = float(g_new @ d)
    t_prev, f_prev, g_prev, gtd_prev = 0.0, f, g, gtd
    done = False
    ls_iter = 0
    bracket: list[float] = []
    bracket_f: list[float] = []
    bracket_g: list[np.ndarray] = []
    bracket_gtd: list[float] = []
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f, bracket_g = [t_prev, t], [f_prev, f_new], [g_prev, g_new.copy()]
            bracket_gtd = [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f, bracket_g = [t_prev, t], [f_prev, f_new], [g_prev, g_new.copy()]
            bracket_gtd = [gtd_prev, gtd_new]
            break
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        tmp = t
        t = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(min_step, max_step))
        t_prev, f_prev, g_prev, gtd_prev = tmp, f_new, g_new.copy(), gtd_new
        f_new, g_new = obj_func(t)
        ls_func_evals += 1
        gtd_new = float(g_new @ d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0.0, t], [f, f_new], [g, g_new]
    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1])
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insuf_progress or t >= max(bracket) or t <= min(bracket):
                t = max(bracket) - eps if abs(t - max(bracket)) < abs(t - min(bracket)) else min(bracket) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj_func(t)
        ls_func_evals += 1
        gtd_new = float(g_new @ d)
        ls_iter += 1
        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low_pos]:
            bracket[high_pos], bracket_f[high_pos] = t, f_new
            bracket_g[high_pos], bracket_gtd[high_pos] = g_new.copy(), gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                bracket[high_pos], bracket_f[high_pos] = bracket[low_pos], bracket_f[low_pos]
                bracket_g[high_pos], bracket_gtd[high_pos] = bracket_g[low_pos], bracket_gtd[low_pos]
            bracket[low_pos], bracket_f[low_pos] = t, f_new
            bracket_g[low_pos], bracket_gtd[low_pos] = g_new.copy(), gtd_new
    return bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], ls_func_evals


class LBFGS(Optimizer):
    r"""L-BFGS: a quasi-Newton method keeping the last ``history_size`` curvature pairs.

    Each ``step(closure)`` runs up to ``max_iter`` iterations (``max_eval`` closure calls):
    the direction comes from the two-loop recursion over the pairs ``s = t * d``,
    ``y = g_new - g_old`` (pairs with ``y.s <= 1e-10`` are skipped), the first step is
    ``min(1, 1 / |g|_1) * lr`` and later ones ``lr``, or the strong-Wolfe line search's.
    It stops when ``max |g| <= tolerance_grad``, when ``max |t d|`` or the loss change falls
    below ``tolerance_change``, or when the budget is spent.

    Source: Nocedal, "Updating Quasi-Newton Matrices with Limited Storage" (Math. Comp.
    1980); Liu & Nocedal (Math. Prog. 1989); line search: Nocedal & Wright, "Numerical
    Optimization" (2006), section 3.5. Like PyTorch's, this follows minFunc (M. Schmidt).

    Args:
        params: the parameters (one group only).
        lr: learning rate (default 1).
        max_iter: iterations per ``step`` (default 20).
        max_eval: closure evaluations per ``step`` (default ``max_iter * 5 // 4``).
        tolerance_grad: first-order optimality tolerance (default 1e-7).
        tolerance_change: tolerance on the change of loss or parameters (default 1e-9).
        history_size: number of curvature pairs kept (default 100).
        line_search_fn: None (fixed steps) or ``"strong_wolfe"``.
    Raises:
        ValueError: a negative lr, or more than one parameter group.

    Example:
        >>> import dyngrad
        >>> p = dyngrad.tensor([1.0, -2.0], requires_grad=True)
        >>> opt = dyngrad.optim.LBFGS([p], lr=1.0)
        >>> def closure():
        ...     opt.zero_grad()
        ...     loss = (p ** 2).sum()
        ...     loss.backward()
        ...     return loss
        >>> float(opt.step(closure))                        # the loss before the step
        5.0
        >>> [abs(round(v, 4)) for v in p.tolist()]          # a quadratic: solved in one step
        [0.0, 0.0]
    """

    def __init__(self, params: Iterable[Any], lr: float = 1, max_iter: int = 20, max_eval: int | None = None,
                 tolerance_grad: float = 1e-7, tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: str | None = None) -> None:
        _check_common(lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
                        tolerance_change=tolerance_change, history_size=history_size,
                        line_search_fn=line_search_fn)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params: list[Tensor] = self.param_groups[0]["params"]

    # ------------------------------------------------------------------ flat views
    def _gather_flat_grad(self) -> np.ndarray:
        views = [np.zeros(p._data.size, p._data.dtype) if p.grad is None else p.grad._data.reshape(-1)
                 for p in self._params]
        return np.concatenate(views)

    def _add_grad(self, step_size: float, update: np.ndarray) -> None:
        offset = 0
        for p in self._params:
            n = p._data.size
            p._data += step_size * update[offset:offset + n].reshape(p._data.shape)
            p._vc[0] += 1
            offset += n

    def _set_param(self, params_data: list[np.ndarray]) -> None:
        for p, x in zip(self._params, params_data):
            p._data[...] = x
            p._vc[0] += 1

    def _closure_loss(self, closure: Callable[[], Any]) -> Any:
        with enable_grad():
            return closure()

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Run up to ``max_iter`` L-BFGS iterations.

        Args:
            closure: re-evaluates the model (zero the grads, compute the loss, call
                ``backward``) and returns the loss; it is called several times.
        Returns:
            The loss of the first closure call.
        Raises:
            TypeError: no closure given.
            RuntimeError: an unknown ``line_search_fn``.
        """
        if closure is None:
            raise TypeError("LBFGS.step() missing 1 required positional argument: 'closure'")
        with no_grad():
            return self._step(closure)

    def _step(self, closure: Callable[[], Any]) -> Any:
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]
        state = self.state.setdefault(self._params[0], {})
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        orig_loss = self._closure_loss(closure)
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if np.abs(flat_grad).max() <= tolerance_grad:
            return orig_loss

        def arr(name: str) -> Any:
            v = state.get(name)
            return v._data.copy() if isinstance(v, Tensor) else v

        d, t, prev_flat_grad, prev_loss = arr("d"), state.get("t"), arr("prev_flat_grad"), state.get("prev_loss")
        old_dirs = [v._data.copy() for v in state.get("old_dirs", [])]
        old_stps = [v._data.copy() for v in state.get("old_stps", [])]
        ro: list[float] = list(state.get("ro", []))
        h_diag = state.get("H_diag", 1)
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = -flat_grad
                old_dirs, old_stps, ro, h_diag = [], [], [], 1
            else:
                y = flat_grad - prev_flat_grad
                s = d * t
                ys = float(y @ s)
                if ys > 1e-10:
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    h_diag = ys / float(y @ y)
                num_old = len(old_dirs)
                al = [0.0] * num_old
                q = -flat_grad
                for i in range(num_old - 1, -1, -1):
                    al[i] = float(old_stps[i] @ q) * ro[i]
                    q -= al[i] * old_dirs[i]
                d = r = q * h_diag
                for i in range(num_old):
                    be_i = float(old_dirs[i] @ r) * ro[i]
                    r += (al[i] - be_i) * old_stps[i]
            prev_flat_grad = flat_grad.copy()
            prev_loss = loss
            t = min(1.0, 1.0 / float(np.abs(flat_grad).sum())) * lr if state["n_iter"] == 1 else lr
            gtd = float(flat_grad @ d)
            if gtd > -tolerance_change:
                break
            ls_func_evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = [p._data.copy() for p in self._params]

                def obj_func(step: float, direction: np.ndarray = d,
                             x_init: list[np.ndarray] = x_init) -> tuple[float, np.ndarray]:
                    self._add_grad(step, direction)
                    f = float(self._closure_loss(closure))
                    g = self._gather_flat_grad().copy()
                    self._set_param(x_init)
                    return f, g

                loss, flat_grad, t, ls_func_evals = _strong_wolfe(obj_func, t, d, loss, flat_grad, gtd,
                                                                  max_ls=max_eval - current_evals)
                self._add_grad(t, d)
                opt_cond = np.abs(flat_grad).max() <= tolerance_grad
            else:
                self._add_grad(t, d)
                opt_cond = False
                if n_iter != max_iter:
                    loss = float(self._closure_loss(closure))
                    flat_grad = self._gather_flat_grad().copy()
                    opt_cond = np.abs(flat_grad).max() <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals
            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if np.abs(d * t).max() <= tolerance_change:
                break
            if abs(loss - prev_loss) < tolerance_change:
                break
        state["d"] = Tensor._make(d)
        state["t"] = t
        state["old_dirs"] = [Tensor._make(v) for v in old_dirs]
        state["old_stps"] = [Tensor._make(v) for v in old_stps]
        state["ro"] = ro
        state["H_diag"] = h_diag
        state["prev_flat_grad"] = Tensor._make(prev_flat_grad)
        state["prev_loss"] = prev_loss
        return orig_loss
