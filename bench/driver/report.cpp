// report.cpp: rounds.csv, tranches.csv, results.json, report.md, plots/.
#include "bench.hpp"
#include "proc.hpp"
#include "stats.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include <cstdlib>
#include <unistd.h>

namespace bench {

// ---------------------------------------------------------------------------
// Not counted (NULL) values
// ---------------------------------------------------------------------------
const char* const kNotCountedNote = "n/a (detail off)";

std::string csv_count(const Count& c) { return c ? std::to_string(*c) : std::string("NA"); }
std::string json_count(const Count& c) { return c ? std::to_string(*c) : std::string("null"); }

Count parse_count(const std::optional<std::string>& cell, const std::string& what) {
    if (!cell) return std::nullopt;
    const std::string& v = *cell;
    size_t k = 0;
    long long n = 0;
    try {
        n = std::stoll(v, &k);
    } catch (const std::exception&) {
        k = 0;
    }
    if (v.empty() || k != v.size()) throw Error(what + ": not a number: '" + v + "'");
    return static_cast<int64_t>(n);
}

Count add_counts(const Count& a, const Count& b, bool max) {
    if (!a || !b) return std::nullopt;
    return max ? std::max(*a, *b) : *a + *b;
}

// ---------------------------------------------------------------------------
// CSV
// ---------------------------------------------------------------------------
void write_csv_header(const std::string& path) {
    std::string h =
        "round,config,workload,clients,threads,side,side_label,rep,warmup,start_utc,duration_s,wall_s,xacts,failed,"
        "tps,latency_avg_ms,latency_stddev_ms,conn_ms,load1_before,load5_before,load1_after,load5_after,"
        "cpu_busy_pct,hogs,cpu_nice_pct,cpu_steal_pct,cpu_other_pct,detail";
    for (auto& c : kCounterCols) h += "," + c;
    h += ",log\n";
    write_file(path, h);
}

void append_csv_row(const std::string& path, const Round& r) {
    std::ofstream out(path, std::ios::app);
    out << r.index << ',' << r.config << ',' << r.workload << ',' << r.clients << ',' << r.threads << ',' << r.side
        << ',' << csv_escape(r.side_label) << ',' << r.rep << ',' << (r.warmup ? 1 : 0) << ',' << r.start_utc << ','
        << r.duration << ',' << fmt("%.3f", r.wall) << ',' << r.xacts << ',' << r.failed << ',' << fmt("%.3f", r.tps)
        << ',' << fmt("%.3f", r.lat_avg) << ',' << fmt("%.3f", r.lat_sd) << ',' << fmt("%.3f", r.conn_ms) << ','
        << fmt("%.2f,%.2f,%.2f,%.2f", r.load_before.l1, r.load_before.l5, r.load_after.l1, r.load_after.l5) << ','
        << fmt("%.1f", r.cpu_busy_pct) << ',' << r.hogs << ',' << fmt("%.1f,%.1f", r.cpu_nice_pct, r.cpu_steal_pct)
        << ',' << (r.cpu_other_pct >= 0 ? fmt("%.1f", r.cpu_other_pct) : std::string()) << ',';
    // detail: 1 the detail counters were counted, 0 not (they read NA); empty: no counters (stock)
    if (r.c.present && r.c.detail) out << (*r.c.detail ? 1 : 0);
    for (auto& c : kCounterCols) {
        out << ',';
        if (r.c.present) out << csv_count(r.c.v.at(c));  // NA: not counted; empty: no counters (stock)
    }
    out << ',' << csv_escape(r.log) << '\n';
    if (!out) throw Error("cannot append to " + path);
}

void write_tranche_header(const std::string& path) {
    write_file(path,
               "round,config,workload,clients,side,side_label,warmup,tranche,lock_kind,acquisitions,"
               "descheduled_while_holding,grants,yields,yields_in_grant,revoked\n");
}

void append_tranche_rows(const std::string& path, const Round& r) {
    std::ofstream out(path, std::ios::app);
    for (auto& t : r.tranches)
        out << r.index << ',' << r.config << ',' << r.workload << ',' << r.clients << ',' << r.side << ','
            << csv_escape(r.side_label) << ',' << (r.warmup ? 1 : 0) << ',' << csv_escape(t.tranche) << ','
            << csv_escape(t.lock_kind) << ',' << csv_count(t.acquisitions) << ',' << t.descheduled << ',' << t.grants
            << ',' << t.yields << ',' << t.yields_in_grant << ',' << t.revoked << '\n';
    if (!out) throw Error("cannot append to " + path);
}

// ---------------------------------------------------------------------------
// The report's rules (declared in bench.hpp; report_self_test checks them)
// ---------------------------------------------------------------------------
std::string too_few_rounds_note(const Options& o) {
    std::string n = fmt("%d round%s", o.rounds, o.rounds == 1 ? "" : "s");
    if (o.preset == "quick") return "n/a (smoke test: " + n + ")";
    return fmt("n/a (%s, need %d)", n.c_str(), kMinRoundsForIntervals);
}

int workload_scale(const Options& o, const std::string& w) {
    if (w == "eviction") return o.eviction_scale;
    if (w == "hot-lwlock") return 1;
    if (w == "tpcb" && o.tpcb_scale > 0) return o.tpcb_scale;
    return o.scale;
}

std::vector<std::string> scale_warnings(const Options& o) {
    std::vector<std::string> out;
    if (std::find(o.workloads.begin(), o.workloads.end(), "tpcb") == o.workloads.end() || o.clients.empty()) return out;
    int scale = workload_scale(o, "tpcb");
    std::vector<std::string> over;
    for (int c : o.clients)
        if (c > scale) over.push_back(std::to_string(c));
    if (!over.empty())
        out.push_back(fmt("WARNING: tpcb at scale %d with %s clients: pgbench's documentation asks for a scale at "
                          "least as large as the number of clients for the TPC-B-like test (each transaction updates "
                          "one row of pgbench_branches, which has scale = %d rows, so more clients than rows queue on "
                          "its row locks); use --tpcb-scale %d or more",
                          scale, join(over, ", ").c_str(), scale,
                          *std::max_element(o.clients.begin(), o.clients.end())));
    return out;
}

static double mget_num(const RunData& d, const std::string& k) {
    auto it = d.machine.find(k);
    if (it == d.machine.end() || it->second.empty()) return NAN;
    return atof(it->second.c_str());
}

std::vector<std::string> load_warnings(const RunData& d) {
    std::vector<std::string> out;
    int ncpu = std::max(1, d.opt.ncpu);
    double other0 = mget_num(d, "cpu_other_start_pct");
    if (std::isfinite(other0) && other0 > kOtherCpuStartWarnPct) {
        std::string who = d.machine.count("others_start") ? d.machine.at("others_start") : "";
        out.push_back(fmt("before the first round other processes kept %.0f%% of the machine's CPU time busy (1 s "
                          "sample, limit %.0f%%)",
                          other0, kOtherCpuStartWarnPct) +
                      (who.empty() ? "" : "; busiest: " + who));
    }
    if (d.machine.count("loadavg_start")) {
        double l1 = atof(d.machine.at("loadavg_start").c_str());
        if (l1 > ncpu)
            out.push_back(fmt("the 1-minute load average was %.2f at the start, more than one runnable task per CPU "
                              "(%d CPUs): the machine was busy in the minute before the run (another bench run counts too)",
                              l1, ncpu));
    }
    double sum = 0, max = -1;
    int n = 0;
    const Round* worst = nullptr;
    for (auto& r : d.rounds) {
        if (r.warmup || r.cpu_other_pct < 0) continue;
        sum += r.cpu_other_pct;
        n++;
        if (r.cpu_other_pct > max) {
            max = r.cpu_other_pct;
            worst = &r;
        }
    }
    if (n > 0) {
        double mean = sum / n;
        if (mean > kOtherCpuWarnPct || max > kOtherCpuRoundWarnPct)
            out.push_back(fmt("during the measured rounds other processes (not this run's pgbench, servers or hogs) "
                              "used %.0f%% of the machine's CPU time on average (limit %.0f%%), %.0f%% in round %d "
                              "(limit %.0f%% per round)",
                              mean, kOtherCpuWarnPct, max, worst->index, kOtherCpuRoundWarnPct) +
                          (worst->others_top.empty() ? "" : "; busiest then: " + worst->others_top));
    }
    return out;
}

void ratio_axis(const std::vector<double>& points, const std::vector<double>& whisker_ends, double& lo, double& hi,
                bool& clipped) {
    lo = 1, hi = 1;
    for (double p : points)
        if (std::isfinite(p) && p > 0) lo = std::min(lo, p), hi = std::max(hi, p);
    // whiskers are drawn up to [1/kRatioClip, kRatioClip], or a factor 1.25
    // beyond the outermost point estimate if that is further out
    double clo = std::min(lo / 1.25, 1 / kRatioClip), chi = std::max(hi * 1.25, kRatioClip);
    lo /= 1.05, hi *= 1.05;  // a little room around the points
    clipped = false;
    double wlo = lo, whi = hi;
    for (double w : whisker_ends) {
        if (!std::isfinite(w) || w <= 0) continue;
        if (w < clo || w > chi) clipped = true;
        wlo = std::min(wlo, w), whi = std::max(whi, w);
    }
    lo = std::max(clo, wlo / 1.02);
    hi = std::min(chi, whi * 1.02);
}

// Tick marks for the log axis [lo, hi]: 1 and round ratios, at least a
// tenth of the axis apart (so that 0.95, 1, 1.05 do not overlap on a wide
// axis).  gnuplot's ytics list: "'1' 1, '1.1' 1.1".
static std::string ratio_ticks(double lo, double hi) {
    static const double cand[] = {1,   1.05, 0.95, 1.1, 0.9, 1.25, 0.8, 1.5, 0.67, 2,   0.5, 3, 0.33,
                                  5,   0.2,  10,   0.1, 20, 0.05, 50,  0.02, 100, 0.01};
    double gap = std::log(hi / lo) / 10;
    std::vector<double> chosen;
    for (double c : cand) {
        if (c < lo || c > hi) continue;
        bool far = true;
        for (double x : chosen) far = far && std::fabs(std::log(c / x)) >= gap;
        if (far) chosen.push_back(c);
    }
    std::sort(chosen.begin(), chosen.end());
    std::vector<std::string> out;
    for (double c : chosen) out.push_back(fmt("'%g' %g", c, c));
    return join(out, ", ");
}

static int rcheck(const char* what, bool ok, const std::string& got) {
    printf("  %-48s %s%s\n", what, ok ? "ok" : "FAILED", ok ? "" : (": " + got).c_str());
    return ok ? 0 : 1;
}

// The cells of the first table row of `path` that starts with `prefix`.
static std::vector<std::string> table_row(const std::string& text, const std::string& prefix) {
    std::vector<std::string> cells;
    for (auto& l : split(text, '\n')) {
        if (!starts_with(l, prefix)) continue;
        std::string body = l.substr(1, l.size() > 2 ? l.size() - 2 : 0);
        for (auto& c : split(body, '|')) cells.push_back(trim(c));
        break;
    }
    return cells;
}

// Not counted is never shown as 0: a made-up run (stock A, patched B) with
// the detail counters NULL (detail off) and then counted (detail on),
// written to CSV, JSON and the report in a temporary folder.
static int detail_self_test(int& n) {
    int bad = 0;
    n++, bad += rcheck("NULL cell reads as not counted", !parse_count(std::nullopt, "x").has_value(), "counted");
    n++, bad += rcheck("'0' cell reads as 0", parse_count(std::string("0"), "x") == Count(0), "");
    bool threw = false;
    try {
        parse_count(std::string("12a"), "x");
    } catch (const Error&) {
        threw = true;
    }
    n++, bad += rcheck("non-number cell is an error", threw, "accepted");
    n++, bad += rcheck("sum of counted and not counted is not counted", !add_counts(5, std::nullopt, false), "counted");
    n++, bad += rcheck("sum 5 + 7 = 12, max(5, 7) = 7",
                       add_counts(5, 7, false) == Count(12) && add_counts(5, 7, true) == Count(7), "");
    n++, bad += rcheck("not counted: CSV NA, JSON null", csv_count(std::nullopt) == "NA" && json_count(std::nullopt) == "null" &&
                                                            csv_count(0) == "0" && json_count(0) == "0",
                       csv_count(std::nullopt) + " " + json_count(std::nullopt));

    char tmpl[] = "/tmp/pgrseq-selftest-XXXXXX";
    if (!mkdtemp(tmpl)) return bad + rcheck("temporary folder", false, "mkdtemp failed");
    std::string dir = tmpl;
    for (bool detail : {false, true}) {
        RunData d;
        Options& o = d.opt;
        o.rounds = 1;
        o.workloads = {"hot-lwlock"};
        o.clients = {4};
        o.clients_spec = {"4"};
        o.detail = detail;
        o.a.id = 'A', o.a.spec = o.a.flavour = "stock";
        o.b.id = 'B', o.b.spec = "patched:auto", o.b.flavour = "patched", o.b.patched = true, o.b.mode = "auto";
        o.b.detail = detail;
        d.status = "complete";
        Config cfg;
        cfg.index = 1, cfg.workload = "hot-lwlock", cfg.clients = 4, cfg.threads = 2;
        d.configs.push_back(cfg);
        for (int rep = 0; rep <= 1; rep++)
            for (char side : {'A', 'B'}) {
                Round r;
                r.index = static_cast<int>(d.rounds.size()) + 1, r.config = 1, r.workload = "hot-lwlock";
                r.clients = 4, r.threads = 2, r.side = side, r.rep = rep, r.warmup = rep == 0;
                r.side_label = side == 'A' ? o.a.label() : o.b.label();
                r.xacts = 1000, r.tps = 100;
                if (side == 'B') {
                    r.c.present = true;
                    r.c.detail = detail;
                    for (auto& c : kCounterCols) r.c.v[c] = is_detail_col(c) && !detail ? Count() : Count(2000);
                    r.c.v["max_depth"] = detail ? Count(3) : Count();
                    TrancheRow t;
                    t.tranche = t.lock_kind = "spinlock";
                    t.acquisitions = detail ? Count(500) : Count();
                    t.descheduled = 4, t.grants = 2, t.yields = 2, t.yields_in_grant = 1, t.revoked = 1;
                    r.tranches.push_back(t);
                }
                d.rounds.push_back(r);
            }
        std::string tag = detail ? "on" : "off";
        std::string csv = dir + "/rounds.csv", tcsv = dir + "/tranches.csv", js = dir + "/results.json",
                    md = dir + "/report.md";
        write_csv_header(csv);
        write_tranche_header(tcsv);
        for (auto& r : d.rounds) append_csv_row(csv, r), append_tranche_rows(tcsv, r);
        write_json(js, d);
        write_report(md, d, {});
        std::string csvt = read_file(csv), tcsvt = read_file(tcsv), jst = read_file(js), mdt = read_file(md);
        auto lines = split(csvt, '\n');
        auto head = split(lines[0], ',');
        auto row = split(lines.size() > 4 ? lines[4] : "", ',');  // round 4: B, measured
        auto cell = [&](const std::string& col) {
            for (size_t i = 0; i < head.size() && i < row.size(); i++)
                if (head[i] == col) return row[i];
            return std::string("?");
        };
        std::string want = detail ? "2000" : "NA";
        n++, bad += rcheck(("detail " + tag + ": rounds.csv sections " + want + ", detail " + (detail ? "1" : "0")).c_str(),
                           cell("sections") == want && cell("max_depth") == (detail ? "3" : "NA") &&
                               cell("lwlock_sections") == "2000" && cell("detail") == (detail ? "1" : "0"),
                           cell("sections") + " " + cell("max_depth") + " " + cell("detail"));
        auto trow = split(split(tcsvt, '\n').size() > 2 ? split(tcsvt, '\n')[2] : "", ',');
        n++, bad += rcheck(("detail " + tag + ": tranches.csv acquisitions " + (detail ? "500" : "NA") +
                            ", yields_in_grant, revoked").c_str(),
                           trow.size() == 15 && trow[9] == (detail ? "500" : "NA") && trow[13] == "1" && trow[14] == "1",
                           split(tcsvt, '\n').size() > 2 ? split(tcsvt, '\n')[2] : "none");
        bool jok = detail ? jst.find("\"sections\": 2000") != std::string::npos &&
                                jst.find("\"sections\": null") == std::string::npos
                          : jst.find("\"sections\": null") != std::string::npos &&
                                jst.find("\"acquisitions\": null") != std::string::npos &&
                                jst.find("\"sections\": 0") == std::string::npos;
        n++, bad += rcheck(("detail " + tag + ": results.json sections " + (detail ? "counted" : "null")).c_str(), jok,
                           "see " + js);
        auto cr = table_row(mdt, "| hot-lwlock | 4 | B (patched:auto) |");
        std::string nc = kNotCountedNote;
        bool rok = cr.size() == 16 && cr[6] == "2.00" && cr[3] == (detail ? "2.00" : nc) && cr[9] == (detail ? "3" : nc) &&
                   cr[7] == (detail ? "2.00" : nc) && cr[13] == "2000.00";
        n++, bad += rcheck(("detail " + tag + ": report counter table: sections, max depth " +
                            (detail ? "counted" : nc) + ", LWLock counted").c_str(),
                           rok, join(cr, " | "));
        auto tr = table_row(mdt, "| hot-lwlock | B | spinlock |");
        n++, bad += rcheck(("detail " + tag + ": report tranche table: acquisitions " + (detail ? "0.50" : nc) +
                            ", yielded in grant 50.0%").c_str(),
                           tr.size() == 12 && tr[4] == (detail ? "0.50" : nc) && tr[9] == "1" && tr[10] == "1" &&
                               tr[11] == "50.0",
                           join(tr, " | "));
        bool hok = mdt.find(detail ? "(`rseq_slice_detail`): **on** (`--detail`) on side B"
                                   : "(`rseq_slice_detail`): **off** on side B") != std::string::npos;
        n++, bad += rcheck(("detail " + tag + ": report header says detail " + tag).c_str(), hok, "see " + md);
    }
    remove_tree(dir);
    return bad;
}

int report_self_test() {
    int bad = 0, n = 0;
    printf("report rules self-test\n");
    Options q;
    q.preset = "quick";
    q.rounds = 2;
    q.scale = 1;
    q.workloads = {"select-only", "tpcb"};
    q.clients = {2, 8};
    q.ncpu = 2;
    std::string note = too_few_rounds_note(q);
    n++, bad += rcheck("smoke-test note for --quick", note == "n/a (smoke test: 2 rounds)", note);
    Options f = q;
    f.preset = "";
    note = too_few_rounds_note(f);
    n++, bad += rcheck("too-few-rounds note without --quick", note == "n/a (2 rounds, need 3)", note);
    // tpcb at scale 1 with 2 and 8 clients: one warning naming both
    auto w = scale_warnings(q);
    n++, bad += rcheck("tpcb scale 1, clients 2 and 8: warning",
                       w.size() == 1 && w[0].find("scale 1 with 2, 8 clients") != std::string::npos &&
                           w[0].find("--tpcb-scale 8") != std::string::npos,
                       w.empty() ? "none" : w[0]);
    q.tpcb_scale = 8;
    n++, bad += rcheck("tpcb scale 8, 8 clients: no warning", scale_warnings(q).empty(), "warned");
    n++, bad += rcheck("select-only keeps --scale", workload_scale(q, "select-only") == 1, "");
    q.workloads = {"select-only"};
    q.tpcb_scale = 0;
    n++, bad += rcheck("no tpcb: no scale warning", scale_warnings(q).empty(), "warned");
    // load: idle, busy start, busy rounds
    RunData d;
    d.opt = q;
    d.machine["loadavg_start"] = "0.30 0.20 0.10";
    d.machine["cpu_other_start_pct"] = "1.0";
    Round r;
    r.index = 3;
    r.cpu_other_pct = 2;
    d.rounds.push_back(r);
    r.index = 4;
    r.cpu_other_pct = 3;
    d.rounds.push_back(r);
    auto lw = load_warnings(d);
    n++, bad += rcheck("idle machine: no load warning", lw.empty(), lw.empty() ? "" : lw[0]);
    d.rounds[1].cpu_other_pct = 30;  // mean 16 %, round 4 30 %
    d.rounds[1].others_top = "cc1 55%";
    lw = load_warnings(d);
    n++, bad += rcheck("other processes 16% mean: warning names round 4 and cc1",
                       lw.size() == 1 && lw[0].find("16% of the machine's CPU time on average") != std::string::npos &&
                           lw[0].find("30% in round 4") != std::string::npos &&
                           lw[0].find("cc1 55%") != std::string::npos,
                       lw.empty() ? "none" : lw[0]);
    d.rounds[1].cpu_other_pct = 3;
    d.rounds[1].warmup = true;  // warm-up rounds do not count
    d.rounds[0].cpu_other_pct = 4;
    lw = load_warnings(d);
    n++, bad += rcheck("4% mean, busy warm-up ignored: no warning", lw.empty(), lw.empty() ? "" : lw[0]);
    d.machine["loadavg_start"] = "5.82 3.51 1.62";
    d.machine["cpu_other_start_pct"] = "60.0";
    lw = load_warnings(d);
    n++, bad += rcheck("busy start (load 5.82 on 2 CPUs, 60% other): 2 warnings", lw.size() == 2,
                       fmt("%zu warnings", lw.size()));
    // the ratio axis: --quick's [0.066, 13.634] whisker does not stretch it
    double lo, hi;
    bool clipped;
    ratio_axis({1.03, 0.98}, {0.066, 13.634, 0.9, 1.1}, lo, hi, clipped);
    n++, bad += rcheck("ratio axis clips a [0.066, 13.6] whisker to [0.5, 2]",
                       clipped && std::fabs(lo - 0.5) < 1e-9 && std::fabs(hi - 2.0) < 1e-9,
                       fmt("[%g, %g] clipped %d", lo, hi, clipped));
    ratio_axis({1.02, 0.99}, {0.97, 1.05}, lo, hi, clipped);
    n++, bad += rcheck("ratio axis fits narrow whiskers, includes 1",
                       !clipped && lo <= 0.97 && lo > 0.9 && hi >= 1.05 && hi < 1.2, fmt("[%g, %g]", lo, hi));
    ratio_axis({3.0}, {2.5, 3.6}, lo, hi, clipped);
    n++, bad += rcheck("ratio axis keeps a point estimate beyond the clip", hi >= 3.6 && lo <= 1 && !clipped,
                       fmt("[%g, %g]", lo, hi));
    bad += detail_self_test(n);
    printf("report rules self-test: %d passed, %d failed\n", n - bad, bad);
    return bad;
}

// ---------------------------------------------------------------------------
// Per-configuration summaries
// ---------------------------------------------------------------------------
struct SideSummary {
    Summary tps;
    double lat_avg = NAN, lat_sd = NAN;  // means over the measured rounds
    int64_t xacts = 0, failed = 0;
    bool counters = false;
    bool detail = true;               // every round with counters counted the detail counters
    std::map<std::string, Count> sum;  // counter sums (max for max_depth); nullopt: not counted in some round
    bool counted(const std::string& c) const { return sum.count(c) && sum.at(c).has_value(); }
    double per1000(const std::string& c) const {
        return xacts > 0 && counted(c) ? 1000.0 * *sum.at(c) / xacts : NAN;
    }
    std::vector<double> tps_values;
};

struct ConfigSummary {
    Config cfg;
    SideSummary s[2];
    Welch w;
    Ratio ratio;
    Paired paired;
    bool complete = false;
    bool intervals = false;  // both sides have >= kMinRoundsForIntervals measured rounds
};

static SideSummary side_summary(const RunData& d, const Config& cfg, char side) {
    SideSummary s;
    std::vector<double> lat, latsd;
    for (auto& r : d.rounds) {
        if (r.config != cfg.index || r.side != side || r.warmup) continue;
        s.tps_values.push_back(r.tps);
        lat.push_back(r.lat_avg);
        latsd.push_back(r.lat_sd);
        s.xacts += r.xacts;
        s.failed += r.failed;
        if (r.c.present) {
            bool first = !s.counters;
            s.counters = true;
            s.detail = s.detail && r.c.detail.value_or(false);
            for (auto& [k, v] : r.c.v) s.sum[k] = first ? v : add_counts(s.sum[k], v, k == "max_depth");
        }
    }
    s.tps = summarize(s.tps_values);
    if (!lat.empty()) {
        s.lat_avg = summarize(lat).mean;
        s.lat_sd = summarize(latsd).mean;
    }
    return s;
}

static std::vector<ConfigSummary> summaries(const RunData& d) {
    std::vector<ConfigSummary> out;
    for (auto& cfg : d.configs) {
        ConfigSummary c;
        c.cfg = cfg;
        c.s[0] = side_summary(d, cfg, 'A');
        c.s[1] = side_summary(d, cfg, 'B');
        c.w = welch(c.s[0].tps, c.s[1].tps);
        c.ratio = fieller_ratio(c.s[0].tps, c.s[1].tps);
        // Pairs: measured round i of A and round i of B ran back to back.
        std::vector<double> pa, pb;
        for (int rep = 1; rep <= d.opt.rounds; rep++) {
            double ta = NAN, tb = NAN;
            for (auto& r : d.rounds)
                if (r.config == cfg.index && r.rep == rep) (r.side == 'A' ? ta : tb) = r.tps;
            if (std::isfinite(ta) && std::isfinite(tb)) {
                pa.push_back(ta);
                pb.push_back(tb);
            }
        }
        c.paired = paired_log_ratio(pa, pb);
        c.complete = c.s[0].tps.n == d.opt.rounds && c.s[1].tps.n == d.opt.rounds;
        c.intervals = c.s[0].tps.n >= kMinRoundsForIntervals && c.s[1].tps.n >= kMinRoundsForIntervals;
        out.push_back(c);
    }
    return out;
}

// ---------------------------------------------------------------------------
// JSON
// ---------------------------------------------------------------------------
static std::string jnum(double v, const char* f = "%.6g") { return std::isfinite(v) ? fmt(f, v) : "null"; }

static std::string jside_summary(const SideSummary& s) {
    std::ostringstream o;
    o << "{\"n\": " << s.tps.n << ", \"tps_mean\": " << jnum(s.tps.mean, "%.3f") << ", \"tps_sd\": "
      << jnum(s.tps.sd, "%.3f") << ", \"tps_ci95\": [" << jnum(s.tps.ci_lo, "%.3f") << ", "
      << jnum(s.tps.ci_hi, "%.3f") << "], \"tps\": [";
    for (size_t i = 0; i < s.tps_values.size(); i++) o << (i ? ", " : "") << fmt("%.3f", s.tps_values[i]);
    o << "], \"latency_avg_ms\": " << jnum(s.lat_avg, "%.4f") << ", \"latency_stddev_ms\": " << jnum(s.lat_sd, "%.4f")
      << ", \"xacts\": " << s.xacts << ", \"failed\": " << s.failed;
    if (s.counters) {
        o << ", \"counters\": {";
        bool first = true;
        for (auto& c : kCounterCols) {
            o << (first ? "" : ", ") << json_escape(c) << ": " << json_count(s.sum.count(c) ? s.sum.at(c) : Count());
            first = false;
        }
        o << "}, \"per_1000_xacts\": {";
        first = true;
        for (auto& c : kCounterCols) {
            if (c == "max_depth") continue;
            o << (first ? "" : ", ") << json_escape(c) << ": " << jnum(s.per1000(c), "%.4f");
            first = false;
        }
        o << "}, \"detail\": " << (s.detail ? "true" : "false");
    } else {
        o << ", \"counters\": null";
    }
    o << "}";
    return o.str();
}

void write_json(const std::string& path, const RunData& d) {
    const Options& o = d.opt;
    std::ostringstream j;
    j << "{\n  \"tool\": \"pg_rseq bench/run\",\n";
    j << "  \"status\": " << json_escape(d.status) << ",\n";
    j << "  \"started_utc\": " << json_escape(d.started_utc) << ",\n";
    j << "  \"finished_utc\": " << json_escape(d.finished_utc) << ",\n";
    j << "  \"elapsed_s\": " << jnum(d.elapsed, "%.1f") << ",\n";
    j << "  \"smoke_test\": " << (o.rounds < kMinRoundsForIntervals ? "true" : "false")
      << ", \"min_rounds_for_intervals\": " << kMinRoundsForIntervals << ",\n";
    {
        auto jlist = [](const std::vector<std::string>& v) {
            std::string out = "[";
            for (size_t i = 0; i < v.size(); i++) out += (i ? ", " : "") + json_escape(v[i]);
            return out + "]";
        };
        j << "  \"warnings\": {\"load\": " << jlist(load_warnings(d)) << ", \"scale\": " << jlist(scale_warnings(o))
          << "},\n";
    }
    j << "  \"nice\": " << d.nice << ",\n";
    j << "  \"command\": [";
    for (size_t i = 0; i < o.argv.size(); i++) j << (i ? ", " : "") << json_escape(o.argv[i]);
    j << "],\n  \"git\": {\"commit\": " << json_escape(d.git_commit) << ", \"dirty\": " << (d.git_dirty ? "true" : "false")
      << "},\n";
    j << "  \"machine\": {";
    bool first = true;
    for (auto& [k, v] : d.machine) {
        j << (first ? "" : ", ") << json_escape(k) << ": " << json_escape(v);
        first = false;
    }
    j << "},\n";
    j << "  \"options\": {\"workloads\": [";
    for (size_t i = 0; i < o.workloads.size(); i++) j << (i ? ", " : "") << json_escape(o.workloads[i]);
    j << "], \"clients\": [";
    for (size_t i = 0; i < o.clients.size(); i++) j << (i ? ", " : "") << o.clients[i];
    j << "], \"clients_spec\": [";
    for (size_t i = 0; i < o.clients_spec.size(); i++) j << (i ? ", " : "") << json_escape(o.clients_spec[i]);
    j << "], \"duration_s\": " << o.duration << ", \"warmup_s\": " << o.warmup << ", \"rounds\": " << o.rounds
      << ", \"scale\": " << o.scale << ", \"tpcb_scale\": " << workload_scale(o, "tpcb")
      << ", \"eviction_scale\": " << o.eviction_scale << ", \"scales\": {";
    for (size_t i = 0; i < o.workloads.size(); i++)
        j << (i ? ", " : "") << json_escape(o.workloads[i]) << ": " << workload_scale(o, o.workloads[i]);
    j << "}, \"pg_dir\": " << json_escape(o.pg_dir)
      << ", \"shared_buffers\": " << json_escape(o.shared_buffers)
      << ", \"eviction_shared_buffers\": " << json_escape(o.eviction_shared_buffers) << ", \"hogs\": " << o.hogs
      << ", \"threads\": " << o.threads << ", \"protocol\": " << json_escape(o.protocol)
      << ", \"preset\": " << json_escape(o.preset) << ", \"budget_min\": " << o.budget_min
      << ", \"cpus\": " << o.cpus << ", \"detail\": " << (o.detail ? "true" : "false")
      << ", \"settings\": {";
    for (size_t i = 0; i < o.settings.size(); i++)
        j << (i ? ", " : "") << json_escape(o.settings[i].first) << ": " << json_escape(o.settings[i].second);
    j << "}},\n";
    j << "  \"sides\": {";
    for (const Side* s : {&o.a, &o.b})
        j << (s->id == 'B' ? ", " : "") << "\"" << s->id << "\": {\"spec\": " << json_escape(s->spec)
          << ", \"label\": " << json_escape(s->label()) << ", \"prefix\": " << json_escape(s->prefix)
          << ", \"patched\": " << (s->patched ? "true" : "false") << ", \"mode\": " << json_escape(s->mode)
          << ", \"detail\": " << (s->patched ? (s->detail ? "true" : "false") : "null")
          << ", \"pgbench\": " << json_escape(d.pgbench[s->id - 'A'].path)
          << ", \"pgbench_version\": " << json_escape(d.pgbench[s->id - 'A'].version) << "}";
    j << "},\n  \"clusters\": [";
    for (size_t i = 0; i < d.clusters.size(); i++) {
        auto& c = d.clusters[i];
        j << (i ? ",\n    " : "\n    ") << "{\"side\": \"" << c.side << "\", \"side_label\": " << json_escape(c.side_label)
          << ", \"workload\": " << json_escape(c.workload) << ", \"port\": " << c.port << ", \"scale\": " << c.scale
          << ", \"version\": " << json_escape(c.version) << ", \"server_version\": " << json_escape(c.server_version)
          << ", \"pg_rseq_version\": " << json_escape(c.ext_version) << ", \"startup_line\": "
          << json_escape(c.startup_line) << ", \"rseq_slice_mode\": " << json_escape(c.mode_setting)
          << ", \"accounts_bytes\": " << c.accounts_bytes << ", \"shared_buffers_bytes\": " << c.shared_buffers_bytes
          << ", \"setup_s\": " << jnum(c.setup_seconds, "%.1f")
          << ", \"rseq_slice_detail\": " << json_escape(c.detail_setting)
          << ", \"idle_read_lwlock_sections\": " << json_count(c.idle_read_lwlock_sections)
          << ", \"idle_read_sections\": " << json_count(c.idle_read_sections)
          << ", \"conf_file\": " << json_escape(c.conf_file) << ", \"pg_rseq_kernel\": {";
        bool f = true;
        for (auto& [k, v] : c.kernel) {
            j << (f ? "" : ", ") << json_escape(k) << ": " << json_escape(v);
            f = false;
        }
        j << "}}";
    }
    j << "\n  ],\n  \"configs\": [";
    auto sums = summaries(d);
    for (size_t i = 0; i < sums.size(); i++) {
        auto& c = sums[i];
        j << (i ? ",\n    " : "\n    ") << "{\"config\": " << c.cfg.index << ", \"workload\": " << json_escape(c.cfg.workload)
          << ", \"clients\": " << c.cfg.clients << ", \"threads\": " << c.cfg.threads
          << ",\n     \"A\": " << jside_summary(c.s[0]) << ",\n     \"B\": " << jside_summary(c.s[1])
          << ",\n     \"ratio_b_over_a\": {\"ratio\": " << jnum(c.ratio.r, "%.5f") << ", \"ci95\": ["
          << jnum(c.ratio.lo, "%.5f") << ", " << jnum(c.ratio.hi, "%.5f")
          << "], \"method\": \"Fieller, Welch-Satterthwaite df\", \"df\": " << jnum(c.ratio.df, "%.2f")
          << ", \"bounded\": " << (c.ratio.bounded ? "true" : "false") << "}, \"intervals_shown\": "
          << (c.intervals ? "true" : "false") << ", \"paired_b_over_a\": {\"n\": " << c.paired.n
          << ", \"ratio\": " << jnum(c.paired.ratio, "%.5f") << ", \"ci95\": [" << jnum(c.paired.lo, "%.5f") << ", "
          << jnum(c.paired.hi, "%.5f") << "], \"p\": " << jnum(c.paired.p, "%.4g")
          << ", \"method\": \"geometric mean of B_i/A_i, t interval on log ratios\"}, \"welch\": {\"t\": " << jnum(c.w.t, "%.4f")
          << ", \"df\": " << jnum(c.w.df, "%.2f") << ", \"p\": " << jnum(c.w.p, "%.4g") << "}}";
    }
    j << "\n  ],\n  \"rounds\": [";
    for (size_t i = 0; i < d.rounds.size(); i++) {
        auto& r = d.rounds[i];
        j << (i ? ",\n    " : "\n    ") << "{\"round\": " << r.index << ", \"config\": " << r.config
          << ", \"workload\": " << json_escape(r.workload) << ", \"clients\": " << r.clients << ", \"threads\": " << r.threads
          << ", \"side\": \"" << r.side << "\", \"side_label\": " << json_escape(r.side_label) << ", \"rep\": " << r.rep
          << ", \"warmup\": " << (r.warmup ? "true" : "false") << ", \"start_utc\": " << json_escape(r.start_utc)
          << ", \"duration_s\": " << r.duration << ", \"wall_s\": " << jnum(r.wall, "%.3f") << ", \"xacts\": " << r.xacts
          << ", \"failed\": " << r.failed << ", \"tps\": " << jnum(r.tps, "%.3f") << ", \"latency_avg_ms\": "
          << jnum(r.lat_avg, "%.3f") << ", \"latency_stddev_ms\": " << jnum(r.lat_sd, "%.3f")
          << ", \"conn_ms\": " << jnum(r.conn_ms, "%.3f") << ", \"loadavg_before\": ["
          << fmt("%.2f, %.2f, %.2f", r.load_before.l1, r.load_before.l5, r.load_before.l15) << "], \"loadavg_after\": ["
          << fmt("%.2f, %.2f, %.2f", r.load_after.l1, r.load_after.l5, r.load_after.l15)
          << "], \"cpu_busy_pct\": " << jnum(r.cpu_busy_pct, "%.1f") << ", \"cpu_nice_pct\": " << jnum(r.cpu_nice_pct, "%.1f")
          << ", \"cpu_steal_pct\": " << jnum(r.cpu_steal_pct, "%.1f")
          << ", \"cpu_other_pct\": " << (r.cpu_other_pct >= 0 ? jnum(r.cpu_other_pct, "%.1f") : std::string("null"))
          << ", \"others_top\": " << json_escape(r.others_top) << ", \"hogs\": " << r.hogs << ", \"log\": "
          << json_escape(r.log) << ", \"counters\": ";
        if (r.c.present) {
            j << "{";
            bool f = true;
            for (auto& c : kCounterCols) {
                j << (f ? "" : ", ") << json_escape(c) << ": " << json_count(r.c.v.at(c));
                f = false;
            }
            j << "}, \"detail\": " << (r.c.detail ? (*r.c.detail ? "true" : "false") : "null");
        } else {
            j << "null, \"detail\": null";
        }
        j << ", \"tranches\": [";
        for (size_t t = 0; t < r.tranches.size(); t++) {
            auto& tr = r.tranches[t];
            j << (t ? ", " : "") << "{\"tranche\": " << json_escape(tr.tranche) << ", \"lock_kind\": "
              << json_escape(tr.lock_kind) << ", \"acquisitions\": " << json_count(tr.acquisitions)
              << ", \"descheduled_while_holding\": " << tr.descheduled << ", \"grants\": " << tr.grants
              << ", \"yields\": " << tr.yields << ", \"yields_in_grant\": " << tr.yields_in_grant
              << ", \"revoked\": " << tr.revoked << "}";
        }
        j << "]}";
    }
    j << "\n  ]\n}\n";
    write_file(path, j.str());
}

// ---------------------------------------------------------------------------
// Markdown
// ---------------------------------------------------------------------------
static std::string num(double v, const char* f = "%.1f") { return std::isfinite(v) ? fmt(f, v) : "n/a"; }

static std::string pval(double p) {
    if (!std::isfinite(p)) return "n/a";
    if (p < 0.001) return "<0.001";
    return fmt("%.3f", p);
}

static std::string ratio_str(const Ratio& r) {
    if (!std::isfinite(r.r)) return "n/a";
    if (!r.bounded) return fmt("%.3f [unbounded]", r.r);
    return fmt("%.3f [%.3f, %.3f]", r.r, r.lo, r.hi);
}

static std::string verdict(const ConfigSummary& c) {
    if (!std::isfinite(c.w.p)) return "too few rounds";
    if (c.w.p >= 0.05) return "no significant difference";
    return c.ratio.r > 1 ? "B faster" : "B slower";
}

// Per workload and side: tranche totals over the measured rounds.
struct TrancheTotal {
    std::string tranche, kind;
    Count acq = 0;  // nullopt: not counted in some round (non-LWLock rows, detail off)
    int64_t desched = 0, grants = 0, yields = 0, yields_in_grant = 0, revoked = 0;
};
static std::vector<TrancheTotal> tranche_totals(const RunData& d, const std::string& workload, char side, int clients,
                                                int64_t* xacts) {
    std::map<std::string, TrancheTotal> m;
    int64_t x = 0;
    for (auto& r : d.rounds) {
        if (r.workload != workload || r.side != side || r.warmup) continue;
        if (clients > 0 && r.clients != clients) continue;
        x += r.xacts;
        for (auto& t : r.tranches) {
            auto& tt = m[t.lock_kind + "/" + t.tranche];
            tt.tranche = t.tranche;
            tt.kind = t.lock_kind;
            tt.acq = add_counts(tt.acq, t.acquisitions, false);
            tt.desched += t.descheduled;
            tt.grants += t.grants;
            tt.yields += t.yields;
            tt.yields_in_grant += t.yields_in_grant;
            tt.revoked += t.revoked;
        }
    }
    if (xacts) *xacts = x;
    std::vector<TrancheTotal> v;
    for (auto& [k, t] : m) v.push_back(t);
    std::sort(v.begin(), v.end(), [](const TrancheTotal& a, const TrancheTotal& b) {
        if (a.desched != b.desched) return a.desched > b.desched;
        return a.acq.value_or(-1) > b.acq.value_or(-1);
    });
    return v;
}

std::string detail_header(const Options& o) {
    std::vector<std::string> ps;
    for (const Side* s : {&o.a, &o.b})
        if (s->patched) ps.push_back(std::string(1, s->id));
    if (ps.empty()) return "Detail counters: none (no patched side, no lock layer counters).";
    std::string sides = (ps.size() == 1 ? "side " : "sides ") + join(ps, " and ");
    if (o.detail)
        return "Detail counters (`rseq_slice_detail`): **on** (`--detail`) on " + sides +
               ": sections, spinlock, buffer header and wait list sections, nested entries, max depth and the "
               "acquisitions of the spinlock / buffer header / wait list rows are counted, at a cost: every lock "
               "section takes the lock layer's out-of-line slow path, so the patched tps are not those of the "
               "default configuration.";
    return "Detail counters (`rseq_slice_detail`): **off** on " + sides +
           " (the default, what users run): sections, spinlock, buffer header and wait list sections, nested "
           "entries, max depth, requests and the acquisitions of the spinlock / buffer header / wait list rows "
           "are not counted; the tables say `" + std::string(kNotCountedNote) +
           "` (`NA` in the CSV files, `null` in results.json), never 0. LWLock sections, grants, yields, "
           "revocations and deschedules are counted. `--detail` counts the rest too.";
}

void write_report(const std::string& path, const RunData& d, const std::vector<std::string>& plots) {
    const Options& o = d.opt;
    auto sums = summaries(d);
    std::ostringstream m;
    m << "# pg_rseq pgbench comparison: A = " << o.a.label() << ", B = " << o.b.label() << "\n\n";
    std::string st1 = d.status.substr(0, d.status.find('\n'));
    m << "Status: **" << st1 << "**. Started " << d.started_utc << ", finished " << d.finished_utc << " ("
      << human_duration(d.elapsed) << "). " << d.rounds.size() << " rounds recorded.\n\n";
    if (st1 != d.status) m << "```\n" << d.status << "\n```\n\n";
    const std::string na = too_few_rounds_note(o);
    if (o.rounds < kMinRoundsForIntervals)
        m << "> **" << (o.preset == "quick" ? "Smoke test" : "Too few rounds for statistics") << "** ("
          << (o.preset == "quick" ? "`--quick`: " : "") << o.rounds << " measured round" << (o.rounds == 1 ? "" : "s")
          << " of " << o.duration << " s per side and configuration): it checks that everything runs; its figures "
          << "are not results. Intervals and p-values need at least " << kMinRoundsForIntervals
          << " measured rounds per side (with 2, the t quantile is 12.7 and an interval spans everything), so the "
          << "tables say `" << na << "` in their place.\n\n";
    m << detail_header(o) << "\n\n";
    for (auto& w : scale_warnings(o)) {
        size_t k = w.find(" clients:");  // bold: "WARNING: tpcb at scale S with C clients"
        k = k == std::string::npos ? 0 : k + 8;
        m << "> **" << w.substr(0, k) << "**" << w.substr(k) << ".\n\n";
    }
    {
        auto lw = load_warnings(d);
        if (!lw.empty()) {
            m << "> **WARNING: the machine was not idle**: ";
            for (size_t i = 0; i < lw.size(); i++) m << (i ? "; " : "") << lw[i];
            m << ". Figures taken under load are not results (the Machine section and `rounds.csv`'s "
                 "`cpu_other_pct` have the details).\n\n";
        } else if (!d.rounds.empty()) {
            m << "Machine idle: other processes used at most " << fmt("%.0f", kOtherCpuWarnPct)
              << "% of the CPU time on average during the measured rounds (see Machine).\n\n";
        }
    }
    m << "## Command\n\n```\n" << shell_join(o.argv) << "\n```\n\n";
    m << "Git commit `" << (d.git_commit.empty() ? "unknown" : d.git_commit) << "`"
      << (d.git_dirty ? " (with uncommitted changes to tracked files)" : "") << ".\n\n";

    // Machine
    auto mget = [&](const std::string& k) { return d.machine.count(k) ? d.machine.at(k) : std::string("n/a"); };
    const ClusterInfo* kinfo = nullptr;
    for (auto& c : d.clusters)
        if (!c.kernel.empty() && (!kinfo || c.side_label.rfind("patched", 0) == 0)) kinfo = &c;
    m << "## Machine\n\n| what | value |\n| --- | --- |\n";
    m << "| CPUs (nproc) | " << mget("nproc") << " |\n";
    m << "| memory | " << mget("memory") << " |\n";
    m << "| CPU model | " << mget("cpu_model") << " |\n";
    m << "| kernel (uname -r) | " << mget("kernel_release") << " |\n";
    m << "| kernel build (uname -v) | " << mget("kernel_version") << " |\n";
    if (d.machine.count("preempt")) m << "| preemption (debugfs) | " << mget("preempt") << " |\n";
    if (kinfo) {
        auto kg = [&](const std::string& k) { return kinfo->kernel.count(k) ? kinfo->kernel.at(k) : std::string(""); };
        m << "| pg_rseq_kernel() on side " << kinfo->side << " | kernel_release " << kg("kernel_release")
          << ", rseq " << kg("rseq_registration") << " (owner " << kg("rseq_owner") << "), slice_extension "
          << kg("slice_extension") << (kg("slice_extension_errno").empty() ? "" : " (" + kg("slice_extension_errno") + ")")
          << ", preemption " << kg("preemption") << " |\n";
        if (!kg("summary").empty()) m << "| probe summary | " << kg("summary") << " |\n";
    }
    m << "| load average at start / end | " << mget("loadavg_start") << " / " << mget("loadavg_end") << " |\n";
    if (d.machine.count("cpu_busy_start_pct"))
        m << "| CPU before the first round (1 s sample) | busy " << mget("cpu_busy_start_pct") << "%, of which niced "
          << mget("cpu_nice_start_pct") << "%; other processes " << mget("cpu_other_start_pct") << "%"
          << (mget("others_start").empty() || mget("others_start") == "n/a" ? "" : " (" + mget("others_start") + ")")
          << " |\n";
    {
        double lsum = 0, bsum = 0, nsum = 0, ssum = 0, osum = 0;
        int n = 0, no = 0;
        for (auto& r : d.rounds) {
            if (r.warmup) continue;
            lsum += (r.load_before.l1 + r.load_after.l1) / 2;
            bsum += r.cpu_busy_pct;
            nsum += r.cpu_nice_pct;
            ssum += r.cpu_steal_pct;
            if (r.cpu_other_pct >= 0) osum += r.cpu_other_pct, no++;
            n++;
        }
        if (n)
            m << "| during the measured rounds (mean) | 1-min load " << fmt("%.2f", lsum / n) << "; CPU busy "
              << fmt("%.0f", bsum / n) << "% of the machine (/proc/stat: all but idle and iowait), of which niced "
              << fmt("%.0f", nsum / n) << "% (work started with `nice`, normally not ours) and steal "
              << fmt("%.0f", ssum / n) << "%; other processes (busy minus this run's driver, pgbench, servers and hogs) "
              << (no ? fmt("%.0f%%", osum / no) : std::string("n/a")) << " |\n";
    }
    m << "| nice value of this run's processes | " << d.nice
      << (d.nice ? " (bench/run ran under `nice`: its own work counts as niced)" : "") << " |\n";
    if (d.machine.count("busiest_start"))
        m << "| busiest processes at start (top, %CPU of one CPU) | " << mget("busiest_start") << " |\n";
    if (d.machine.count("busiest_end"))
        m << "| busiest processes at end | " << mget("busiest_end") << " |\n";
    m << "\nOther work on the machine: `logs/top-start.txt` and `logs/top-end.txt` (top, at the start and the end).\n";
    m << "\nThe load average before and after every round and the CPU use during it are in `rounds.csv` "
         "(`load1_before`, `load1_after`, `cpu_busy_pct`, `cpu_nice_pct`, `cpu_steal_pct`, `cpu_other_pct`; "
         "`results.json` also names the busiest other processes of each round, `others_top`).\n\n";

    // Versions
    m << "## Versions\n\n| side | installation | PostgreSQL | pgbench | pg_rseq (as the driver installs it) | rseq_slice_mode | rseq_slice_detail | "
         "start-up line |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n";
    std::set<char> done;
    for (auto& c : d.clusters) {
        if (!done.insert(c.side).second) continue;
        const Side& s = c.side == 'A' ? o.a : o.b;
        auto& pb = d.pgbench[c.side - 'A'];
        m << "| " << c.side << " (" << c.side_label << ") | `" << s.prefix << "` | " << c.version << " | `" << pb.path
          << "` (" << pb.version << ") | " << (c.ext_version.empty() ? "not installed" : c.ext_version) << " | "
          << (c.mode_setting.empty() ? "(stock: none)" : c.mode_setting) << " | "
          << (c.detail_setting.empty() ? "(stock: none)" : c.detail_setting) << " | "
          << (c.startup_line.empty() ? "" : "`" + c.startup_line + "`") << " |\n";
    }
    if (kinfo && kinfo->kernel.count("mode") && !kinfo->kernel.at("mode").empty())
        m << "\nMode in force on side " << kinfo->side << ": `" << kinfo->kernel.at("mode") << "` ("
          << (kinfo->kernel.count("mode_reason") ? kinfo->kernel.at("mode_reason") : "") << ").\n";
    m << "\n";

    // Settings
    m << "## Settings\n\n";
    m << "| option | value |\n| --- | --- |\n";
    m << "| workloads | " << join(o.workloads, ", ") << " |\n";
    std::vector<std::string> cs;
    for (size_t i = 0; i < o.clients.size(); i++) cs.push_back(o.clients_spec[i] + " = " + std::to_string(o.clients[i]));
    m << "| clients | " << join(cs, ", ") << " |\n";
    m << "| pgbench threads (-j) | "
      << (o.threads ? std::to_string(o.threads) : fmt("min(clients, %d CPUs)", o.cpus)) << " |\n";
    if (o.cpus != o.ncpu)
        m << "| plan made for | " << o.cpus << " CPUs (--cpus; this machine has " << o.ncpu << ") |\n";
    if (o.budget_min > 0)
        m << "| budget | " << o.budget_min << " min (--budget: the first plan that fits with >= "
          << kMinRoundsForIntervals << " rounds of >= " << kBudgetMinDuration << " s) |\n";
    m << "| rounds | 1 warm-up of " << o.warmup << " s (discarded) + " << o.rounds << " measured of " << o.duration
      << " s, per side and configuration, order A B A B ... |\n";
    {
        std::vector<std::string> sc;
        for (auto& w : o.workloads) sc.push_back(w + " " + std::to_string(workload_scale(o, w)));
        m << "| scale (pgbench -i -s) | " << join(sc, "; ") << " |\n";
    }
    m << "| shared_buffers | " << o.shared_buffers << "; eviction " << o.eviction_shared_buffers << " |\n";
    m << "| CPU hogs | " << o.hogs << (o.hogs ? " busy-loop processes during every round" : "") << " |\n";
    m << "| pgbench protocol | " << o.protocol << " |\n";
    if (!o.settings.empty()) {
        std::vector<std::string> ss;
        for (auto& [k, v] : o.settings) ss.push_back(k + "=" + v);
        m << "| extra settings | " << join(ss, ", ") << " |\n";
    }
    {
        int maxc = o.clients.empty() ? 0 : *std::max_element(o.clients.begin(), o.clients.end());
        m << "\nScale per workload (`pgbench -i -s SCALE`: SCALE x 100,000 rows in pgbench_accounts, SCALE rows in "
             "pgbench_branches):\n\n| workload | scale | accounts | largest client count | scale vs clients |\n"
             "| --- | ---: | ---: | ---: | --- |\n";
        for (auto& w : o.workloads) {
            int sc = workload_scale(o, w);
            std::string note;
            if (w == "tpcb")
                note = sc >= maxc ? "ok: scale >= clients, as pgbench's documentation asks for TPC-B"
                                  : "**scale < clients**: clients queue on the branch rows (see the warning)";
            else if (w == "hot-lwlock")
                note = "not relevant: one sequence for all clients, by design";
            else
                note = "not relevant: read-only";
            m << "| " << w << " | " << sc << " | " << fmt("%lld", 100000LL * sc) << " | " << maxc << " | " << note
              << " |\n";
        }
    }
    m << "\nData size per workload (side A's cluster): ";
    std::vector<std::string> sizes;
    for (auto& c : d.clusters)
        if (c.side == 'A')
            sizes.push_back(c.workload + fmt(": pgbench_accounts + index %.0f MB, shared_buffers %.0f MB (%.1fx)",
                                             c.accounts_bytes / 1048576.0, c.shared_buffers_bytes / 1048576.0,
                                             c.shared_buffers_bytes ? double(c.accounts_bytes) / c.shared_buffers_bytes : 0.0));
    m << join(sizes, "; ") << ".\n\n";
    for (auto& c : d.clusters) {
        if (c.side == 'B' && c.workload == o.workloads.front()) {
            m << "postgresql.conf additions of side B for " << c.workload << " (`" << c.conf_file
              << "`; every cluster's file is in `conf/`; side A's differ only in port, socket folder"
              << (o.a.patched ? " and mode" : o.detail ? " and have no rseq_slice_mode or rseq_slice_detail" : " and have no rseq_slice_mode") << "; eviction clusters only in shared_buffers):\n\n```\n"
              << c.conf << "```\n\n";
        }
    }
    m << "Each side of each workload had its own fresh cluster: `initdb -N --no-locale -E UTF8`, the settings above, "
         "`pgbench -i -q -s SCALE`, `CREATE EXTENSION pg_rseq` (its current version, 1.4.0; an older one updated with `ALTER EXTENSION pg_rseq UPDATE`), `VACUUM ANALYZE`, `CHECKPOINT`. Both servers of a "
         "workload run at the same time (the idle one costs nothing). pgbench connects over the Unix socket "
         "(`-h <cluster folder>`), with `-n -c C -j J -T D -P D`; before each TPC-B round the driver does what pgbench "
         "would (VACUUM pgbench_branches and pgbench_tellers, TRUNCATE pgbench_history), before the counter reset.\n\n";

    // Method
    m << "## Method\n\n";
    m << "- tps per round is pgbench's `tps = ... (without initial connection time)`; latency average and stddev are "
         "pgbench's (`-P` makes it measure every transaction).\n"
         "- Per configuration (workload x clients) and side: mean and sample standard deviation of the measured rounds' "
         "tps, 95% confidence interval mean +- t(0.975, n-1) sd/sqrt(n).\n"
         "- Ratio B/A of the mean tps with a 95% **Fieller** interval (independent samples, unequal variances; t "
         "quantile with the Welch-Satterthwaite degrees of freedom of mean(B) - R mean(A)). Welch's t-test gives the "
         "two-sided p-value of mean(B) - mean(A). With few rounds these are wide; with many configurations some "
         "p < 0.05 are expected by chance (no multiple-comparison correction).\n"
         "- Paired: round i of A and round i of B ran back to back and share the machine's background load; the "
         "paired ratio is the geometric mean of B_i/A_i with a t interval (n-1 df) on the log ratios, and its p-value "
         "that of a one-sample t-test of the log ratios. On a shared machine it is the sharper of the two.\n"
         "- Lock layer counters (patched sides): `pg_stat_rseq_reset()` before each round, then after pgbench has exited "
         "one query on the driver's own connection (idle during the round) reads `pg_stat_rseq_totals` and "
         "`pg_stat_rseq_tranche`. They include pgbench's connection set-up and tear-down. Per 1000 transactions = sum "
         "over the measured rounds / sum of transactions x 1000. A counter the views show as NULL (a detail counter "
         "while `rseq_slice_detail` is off) is not counted: it stays `n/a` in every sum, never 0.\n";
    // the first cluster that counts (mode off counts nothing)
    auto is_off = [](const std::string& l) { return l.size() >= 4 && l.compare(l.size() - 4, 4, ":off") == 0; };
    const ClusterInfo* idle = nullptr;
    for (auto& c : d.clusters)
        if (c.idle_read_lwlock_sections && (!idle || (is_off(idle->side_label) && !is_off(c.side_label))))
            idle = &c;
    for (auto& c : d.clusters)
        if (idle == &c) {
            m << "- The measuring itself (a reset, then the read, no pgbench) counted " << *c.idle_read_lwlock_sections
              << " LWLock sections";
            if (c.idle_read_sections) m << " (" << *c.idle_read_sections << " sections)";
            m << " on side " << c.side << " (" << c.workload << "): negligible against the rounds' counts.\n";
            break;
        }
    m << "- Intervals and p-values need at least " << kMinRoundsForIntervals
      << " measured rounds per side (2 rounds give 1 degree of freedom, t(0.975, 1) = 12.7: an interval that "
         "says nothing); below that the tables say `n/a` with the reason.\n"
         "- Machine load: CPU time is read from `/proc/stat` (the machine) and `/proc/PID/stat` (every process) "
         "before and after each round. Other processes = the machine's busy time minus the CPU time of this run's "
         "processes (the driver with pgbench and the hogs, both postmasters with all their backends; kernel work "
         "for them counts as other). Niced time (user time of processes started with `nice`) is shown apart: "
         "`CPU busy` includes it. The report warns that the machine was not idle when other processes used more "
         "than "
      << fmt("%.0f", kOtherCpuWarnPct) << "% of the CPU time on average over the measured rounds or more than "
      << fmt("%.0f", kOtherCpuRoundWarnPct) << "% in one of them, more than " << fmt("%.0f", kOtherCpuStartWarnPct)
      << "% in the 1 s sample before the first round, or when the 1-minute load average at the start exceeded "
         "the CPU count.\n";
    m << "\n";

    // Results
    m << "## Throughput\n\n";
    {
        int sig = 0, n = 0;
        std::vector<std::string> which;
        for (auto& c : sums) {
            if (!std::isfinite(c.w.p)) continue;
            n++;
            if (c.w.p < 0.05) {
                sig++;
                which.push_back(c.cfg.workload + fmt(" c=%d (B/A %.3f)", c.cfg.clients, c.ratio.r));
            }
        }
        int psig = 0;
        std::vector<std::string> pwhich;
        for (auto& c : sums)
            if (std::isfinite(c.paired.p) && c.paired.p < 0.05) {
                psig++;
                pwhich.push_back(c.cfg.workload + fmt(" c=%d (%.3f)", c.cfg.clients, c.paired.ratio));
            }
        bool any_iv = false;
        for (auto& c : sums) any_iv = any_iv || c.intervals;
        if (!any_iv && !sums.empty())
            m << "No intervals and no significance tests: fewer than " << kMinRoundsForIntervals
              << " measured rounds per side (" << na << "). ";
        else
            m << "In " << sig << " of " << n << " configurations the difference of mean tps is significant at 5% "
              << "(Welch)" << (which.empty() ? "" : ": " + join(which, ", ")) << "; paired by round, in " << psig
              << (pwhich.empty() ? "" : ": " + join(pwhich, ", ")) << ". ";
        m << "Deschedules and grants: lock layer counters per 1000 transactions (patched sides; `-` on stock).\n\n";
    }
    m << "| workload | clients | A tps mean +- sd | A 95% CI | B tps mean +- sd | B 95% CI | B/A [95% CI] | Welch p | "
         "reading | paired B/A [95% CI] | paired p | deschedules /1000 A; B | grants /1000 A; B |\n"
         "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |\n";
    auto p1000 = [](const SideSummary& s, const char* k) {
        return s.counters ? num(s.per1000(k), "%.2f") : std::string("-");
    };
    for (auto& c : sums) {
        m << "| " << c.cfg.workload << " | " << c.cfg.clients;
        for (int s = 0; s < 2; s++) {
            m << " | " << num(c.s[s].tps.mean) << " +- " << num(c.s[s].tps.sd) << " | ";
            if (c.s[s].tps.n >= kMinRoundsForIntervals)
                m << "[" << num(c.s[s].tps.ci_lo) << ", " << num(c.s[s].tps.ci_hi) << "]";
            else
                m << na;
        }
        bool piv = c.paired.n >= kMinRoundsForIntervals;
        m << " | " << (c.intervals ? ratio_str(c.ratio) : num(c.ratio.r, "%.3f") + ", interval " + na) << " | "
          << (c.intervals ? pval(c.w.p) : na) << " | "
          << (c.intervals ? verdict(c) : o.preset == "quick" ? std::string("smoke test: no verdict") : "too few rounds")
          << (c.complete ? "" : " (incomplete)") << " | "
          << (piv && std::isfinite(c.paired.lo) ? fmt("%.3f [%.3f, %.3f]", c.paired.ratio, c.paired.lo, c.paired.hi)
                                                : num(c.paired.ratio, "%.3f") + (piv ? "" : ", interval " + na))
          << " | " << (piv ? pval(c.paired.p) : na) << " | " << p1000(c.s[0], "descheduled_while_holding") << "; "
          << p1000(c.s[1], "descheduled_while_holding") << " | " << p1000(c.s[0], "grants") << "; "
          << p1000(c.s[1], "grants") << " |\n";
    }
    m << "\n## Latency and machine load\n\nLoad: mean of the 1-minute load average before and after each measured "
         "round of the side (the machine's other work shows here; pgbench's own clients add about one per CPU). "
         "Niced and other: mean share of the machine's CPU time during the side's measured rounds, niced (any "
         "process's) and used by processes other than this run's.\n\n"
         "| workload | clients | A latency avg (sd) ms | B latency avg (sd) ms | A failed | B failed | A load | B load | "
         "A niced % | B niced % | A other % | B other % |\n"
         "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
    for (auto& c : sums) {
        double load[2] = {0, 0}, nice[2] = {0, 0}, other[2] = {0, 0};
        int n[2] = {0, 0}, no[2] = {0, 0};
        for (auto& r : d.rounds)
            if (r.config == c.cfg.index && !r.warmup) {
                int k = r.side - 'A';
                load[k] += (r.load_before.l1 + r.load_after.l1) / 2;
                nice[k] += r.cpu_nice_pct;
                n[k]++;
                if (r.cpu_other_pct >= 0) other[k] += r.cpu_other_pct, no[k]++;
            }
        m << "| " << c.cfg.workload << " | " << c.cfg.clients << " | " << num(c.s[0].lat_avg, "%.3f") << " ("
          << num(c.s[0].lat_sd, "%.3f") << ") | " << num(c.s[1].lat_avg, "%.3f") << " (" << num(c.s[1].lat_sd, "%.3f")
          << ") | " << c.s[0].failed << " | " << c.s[1].failed << " | " << num(n[0] ? load[0] / n[0] : NAN, "%.2f")
          << " | " << num(n[1] ? load[1] / n[1] : NAN, "%.2f");
        for (int k = 0; k < 2; k++) m << " | " << num(n[k] ? nice[k] / n[k] : NAN, "%.0f");
        for (int k = 0; k < 2; k++) m << " | " << num(no[k] ? other[k] / no[k] : NAN, "%.0f");
        m << " |\n";
    }

    bool any_counters = false;
    for (auto& c : sums)
        if (c.s[0].counters || c.s[1].counters) any_counters = true;
    m << "\n## Lock layer counters\n\n";
    if (!any_counters) {
        m << "No side has counters (stock servers only, or pg_rseq missing).\n\n";
    } else {
        m << "Measured rounds only. Sections per transaction; the rest per 1000 transactions. `"
          << kNotCountedNote << "`: not counted (`rseq_slice_detail` off; `--detail` counts it).\n\n";
        m << "| workload | clients | side | sections/xact | spinlock | buffer header | LWLock | wait list | nested | "
             "max depth | requests | grants | yields | yields in grant | revoked | **deschedules** /1000 xacts |\n"
             "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
        for (auto& c : sums)
            for (int s = 0; s < 2; s++) {
                auto& ss = c.s[s];
                if (!ss.counters) continue;
                auto px = [&](const std::string& k) {
                    return ss.counted(k) ? num(ss.per1000(k) / 1000.0, "%.2f") : std::string(kNotCountedNote);
                };
                auto pk = [&](const std::string& k, const char* f) {
                    return ss.counted(k) ? num(ss.per1000(k), f) : std::string(kNotCountedNote);
                };
                m << "| " << c.cfg.workload << " | " << c.cfg.clients << " | " << static_cast<char>('A' + s) << " ("
                  << (s ? o.b.label() : o.a.label()) << ") | " << px("sections") << " | " << px("spinlock_sections")
                  << " | " << px("buffer_header_sections") << " | " << px("lwlock_sections") << " | "
                  << px("wait_list_sections") << " | " << px("nested_entries") << " | "
                  << (ss.counted("max_depth") ? std::to_string(*ss.sum.at("max_depth")) : std::string(kNotCountedNote))
                  << " | " << pk("requests", "%.2f") << " | " << pk("grants", "%.2f") << " | " << pk("yields", "%.2f")
                  << " | " << pk("yields_in_grant", "%.2f") << " | " << pk("revoked", "%.2f") << " | **"
                  << pk("descheduled_while_holding", "%.3f") << "** |\n";
            }
        m << "\n(The spinlock, buffer header, LWLock and wait list columns count sections per lock kind per "
             "transaction, nested ones included; sections counts outermost sections only. max depth is the deepest "
             "nesting in the round, in locks (16: a process took all 16 lock manager partition locks, as the standby "
             "snapshot of the background writer does every 15 s). yields in grant: yields that returned 1, the section "
             "ended inside the granted extension; revoked: requests found cleared with granted clear at the release, a grant "
             "that already ended or a clear without a grant (the kernel does both; which one is unknown).)\n\n";

        m << "### Deschedules per tranche\n\nTop tranches by `descheduled_while_holding`, measured rounds of all client "
             "counts of the workload. Grants, yields, yields in grant and revoked are charged to the lock whose release "
             "closed the outermost section; yielded in grant % = yields in grant / grants (n/a without grants). `"
          << kNotCountedNote << "`: the acquisitions of the spinlock, buffer header and wait list rows are counted "
             "only with `rseq_slice_detail` on.\n\n| workload | side | tranche | kind | acquisitions/xact | deschedules | "
             "/1000 xacts | grants | yields | yields in grant | revoked | yielded in grant % |\n"
             "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
        for (auto& w : o.workloads)
            for (const Side* s : {&o.a, &o.b}) {
                if (!s->patched) continue;
                int64_t x = 0;
                auto tt = tranche_totals(d, w, s->id, 0, &x);
                int shown = 0;
                for (auto& t : tt) {
                    if (shown >= 6) break;
                    if (t.desched == 0 && shown > 0) break;
                    m << "| " << w << " | " << s->id << " | " << t.tranche << " | " << t.kind << " | "
                      << (t.acq ? num(x ? double(*t.acq) / x : NAN, "%.2f") : std::string(kNotCountedNote)) << " | "
                      << t.desched << " | " << num(x ? 1000.0 * t.desched / x : NAN, "%.3f") << " | " << t.grants
                      << " | " << t.yields << " | " << t.yields_in_grant << " | " << t.revoked << " | "
                      << (t.grants > 0 ? fmt("%.1f", 100.0 * t.yields_in_grant / t.grants) : std::string("n/a"))
                      << " |\n";
                    shown++;
                }
            }
        m << "\n";
    }

    if (!plots.empty()) {
        m << "## Plots\n\n";
        for (auto& p : plots) m << "![" << p << "](" << p << ")\n\n";
    } else if (d.machine.count("plots_note")) {
        m << "## Plots\n\n" << d.machine.at("plots_note") << "\n\n";
    }

    m << "## Files\n\n"
         "- `rounds.csv`: one row per round (warm-up rounds have `warmup = 1`), tps, latency, load, `detail` (1: "
         "the detail counters were counted, 0: not), counters (empty on stock; `NA`: not counted)\n"
         "- `tranches.csv`: per round and tranche: acquisitions (`NA`: not counted), deschedules, grants, yields, "
         "yields in grant, revoked\n"
         "- `results.json`: everything above, with per-configuration summaries\n"
         "- `command.txt`: the command line; `conf/`: each cluster's settings; `logs/`: pgbench output of every "
         "round, initdb, pgbench -i and server logs\n"
         "- `plots/`: PNGs and their gnuplot sources\n";
    write_file(path, m.str());
}

// ---------------------------------------------------------------------------
// Plots (gnuplot)
// ---------------------------------------------------------------------------
static std::string gp_quote(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        if (c == '_') out += "\\\\";  // enhanced text: literal underscore
        out += c;
    }
    return out + "\"";
}

std::vector<std::string> make_plots(const std::string& outdir, const RunData& d, std::string& note) {
    std::vector<std::string> made;
    const Options& o = d.opt;
    std::string gp = which("gnuplot");
    if (gp.empty()) {
        note = "gnuplot not found (apt-get install gnuplot-nox, or `make bench-deps`): no plots.";
        return made;
    }
    std::string pdir = outdir + "/plots";
    mkdirs(pdir);
    auto run_gp = [&](const std::string& name, const std::string& script) {
        std::string sp = pdir + "/" + name + ".gp";
        write_file(sp, script);
        SpawnOpts so;
        so.out_path = pdir + "/" + name + ".log";
        so.cwd = pdir;
        int st = run_cmd({gp, name + ".gp"}, so, 120, false);
        if (st == 0 && file_exists(pdir + "/" + name + ".png")) {
            made.push_back("plots/" + name + ".png");
            unlink((pdir + "/" + name + ".log").c_str());
        } else {
            note += "gnuplot failed for " + name + " (see plots/" + name + ".log). ";
        }
    };

    // 1. tps per round, one panel per client count, one PNG per workload.
    for (auto& w : o.workloads) {
        std::vector<const Config*> cfgs;
        for (auto& c : d.configs)
            if (c.workload == w) cfgs.push_back(&c);
        bool any = false;
        for (auto* c : cfgs)
            for (auto& r : d.rounds)
                if (r.config == c->index) any = true;
        if (!any) continue;
        std::ostringstream dat;
        for (size_t i = 0; i < cfgs.size(); i++) {
            if (i) dat << "\n\n";
            dat << "# clients " << cfgs[i]->clients << ": rep tpsA tpsB (rep 0 = warm-up)\n";
            for (int rep = 0; rep <= o.rounds; rep++) {
                std::string a = "NaN", b = "NaN";
                for (auto& r : d.rounds)
                    if (r.config == cfgs[i]->index && r.rep == rep) (r.side == 'A' ? a : b) = fmt("%.3f", r.tps);
                dat << rep << " " << a << " " << b << "\n";
            }
        }
        write_file(pdir + "/tps-" + w + ".dat", dat.str());
        int n = static_cast<int>(cfgs.size());
        int cols = std::min(n, 4), rows = (n + cols - 1) / cols;
        std::ostringstream g;
        g << "set terminal pngcairo size " << 420 * cols << "," << 360 * rows + 40 << " font 'sans,9'\n"
          << "set output 'tps-" << w << ".png'\n"
          << "set datafile missing 'NaN'\n"
          << "set multiplot layout " << rows << "," << cols << " title " << gp_quote(w + ": tps per round (round 0 = warm-up, discarded)") << "\n"
          << "set xlabel 'round'\nset ylabel 'tps'\nset grid\nset key bottom right\nset xrange [-0.5:" << o.rounds + 0.5
          << "]\nset xtics 1\nset yrange [0:*]\n";
        for (int i = 0; i < n; i++)
            g << "set title 'clients = " << cfgs[i]->clients << "'\nplot 'tps-" << w << ".dat' index " << i
              << " using 1:2 with linespoints pt 7 title " << gp_quote("A " + o.a.label()) << ", '' index " << i
              << " using 1:3 with linespoints pt 5 title " << gp_quote("B " + o.b.label()) << "\n";
        g << "unset multiplot\n";
        run_gp("tps-" + w, g.str());
    }

    // 2. B/A ratio with the Fieller interval, every configuration: log
    //    axis, whiskers clipped (ratio_axis), legend below the plot; no
    //    whiskers below kMinRoundsForIntervals rounds (smoke test).
    {
        auto sums = summaries(d);
        std::ostringstream dat;
        dat << "# i label ratio lo hi paired plo phi (lo = hi = the ratio: no interval)\n";
        int i = 0;
        bool any_iv = false;
        std::vector<double> points, ends;
        for (auto& c : sums) {
            if (!std::isfinite(c.ratio.r)) continue;
            bool iv = c.intervals && c.ratio.bounded;
            double lo = iv ? c.ratio.lo : c.ratio.r, hi = iv ? c.ratio.hi : c.ratio.r;
            double pr = c.paired.ratio;
            bool piv = c.paired.n >= kMinRoundsForIntervals && std::isfinite(c.paired.lo);
            double plo = piv ? c.paired.lo : pr, phi = piv ? c.paired.hi : pr;
            any_iv = any_iv || iv || piv;
            points.push_back(c.ratio.r);
            points.push_back(pr);
            for (double e : {lo, hi, plo, phi}) ends.push_back(e);
            dat << i++ << " \"" << c.cfg.workload << " c=" << c.cfg.clients << "\" " << fmt("%.5f %.5f %.5f", c.ratio.r, lo, hi)
                << " " << fmt("%.5f %.5f %.5f", pr, plo, phi) << "\n";
        }
        if (i > 0) {
            write_file(pdir + "/ratio.dat", dat.str());
            double ylo, yhi;
            bool clipped;
            ratio_axis(points, ends, ylo, yhi, clipped);
            std::string sub = !any_iv ? fmt("no intervals: %s", too_few_rounds_note(o).c_str())
                              : clipped ? fmt("95%% intervals, log axis; whiskers clipped at the frame")
                                        : std::string("95% intervals, log axis");
            std::ostringstream g;
            g << "set terminal pngcairo size " << std::max(640, 90 * i + 200) << ",460 font 'sans,9'\n"
              << "set output 'ratio.png'\nset title " << gp_quote("tps ratio B/A (" + o.b.label() + " / " + o.a.label() + ")")
              << ".\"\\n\"." << gp_quote(sub) << "\n"
              << "set ylabel 'B/A (log scale)'\nset logscale y\nset grid ytics mytics\n"
              << "set yrange [" << fmt("%.4f:%.4f", ylo, yhi) << "]\n"
              << "set ytics (" << ratio_ticks(ylo, yhi) << ")\n"
              << "set xrange [-0.5:" << i - 0.5 << "]\nset xtics rotate by -30\n"
              << "set arrow from -0.5,1 to " << i - 0.5 << ",1 nohead dt 2\n"
              << "set key below horizontal\n"
              << "plot 'ratio.dat' using ($1-0.1):3:4:5:xtic(2) with " << (any_iv ? "yerrorbars" : "points")
              << " pt 7 title 'ratio of means" << (any_iv ? ", Fieller" : "") << "', '' using ($1+0.1):6:7:8 with "
              << (any_iv ? "yerrorbars" : "points") << " pt 5 title 'paired by round (geometric mean)'\n";
            run_gp("ratio", g.str());
        }
    }

    // 3. Deschedules per tranche (top 10), per workload and patched side:
    //    per 1000 transactions, one bar per client count.
    for (auto& w : o.workloads)
        for (const Side* s : {&o.a, &o.b}) {
            if (!s->patched) continue;
            int64_t xall = 0;
            auto tt = tranche_totals(d, w, s->id, 0, &xall);
            if (tt.empty()) continue;
            std::vector<TrancheTotal> top;
            for (auto& t : tt)
                if (top.size() < 10 && (t.desched > 0 || top.empty())) top.push_back(t);
            std::vector<int> clients;
            for (auto& c : d.configs)
                if (c.workload == w) clients.push_back(c.clients);
            std::ostringstream dat;
            dat << "tranche";
            for (int c : clients) dat << " \"c=" << c << "\"";
            dat << "\n";
            std::map<int, std::map<std::string, double>> per;
            for (int c : clients) {
                int64_t x = 0;
                auto tc = tranche_totals(d, w, s->id, c, &x);
                for (auto& t : tc) per[c][t.kind + "/" + t.tranche] = x ? 1000.0 * t.desched / x : 0;
            }
            for (auto& t : top) {
                dat << "\"" << t.tranche << (t.kind == "lwlock" ? "" : "") << "\"";
                for (int c : clients) dat << " " << fmt("%.5f", per[c].count(t.kind + "/" + t.tranche) ? per[c][t.kind + "/" + t.tranche] : 0.0);
                dat << "\n";
            }
            std::string name = fmt("desched-%s-%c", w.c_str(), s->id);
            write_file(pdir + "/" + name + ".dat", dat.str());
            bool none = top.empty() || top[0].desched == 0;
            std::ostringstream g;
            g << "set terminal pngcairo size 900,450 font 'sans,9'\nset output '" << name << ".png'\n"
              << "set title " << gp_quote(w + ", side " + std::string(1, s->id) + " (" + s->label() + "): lock holders descheduled per 1000 transactions, top tranches" + (none ? " (none counted)" : "")) << "\n"
              << "set style data histograms\nset style histogram clustered gap 1\nset style fill solid 0.8 border -1\n"
              << "set boxwidth 0.9\nset xtics rotate by -30\nset ylabel 'deschedules / 1000 xacts'\nset grid ytics\n"
              << "set yrange [0:*]\nset key top right\n"
              << "plot for [i=2:" << clients.size() + 1 << "] '" << name << ".dat' using i:xtic(1) title columnheader(i)\n";
            run_gp(name, g.str());
        }
    return made;
}

}  // namespace bench
