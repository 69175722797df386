// stats.cpp: see stats.hpp.
#include "stats.hpp"

#include <cmath>
#include <cstdio>
#include <limits>

#include <boost/math/distributions/students_t.hpp>

namespace bench {

static const double NaN = std::numeric_limits<double>::quiet_NaN();

double t_quantile(double df, double p) {
    boost::math::students_t dist(df);
    return boost::math::quantile(dist, p);
}

Summary summarize(const std::vector<double>& x, double level) {
    Summary s;
    s.n = static_cast<int>(x.size());
    if (s.n == 0) {
        s.mean = s.sd = s.ci_lo = s.ci_hi = NaN;
        return s;
    }
    double sum = 0;
    for (double v : x) sum += v;
    s.mean = sum / s.n;
    if (s.n < 2) {
        s.sd = s.ci_lo = s.ci_hi = NaN;
        return s;
    }
    double ss = 0;
    for (double v : x) ss += (v - s.mean) * (v - s.mean);
    s.sd = std::sqrt(ss / (s.n - 1));
    double h = t_quantile(s.n - 1, 0.5 + level / 2) * s.sd / std::sqrt(static_cast<double>(s.n));
    s.ci_lo = s.mean - h;
    s.ci_hi = s.mean + h;
    return s;
}

Welch welch(const Summary& a, const Summary& b) {
    Welch w;
    w.t = w.df = w.p = NaN;
    if (a.n < 2 || b.n < 2) return w;
    double va = a.sd * a.sd / a.n, vb = b.sd * b.sd / b.n;
    double se2 = va + vb;
    if (!(se2 > 0)) return w;
    w.t = (b.mean - a.mean) / std::sqrt(se2);
    w.df = se2 * se2 / (va * va / (a.n - 1) + vb * vb / (b.n - 1));
    boost::math::students_t dist(w.df);
    w.p = 2 * boost::math::cdf(boost::math::complement(dist, std::fabs(w.t)));
    if (w.p > 1) w.p = 1;
    return w;
}

Ratio fieller_ratio(const Summary& a, const Summary& b, double level) {
    Ratio r;
    r.lo = r.hi = r.df = NaN;
    r.r = (a.n > 0 && b.n > 0 && a.mean != 0) ? b.mean / a.mean : NaN;
    if (a.n < 2 || b.n < 2 || !std::isfinite(r.r)) return r;
    // Numerator x = mean(b), denominator y = mean(a), independent.
    double x = b.mean, y = a.mean;
    double vx = b.sd * b.sd / b.n, vy = a.sd * a.sd / a.n;
    double R = r.r;
    double num = vx + R * R * vy;
    double den = vx * vx / (b.n - 1) + std::pow(R, 4) * vy * vy / (a.n - 1);
    r.df = den > 0 ? num * num / den : 1e9;
    double t = t_quantile(r.df, 0.5 + level / 2);
    // Solve (x - rho*y)^2 = t^2 (vx + rho^2 vy) for rho.
    double A = y * y - t * t * vy;
    double B = -2 * x * y;
    double C = x * x - t * t * vx;
    if (!(A > 0)) return r;  // g = t^2 vy / y^2 >= 1: unbounded
    double disc = B * B - 4 * A * C;
    if (disc < 0) disc = 0;
    r.lo = (-B - std::sqrt(disc)) / (2 * A);
    r.hi = (-B + std::sqrt(disc)) / (2 * A);
    r.bounded = true;
    return r;
}

Paired paired_log_ratio(const std::vector<double>& a, const std::vector<double>& b, double level) {
    Paired r;
    r.ratio = r.lo = r.hi = r.p = NaN;
    std::vector<double> lr;
    for (size_t i = 0; i < a.size() && i < b.size(); i++)
        if (a[i] > 0 && b[i] > 0) lr.push_back(std::log(b[i] / a[i]));
    r.n = static_cast<int>(lr.size());
    if (r.n == 0) return r;
    Summary s = summarize(lr, level);
    r.ratio = std::exp(s.mean);
    if (r.n < 2) return r;
    r.lo = std::exp(s.ci_lo);
    r.hi = std::exp(s.ci_hi);
    if (s.sd > 0) {
        double t = s.mean / (s.sd / std::sqrt(static_cast<double>(r.n)));
        boost::math::students_t dist(r.n - 1);
        r.p = std::min(1.0, 2 * boost::math::cdf(boost::math::complement(dist, std::fabs(t))));
    } else {
        r.p = s.mean == 0 ? 1.0 : 0.0;
    }
    return r;
}

static int check(const char* what, double got, double want, double tol) {
    bool ok = std::fabs(got - want) <= tol * std::max(1.0, std::fabs(want));
    printf("  %-48s got %.6g want %.6g %s\n", what, got, want, ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}

int stats_self_test() {
    int bad = 0;
    printf("statistics self-test\n");
    // Quantiles of Student t (tables).
    bad += check("t quantile df=1 0.975", t_quantile(1, 0.975), 12.7062047, 1e-6);
    bad += check("t quantile df=4 0.975", t_quantile(4, 0.975), 2.7764451, 1e-6);
    bad += check("t quantile df=30 0.975", t_quantile(30, 0.975), 2.0422725, 1e-6);

    // The seed's 2023 measurement (15 runs each): stock 74527.7800 sd 420.6304,
    // patched 74710.0988 sd 136.7250.  Reference values computed independently
    // (Welch-Satterthwaite df and a numerically integrated t density):
    // t = 1.596491, df = 16.92571, two-sided p = 0.128880.
    Summary a{15, 74527.7800, 420.6304, 0, 0}, b{15, 74710.0988, 136.7250, 0, 0};
    Welch w = welch(a, b);
    bad += check("Welch t (seed 2023 pgbench -S)", w.t, 1.596491, 1e-5);
    bad += check("Welch df", w.df, 16.92571, 1e-5);
    bad += check("Welch p", w.p, 0.128880, 1e-4);

    // Small sample, exact: a = {1,2,3,4}, b = {2,4,6,8}: means 2.5 and 5,
    // variances 5/3 and 20/3 -> t = 2.5/sqrt(25/12) = 1.7320508, df = 4.41176.
    Summary s1 = summarize({1, 2, 3, 4});
    Summary s2 = summarize({2, 4, 6, 8});
    bad += check("mean {1,2,3,4}", s1.mean, 2.5, 1e-12);
    bad += check("sd {1,2,3,4}", s1.sd, 1.2909944, 1e-7);
    bad += check("95% CI upper {1,2,3,4}", s1.ci_hi, 2.5 + 3.1824463 * 1.2909944 / 2, 1e-6);
    Welch w2 = welch(s1, s2);
    bad += check("Welch t {1..4} vs {2..8}", w2.t, 1.7320508, 1e-7);
    bad += check("Welch df {1..4} vs {2..8}", w2.df, 4.4117647, 1e-6);

    // Fieller: with vanishing variances the interval shrinks to the ratio;
    // with symmetric noise it contains it and is wider above than below.
    Summary fa{10, 100, 1e-9, 0, 0}, fb{10, 110, 1e-9, 0, 0};
    Ratio fr = fieller_ratio(fa, fb);
    bad += check("Fieller ratio", fr.r, 1.1, 1e-12);
    bad += check("Fieller lo, no noise", fr.lo, 1.1, 1e-9);
    Summary ga{10, 100, 5, 0, 0}, gb{10, 100, 5, 0, 0};
    Ratio gr = fieller_ratio(ga, gb);
    bool shape = gr.bounded && gr.lo < 1 && gr.hi > 1 && (gr.hi - 1) > (1 - gr.lo);
    printf("  %-48s [%.6f, %.6f] %s\n", "Fieller CI contains 1, skewed up", gr.lo, gr.hi, shape ? "ok" : "FAILED");
    bad += shape ? 0 : 1;
    // Reference (delta method agrees to first order): se(R) ~ sqrt(2)*5/sqrt(10)/100.
    double delta = 2.1009 * std::sqrt(2.0) * 5 / std::sqrt(10.0) / 100;  // t(18) ~ 2.1009
    bad += check("Fieller half-width ~ delta method", (gr.hi - gr.lo) / 2, delta, 0.02);
    Summary ha{3, 10, 20, 0, 0};  // denominator mean not distinguishable from 0
    Ratio hr = fieller_ratio(ha, gb);
    printf("  %-48s %s\n", "Fieller unbounded when denominator ~ 0", !hr.bounded ? "ok" : "FAILED");
    bad += hr.bounded ? 1 : 0;
    // Paired log ratios: B = 1.1 A exactly -> ratio 1.1, zero-width interval.
    Paired p1 = paired_log_ratio({100, 200, 300}, {110, 220, 330});
    bad += check("paired ratio, exact 1.1", p1.ratio, 1.1, 1e-12);
    bad += check("paired CI width, exact", p1.hi - p1.lo, 0, 1e-12);
    // Reference (log ratios 0.1, 0.2, 0.0: mean 0.1, sd 0.1, n 3):
    // ratio exp(0.1) = 1.1051709, upper exp(0.1 + 4.3026527*0.1/sqrt(3)),
    // t = 1.7320508 with 2 df -> p = 0.2254033.
    Paired p2 = paired_log_ratio({1, 1, 1}, {std::exp(0.1), std::exp(0.2), 1});
    bad += check("paired ratio", p2.ratio, 1.1051709, 1e-7);
    bad += check("paired CI upper", p2.hi, std::exp(0.1 + 4.3026527 * 0.1 / std::sqrt(3.0)), 1e-6);
    bad += check("paired p", p2.p, 0.2254033, 1e-6);
    printf("statistics self-test: %d passed, %d failed\n", 21 - bad, bad);
    return bad;
}

}  // namespace bench
