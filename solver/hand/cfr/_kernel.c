/* The CFR iteration of solver/hand/cfr/iterations.py in C: the same arithmetic as the numpy engine, on the
 * same arrays, updated in place. solver/hand/cfr/kernel.py loads it through ctypes and says why
 * it exists; the layout of every array is the one documented in solver/hand/cfr/iterations.py (_Layout,
 * _Player), all C-contiguous float64 or int64.
 *
 * The file is also a (method-less) Python extension module, so that setuptools builds and
 * installs it like any other and Python's import system can find it.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* AVX2 where the processor has it (one run-time dispatch per call of cfr_run, into which
 * everything is inlined): about 25% faster. No FMA contraction (-ffp-contract=off), so
 * every build rounds alike. */
#if defined(__GNUC__) && defined(__x86_64__) && defined(__linux__)
#define CLONES __attribute__((target_clones("avx2", "default")))
#define INLINE static inline __attribute__((always_inline))
#else
#define CLONES
#define INLINE static inline
#endif

typedef struct {
    int64_t T, A, n, K, D, L, m, P, E;
    const int64_t *child_row;     /* (K, D) row of V of each action's child */
    const int64_t *pub_tc;        /* (P,) captain's throws - 1 */
    const int64_t *pub_to;        /* (P,) opponent's throws - 1 */
    const int64_t *parent_edge;   /* (D,) a * D + parent, -1 at roots */
    const int64_t *leaf_edge;     /* (L,) a * D + parent */
    const int64_t *exc_w;         /* (E,) exceptions to the strength order: winner */
    const int64_t *exc_l;         /* (E,) and loser */
    const double *legal;          /* (A, n) */
    const double *outcome;        /* (A - 1, n) */
    const double *exc_coef;       /* (m,) */
    const double *prior;          /* (n,) */
    double *V;                    /* (L + D + 1, n) values; the last row stays 0 */
} Layout;

typedef struct {
    int64_t C, Dp, is_captain;
    double *throw_regret, *bet_regret, *throw_sigma, *bet_sigma, *throw_avg, *seq_avg;
    double *factor, *flows, *ends, *reach, *seq, *leaf_reach;
    const double *throw_uniform, *bet_uniform;
    double *throw_r, *bet_r, *stop, *work, *totals;
    const int64_t *own, *own_children, *start_rows;
    const double *other_value, *sd_a_cum, *sd_a_total, *sd_a_self;
} Player;

typedef struct {
    int64_t plus, discount, predictive;
    double alpha, beta, gamma;
} Rule;

/* V[leaf, h]: value to the player of each leaf against the other's leaf reach r. */
INLINE void leaf_values(const Layout *lay, const Player *pl, const double *r)
{
    const int64_t n = lay->n, m = lay->m, L = lay->L;
    double *V = lay->V;
    /* cumulative sums, four leaves at a time: each is a serial chain of additions */
    int64_t leaf = 0;
    for (; leaf + 4 <= m; leaf += 4) {
        const double *r0 = r + leaf * n, *r1 = r0 + n, *r2 = r1 + n, *r3 = r2 + n;
        double *v0 = V + leaf * n, *v1 = v0 + n, *v2 = v1 + n, *v3 = v2 + n;
        double c0 = 0.0, c1 = 0.0, c2 = 0.0, c3 = 0.0;
        for (int64_t h = 0; h < n; h++) {
            c0 += r0[h];
            c1 += r1[h];
            c2 += r2[h];
            c3 += r3[h];
            v0[h] = c0;
            v1[h] = c1;
            v2[h] = c2;
            v3[h] = c3;
        }
    }
    for (; leaf < m; leaf++) {
        const double *rl = r + leaf * n;
        double *v = V + leaf * n, c = 0.0;
        for (int64_t h = 0; h < n; h++) {
            c += rl[h];
            v[h] = c;
        }
    }
    for (leaf = 0; leaf < m; leaf++) {
        const double *rl = r + leaf * n;
        double *v = V + leaf * n;
        const double a_cum = pl->sd_a_cum[leaf], a_self = pl->sd_a_self[leaf];
        const double base = pl->sd_a_total[leaf] * v[n - 1];
        for (int64_t h = 0; h < n; h++)
            v[h] = (a_cum * v[h] + base) + a_self * rl[h];
    }
    for (int64_t e = 0; e < lay->E; e++) {
        const int64_t w = lay->exc_w[e], lo = lay->exc_l[e];
        for (int64_t leaf = 0; leaf < m; leaf++) {
            const double c = lay->exc_coef[leaf];
            double *v = V + leaf * n;
            const double *rl = r + leaf * n;
            if (pl->is_captain) {
                v[w] += c * rl[lo];
                v[lo] -= c * rl[w];
            } else {
                v[lo] -= c * rl[w];
                v[w] += c * rl[lo];
            }
        }
    }
    /* folds and passes: a constant times the other's total reach (four sums at a time) */
    for (leaf = m; leaf < L; leaf += 4) {
        const int64_t count = L - leaf < 4 ? L - leaf : 4;
        double total[4] = {0.0, 0.0, 0.0, 0.0};
        for (int64_t h = 0; h < n; h++)
            for (int64_t k = 0; k < count; k++)
                total[k] += r[(leaf + k) * n + h];
        for (int64_t k = 0; k < count; k++) {
            const double value = pl->other_value[leaf + k - m] * total[k];
            double *v = V + (leaf + k) * n;
            for (int64_t h = 0; h < n; h++)
                v[h] = value;
        }
    }
}

/* Instantaneous regrets of the player (into throw_r, bet_r) against the other's reach. */
INLINE void backward(const Layout *lay, Player *pl, const double *other_leaf_reach)
{
    const int64_t n = lay->n, K = lay->K, D = lay->D, L = lay->L, T = lay->T, A = lay->A;
    const int64_t C = pl->C, Dp = pl->Dp;
    double *V = lay->V;
    leaf_values(lay, pl, other_leaf_reach);
    /* betting values, deepest nodes first (nodes are sorted by depth) */
    for (int64_t d = D - 1; d >= 0; d--) {
        double *v = V + (L + d) * n;
        const double *f0 = pl->factor + d * n;
        const double *c0 = V + lay->child_row[d] * n;
        for (int64_t h = 0; h < n; h++)
            v[h] = 0.0 + f0[h] * c0[h];
        for (int64_t a = 1; a < K; a++) {
            const double *f = pl->factor + (a * D + d) * n;
            const double *c = V + lay->child_row[a * D + d] * n;
            for (int64_t h = 0; h < n; h++)
                v[h] += f[h] * c[h];
        }
    }
    for (int64_t i = 0; i < Dp; i++) {
        const double *v = V + (L + pl->own[i]) * n;
        for (int64_t a = 0; a < K; a++) {
            const double *c = V + pl->own_children[a * Dp + i] * n;
            double *out = pl->bet_r + (a * Dp + i) * n;
            for (int64_t h = 0; h < n; h++)
                out[h] = c[h] - v[h];
        }
    }
    /* value of stopping at each throw count: the root of the public state it leads to */
    double *stop = pl->stop;
    memset(stop, 0, sizeof(double) * T * C * n);
    for (int64_t p = 0; p < lay->P; p++) {
        const double *root = V + (L + p) * n;
        double *s = pl->is_captain ? stop + lay->pub_tc[p] * n
                                   : stop + (lay->pub_to[p] * C + lay->pub_tc[p]) * n;
        for (int64_t h = 0; h < n; h++)
            s[h] += root[h];
    }
    /* the throwing turn, last throw first; work holds v (C, n) then v_new (C, n) */
    double *v = pl->work, *v_new = pl->work + C * n;
    memcpy(v, stop + (T - 1) * C * n, sizeof(double) * C * n);
    double reroll[64];
    for (int64_t t = T - 2; t >= 0; t--) {
        for (int64_t c = 0; c < C; c++) {
            const double *vc = v + c * n;
            for (int64_t a = 1; a < A; a++) {
                const double *o = lay->outcome + (a - 1) * n;
                double s = 0.0;
                for (int64_t j = 0; j < n; j++)
                    s += vc[j] * o[j];
                reroll[a] = s;
            }
            const double *q0 = stop + (t * C + c) * n;
            const double *s0 = pl->throw_sigma + ((t * A + 0) * C + c) * n;
            double *vn = v_new + c * n;
            for (int64_t h = 0; h < n; h++)
                vn[h] = s0[h] * q0[h];
            for (int64_t a = 1; a < A; a++) {
                const double *sa = pl->throw_sigma + ((t * A + a) * C + c) * n;
                const double q = reroll[a];
                for (int64_t h = 0; h < n; h++)
                    vn[h] += sa[h] * q;
            }
            double *r0 = pl->throw_r + ((t * A + 0) * C + c) * n;
            for (int64_t h = 0; h < n; h++)
                r0[h] = (q0[h] - vn[h]) * lay->legal[h];
            for (int64_t a = 1; a < A; a++) {
                double *ra = pl->throw_r + ((t * A + a) * C + c) * n;
                const double *la = lay->legal + a * n;
                const double q = reroll[a];
                for (int64_t h = 0; h < n; h++)
                    ra[h] = (q - vn[h]) * la[h];
            }
        }
        memcpy(v, v_new, sizeof(double) * C * n);
    }
}

/* acc += r (clipped, discounted by the rule); sigma <- the next strategy. Arrays are
 * (G, A, M): the strategy of a cell sums to 1 over the A actions. One pass updates the
 * regrets and sums the weights, a second one normalizes. */
INLINE void regret_match(double *restrict acc, const double *restrict r,
                         double *restrict sigma, const double *restrict uniform,
                         double *restrict totals, int64_t G, int64_t A, int64_t M,
                         int64_t t, const Rule *rule)
{
    const int plus = rule->plus != 0, discount = rule->discount != 0;
    const int predictive = rule->predictive != 0;
    double pos = 1.0, neg = 1.0;
    if (discount) {
        const double ta = pow((double)t, rule->alpha), tb = pow((double)t, rule->beta);
        pos = ta / (ta + 1);
        neg = tb / (tb + 1);
    }
    double smallest = INFINITY;
    for (int64_t g = 0; g < G; g++) {
        double *restrict tot = totals + g * M;
        for (int64_t a = 0; a < A; a++) {
            const int64_t off = (g * A + a) * M;
            for (int64_t x = 0; x < M; x++) {
                double value = acc[off + x] + r[off + x];
                if (plus)
                    value = value > 0.0 ? value : 0.0;
                if (discount)
                    value *= value > 0.0 ? pos : neg;
                acc[off + x] = value;
                double w = predictive ? value + r[off + x] : value;
                w = w > 0.0 ? w : 0.0;
                sigma[off + x] = w;
                tot[x] = a == 0 ? w : tot[x] + w;
            }
        }
        for (int64_t x = 0; x < M; x++)
            smallest = tot[x] < smallest ? tot[x] : smallest;
    }
    if (smallest > 0.0) {           /* as numpy: multiply by the reciprocal */
        for (int64_t i = 0; i < G * M; i++)
            totals[i] = 1.0 / totals[i];
        for (int64_t g = 0; g < G; g++)
            for (int64_t a = 0; a < A; a++) {
                double *restrict s = sigma + (g * A + a) * M;
                const double *restrict tot = totals + g * M;
                for (int64_t x = 0; x < M; x++)
                    s[x] *= tot[x];
            }
        return;
    }
    for (int64_t g = 0; g < G; g++)
        for (int64_t a = 0; a < A; a++) {
            const int64_t off = (g * A + a) * M;
            const double *tot = totals + g * M;
            for (int64_t x = 0; x < M; x++)
                sigma[off + x] = tot[x] <= 0.0 ? uniform[off + x] : sigma[off + x] / tot[x];
        }
}

/* Occupancy of the throwing states, end of turn, own reach in the betting. */
INLINE void forward(const Layout *lay, Player *pl)
{
    const int64_t n = lay->n, K = lay->K, D = lay->D, T = lay->T, A = lay->A, C = pl->C;
    double *mass = pl->work;
    double moved[64];
    for (int64_t c = 0; c < C; c++)
        memcpy(mass + c * n, lay->prior, sizeof(double) * n);
    for (int64_t t = 0; t < T - 1; t++) {
        for (int64_t c = 0; c < C; c++) {
            double *mc = mass + c * n;
            for (int64_t a = 0; a < A; a++) {
                const double *s = pl->throw_sigma + ((t * A + a) * C + c) * n;
                double *f = pl->flows + ((t * A + a) * C + c) * n;
                double total = 0.0;
                for (int64_t h = 0; h < n; h++) {
                    f[h] = mc[h] * s[h];
                    total += f[h];
                }
                moved[a] = total;
            }
            memcpy(pl->ends + (t * C + c) * n, pl->flows + ((t * A) * C + c) * n,
                   sizeof(double) * n);
            for (int64_t h = 0; h < n; h++)
                mc[h] = 0.0;
            for (int64_t a = 1; a < A; a++) {
                const double *o = lay->outcome + (a - 1) * n;
                for (int64_t h = 0; h < n; h++)
                    mc[h] += moved[a] * o[h];
            }
        }
    }
    memcpy(pl->ends + (T - 1) * C * n, mass, sizeof(double) * C * n);
    for (int64_t d = 0; d < D; d++) {
        const double *src = d < lay->P ? pl->ends + pl->start_rows[d] * n
                                       : pl->seq + lay->parent_edge[d] * n;
        double *reach = pl->reach + d * n;
        memcpy(reach, src, sizeof(double) * n);
        for (int64_t a = 0; a < K; a++) {
            const double *f = pl->factor + (a * D + d) * n;
            double *s = pl->seq + (a * D + d) * n;
            for (int64_t h = 0; h < n; h++)
                s[h] = reach[h] * f[h];
        }
    }
    for (int64_t leaf = 0; leaf < lay->L; leaf++)
        memcpy(pl->leaf_reach + leaf * n, pl->seq + lay->leaf_edge[leaf] * n,
               sizeof(double) * n);
}

INLINE void accumulate(const Layout *lay, Player *pl, double w)
{
    const int64_t throw_size = (lay->T - 1) * lay->A * pl->C * lay->n;
    const int64_t seq_size = lay->K * lay->D * lay->n;
    for (int64_t i = 0; i < throw_size; i++)
        pl->throw_avg[i] += w * pl->flows[i];
    for (int64_t i = 0; i < seq_size; i++)
        pl->seq_avg[i] += w * pl->seq[i];
}

INLINE void update(const Layout *lay, Player *pl, int64_t t, const Rule *rule,
                   int64_t average_played)
{
    const int64_t n = lay->n, K = lay->K, D = lay->D, C = pl->C, Dp = pl->Dp;
    const double w = pow((double)t, rule->gamma);
    if (average_played)
        accumulate(lay, pl, w);
    regret_match(pl->throw_regret, pl->throw_r, pl->throw_sigma, pl->throw_uniform,
                 pl->totals, lay->T - 1, lay->A, C * n, t, rule);
    regret_match(pl->bet_regret, pl->bet_r, pl->bet_sigma, pl->bet_uniform, pl->totals,
                 1, K, Dp * n, t, rule);
    for (int64_t a = 0; a < K; a++)
        for (int64_t i = 0; i < Dp; i++)
            memcpy(pl->factor + (a * D + pl->own[i]) * n, pl->bet_sigma + (a * Dp + i) * n,
                   sizeof(double) * n);
    forward(lay, pl);
    if (!average_played)
        accumulate(lay, pl, w);
}

/* Perform `iterations` iterations after iteration t; return the averaging weight they add.
 * Returns -1 if the layout exceeds the fixed buffers. */
CLONES double cfr_run(int64_t iterations, int64_t t, Player *cap, Player *opp, const Layout *lay,
               const Rule *rule, int64_t alternating, int64_t average_played)
{
    if (lay->A > 64)
        return -1.0;
    double added = 0.0;
    for (int64_t i = 0; i < iterations; i++) {
        t += 1;
        added += pow((double)t, rule->gamma);
        if (alternating) {
            backward(lay, cap, opp->leaf_reach);
            update(lay, cap, t, rule, average_played);
            backward(lay, opp, cap->leaf_reach);
            update(lay, opp, t, rule, average_played);
        } else {
            backward(lay, cap, opp->leaf_reach);
            backward(lay, opp, cap->leaf_reach);
            update(lay, cap, t, rule, average_played);
            update(lay, opp, t, rule, average_played);
        }
    }
    return added;
}

/* The layout of the three structs as this compiler laid them out: for struct `which`
 * (0 Layout, 1 Player, 2 Rule), its size then the offset of each field in declaration
 * order, written to `out` (room for `room` numbers). Returns how many were written, or -1.
 * solver/hand/cfr/kernel.py compares them with its ctypes structs when it loads the library,
 * so a field added on one side only fails loudly instead of reading the wrong memory. */
#define OFF(S, f) (int64_t)offsetof(S, f)
int64_t cfr_struct_layout(int64_t which, int64_t *out, int64_t room)
{
    static const int64_t layout[] = {
        sizeof(Layout), OFF(Layout, T), OFF(Layout, A), OFF(Layout, n), OFF(Layout, K),
        OFF(Layout, D), OFF(Layout, L), OFF(Layout, m), OFF(Layout, P), OFF(Layout, E),
        OFF(Layout, child_row), OFF(Layout, pub_tc), OFF(Layout, pub_to),
        OFF(Layout, parent_edge), OFF(Layout, leaf_edge), OFF(Layout, exc_w),
        OFF(Layout, exc_l), OFF(Layout, legal), OFF(Layout, outcome), OFF(Layout, exc_coef),
        OFF(Layout, prior), OFF(Layout, V)};
    static const int64_t player[] = {
        sizeof(Player), OFF(Player, C), OFF(Player, Dp), OFF(Player, is_captain),
        OFF(Player, throw_regret), OFF(Player, bet_regret), OFF(Player, throw_sigma),
        OFF(Player, bet_sigma), OFF(Player, throw_avg), OFF(Player, seq_avg),
        OFF(Player, factor), OFF(Player, flows), OFF(Player, ends), OFF(Player, reach),
        OFF(Player, seq), OFF(Player, leaf_reach), OFF(Player, throw_uniform),
        OFF(Player, bet_uniform), OFF(Player, throw_r), OFF(Player, bet_r), OFF(Player, stop),
        OFF(Player, work), OFF(Player, totals), OFF(Player, own), OFF(Player, own_children),
        OFF(Player, start_rows), OFF(Player, other_value), OFF(Player, sd_a_cum),
        OFF(Player, sd_a_total), OFF(Player, sd_a_self)};
    static const int64_t rule[] = {
        sizeof(Rule), OFF(Rule, plus), OFF(Rule, discount), OFF(Rule, predictive),
        OFF(Rule, alpha), OFF(Rule, beta), OFF(Rule, gamma)};
    const int64_t *src = which == 0 ? layout : which == 1 ? player : which == 2 ? rule : NULL;
    const int64_t count = which == 0   ? (int64_t)(sizeof(layout) / sizeof(int64_t))
                          : which == 1 ? (int64_t)(sizeof(player) / sizeof(int64_t))
                                       : (int64_t)(sizeof(rule) / sizeof(int64_t));
    if (src == NULL || count > room)
        return -1;
    memcpy(out, src, sizeof(int64_t) * count);
    return count;
}

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_kernel",
                                    "C kernel of solver.hand.cfr.iterations, called through ctypes.", -1, NULL};

PyMODINIT_FUNC PyInit__kernel(void) { return PyModule_Create(&module); }
