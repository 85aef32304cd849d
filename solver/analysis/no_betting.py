"""The hand with the betting removed: both players always go to a showdown at level 1.

What is left is a throw-only game: the captain throws (stopping, and with `reroll keep`
keeping dice, as he likes), the opponent throws knowing the captain's count, and the
captain wins 2 * compare(his hand, the opponent's). Its value says how much of the hand's
value comes from the throwing alone.

Each player's throwing turn is a small decision process over (throw, hand), so a throwing
strategy is an occupation measure: flows f[t, a, h] >= 0 with sum_a f[t, a, h] equal to the
mass reaching hand h at throw t+1. The responder's best reply is optimal stopping, whose
value is the largest W with W <= stop value and W <= E_a[W at the next throw]; putting it
in the LP gives one maximin LP for each player (scipy's HiGHS). The LP's strategies are then
made exact (simple fractions) and each player's guarantee is recomputed by an exact best
response in `Fraction`s: [lower, upper] is proved by the minimax theorem, a single value
when the fractions are an equilibrium. Nothing here uses solver/hand/lp/sequence_form.py.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numpy as np
from scipy import sparse
from scipy.optimize import linprog

from games.bidou.rules import STOP
from solver.common.rounding import nearest_fraction
from solver.hand.exact.certificate import Certificate
from solver.hand.model import HandModel

SHOWDOWN = 2        # chips won at a level-1 showdown


@dataclasses.dataclass(frozen=True)
class ThrowGame:
    """The no-betting game solved: value, exact bounds, both throwing strategies.

    captain: (T-1, A, n) P(action | throw t+1, hand); opponent: (T, T-1, A, n), by the
    captain's throws minus one (the shapes of `Strategy.throw`)."""

    value: float
    certificate: Certificate
    captain: np.ndarray
    opponent: np.ndarray


# --- one player's turn as linear maps of his flows ----------------------------------------

@dataclasses.dataclass(frozen=True)
class _Turn:
    index: dict[tuple[int, int, int], int]     # (t, a, h) -> flow variable
    a_eq: sparse.csr_matrix                    # flow conservation, = b_eq
    b_eq: np.ndarray
    ends: sparse.csr_matrix                    # (T*n, flows): mass ending at throw t, hand h
    ends_const: np.ndarray                     # (T*n,) the part not depending on flows


def _turn(model: HandModel) -> _Turn:
    T, n, legal = model.throws, model.num_hands, model.throw_legal
    index: dict[tuple[int, int, int], int] = {}
    for t in range(T - 1):
        for a in range(len(model.throw_actions)):
            for h in range(n):
                if legal[a, h]:
                    index[(t, a, h)] = len(index)
    stop = model.throw_actions.index(STOP)
    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    b = np.zeros((T - 1) * n)
    ends_r: list[int] = []
    ends_c: list[int] = []
    ends_v: list[float] = []
    ends_const = np.zeros(T * n)
    for t in range(T - 1):
        for h in range(n):
            r = t * n + h
            for a in range(len(model.throw_actions)):
                if legal[a, h]:
                    rows.append(r)
                    cols.append(index[(t, a, h)])
                    vals.append(1.0)
            if t == 0:
                b[r] = model.prior[h]
    for (t, a, h), j in index.items():
        if a == stop:
            ends_r.append(t * n + h)
            ends_c.append(j)
            ends_v.append(1.0)
            continue
        for h2 in np.nonzero(model.transition[a, h])[0].tolist():
            p = model.transition[a, h, h2]
            if t + 1 < T - 1:
                rows.append((t + 1) * n + h2)
                cols.append(j)
                vals.append(-p)
            else:
                ends_r.append((T - 1) * n + h2)
                ends_c.append(j)
                ends_v.append(p)
    if T == 1:
        ends_const[:n] = model.prior
    shape = ((T - 1) * n, len(index))
    return _Turn(index, sparse.csr_matrix((vals, (rows, cols)), shape=shape), b,
                 sparse.csr_matrix((ends_v, (ends_r, ends_c)), shape=(T * n, len(index))),
                 ends_const)


def _behaviour(model: HandModel, turn: _Turn, flows: np.ndarray) -> np.ndarray:
    """(T-1, A, n) probabilities from flows; unreached hands stop."""
    T, n, A = model.throws, model.num_hands, len(model.throw_actions)
    out = np.zeros((T - 1, A, n))
    stop = model.throw_actions.index(STOP)
    for (t, a, h), j in turn.index.items():
        out[t, a, h] = max(flows[j], 0.0)
    total = out.sum(axis=1, keepdims=True)
    reached = total[:, 0, :] > 1e-14
    out = np.where(total > 1e-14, out / np.where(total > 0, total, 1), 0.0)
    out[:, stop, :] = np.where(reached, out[:, stop, :], 1.0)
    return out


def _value_constraints(model: HandModel, offset: int, sign: float):
    """Rows W[t, h] <= E_a W[t+1] (sign=+1) or >= (sign=-1), for variables W at `offset`."""
    T, n = model.throws, model.num_hands
    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    r = 0
    stop = model.throw_actions.index(STOP)
    for t in range(T - 1):
        for a in range(len(model.throw_actions)):
            if a == stop:
                continue
            for h in np.nonzero(model.throw_legal[a])[0].tolist():
                rows.append(r)
                cols.append(offset + t * n + h)
                vals.append(sign)
                for h2 in np.nonzero(model.transition[a, h])[0].tolist():
                    rows.append(r)
                    cols.append(offset + (t + 1) * n + h2)
                    vals.append(-sign * model.transition[a, h, h2])
                r += 1
    return rows, cols, vals, r


def solve_throw_game(model: HandModel) -> ThrowGame:
    """The no-betting game's value, exact bounds and both throwing strategies."""
    T, n = model.throws, model.num_hands
    C = SHOWDOWN * model.compare                 # captain's payoff [hc, ho]
    turn = _turn(model)
    nf = len(turn.index)

    # captain: max sum_tc prior . W_tc[0]; W_tc[t, ho] <= s_tc(ho) = sum_hc e[tc, hc] C[hc, ho]
    nw = T * T * n                                        # W[tc, t, h]
    captain_flows, value_c = _maximin(model, turn, C, nf, nw, captain=True)
    # opponent: min sum prior . U[0]; U[t, hc] >= r_t(hc) = sum_{to,ho} eo_t[to, ho] C[hc, ho]
    opponent_flows, value_o = _maximin(model, turn, C, nf, T * n, captain=False)

    captain = _behaviour(model, turn, captain_flows)
    opponent = np.stack([_behaviour(model, turn, f) for f in opponent_flows])
    lower = exact_guarantee(model, captain, player=0)
    upper = exact_guarantee(model, opponent, player=1)
    if not lower <= upper or abs(float(lower) - value_c) > 1e-9 \
            or abs(float(upper) - value_o) > 1e-9:
        raise ArithmeticError(f"no-betting game: exact bounds [{float(lower)}, "
                              f"{float(upper)}] disagree with the LPs ({value_c}, {value_o})")
    return ThrowGame(value=value_c, certificate=Certificate(lower, upper), captain=captain,
                     opponent=opponent)


def _maximin(model: HandModel, turn: _Turn, C: np.ndarray, nf: int, nw: int, captain: bool):
    """The captain's maximin LP (W: the opponent's stopping values per captain count), or the
    opponent's minimax LP (his flows per captain count; U: the captain's stopping values)."""
    T, n = model.throws, model.num_hands
    E, e0 = turn.ends, turn.ends_const
    ub_rows, ub_cols, ub_vals, ub_b, r0 = [], [], [], [], 0

    def add(rows, cols, vals, count, b):
        nonlocal r0
        ub_rows.extend(x + r0 for x in rows), ub_cols.extend(cols), ub_vals.extend(vals)
        ub_b.extend(b)
        r0 += count

    if captain:
        nvars = nf + nw
        cost = np.zeros(nvars)
        for tc in range(T):
            w0 = nf + tc * T * n
            cost[w0:w0 + n] = -model.prior                 # maximize
            # W[tc, t, ho] - sum_hc e[tc, hc] C[hc, ho] <= e0-part
            S = (C.T @ E[tc * n:(tc + 1) * n].toarray())   # (n ho, nf)
            s0 = C.T @ e0[tc * n:(tc + 1) * n]
            for t in range(T):
                block = sparse.hstack([sparse.csr_matrix(-S), sparse.csr_matrix(
                    (np.ones(n), (np.arange(n), w0 + t * n + np.arange(n) - nf)),
                    shape=(n, nw))]).tocoo()
                add(block.row.tolist(), block.col.tolist(), block.data.tolist(), n, s0)
            rows, cols, vals, count = _value_constraints(model, nf + tc * T * n, 1.0)
            add(rows, cols, vals, count, [0.0] * count)
        a_eq = sparse.hstack([turn.a_eq, sparse.csr_matrix((turn.a_eq.shape[0], nw))])
        b_eq = turn.b_eq
    else:
        nvars = T * nf + nw
        cost = np.zeros(nvars)
        cost[T * nf:T * nf + n] = model.prior              # minimize
        for t in range(T):                                 # captain stopped at throw t+1
            # r_t(hc) - U[t, hc] <= 0, r_t(hc) = sum_{to, ho} C[hc, ho] eo_t[to, ho]
            R = np.zeros((n, T * nf))
            r0_const = np.zeros(n)
            for to in range(T):
                R[:, t * nf:(t + 1) * nf] += C @ E[to * n:(to + 1) * n].toarray()
                r0_const += C @ e0[to * n:(to + 1) * n]
            block = sparse.hstack([sparse.csr_matrix(R), sparse.csr_matrix(
                (-np.ones(n), (np.arange(n), t * n + np.arange(n))), shape=(n, nw))]).tocoo()
            add(block.row.tolist(), block.col.tolist(), block.data.tolist(), n, -r0_const)
        rows, cols, vals, count = _value_constraints(model, T * nf, -1.0)
        add(rows, cols, vals, count, [0.0] * count)
        a_eq = sparse.hstack([sparse.block_diag([turn.a_eq] * T) if nf else
                              sparse.csr_matrix((0, 0)),
                              sparse.csr_matrix((T * turn.a_eq.shape[0], nw))])
        b_eq = np.tile(turn.b_eq, T)
    a_ub = sparse.csr_matrix((ub_vals, (ub_rows, ub_cols)), shape=(r0, nvars))
    bounds = [(0, None)] * (nvars - nw) + [(None, None)] * nw
    result = linprog(cost, A_ub=a_ub, b_ub=np.array(ub_b), A_eq=a_eq if a_eq.shape[0] else None,
                     b_eq=b_eq if a_eq.shape[0] else None, bounds=bounds, method="highs")
    if result.status != 0:
        raise ArithmeticError(f"no-betting LP failed: {result.message}")
    x = result.x
    if captain:
        return x[:nf], -result.fun
    return [x[t * nf:(t + 1) * nf] for t in range(T)], result.fun


# --- exact best responses -------------------------------------------------------------------

def _exact(probs: np.ndarray, legal: np.ndarray) -> list[Fraction]:
    """One decision's probabilities as simple fractions summing to exactly 1."""
    row = [nearest_fraction(p, 10 ** 9) if ok else Fraction(0)
           for p, ok in zip(probs, legal)]
    row = [max(f, Fraction(0)) for f in row]
    largest = max(range(len(row)), key=lambda i: row[i])
    row[largest] += 1 - sum(row)
    return row


def exact_ends(model: HandModel, throw: np.ndarray) -> list[list[Fraction]]:
    """P(ending the turn at throw t+1 holding hand h), exactly, for a throwing strategy
    (T-1, A, n) read as simple fractions."""
    T, n = model.throws, model.num_hands
    mass = list(model.prior_exact)
    ends = []
    for t in range(T - 1):
        nxt = [Fraction(0)] * n
        end = [Fraction(0)] * n
        for h in range(n):
            if mass[h] == 0:
                continue
            probs = _exact(throw[t][:, h], model.throw_legal[:, h])
            for a, p in enumerate(probs):
                if p == 0:
                    continue
                action = model.throw_actions[a]
                if action == STOP:
                    end[h] += mass[h] * p
                else:
                    for h2, q in model.exact_transition(action, h).items():
                        nxt[h2] += mass[h] * p * q
        ends.append(end)
        mass = nxt
    ends.append(mass)
    return ends


def _optimal_stopping(model: HandModel, stop_value: list[list[Fraction]], maximize: bool
                      ) -> Fraction:
    """sum_h prior[h] * W_0(h), W_t(h) = best of stopping (stop_value[t][h]) and each
    rethrow's expected W_{t+1}; at the last throw the player must stop."""
    T, n = model.throws, model.num_hands
    best = max if maximize else min
    W = list(stop_value[T - 1])
    for t in range(T - 2, -1, -1):
        W = [best([stop_value[t][h]] + [
            sum((q * W[h2] for h2, q in model.exact_transition(action, h).items()),
                Fraction(0))
            for a, action in enumerate(model.throw_actions)
            if action != STOP and model.throw_legal[a, h]]) for h in range(n)]
    return sum((p * w for p, w in zip(model.prior_exact, W)), Fraction(0))


def exact_guarantee(model: HandModel, throw: np.ndarray, player: int) -> Fraction:
    """What a throwing strategy guarantees its player in the no-betting game, exactly, to
    the captain: player 0's `throw` is (T-1, A, n); player 1's (T, T-1, A, n)."""
    T, n = model.throws, model.num_hands
    C = [[SHOWDOWN * int(c) for c in row] for row in model.compare]
    if player == 0:
        ends = exact_ends(model, throw)
        total = Fraction(0)
        for tc in range(T):
            s = [sum((ends[tc][hc] * C[hc][ho] for hc in range(n)), Fraction(0))
                 for ho in range(n)]
            total += _optimal_stopping(model, [s] * T, maximize=False)
        return total
    stop_value = []
    for tc in range(T):
        ends = exact_ends(model, throw[tc])
        stop_value.append([sum((ends[to][ho] * C[hc][ho] for to in range(T)
                                for ho in range(n)), Fraction(0)) for hc in range(n)])
    return _optimal_stopping(model, stop_value, maximize=True)


def stop_rule(model: HandModel, stops: np.ndarray) -> np.ndarray:
    """The pure throwing strategy (T-1, A, n) that stops with the hands where `stops` is
    true and rethrows all dice otherwise."""
    T, A, n = model.throws, len(model.throw_actions), model.num_hands
    out = np.zeros((T - 1, A, n))
    out[:, model.throw_actions.index(STOP), :] = stops
    out[:, model.throw_actions.index(()), :] = ~stops
    return out
