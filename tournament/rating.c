/*
 * rating.c — Bradley–Terry maximum likelihood on the Elo scale, its
 * covariance from the observed information, and the Wilson interval (see
 * rating.h for the model and docs/tournaments.md for why not Glicko-2).
 *
 * Newton's method on the concave log-likelihood, one strength held at 0 so
 * the Hessian is definite, each step halved until the likelihood does not
 * drop. It converges in a handful of steps from all-zero strengths; the
 * matrix work is O(m^3) for m rated participants (m <= 256).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/eng.h"
#include "engine/errors.h"
#include "tournament/limits.h"
#include "tournament/rating.h"

double tour_elo_to_score(double d)
{
    return 1.0 / (1.0 + pow(10.0, -d / 400.0));
}

double tour_score_to_elo(double s)
{
    if (s <= 0)
        return -INFINITY;
    if (s >= 1)
        return INFINITY;
    return -400.0 * log10(1.0 / s - 1.0);
}

void tour_wilson(double p, double n, double z, double *lo, double *hi)
{
    if (!(n > 0)) {
        *lo = 0;
        *hi = 1;
        return;
    }
    p = p < 0 ? 0 : p > 1 ? 1 : p;
    double z2 = z * z, den = 1 + z2 / n;
    double centre = (p + z2 / (2 * n)) / den;
    double half = z * sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / den;
    *lo = centre - half < 0 ? 0 : centre - half;
    *hi = centre + half > 1 ? 1 : centre + half;
}

/* log(1 / (1 + e^-x)), stable for large |x|. */
static double log_sigmoid(double x)
{
    return x >= 0 ? -log1p(exp(-x)) : x - log1p(exp(x));
}

static double sigmoid(double x)
{
    return x >= 0 ? 1 / (1 + exp(-x)) : exp(x) / (1 + exp(x));
}

static double loglik(int m, const double *S, const double *th)
{
    double L = 0;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++)
            if (i != j && S[i * m + j] > 0)
                L += S[i * m + j] * log_sigmoid(th[i] - th[j]);
    return L;
}

/* Invert the m x m matrix a in place (Gauss–Jordan, partial pivoting);
 * work holds m*m doubles. Returns 0, or -1 when singular. */
static int invert(int m, double *a, double *work)
{
    double *inv = work;
    for (int i = 0; i < m * m; i++)
        inv[i] = 0;
    for (int i = 0; i < m; i++)
        inv[i * m + i] = 1;
    for (int c = 0; c < m; c++) {
        int piv = c;
        for (int r = c + 1; r < m; r++)
            if (fabs(a[r * m + c]) > fabs(a[piv * m + c]))
                piv = r;
        if (!(fabs(a[piv * m + c]) > 1e-300))
            return -1;
        if (piv != c)
            for (int j = 0; j < m; j++) {
                double x = a[c * m + j];
                a[c * m + j] = a[piv * m + j];
                a[piv * m + j] = x;
                x = inv[c * m + j];
                inv[c * m + j] = inv[piv * m + j];
                inv[piv * m + j] = x;
            }
        double d = a[c * m + c];
        for (int j = 0; j < m; j++) {
            a[c * m + j] /= d;
            inv[c * m + j] /= d;
        }
        for (int r = 0; r < m; r++) {
            if (r == c || a[r * m + c] == 0)
                continue;
            double f = a[r * m + c];
            for (int j = 0; j < m; j++) {
                a[r * m + j] -= f * a[c * m + j];
                inv[r * m + j] -= f * inv[c * m + j];
            }
        }
    }
    memcpy(a, inv, (size_t)m * (size_t)m * sizeof *a);
    return 0;
}

/* Is the digraph "i scored against j" strongly connected? */
static bool strongly_connected(int m, const double *S)
{
    char *seen = calloc((size_t)m, 1);
    int *stack = malloc((size_t)m * sizeof *stack);
    bool ok = seen && stack;
    for (int dir = 0; ok && dir < 2; dir++) { /* reach all from 0, forwards then backwards */
        memset(seen, 0, (size_t)m);
        int sp = 0, count = 1;
        stack[sp++] = 0;
        seen[0] = 1;
        while (sp) {
            int i = stack[--sp];
            for (int j = 0; j < m; j++) {
                double x = dir == 0 ? S[i * m + j] : S[j * m + i];
                if (!seen[j] && x > 0) {
                    seen[j] = 1;
                    count++;
                    stack[sp++] = j;
                }
            }
        }
        ok = count == m;
    }
    free(seen);
    free(stack);
    return ok;
}

int tour_fit_ratings(int n, const double *score, const double *games, int anchor,
                     tour_prior_mode prior, double *elo, double *se, double *cov,
                     tour_fit_info *info, char *err, size_t errcap)
{
    tour_fit_info dummy;
    if (!info)
        info = &dummy;
    memset(info, 0, sizeof *info);
    if (n < 1 || !score || !games || !elo || !se)
        return eng_seterr(err, errcap, ENG_EINVAL, "rating fit: bad arguments");
    if (anchor < -1 || anchor >= n)
        return eng_seterr(err, errcap, ENG_EINVAL, "rating fit: no participant %d to anchor",
                          anchor);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = score[i * n + j], g = games[i * n + j];
            if (!isfinite(s) || !isfinite(g) || s < 0 || g < 0 || (i == j && g > 0) ||
                fabs(g - games[j * n + i]) > 1e-9 * (1 + g) ||
                fabs(s + score[j * n + i] - g) > 1e-9 * (1 + g))
                return eng_seterr(err, errcap, ENG_EINVAL,
                                  "rating fit: inconsistent results between %d and %d", i, j);
        }
    int *map = malloc((size_t)n * sizeof *map), m = 0; /* active index -> participant */
    if (!map)
        return eng_seterr(err, errcap, ENG_ENOMEM, "out of memory");
    int ref = 0; /* active index held at 0 during the fit */
    for (int i = 0; i < n; i++) {
        double g = 0;
        for (int j = 0; j < n; j++)
            g += games[i * n + j];
        if (g > 0) {
            if (i == anchor)
                ref = m;
            map[m++] = i;
        } else if (i == anchor) {
            free(map);
            return eng_seterr(err, errcap, ENG_EINVAL, "rating fit: the anchor has no games yet");
        }
    }
    for (int i = 0; i < n; i++) {
        elo[i] = 0;
        se[i] = 0;
    }
    if (cov)
        memset(cov, 0, (size_t)n * (size_t)n * sizeof *cov);
    info->rated = m;
    if (m < 2) {
        free(map);
        return 0;
    }
    size_t mm = (size_t)m * (size_t)m;
    double *S = calloc(mm, sizeof *S), *G = calloc(mm, sizeof *G);
    double *H = malloc(mm * sizeof *H), *W = malloc(mm * sizeof *W);
    double *th = calloc((size_t)m, sizeof *th), *gr = malloc((size_t)m * sizeof *gr);
    double *d = malloc((size_t)m * sizeof *d), *tr = malloc((size_t)m * sizeof *tr);
    int rc = 0;
    if (!S || !G || !H || !W || !th || !gr || !d || !tr) {
        rc = eng_seterr(err, errcap, ENG_ENOMEM, "out of memory");
        goto out;
    }
    for (int a = 0; a < m; a++)
        for (int b = 0; b < m; b++) {
            S[a * m + b] = score[map[a] * n + map[b]];
            G[a * m + b] = games[map[a] * n + map[b]];
        }
    bool exists = strongly_connected(m, S);
    if (prior == TOUR_PRIOR_NONE && !exists) {
        rc = eng_seterr(err, errcap, ENG_EINVAL,
                        "rating fit: no finite maximum-likelihood ratings (a participant won or "
                        "lost every game, or the field is not connected)");
        goto out;
    }
    if (prior == TOUR_PRIOR_ALWAYS || !exists) {
        double w = TOUR_RATING_PRIOR_GAMES / (m - 1);
        for (int a = 0; a < m; a++)
            for (int b = 0; b < m; b++)
                if (a != b) {
                    S[a * m + b] += w / 2;
                    G[a * m + b] += w;
                }
        info->prior = true;
    }

    /* Newton: maximise L over th with th[ref] = 0 */
    int it;
    double L = loglik(m, S, th);
    for (it = 0; it < 100; it++) {
        for (int a = 0; a < m; a++) {
            gr[a] = 0;
            H[a * m + a] = 0;
        }
        for (int a = 0; a < m; a++)
            for (int b = 0; b < m; b++) {
                if (a == b)
                    continue;
                double p = sigmoid(th[a] - th[b]), v = G[a * m + b] * p * (1 - p);
                gr[a] += S[a * m + b] - G[a * m + b] * p;
                H[a * m + b] = -v; /* information matrix (minus the Hessian) */
                H[a * m + a] += v;
            }
        double gmax = 0;
        for (int a = 0; a < m; a++)
            if (a != ref && fabs(gr[a]) > gmax)
                gmax = fabs(gr[a]);
        if (gmax < 1e-10)
            break;
        /* solve I_red d = g_red */
        int r = 0;
        for (int a = 0; a < m; a++) {
            if (a == ref)
                continue;
            int c = 0;
            for (int b = 0; b < m; b++)
                if (b != ref)
                    W[r * (m - 1) + c++] = H[a * m + b];
            r++;
        }
        if (invert(m - 1, W, H) != 0) { /* H is the work space */
            rc = eng_seterr(err, errcap, ENG_EINVAL, "rating fit: singular information matrix");
            goto out;
        }
        r = 0;
        for (int a = 0; a < m; a++) {
            d[a] = 0;
            if (a == ref)
                continue;
            int c = 0;
            for (int b = 0; b < m; b++)
                if (b != ref)
                    d[a] += W[r * (m - 1) + c++] * gr[b];
            r++;
        }
        double step = 1, Ln = L;
        for (int h = 0; h < 60; h++, step /= 2) {
            for (int a = 0; a < m; a++)
                tr[a] = th[a] + step * d[a];
            Ln = loglik(m, S, tr);
            if (Ln >= L - 1e-12 * (1 + fabs(L)))
                break;
        }
        double moved = 0;
        for (int a = 0; a < m; a++) {
            moved = fmax(moved, fabs(tr[a] - th[a]));
            th[a] = tr[a];
        }
        L = Ln;
        if (moved < 1e-13)
            break;
    }
    info->iterations = it;
    info->loglik = L;

    /* covariance: the information at the optimum, under the anchoring */
    for (int a = 0; a < m; a++)
        H[a * m + a] = 0;
    for (int a = 0; a < m; a++)
        for (int b = 0; b < m; b++) {
            if (a == b)
                continue;
            double p = sigmoid(th[a] - th[b]), v = G[a * m + b] * p * (1 - p);
            H[a * m + b] = -v;
            H[a * m + a] += v;
        }
    double *C = S; /* S is no longer needed: reuse it for the covariance */
    memset(C, 0, mm * sizeof *C);
    if (anchor >= 0) {
        int r = 0;
        for (int a = 0; a < m; a++) {
            if (a == ref)
                continue;
            int c = 0;
            for (int b = 0; b < m; b++)
                if (b != ref)
                    W[r * (m - 1) + c++] = H[a * m + b];
            r++;
        }
        if (invert(m - 1, W, G)) {
            rc = eng_seterr(err, errcap, ENG_EINVAL, "rating fit: singular information matrix");
            goto out;
        }
        r = 0;
        for (int a = 0; a < m; a++) {
            if (a == ref)
                continue;
            int c = 0;
            for (int b = 0; b < m; b++)
                if (b != ref)
                    C[a * m + b] = W[r * (m - 1) + c++];
            r++;
        }
    } else {
        /* pseudo-inverse: (I + J/m)^-1 - J/m, J the all-ones matrix */
        for (size_t i = 0; i < mm; i++)
            W[i] = H[i] + 1.0 / m;
        if (invert(m, W, G)) {
            rc = eng_seterr(err, errcap, ENG_EINVAL, "rating fit: singular information matrix");
            goto out;
        }
        for (size_t i = 0; i < mm; i++)
            C[i] = W[i] - 1.0 / m;
    }
    double shift = th[ref];
    if (anchor < 0) {
        shift = 0;
        for (int a = 0; a < m; a++)
            shift += th[a];
        shift /= m;
    }
    for (int a = 0; a < m; a++) {
        elo[map[a]] = (th[a] - shift) * TOUR_ELO_PER_NAT;
        double v = C[a * m + a];
        se[map[a]] = v > 0 ? sqrt(v) * TOUR_ELO_PER_NAT : 0;
        if (cov)
            for (int b = 0; b < m; b++)
                cov[map[a] * n + map[b]] = C[a * m + b] * TOUR_ELO_PER_NAT * TOUR_ELO_PER_NAT;
    }
out:
    free(map);
    free(S);
    free(G);
    free(H);
    free(W);
    free(th);
    free(gr);
    free(d);
    free(tr);
    return rc;
}
