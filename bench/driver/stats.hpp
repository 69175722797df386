// stats.hpp: summary statistics for the comparison (Boost.Math's Student t).
#pragma once

#include <vector>

namespace bench {

struct Summary {
    int n = 0;
    double mean = 0;
    double sd = 0;      // sample standard deviation (n-1); NaN if n < 2
    double ci_lo = 0;   // 95% t-based confidence interval of the mean; NaN if n < 2
    double ci_hi = 0;
};
Summary summarize(const std::vector<double>& x, double level = 0.95);

// Welch's unequal-variance t-test of mean(b) - mean(a).
struct Welch {
    double t = 0;
    double df = 0;
    double p = 0;  // two-sided; NaN when undefined (n < 2 on a side, or both variances 0)
};
Welch welch(const Summary& a, const Summary& b);

// Ratio mean(b)/mean(a) with Fieller's confidence interval for independent
// samples with unequal variances.  The t quantile uses the Welch-Satterthwaite
// degrees of freedom of the linear combination mean(b) - R*mean(a) at R =
// the point estimate.  `bounded` is false when the denominator's mean is not
// significantly different from 0 (g >= 1): the interval is then unbounded.
struct Ratio {
    double r = 0;
    double lo = 0, hi = 0;
    double df = 0;
    bool bounded = false;
};
Ratio fieller_ratio(const Summary& a, const Summary& b, double level = 0.95);

// Paired comparison of rounds that ran back to back (A_i then B_i): the
// geometric mean of B_i/A_i with a t interval on the log ratios, and the
// two-sided p-value of a one-sample t-test of mean(log(B_i/A_i)) = 0.
// It removes the background drift that A and B rounds share.
struct Paired {
    int n = 0;
    double ratio = 0, lo = 0, hi = 0;
    double p = 0;
};
Paired paired_log_ratio(const std::vector<double>& a, const std::vector<double>& b, double level = 0.95);

double t_quantile(double df, double p);  // quantile of Student t

// Checks the functions above against reference values; prints failures.
// Returns the number of failed checks.
int stats_self_test();

}  // namespace bench
