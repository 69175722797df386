"""The kernel lab's statistics, one implementation for every summary
(analysis.lab, analysis.payoff, analysis.clock, analysis.results):

  paired(ratios)          geometric mean of per-round ratios B/A, 95 % t
                          interval on the log ratios (scipy's t quantile,
                          n - 1 degrees of freedom) and the two-sided
                          one-sample t test p of mean log ratio = 0;
                          returns (mean, lo, hi, p, n), NaN where not
                          computable (n < 2, no scipy: mean only);
  median_interval(ratios) median of the ratios with its distribution-free
                          95 % interval (order statistics, Binomial(n, 1/2));
  mean, cv                mean and coefficient of variation (stddev / mean)
                          of the non-NaN values;
  welch(d, va, na, vb, nb) Welch's 95 % interval and two-sided p of a
                          difference d of two means on the log scale, from
                          their squared standard errors va, vb and sizes
                          (Welch-Satterthwaite degrees of freedom);
  rounds_for(lo, hi, n)   the rounds a paired interval needs to shrink to
                          +-2 % at the spread its (lo, hi, n) show;
  boots_one(logs)         boots as the units (analyse boots): one mean log
                          ratio per boot -> ratio, 95 % t interval over
                          boots (k - 1 df), t p, exact sign-flip permutation
                          p and its floor 2 / 2^k, and the reasons a claim
                          does not stand (fewer than 3 boots, interval
                          with 1, per-boot ratios on both sides of 1);
  boots_two(a, b)         two groups of boots: pooled t and exact
                          permutation over labellings of the boots (the t
                          quantiles of both computed here, without scipy);
  num, fmt, pct, nn       parsing a CSV cell (NaN when not a number),
                          formatting for Markdown ("n/a" for NaN/None),
                          rounding for JSON (None for NaN).

Inputs are plain numbers (ratios > 0; ratios <= 0 or NaN are left out).
scipy (Debian python3-scipy) gives the t quantiles; without it HAVE_SCIPY is
False and every interval and p is NaN.
bench/driver (C++, bench/run) has its own statistics: see docs/bench.md
("Statistics") for why they stay separate.
"""
import math
import statistics as st

try:
    from scipy import stats as sst
except ImportError:  # the lab installs python3-scipy; degrade to no intervals
    sst = None

HAVE_SCIPY = sst is not None
NAN = float("nan")


def num(x):
    """a CSV cell as a float; NaN when empty, NA or not a number"""
    try:
        return float(x)
    except (TypeError, ValueError):
        return NAN


def isnan(x):
    return x is None or (isinstance(x, float) and math.isnan(x))


def fmt(x, nd=0):
    """x with thousands separators and nd decimals; "n/a" for NaN/None"""
    if isnan(x):
        return "n/a"
    return f"{x:,.{nd}f}"


def pct(x):
    """a fraction as "12.3 %"; "n/a" for NaN/None"""
    return "n/a" if isnan(x) else f"{100 * x:.1f} %"


def nn(x, nd=6):
    """a float for JSON: None for NaN/None, else rounded to nd decimals"""
    if isnan(x):
        return None
    return round(x, nd)


def clean(x):
    """x (nested dicts/lists) with every NaN replaced by None (JSON has no NaN)"""
    if isinstance(x, dict):
        return {k: clean(v) for k, v in x.items()}
    if isinstance(x, list):
        return [clean(v) for v in x]
    return None if isinstance(x, float) and math.isnan(x) else x


def mean(xs):
    """mean of the non-NaN values; NaN if none"""
    xs = [x for x in xs if not math.isnan(x)]
    return st.mean(xs) if xs else NAN


def cv(xs):
    """coefficient of variation (sample stddev / mean) of the non-NaN values;
    NaN below 2 values or for a zero mean"""
    xs = [x for x in xs if not math.isnan(x)]
    if len(xs) < 2:
        return NAN
    m = st.mean(xs)
    return st.stdev(xs) / m if m else NAN


def paired(ratios):
    """Geometric mean of ratios, 95 % t interval and p of log ratio = 0:
    (mean, lo, hi, p, n); lo/hi/p NaN when n < 2 or scipy is missing,
    p NaN when every ratio is the same."""
    logs = [math.log(r) for r in ratios if r > 0 and not math.isnan(r)]
    n = len(logs)
    if n == 0:
        return NAN, NAN, NAN, NAN, 0
    m = st.mean(logs)
    if n < 2 or sst is None:
        return math.exp(m), NAN, NAN, NAN, n
    sd = st.stdev(logs)
    se = sd / math.sqrt(n)
    t = sst.t.ppf(0.975, n - 1)
    p = NAN if se == 0 else 2 * sst.t.sf(abs(m / se), n - 1)
    return math.exp(m), math.exp(m - t * se), math.exp(m + t * se), p, n


def ratio_cell(r):
    """a paired() result for Markdown: "1.097 [0.875, 1.376] p=0.22", or
    "1.097 (n=3)" without an interval, "n/a" without ratios"""
    g, lo, hi, p, n = r
    if n == 0:
        return "n/a"
    if math.isnan(lo):
        return f"{g:.3f} (n={n})"
    return f"{g:.3f} [{lo:.3f}, {hi:.3f}] p={p:.2f}"


def ratio_obj(r):
    """a paired() result for JSON: {"mean", "lo", "hi", "p", "n"}"""
    g, lo, hi, p, n = r
    return {"mean": nn(g), "lo": nn(lo), "hi": nn(hi), "p": nn(p, 4), "n": n}


def welch(d, va, na, vb, nb):
    """Welch's 95 % interval of exp(d), d a difference of two means with
    squared standard errors va and vb from na and nb values: (lo, hi, p,
    dof), lo/hi/p None without scipy, all None when va + vb is 0."""
    se = math.sqrt(va + vb)
    if se == 0:
        return None, None, None, None
    dof = (va + vb) ** 2 / (va ** 2 / (na - 1) + vb ** 2 / (nb - 1))
    if sst is None:
        return None, None, None, dof
    q = float(sst.t.ppf(0.975, dof))
    p = float(2 * sst.t.sf(abs(d / se), dof))
    return math.exp(d - q * se), math.exp(d + q * se), p, dof


def rounds_for(lo, hi, n, half=math.log(1.02)):
    """Rounds that a paired() interval needs for a half-width of `half` on
    the log scale (default +-2 %) at the per-round spread of an interval
    (lo, hi) from n rounds: s = (ln hi - ln lo) / 2 / t(0.975, n - 1) *
    sqrt(n), then the smallest m >= 2 with t(0.975, m - 1) * s / sqrt(m) <=
    half (at most 100,000). None without scipy, n < 2 or no interval."""
    if sst is None or n is None or n < 2 or isnan(lo) or isnan(hi) or not lo or not hi or hi < lo:
        return None
    s = (math.log(hi) - math.log(lo)) / 2 / sst.t.ppf(0.975, n - 1) * math.sqrt(n)
    if s == 0:
        return 2
    m = max(2, int((1.96 * s / half) ** 2))
    while m > 2 and sst.t.ppf(0.975, m - 2) * s / math.sqrt(m - 1) <= half:
        m -= 1
    while m < 100000 and sst.t.ppf(0.975, m - 1) * s / math.sqrt(m) > half:
        m += 1
    return m


def median_interval(ratios):
    """Median of ratios and its distribution-free 95 % interval: the k-th
    order statistics from each end, k the largest with P(Binomial(n, 1/2)
    <= k - 1) <= 0.025; conf = 1 - 2 P(B <= k - 1). Bounds None when no k
    qualifies (n < 6)."""
    x = sorted(r for r in ratios if r > 0 and not math.isnan(r))
    n = len(x)
    if n == 0:
        return {"median": None, "lo": None, "hi": None, "conf": None, "n": 0}
    k, tail = 0, 0.0
    while True:
        t = tail + math.comb(n, k) / 2 ** n    # P(B <= k)
        if t > 0.025:
            break
        tail, k = t, k + 1
    out = {"median": nn(st.median(x)), "lo": None, "hi": None, "conf": None, "n": n}
    if k >= 1:
        out.update(lo=nn(x[k - 1]), hi=nn(x[n - k]), conf=nn(1 - 2 * tail, 4))
    return out


def f_test_p(sd_a, n_a, sd_b, n_b):
    """two-sided F test of equal variances of two samples, from their sample
    stddevs and sizes: p; NaN without scipy, a zero stddev or n < 2"""
    if not sd_a or not sd_b or sst is None or n_a < 2 or n_b < 2:
        return NAN
    f = (sd_a / sd_b) ** 2
    return min(1.0, 2 * min(sst.f.cdf(f, n_a - 1, n_b - 1), sst.f.sf(f, n_a - 1, n_b - 1)))


# --- boots as the units (issue 42, item 3) ------------------------------
# Rounds are nested in boots: a boot's rounds share its page layout, its
# host neighbours and its guest's start-up, so they are not independent
# repetitions of the comparison. These functions take one value per boot
# (the mean log ratio of its rounds) and need no scipy: the t quantile is
# computed here (regularized incomplete beta, stdlib only).

def _betacf(a, b, x):
    """continued fraction of the regularized incomplete beta (modified Lentz)"""
    tiny, qab, qap, qam = 1e-300, a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def _betai(a, b, x):
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(1.0 - x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lbt) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * _betacf(b, a, 1.0 - x) / b


def t_sf2(t, df):
    """two-sided tail P(|T| >= |t|) of Student's t with df degrees of freedom (stdlib)"""
    return _betai(df / 2.0, 0.5, df / (df + t * t))


def t_quantile(p, df):
    """the p quantile (p > 0.5) of Student's t with df degrees of freedom (stdlib, bisection)"""
    lo, hi = 0.0, 1e7
    for _ in range(200):
        mid = (lo + hi) / 2
        if 1 - t_sf2(mid, df) / 2 < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def boot_verdict(k, lo, hi, values, ref=0.0):
    """why a boot-level claim does (not) stand: [] if it stands, else the
    reasons: fewer than 3 boots; the interval includes 1 (or none); the
    per-boot values on both sides of ref (1 as a ratio)"""
    why = []
    if k < 3:
        why.append("fewer than 3 boots")
    if lo is None or hi is None or lo <= 1 <= hi:
        why.append("the boot-level interval includes 1" if lo is not None else "no boot-level interval")
    if any(v > ref for v in values) and any(v < ref for v in values):
        why.append("the per-boot ratios disagree (some above 1, some below)")
    return why


def perm_floor_note(perm_min):
    """the reason a permutation test over so few boots cannot show a
    difference at the 5 % level, or None"""
    if perm_min is not None and perm_min > 0.05:
        return f"the exact permutation test over these boots cannot go below p = {perm_min:.3g}"
    return None


def boots_one(logs):
    """One group of boots, each given as its mean log ratio (ln of the
    geometric mean of its rounds' paired ratios). Returns a dict:
      k          boots;
      ratio      exp(mean of the boot values);
      lo, hi     95 % interval, Student's t on the boot values, k - 1 df
                 (None below 2 boots or with no spread);
      t_p        two-sided one-sample t p of mean = 0 (None likewise);
      perm_p     exact sign-flip permutation p over boots: the share of
                 the 2^k ways of giving each boot value a sign whose |mean|
                 is at least the observed one (two-sided);
      perm_min   the smallest p any data of k boots can give: 2 / 2^k;
      why        boot_verdict's reasons ([] when the claim stands);
      note       perm_floor_note: said when even the most extreme data of
                 k boots could not give p <= 0.05 (below 6 boots), else None."""
    k = len(logs)
    if k == 0:
        raise ValueError("no boot")
    m = st.mean(logs)
    lo = hi = tp = None
    if k >= 2:
        se = st.stdev(logs) / math.sqrt(k)
        if se > 0:
            q = t_quantile(0.975, k - 1)
            lo, hi = math.exp(m - q * se), math.exp(m + q * se)
            tp = t_sf2(m / se, k - 1)
    obs, hits, n = abs(m), 0, 0
    for signs in range(2 ** k):
        s = sum(x if signs >> i & 1 else -x for i, x in enumerate(logs))
        n += 1
        if abs(s / k) >= obs - 1e-12:
            hits += 1
    return {"k": k, "ratio": math.exp(m), "lo": lo, "hi": hi, "t_p": tp, "perm_p": hits / n,
            "perm_min": 2 / 2 ** k, "why": boot_verdict(k, lo, hi, logs), "note": perm_floor_note(2 / 2 ** k)}


def boots_two(a, b):
    """Two groups of boot values (mean log ratios): the ratio of the groups
    exp(mean a - mean b); a 95 % interval and p from Student's t with
    pooled variance (na + nb - 2 df; None without a degree of freedom or
    spread); the exact two-sided permutation p over the C(na + nb, na)
    labellings of the boots, and the smallest p any labelling gives
    (perm_min: the share of labellings as extreme as the most extreme)."""
    import itertools
    na, nb = len(a), len(b)
    if not na or not nb:
        raise ValueError("a group has no boot")
    d = st.mean(a) - st.mean(b)
    lo = hi = tp = None
    df = na + nb - 2
    if df >= 1:
        ss = sum((x - st.mean(a)) ** 2 for x in a) + sum((x - st.mean(b)) ** 2 for x in b)
        se = math.sqrt(ss / df * (1 / na + 1 / nb))
        if se > 0:
            q = t_quantile(0.975, df)
            lo, hi, tp = math.exp(d - q * se), math.exp(d + q * se), t_sf2(d / se, df)
    pool = list(a) + list(b)
    total = sum(pool)
    diffs = []
    for idx in itertools.combinations(range(len(pool)), na):
        sa = sum(pool[i] for i in idx)
        diffs.append(abs(sa / na - (total - sa) / nb))
    hits = sum(1 for x in diffs if x >= abs(d) - 1e-12)
    top = max(diffs)
    why = []
    if min(na, nb) < 3:
        why.append("fewer than 3 boots in a group")
    if lo is None or lo <= 1 <= hi:
        why.append("the boot-level interval includes 1" if lo is not None else "no boot-level interval")
    if (max(a) - min(b)) * (min(a) - max(b)) < 0:
        why.append("the groups' boot values overlap")
    pmin = sum(1 for x in diffs if x >= top - 1e-12) / len(diffs)
    return {"k": [na, nb], "ratio": math.exp(d), "lo": lo, "hi": hi, "t_p": tp, "df": df,
            "perm_p": hits / len(diffs), "perm_min": pmin, "note": perm_floor_note(pmin),
            "labellings": len(diffs), "why": why}
