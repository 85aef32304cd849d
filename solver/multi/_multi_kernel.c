/* The CFR+ iteration and the best response of solver/multi/ (cfr.py, values.py,
 * best_response.py) in C, on the public tree's arrays (solver/multi/tree.py), all
 * C-contiguous int64 or float64. solver/multi/kernel.py loads it through ctypes and says
 * why it exists; it performs the same arithmetic as the numpy walks, loop by loop, so that
 * the two agree to rounding (tests/test_multi_kernel.py).
 *
 * Shapes: N nodes, E edges, G decision nodes, n players, H hands, T terminals.
 *   reach[N][n][H]   each player's range at each node
 *   value[N][n][H]   each player's counterfactual value at each node, per own hand
 *   sigma, own, regret, sums [E][H]
 *   term_pay[T][n + 1][n]: row s < n "seat s is the loser (kind 1) / the highest (kind 2)",
 *   row n "nobody" (a tie), or the only row of a fixed terminal (kind 0).
 *
 * The file is also a (method-less) Python extension module, so that setuptools builds it.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    int64_t N, E, G, n, H, T;
    const int64_t *edge_parent, *edge_child, *edge_player, *edge_again;
    const int64_t *starts;       /* (G + 1,) first edge of each decision node; E at the end */
    const int64_t *term_node, *term_kind, *term_seats;   /* seats: a bit mask */
    const double *term_pay, *base, *beats;               /* beats[a * H + b]: a beats b */
    int64_t L;                   /* > 0: the ranking is an order, hand h at level[h] in 0..L-1 */
    const int64_t *level;        /* and beats[a][b] == (level[a] > level[b]); 0: it is not */
} MultiTree;

typedef struct {
    double *reach, *value, *sigma, *own, *regret, *sums, *work;   /* work: (n + 5) H + 2 L */
    double *last;           /* [E][H] the last instantaneous regret (predictive), or NULL */
} MultiState;

/* How regrets and the average are accumulated (solver/multi/cfr.py's Method): the average
 * weighted by t^gamma; plus: regrets floored at 0 (CFR+); discount: DCFR's, positive
 * accumulated regrets times t^alpha / (t^alpha + 1), negative ones times t^beta / (t^beta +
 * 1); alternate: one seat updated after the other, each against the others' newest
 * strategies; predictive: the strategy from regret + the last instantaneous regret. */
typedef struct {
    double gamma, alpha, beta;
    int64_t plus, discount, alternate, predictive;
} MultiMethod;

/* Python's signal handlers, run from inside a long call. kernel.py calls multi_run and
 * multi_best_response holding the GIL (ctypes.PyDLL); they let it go while they compute and,
 * every POLL_SECONDS, take it back and run the handlers (PyErr_CheckSignals). One that raises
 * (Ctrl-C's KeyboardInterrupt, SIGTERM's Terminated) stops the call within that time, its
 * exception left set for ctypes to raise; the arrays are then part-way through an iteration
 * and the caller drops them. The loops only ask `STOPPED`: the arithmetic is the same. A
 * caller without the GIL (a plain ctypes.CDLL) is never polled. */
#define POLL_SECONDS 0.05

typedef struct {
    PyThreadState *thread;      /* this thread's state while the GIL is let go, or NULL */
    int64_t stop;
    double next;                /* the monotonic time of the next poll */
} Watch;

static _Thread_local Watch watch;

static double monotonic(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

static void watch_start(void) {
    watch.stop = 0;
    watch.next = monotonic() + POLL_SECONDS;
    watch.thread = PyGILState_Check() ? PyEval_SaveThread() : NULL;
}

/* The GIL back; 0, or -1 if a handler raised (its exception set). */
static int64_t watch_end(void) {
    if (watch.thread != NULL)
        PyEval_RestoreThread(watch.thread);
    watch.thread = NULL;
    return watch.stop ? -1 : 0;
}

/* Whether a signal handler raised: asked at every 256th edge, decision node or terminal
 * (STOPPED), it reads the clock and polls when POLL_SECONDS have passed. */
static int stopped(void) {
    if (watch.stop)
        return 1;
    if (watch.thread == NULL || monotonic() < watch.next)
        return 0;
    PyEval_RestoreThread(watch.thread);
    watch.stop = PyErr_CheckSignals() != 0;
    watch.thread = PyEval_SaveThread();
    watch.next = monotonic() + POLL_SECONDS;
    return (int)watch.stop;
}

#define STOPPED(i) (((i) & 255) == 0 && stopped())

/* Regret matching at the decision nodes of seat `only` (every seat if only < 0). */
static void regret_matching(const MultiTree *t, MultiState *s, const MultiMethod *m,
                            int64_t only) {
    const int64_t H = t->H;
    const double *last = m->predictive ? s->last : NULL;
    for (int64_t g = 0; g < t->G; g++) {
        const int64_t a = t->starts[g], b = t->starts[g + 1];
        if (STOPPED(g))
            return;
        if (only >= 0 && t->edge_player[a] != only)
            continue;
        for (int64_t h = 0; h < H; h++) {
            double total = 0.0;
            for (int64_t e = a; e < b; e++) {
                const double r = s->regret[e * H + h] + (last ? last[e * H + h] : 0.0);
                total += r > 0.0 ? r : 0.0;
            }
            for (int64_t e = a; e < b; e++) {
                const double r = s->regret[e * H + h] + (last ? last[e * H + h] : 0.0);
                s->sigma[e * H + h] = total > 0.0 ? (r > 0.0 ? r : 0.0) / total
                                                  : 1.0 / (double)(b - a);
            }
        }
    }
}

static void ranges(const MultiTree *t, MultiState *s) {
    const int64_t H = t->H, nh = t->n * H;
    for (int64_t q = 0; q < t->n; q++)
        memcpy(s->reach + q * H, t->base, sizeof(double) * H);
    for (int64_t e = 0; e < t->E; e++) {
        if (STOPPED(e))
            return;
        const double *up = s->reach + t->edge_parent[e] * nh;
        double *down = s->reach + t->edge_child[e] * nh;
        memcpy(down, up, sizeof(double) * nh);
        const int64_t a = t->edge_player[e];
        double *mine = down + a * H;
        double total = 0.0;
        for (int64_t h = 0; h < H; h++) {
            mine[h] *= s->sigma[e * H + h];
            total += mine[h];
        }
        if (t->edge_again[e])
            for (int64_t h = 0; h < H; h++)
                mine[h] = total * t->base[h];
    }
}

/* Seat q's range only (the others' unchanged): what an alternating pass recomputes after
 * q's strategy changed. The same arithmetic as `ranges` on q's rows. */
static void seat_ranges(const MultiTree *t, MultiState *s, int64_t q) {
    const int64_t H = t->H, nh = t->n * H;
    memcpy(s->reach + q * H, t->base, sizeof(double) * H);
    for (int64_t e = 0; e < t->E; e++) {
        if (STOPPED(e))
            return;
        const double *up = s->reach + t->edge_parent[e] * nh + q * H;
        double *mine = s->reach + t->edge_child[e] * nh + q * H;
        if (t->edge_player[e] != q) {
            memcpy(mine, up, sizeof(double) * H);
            continue;
        }
        double total = 0.0;
        for (int64_t h = 0; h < H; h++) {
            mine[h] = up[h] * s->sigma[e * H + h];
            total += mine[h];
        }
        if (t->edge_again[e])
            for (int64_t h = 0; h < H; h++)
                mine[h] = total * t->base[h];
    }
}

/* With an ordered ranking (L > 0): out[x] = the weight of w on the hands above x's level
 * (above = 1) or below it (above = 0), in O(H + L) instead of O(H^2). */
static void beyond(const MultiTree *t, const double *w, int64_t above, double *levels,
                   double *out) {
    const int64_t H = t->H, L = t->L;
    memset(levels, 0, sizeof(double) * L);
    for (int64_t y = 0; y < H; y++)
        levels[t->level[y]] += w[y];
    double run = 0.0;                         /* exclusive running sum, from the far end */
    if (above)
        for (int64_t l = L - 1; l >= 0; l--) {
            const double here = levels[l];
            levels[l] = run;
            run += here;
        }
    else
        for (int64_t l = 0; l < L; l++) {
            const double here = levels[l];
            levels[l] = run;
            run += here;
        }
    for (int64_t x = 0; x < H; x++)
        out[x] = levels[t->level[x]];
}

/* Seat q's counterfactual value per own hand at terminal z (values.py's _spread). */
static void terminal_value(const MultiTree *t, const double *r, int64_t z, int64_t q,
                           const double *cover, const double *total, double *work,
                           double *out) {
    const int64_t n = t->n, H = t->H, kind = t->term_kind[z], seats = t->term_seats[z];
    const double *pay = t->term_pay + z * (n + 1) * n;
    double others = 1.0, factor = 1.0;
    for (int64_t j = 0; j < n; j++)
        if (j != q) {
            others *= total[j];
            if (!((seats >> j) & 1))
                factor *= total[j];
        }
    if (kind == 0) {
        for (int64_t h = 0; h < H; h++)
            out[h] = pay[n * n + q] * others;
        return;
    }
    double *product = work, *spread = work + H, *rest = work + 2 * H;   /* rest: 2 H + L */
    for (int64_t h = 0; h < H; h++)
        rest[h] = others;                             /* "nobody" = all - the outcomes */
    memset(out, 0, sizeof(double) * H);
    for (int64_t sd = 0; sd < n; sd++) {
        if (!((seats >> sd) & 1))
            continue;
        for (int64_t x = 0; x < H; x++)
            product[x] = 1.0;
        for (int64_t j = 0; j < n; j++)
            if (j != sd && j != q && ((seats >> j) & 1))
                for (int64_t x = 0; x < H; x++)
                    product[x] *= cover[j * H + x];
        if (q == sd) {
            for (int64_t h = 0; h < H; h++)
                spread[h] = product[h];
        } else if (((seats >> q) & 1) && t->L > 0) {
            for (int64_t y = 0; y < H; y++)
                rest[H + y] = r[sd * H + y] * product[y];     /* rest's second half: scratch */
            beyond(t, rest + H, kind == 2, rest + 2 * H, spread);
        } else if ((seats >> q) & 1) {
            for (int64_t h = 0; h < H; h++) {     /* q's hand h beats (is beaten by) s's y */
                double sum = 0.0;
                for (int64_t y = 0; y < H; y++) {
                    const double rel = kind == 1 ? t->beats[h * H + y] : t->beats[y * H + h];
                    sum += r[sd * H + y] * product[y] * rel;
                }
                spread[h] = sum;
            }
        } else {
            double sum = 0.0;
            for (int64_t y = 0; y < H; y++)
                sum += r[sd * H + y] * product[y];
            for (int64_t h = 0; h < H; h++)
                spread[h] = sum;
        }
        for (int64_t h = 0; h < H; h++) {
            const double v = spread[h] * factor;
            rest[h] -= v;
            out[h] += pay[sd * n + q] * v;
        }
    }
    for (int64_t h = 0; h < H; h++)
        out[h] += pay[n * n + q] * rest[h];
}

/* Whether some seat other than q has no range left at this terminal: then q's values here
 * are all zero (every outcome's probability has that seat's range as a factor). */
static int64_t nobody_else(const MultiTree *t, const double *total, int64_t q) {
    for (int64_t j = 0; j < t->n; j++)
        if (j != q && total[j] == 0.0)
            return 1;
    return 0;
}

/* total[j]: seat j's whole range; cover[j][x]: his range on the hands that beat x (kind 1)
 * / that x beats (kind 2), for every seat but `skip` (whose own cover his values never
 * read), and none at all when no seat's values will read them (`nobody_else`). */
static void covers(const MultiTree *t, const double *r, int64_t kind, int64_t skip,
                   double *cover, double *total, double *levels) {
    const int64_t n = t->n, H = t->H;
    for (int64_t j = 0; j < n; j++) {
        double sum = 0.0;
        for (int64_t y = 0; y < H; y++)
            sum += r[j * H + y];
        total[j] = sum;
    }
    int64_t empty = 0;
    for (int64_t j = 0; j < n; j++)
        empty += total[j] == 0.0;
    if (kind == 0 || (skip >= 0 ? nobody_else(t, total, skip) : empty >= 2))
        return;
    for (int64_t j = 0; j < n; j++) {
        if (j == skip)
            continue;
        if (t->L > 0) {                       /* loser: the hands above x; highest: below */
            beyond(t, r + j * H, kind == 1, levels, cover + j * H);
            continue;
        }
        for (int64_t x = 0; x < H; x++) {
            double c = 0.0;
            for (int64_t y = 0; y < H; y++)
                c += r[j * H + y] * (kind == 1 ? t->beats[y * H + x] : t->beats[x * H + y]);
            cover[j * H + x] = c;
        }
    }
}

/* Terminal values of seat `only` (or of every seat if only < 0) into value[node][q]. */
static void terminals(const MultiTree *t, MultiState *s, int64_t only) {
    const int64_t n = t->n, H = t->H, nh = n * H;
    double *cover = s->work, *total = s->work + nh, *work = s->work + nh + H;  /* 4 H + L */
    double *levels = work + 4 * H + t->L;
    for (int64_t z = 0; z < t->T; z++) {
        if (STOPPED(z))
            return;
        const int64_t node = t->term_node[z];
        const double *r = s->reach + node * nh;
        covers(t, r, t->term_kind[z], only, cover, total, levels);
        for (int64_t q = 0; q < n; q++) {
            if (only >= 0 && q != only)
                continue;
            double *out = s->value + node * nh + q * H;
            if (nobody_else(t, total, q))     /* pruned: the same zeros, not computed */
                memset(out, 0, sizeof(double) * H);
            else
                terminal_value(t, r, z, q, cover, total, work, out);
        }
    }
}

static double rethrow_mean(const MultiTree *t, const double *v) {
    double mean = 0.0;
    for (int64_t h = 0; h < t->H; h++)
        mean += v[h] * t->base[h];
    return mean;
}

/* Values up, every player at once; own[e][h]: edge e's value to the player taking it. */
static void values_up(const MultiTree *t, MultiState *s) {
    const int64_t n = t->n, H = t->H, nh = n * H;
    for (int64_t g = 0; g < t->G; g++)
        memset(s->value + t->edge_parent[t->starts[g]] * nh, 0, sizeof(double) * nh);
    for (int64_t e = t->E - 1; e >= 0; e--) {
        if (STOPPED(e))
            return;
        const double *below = s->value + t->edge_child[e] * nh;
        double *above = s->value + t->edge_parent[e] * nh, *own = s->own + e * H;
        const int64_t a = t->edge_player[e];
        if (t->edge_again[e]) {
            const double mean = rethrow_mean(t, below + a * H);
            for (int64_t h = 0; h < H; h++)
                own[h] = mean;
        } else {
            memcpy(own, below + a * H, sizeof(double) * H);
        }
        for (int64_t q = 0; q < n; q++)
            for (int64_t h = 0; h < H; h++)
                above[q * H + h] += q == a ? s->sigma[e * H + h] * own[h] : below[q * H + h];
    }
}

/* Seat q's values only, up the tree (values_up's arithmetic on q's rows). */
static void seat_values_up(const MultiTree *t, MultiState *s, int64_t q) {
    const int64_t n = t->n, H = t->H, nh = n * H;
    for (int64_t g = 0; g < t->G; g++)
        memset(s->value + t->edge_parent[t->starts[g]] * nh + q * H, 0, sizeof(double) * H);
    for (int64_t e = t->E - 1; e >= 0; e--) {
        if (STOPPED(e))
            return;
        const double *below = s->value + t->edge_child[e] * nh + q * H;
        double *above = s->value + t->edge_parent[e] * nh + q * H;
        if (t->edge_player[e] != q) {
            for (int64_t h = 0; h < H; h++)
                above[h] += below[h];
            continue;
        }
        double *own = s->own + e * H;
        if (t->edge_again[e]) {
            const double mean = rethrow_mean(t, below);
            for (int64_t h = 0; h < H; h++)
                own[h] = mean;
        } else {
            memcpy(own, below, sizeof(double) * H);
        }
        for (int64_t h = 0; h < H; h++)
            above[h] += s->sigma[e * H + h] * own[h];
    }
}

/* The regrets and average of seat `only`'s edges (every seat's if only < 0) at iteration
 * `it`: the average gains it^gamma x reach x sigma, the regret the instantaneous regret
 * own - value, then floored (plus) or discounted (discount). */
static void update(const MultiTree *t, MultiState *s, const MultiMethod *m, int64_t it,
                   int64_t only) {
    const int64_t n = t->n, H = t->H, nh = n * H;
    const double weight = m->gamma == 0.0 ? 1.0 : pow((double)it, m->gamma);
    const double up = m->discount ? pow((double)it, m->alpha) : 0.0;
    const double down = m->discount ? pow((double)it, m->beta) : 0.0;
    const double keep_pos = m->discount ? up / (up + 1.0) : 1.0;
    const double keep_neg = m->discount ? down / (down + 1.0) : 1.0;
    for (int64_t e = 0; e < t->E; e++) {
        const int64_t p = t->edge_parent[e], a = t->edge_player[e];
        if (STOPPED(e))
            return;
        if (only >= 0 && a != only)
            continue;
        const double *v = s->value + p * nh + a * H, *r = s->reach + p * nh + a * H;
        for (int64_t h = 0; h < H; h++) {
            const double now = s->own[e * H + h] - v[h];
            double x = s->regret[e * H + h] + now;
            if (m->plus && x < 0.0)
                x = 0.0;
            if (m->discount)
                x *= x > 0.0 ? keep_pos : keep_neg;
            s->regret[e * H + h] = x;
            if (m->predictive)
                s->last[e * H + h] = now;
            s->sums[e * H + h] += weight * r[h] * s->sigma[e * H + h];
        }
    }
}

/* `iterations` iterations after iteration t0; returns 0, or -1 if a signal handler raised
 * (`stopped`). Simultaneous: every seat's regrets from one walk. Alternating: seat by seat,
 * each pass against the others' newest strategies, recomputing only what the seat's change
 * touched (its strategy and range, its values); so a state resumed between calls goes on
 * exactly as a straight run. */
static void run(const MultiTree *t, MultiState *s, const MultiMethod *m, int64_t t0,
                int64_t iterations) {
    if (m->alternate && iterations > 0) {
        regret_matching(t, s, m, -1);
        ranges(t, s);
    }
    for (int64_t i = 1; i <= iterations && !stopped(); i++) {
        if (!m->alternate) {
            regret_matching(t, s, m, -1);
            ranges(t, s);
            terminals(t, s, -1);
            values_up(t, s);
            update(t, s, m, t0 + i, -1);
            continue;
        }
        for (int64_t q = 0; q < t->n; q++) {
            terminals(t, s, q);
            seat_values_up(t, s, q);
            update(t, s, m, t0 + i, q);
            regret_matching(t, s, m, q);
            seat_ranges(t, s, q);
        }
    }
}

int64_t multi_run(const MultiTree *t, MultiState *s, const MultiMethod *m, int64_t t0,
                  int64_t iterations) {
    watch_start();
    run(t, s, m, t0, iterations);
    return watch_end();
}

/* The CFR+ (plus) or plain CFR iteration of the first kernel: multi_run simultaneous,
 * the average weighted by t (plus) or 1. */
int64_t multi_cfr(const MultiTree *t, MultiState *s, int64_t t0, int64_t iterations,
                  int64_t plus) {
    const MultiMethod m = {plus ? 1.0 : 0.0, 0.0, 0.0, plus, 0, 0, 0};
    return multi_run(t, s, &m, t0, iterations);
}

/* Seat's best-response value (deviate) or policy value against `sigma` (in s->sigma); NAN
 * if a signal handler raised (`stopped`). */
static double best_response(const MultiTree *t, MultiState *s, int64_t seat, int64_t deviate) {
    const int64_t n = t->n, H = t->H, nh = n * H;
    ranges(t, s);
    terminals(t, s, seat);
    for (int64_t g = t->G - 1; g >= 0; g--) {
        const int64_t a = t->starts[g], b = t->starts[g + 1];
        if (STOPPED(g))
            return NAN;
        const int64_t p = t->edge_parent[a], actor = t->edge_player[a];
        double *above = s->value + p * nh + seat * H;
        for (int64_t h = 0; h < H; h++)
            above[h] = actor == seat && deviate ? -1e300 : 0.0;
        for (int64_t e = a; e < b; e++) {
            const double *below = s->value + t->edge_child[e] * nh + seat * H;
            const double mean = actor == seat && t->edge_again[e] ? rethrow_mean(t, below) : 0.0;
            for (int64_t h = 0; h < H; h++) {
                const double v = actor == seat && t->edge_again[e] ? mean : below[h];
                if (actor != seat)
                    above[h] += v;
                else if (deviate)
                    above[h] = v > above[h] ? v : above[h];
                else
                    above[h] += s->sigma[e * H + h] * v;
            }
        }
    }
    return rethrow_mean(t, s->value + seat * H);
}

double multi_best_response(const MultiTree *t, MultiState *s, int64_t seat, int64_t deviate) {
    watch_start();
    const double value = best_response(t, s, seat, deviate);
    return watch_end() == 0 ? value : NAN;
}

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_multi_kernel",
                                    "C kernel of solver.multi, called through ctypes.", -1,
                                    NULL};

PyMODINIT_FUNC PyInit__multi_kernel(void) { return PyModule_Create(&module); }
