// main.cpp: bench/run, the pgbench comparison driver of pg_rseq.
//
// For each workload, a fresh cluster per side (initdb, bench.conf,
// pgbench -i, CREATE EXTENSION pg_rseq), both servers up; for each client
// count: one warm-up round per side, then --rounds measured rounds per side
// in the order A B A B ...  Before each round the lock layer's counters are
// reset (pg_stat_rseq_reset()), after pgbench exits they are read with one
// query on a connection that stayed open (idle) during the round.  Results
// go to rounds.csv (one row per round) and tranches.csv as they come, and to
// results.json, report.md and plots/ after every configuration and at the
// end, whatever the end is (done, failed, interrupted).
#include "bench.hpp"
#include "pg.hpp"
#include "proc.hpp"
#include "stats.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cerrno>
#include <cstring>
#include <memory>

#include <set>

#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

namespace bench {

const std::vector<std::string> kCounterCols = {
    "sections",     "spinlock_sections", "buffer_header_sections", "lwlock_sections", "wait_list_sections",
    "nested_entries", "max_depth",       "requests",               "grants",          "yields",
    "yields_in_grant", "revoked",        "descheduled_while_holding"};

// The pg_rseq version the driver installs and reads (its control file's
// default_version).
const char* const kExtVersion = "1.4.0";

// kCounterCols as a select list of pg_stat_rseq_totals: since 1.2.0 the
// view shows grants_in_place (= grants - revoked) and requests_cleared (=
// revoked) instead of the lock layer's grants and revoked.
static std::string kCounterSelect() {
    std::string out;
    for (const auto& c : kCounterCols) {
        if (!out.empty()) out += ", ";
        if (c == "grants")
            out += "grants_in_place + requests_cleared AS grants";
        else if (c == "revoked")
            out += "requests_cleared AS revoked";
        else
            out += c;
    }
    return out;
}

// The counters the lock layer counts only with rseq_slice_detail = on
// (requests since lock layer layout 3): NULL otherwise.
const std::vector<std::string> kDetailCols = {"sections",           "spinlock_sections", "buffer_header_sections",
                                              "wait_list_sections", "nested_entries",    "max_depth",
                                              "requests"};

bool is_detail_col(const std::string& c) { return std::find(kDetailCols.begin(), kDetailCols.end(), c) != kDetailCols.end(); }

const std::vector<Workload>& all_workloads(const std::string& repo) {
    static std::vector<Workload> w;
    if (w.empty()) {
        w.push_back({"select-only", "pgbench built-in select-only (-S): one primary-key SELECT per transaction",
                     "select-only", "", false});
        w.push_back({"tpcb", "pgbench built-in TPC-B-like: 3 UPDATEs, 1 SELECT, 1 INSERT per transaction",
                     "tpcb-like", "", false});
        w.push_back({"hot-lwlock",
                     "bench/workloads/hot-lwlock.sql: nextval() on one sequence (one exclusive buffer content "
                     "LWLock for all clients)",
                     "", repo + "/bench/workloads/hot-lwlock.sql", false});
        w.push_back({"eviction",
                     "bench/workloads/eviction.sql: random primary-key reads of data ~6x shared_buffers (clock "
                     "sweep, buffer header spinlocks)",
                     "", repo + "/bench/workloads/eviction.sql", true});
    }
    return w;
}

static const Workload& workload(const Options& o, const std::string& name) {
    for (auto& w : all_workloads(o.repo))
        if (w.name == name) return w;
    throw Error("unknown workload " + name);
}

static int workload_scale(const Options& o, const Workload& w) { return workload_scale(o, w.name); }

static void say(const std::string& s) {
    fprintf(stdout, "%s\n", s.c_str());
    fflush(stdout);
}

// ---------------------------------------------------------------------------
// Time estimate
// ---------------------------------------------------------------------------
struct Eta {
    double setup_factor = 1.0;  // measured / predicted setup time
    double setup_pred_done = 0, setup_real_done = 0;
    double overhead = kRoundOverheadS;  // s per round beyond its nominal length
    double overhead_sum = 0;
    int overhead_n = 0;

    static double predict_setup(int scale) { return kSetupBaseS + kSetupPerScaleS * scale; }
    void setup_done(int scale, double seconds) {
        setup_pred_done += predict_setup(scale);
        setup_real_done += seconds;
        setup_factor = setup_real_done / setup_pred_done;
    }
    void round_done(double nominal, double wall) {
        overhead_sum += std::max(0.0, wall - nominal);
        overhead_n++;
        overhead = overhead_sum / overhead_n;
    }
};

// Remaining time from (workload index wi, client index ci, round position k
// of this configuration, setups of this workload done).
static double remaining(const Options& o, const Eta& e, size_t wi, size_t ci, int k, int setups_done) {
    int per_cfg = 2 * (o.rounds + 1);
    auto cfg_time = [&](int from) {
        double t = 0;
        for (int i = from; i < per_cfg; i++) t += (i < 2 ? o.warmup : o.duration) + e.overhead;
        return t;
    };
    double t = 0;
    for (size_t w = wi; w < o.workloads.size(); w++) {
        const Workload& wl = workload(o, o.workloads[w]);
        int sd = (w == wi) ? setups_done : 0;
        t += (2 - sd) * Eta::predict_setup(workload_scale(o, wl)) * e.setup_factor;
        for (size_t c = (w == wi ? ci : 0); c < o.clients.size(); c++)
            t += cfg_time((w == wi && c == ci) ? k : 0);
    }
    return t;
}

double plan_seconds(const Options& o) { return remaining(o, Eta(), 0, 0, 0, 0); }

int config_threads(const Options& o, int clients) {
    return o.threads > 0 ? std::min(o.threads, clients) : std::min(clients, o.cpus);
}

// ---------------------------------------------------------------------------
// CPU time: the machine's (/proc/stat) and this run's processes' (/proc/PID/stat)
// ---------------------------------------------------------------------------
// A snapshot of the machine's CPU counters and of every process.
struct CpuSnapshot {
    CpuTimes machine;
    std::vector<ProcStat> procs;
};
static CpuSnapshot cpu_snapshot() {
    CpuSnapshot s;
    s.procs = read_procs();
    s.machine = read_cpu_times();
    return s;
}

// Ticks of this run's processes: the trees below `roots` (the driver, whose
// reaped children pgbench, hogs, pg_ctl and top are in its cutime, and the
// postmasters, whose reaped backends are in theirs).  Every process in the
// trees counts utime + stime + cutime + cstime, so a child reaped between
// two snapshots moves from its own line to its parent's cutime.
static uint64_t own_ticks(const CpuSnapshot& s, const std::set<int>& roots, std::set<int>* own) {
    std::map<int, std::vector<const ProcStat*>> kids;
    std::map<int, const ProcStat*> by_pid;
    for (auto& p : s.procs) {
        kids[p.ppid].push_back(&p);
        by_pid[p.pid] = &p;
    }
    std::set<int> seen;
    std::vector<int> todo(roots.begin(), roots.end());
    uint64_t t = 0;
    while (!todo.empty()) {
        int pid = todo.back();
        todo.pop_back();
        if (!seen.insert(pid).second) continue;
        auto it = by_pid.find(pid);
        if (it != by_pid.end()) t += it->second->ticks + it->second->child_ticks;
        for (auto* c : kids[pid]) todo.push_back(c->pid);
    }
    if (own) *own = seen;
    return t;
}

struct CpuUse {
    double busy_pct = 0, nice_pct = 0, steal_pct = 0;  // of the machine
    double other_pct = -1;                             // of the machine; -1 unknown
    std::string others_top;                            // "cc1 95%, make 3%" (% of one CPU)
};
// What the machine did between two snapshots, and how much of it was not
// this run's processes.
static CpuUse cpu_use(const CpuSnapshot& a, const CpuSnapshot& b, const std::set<int>& roots, int ncpu) {
    CpuUse u;
    if (b.machine.total <= a.machine.total) return u;
    double total = static_cast<double>(b.machine.total - a.machine.total);
    u.busy_pct = 100.0 * (b.machine.busy - a.machine.busy) / total;
    u.nice_pct = 100.0 * (b.machine.nice - a.machine.nice) / total;
    u.steal_pct = 100.0 * (b.machine.steal - a.machine.steal) / total;
    std::set<int> own_a, own_b;
    uint64_t oa = own_ticks(a, roots, &own_a), ob = own_ticks(b, roots, &own_b);
    double own = ob >= oa ? static_cast<double>(ob - oa) : 0.0;
    double busy = static_cast<double>(b.machine.busy - a.machine.busy);
    u.other_pct = std::max(0.0, std::min(100.0, 100.0 * (busy - own) / total));
    // The busiest other processes still alive at the end (those started
    // during the interval with all their time; those that ended before it
    // are in other_pct but cannot be named).
    std::map<int, const ProcStat*> before;
    for (auto& p : a.procs) before[p.pid] = &p;
    std::map<std::string, double> by_comm;
    for (auto& p : b.procs) {
        if (own_b.count(p.pid) || own_a.count(p.pid)) continue;
        auto it = before.find(p.pid);
        uint64_t t0 = it == before.end() ? 0 : it->second->ticks;
        if (p.ticks < t0) continue;
        by_comm[p.comm] += static_cast<double>(p.ticks - t0);
    }
    std::vector<std::pair<double, std::string>> v;
    double one_cpu = total / std::max(1, ncpu);
    for (auto& [c, t] : by_comm)
        if (100.0 * t / one_cpu >= 1.0) v.push_back({100.0 * t / one_cpu, c});
    std::sort(v.rbegin(), v.rend());
    std::vector<std::string> top;
    for (size_t i = 0; i < v.size() && i < 5; i++) top.push_back(fmt("%s %.0f%%", v[i].second.c_str(), v[i].first));
    u.others_top = join(top, ", ");
    return u;
}

// ---------------------------------------------------------------------------
// Machine and versions
// ---------------------------------------------------------------------------
static std::map<std::string, std::string> machine_info(const Options& o) {
    std::map<std::string, std::string> m;
    m["nproc"] = std::to_string(o.ncpu);
    struct utsname u;
    if (uname(&u) == 0) {
        m["kernel_release"] = u.release;
        m["kernel_version"] = u.version;
        m["arch"] = u.machine;
    }
    try {
        for (auto& line : split(read_file("/proc/meminfo"), '\n'))
            if (starts_with(line, "MemTotal:")) {
                long kb = strtol(line.c_str() + 9, nullptr, 10);
                m["memory"] = fmt("%.1f GiB", kb / 1048576.0);
            }
        for (auto& line : split(read_file("/proc/cpuinfo"), '\n'))
            if (starts_with(line, "model name") && !m.count("cpu_model")) m["cpu_model"] = trim(line.substr(line.find(':') + 1));
    } catch (const std::exception&) {
    }
    if (file_exists("/sys/kernel/debug/sched/preempt")) {
        try {
            m["preempt"] = trim(read_file("/sys/kernel/debug/sched/preempt"));
        } catch (...) {
        }
    }
    LoadAvg l = read_loadavg();
    m["loadavg_start"] = fmt("%.2f %.2f %.2f", l.l1, l.l5, l.l15);
    return m;
}

// The busiest processes of top's last iteration: "cc1 98%, make 5%, ..."
// (at most 8, each at or above 5 % of one CPU); "none at or above 5 %" when
// no process reached that; "n/a (top gave no process table)" when top
// failed or printed no table (so the report's cell is never blank).
static std::string top_summary(const std::string& top) {
    size_t k = top.rfind("PID USER");
    if (k == std::string::npos) return "n/a (top gave no process table)";
    auto lines = split(top.substr(k), '\n');
    std::vector<std::string> out;
    for (size_t i = 1; i < lines.size() && out.size() < 8; i++) {
        std::vector<std::string> f;
        for (auto& w : split(lines[i], ' '))
            if (!w.empty()) f.push_back(w);
        if (f.size() < 12) continue;
        double cpu = atof(f[8].c_str());
        if (cpu < 5) break;
        out.push_back(f[11] + " " + f[8] + "%");
    }
    return out.empty() ? std::string("none at or above 5 %") : join(out, ", ");
}

// ---------------------------------------------------------------------------
// pgbench output
// ---------------------------------------------------------------------------
static bool parse_pgbench(const std::string& text, Round& r) {
    bool have_tps = false;
    for (auto& line : split(text, '\n')) {
        double v;
        long long n;
        if (sscanf(line.c_str(), "number of transactions actually processed: %lld", &n) == 1) r.xacts = n;
        else if (sscanf(line.c_str(), "number of failed transactions: %lld", &n) == 1) r.failed = n;
        else if (sscanf(line.c_str(), "latency average = %lf ms", &v) == 1) r.lat_avg = v;
        else if (sscanf(line.c_str(), "latency stddev = %lf ms", &v) == 1) r.lat_sd = v;
        else if (sscanf(line.c_str(), "initial connection time = %lf ms", &v) == 1) r.conn_ms = v;
        else if (sscanf(line.c_str(), "tps = %lf", &v) == 1) {
            r.tps = v;
            have_tps = true;
        }
    }
    return have_tps;
}

// ---------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------
class Runner {
public:
    explicit Runner(RunData& d) : d_(d), o_(d.opt) {}
    void run();
    void write_outputs(bool final_plots);

private:
    std::unique_ptr<Cluster> setup_side(const Side& s, const Workload& w, ClusterInfo& info);
    void run_round(Cluster& cl, const Side& s, const Workload& w, const Config& cfg, int rep, int total);
    void run_round_once(Cluster& cl, const Side& s, const Workload& w, const Config& cfg, int rep, int total,
                        int attempt);
    void read_counters(Cluster& cl, Round& r);
    std::string rel(const std::string& p) const { return starts_with(p, o_.out + "/") ? p.substr(o_.out.size() + 1) : p; }

    RunData& d_;
    const Options& o_;
    Eta eta_;
    Hogs hogs_;
    int round_no_ = 0;
    int total_rounds_ = 0;
    size_t wi_ = 0, ci_ = 0;
    int k_ = 0, setups_done_ = 0;
    std::string csv_, tranche_csv_;
    bool counters_[2] = {false, false};
    std::set<int> roots_;  // the driver and the running postmasters: this run's CPU use
};

std::unique_ptr<Cluster> Runner::setup_side(const Side& s, const Workload& w, ClusterInfo& info) {
    double t0 = now_mono();
    int scale = workload_scale(o_, w);
    std::string tag = std::string(1, s.id) + "-" + w.name;
    say(fmt("[setup] %s side=%c (%s): initdb, pgbench -i -s %d ... ETA %s", w.name.c_str(), s.id, s.label().c_str(),
            scale, human_duration(remaining(o_, eta_, wi_, ci_, 0, setups_done_)).c_str()));
    auto cl = std::make_unique<Cluster>(s, w.name, o_.work + "/" + tag);
    cl->initdb(o_.out + "/logs/" + tag + "-initdb.txt");
    check_interrupt();
    int maxc = *std::max_element(o_.clients.begin(), o_.clients.end());
    int max_connections = std::max(100, maxc + 10);
    info.side = s.id;
    info.side_label = s.label();
    info.workload = w.name;
    info.scale = scale;
    info.conf = cl->configure(w.eviction ? o_.eviction_shared_buffers : o_.shared_buffers, max_connections, o_.settings);
    info.conf_file = "conf/" + tag + ".conf";
    write_file(o_.out + "/" + info.conf_file, info.conf);
    cl->start();
    info.port = cl->port();
    if (int pm = cl->postmaster_pid()) roots_.insert(pm);

    bool has_guc = cl->scalar("SELECT count(*) FROM pg_settings WHERE name = 'rseq_slice_mode'").value_or("0") == "1";
    if (s.patched && !has_guc)
        throw Error("side " + std::string(1, s.id) + ": " + s.prefix + " has no rseq_slice_mode: not the patched server");
    if (!s.patched && has_guc)
        throw Error("side " + std::string(1, s.id) + ": " + s.prefix + " has rseq_slice_mode: not a stock server");
    try {
        // The current version (the control file's default_version, 1.4.0),
        // an older one updated to it.  The driver keeps the lock layer's
        // own names grants and revoked, read as grants_in_place +
        // requests_cleared and requests_cleared (kCounterSelect).
        cl->exec("CREATE EXTENSION IF NOT EXISTS pg_rseq");
        cl->exec("ALTER EXTENSION pg_rseq UPDATE");
    } catch (const Error& e) {
        if (s.patched)
            throw Error(std::string(e.what()) + "\n(install the extension with `make ext-install`)");
        say(std::string("[setup]   note: no pg_rseq on side ") + s.id + ": " + e.what());
    }
    info.ext_version = cl->scalar("SELECT extversion FROM pg_extension WHERE extname = 'pg_rseq'").value_or("");
    info.version = cl->scalar("SELECT version()").value_or("");
    info.server_version = cl->scalar("SHOW server_version").value_or("");
    info.shared_buffers_bytes =
        std::stoll(cl->scalar("SELECT setting::bigint * 8192 FROM pg_settings WHERE name = 'shared_buffers'").value_or("0"));
    if (s.patched) {
        info.mode_setting = cl->scalar("SHOW rseq_slice_mode").value_or("");
        info.detail_setting =
            cl->scalar("SELECT setting FROM pg_settings WHERE name = 'rseq_slice_detail'").value_or("");
        if (info.detail_setting.empty())
            throw Error("side " + std::string(1, s.id) + ": " + s.prefix +
                        " has no rseq_slice_detail: a lock layer older than pg_rseq 1.1.0's (rebuild it with `make postgres`)");
        if (info.detail_setting != (s.detail ? "on" : "off"))
            throw Error("side " + std::string(1, s.id) + ": rseq_slice_detail is " + info.detail_setting + ", expected " +
                        (s.detail ? "on (--detail)" : "off (the default; --detail turns it on)"));
        info.startup_line = cl->startup_line();
    }
    if (s.patched && info.ext_version != kExtVersion)
        throw Error("side " + std::string(1, s.id) + ": pg_rseq " + info.ext_version + " installed; the driver reads the columns of " +
                    kExtVersion + ": install pg_rseq with `make ext-install`");
    if (!info.ext_version.empty()) {
        QueryResult k = cl->query("SELECT * FROM pg_rseq_kernel()");
        if (!k.rows.empty())
            for (size_t j = 0; j < k.cols.size(); j++) info.kernel[k.cols[j]] = k.rows[0][j].value_or("");
    }

    SpawnOpts po;
    po.as_run_user = true;
    po.out_path = o_.out + "/logs/" + tag + "-pgbench-init.txt";
    po.cwd = o_.work;
    std::vector<std::string> argv = {cl->bin("pgbench")};
    for (auto& a : cl->pgbench_conn_args()) argv.push_back(a);
    for (auto& a : std::vector<std::string>{"-i", "-q", "-s", std::to_string(scale), "postgres"}) argv.push_back(a);
    run_cmd(argv, po, 3600);
    check_interrupt();
    if (w.name == "hot-lwlock") cl->exec("CREATE SEQUENCE pg_rseq_bench_seq");
    cl->exec("VACUUM ANALYZE");
    cl->exec("CHECKPOINT");
    info.accounts_bytes = std::stoll(cl->scalar("SELECT pg_total_relation_size('pgbench_accounts')").value_or("0"));

    // What a reset followed by the read (no pgbench in between) counts: the
    // measuring itself.
    if (s.patched && !info.ext_version.empty()) {
        cl->scalar("SELECT pg_stat_rseq_reset()");
        QueryResult q = cl->query("SELECT lwlock_sections, sections FROM pg_stat_rseq_totals");
        if (!q.rows.empty()) {
            info.idle_read_lwlock_sections = parse_count(q.rows[0][0], "pg_stat_rseq_totals.lwlock_sections");
            info.idle_read_sections = parse_count(q.rows[0][1], "pg_stat_rseq_totals.sections");
        }
        counters_[s.id - 'A'] = true;
    }
    info.setup_seconds = now_mono() - t0;
    eta_.setup_done(scale, info.setup_seconds);
    setups_done_++;
    say(fmt("[setup]   %c ready on port %d in %s (%s%s)", s.id, info.port, human_duration(info.setup_seconds).c_str(),
            info.server_version.c_str(),
            s.patched ? (", " + (info.startup_line.empty() ? "no start-up line" : info.startup_line)).c_str() : ""));
    return cl;
}

void Runner::read_counters(Cluster& cl, Round& r) {
    // One round trip, two statements: totals and per tranche.  NULL is "not
    // counted" (a detail counter while rseq_slice_detail is off), kept as
    // such (Count = std::nullopt), never read as 0.
    auto res = cl.query_multi(
        "SELECT " + kCounterSelect() +
        ", detail FROM pg_stat_rseq_totals; "
        "SELECT tranche, lock_kind, acquisitions, descheduled_while_holding, grants_in_place + requests_cleared AS grants, "
        "yields, yields_in_grant, requests_cleared AS revoked "
        "FROM pg_stat_rseq_tranche");
    if (res.size() != 2) throw Error("counter query returned " + std::to_string(res.size()) + " results");
    if (!res[0].rows.empty()) {
        auto& row = res[0].rows[0];
        r.c.present = true;
        for (size_t j = 0; j < kCounterCols.size(); j++) {
            r.c.v[kCounterCols[j]] = parse_count(row[j], "pg_stat_rseq_totals." + kCounterCols[j]);
            if (!r.c.v[kCounterCols[j]] && !is_detail_col(kCounterCols[j]))
                throw Error("pg_stat_rseq_totals." + kCounterCols[j] + " is NULL: it is counted in every mode");
        }
        auto& det = row[kCounterCols.size()];
        if (det) r.c.detail = *det == "t";
    }
    for (auto& row : res[1].rows) {
        TrancheRow t;
        t.tranche = row[0].value_or("");
        t.lock_kind = row[1].value_or("");
        t.acquisitions = parse_count(row[2], "pg_stat_rseq_tranche.acquisitions");
        auto must = [&](size_t j, const char* col) {
            Count c = parse_count(row[j], std::string("pg_stat_rseq_tranche.") + col);
            if (!c) throw Error(std::string("pg_stat_rseq_tranche.") + col + " is NULL (" + t.tranche + ")");
            return *c;
        };
        t.descheduled = must(3, "descheduled_while_holding");
        t.grants = must(4, "grants");
        t.yields = must(5, "yields");
        t.yields_in_grant = must(6, "yields_in_grant");
        t.revoked = must(7, "revoked");
        r.tranches.push_back(t);
    }
}

// pgbench killed by a signal that we did not send (another user's pkill on
// a shared machine, the OOM killer): the round is run once more.
struct KilledFromOutside {
    int status;
    std::string log;
};

void Runner::run_round(Cluster& cl, const Side& s, const Workload& w, const Config& cfg, int rep, int total) {
    try {
        run_round_once(cl, s, w, cfg, rep, total, 1);
    } catch (const KilledFromOutside& k) {
        say(fmt("[round %d/%d]   pgbench was killed by signal %d, not by us; running the round again (first attempt: %s)",
                round_no_, total, k.status - 128, rel(k.log).c_str()));
        round_no_--;
        run_round_once(cl, s, w, cfg, rep, total, 2);
    }
}

void Runner::run_round_once(Cluster& cl, const Side& s, const Workload& w, const Config& cfg, int rep, int total,
                            int attempt) {
    Round r;
    r.index = ++round_no_;
    r.config = cfg.index;
    r.workload = w.name;
    r.clients = cfg.clients;
    r.threads = cfg.threads;
    r.side = s.id;
    r.side_label = s.label();
    r.rep = rep;
    r.warmup = rep == 0;
    r.duration = r.warmup ? o_.warmup : o_.duration;
    r.hogs = o_.hogs;
    double eta = remaining(o_, eta_, wi_, ci_, k_, 2);
    say(fmt("[round %d/%d] %s c=%d side=%c (%s) %s ... ETA %s", r.index, total_rounds_, w.name.c_str(), cfg.clients,
            s.id, s.label().c_str(), r.warmup ? "warm-up" : fmt("rep %d/%d", rep, o_.rounds).c_str(),
            human_duration(eta).c_str()));

    double t0 = now_mono();
    // What pgbench itself does before a built-in TPC-B run (we pass -n so
    // that it does not do it after the counter reset).
    if (w.name == "tpcb")
        for (const char* q : {"VACUUM pgbench_branches", "VACUUM pgbench_tellers", "TRUNCATE pgbench_history"}) cl.exec(q);
    if (o_.hogs > 0) hogs_.start(o_.hogs);
    bool counters = counters_[s.id - 'A'];
    if (counters) cl.scalar("SELECT pg_stat_rseq_reset()");

    std::string tag = fmt("round-%03d-%s-c%d-%c", r.index, w.name.c_str(), cfg.clients, s.id);
    std::string logp = o_.out + "/logs/" + tag + ".txt";
    r.log = rel(logp);
    std::vector<std::string> argv = {cl.bin("pgbench")};
    for (auto& a : cl.pgbench_conn_args()) argv.push_back(a);
    // -n: no vacuum (done above, before the reset); -P DURATION: makes
    // pgbench measure per-transaction latency (it then prints "latency
    // stddev"), with one progress line at the end.
    for (auto& a : std::vector<std::string>{"-n", "-c", std::to_string(cfg.clients), "-j", std::to_string(cfg.threads),
                                            "-T", std::to_string(r.duration), "-P", std::to_string(r.duration), "-M",
                                            o_.protocol})
        argv.push_back(a);
    if (!w.builtin.empty()) {
        argv.push_back("-b");
        argv.push_back(w.builtin);
    } else {
        argv.push_back("-f");
        argv.push_back(w.script);
        argv.push_back("-s");
        argv.push_back(std::to_string(workload_scale(o_, w)));
    }
    argv.push_back("postgres");
    write_file(logp, "$ " + shell_join(argv) + "\n");

    r.start_utc = utc_timestamp();
    r.load_before = read_loadavg();
    CpuSnapshot c0 = cpu_snapshot();
    SpawnOpts po;
    po.as_run_user = true;
    po.out_path = logp;
    po.append = true;
    po.cwd = o_.work;
    pid_t pid = spawn(argv, po);
    int st = wait_child(pid, r.duration + 120 + cfg.clients, "pgbench");
    CpuSnapshot c1 = cpu_snapshot();
    r.load_after = read_loadavg();
    CpuUse use = cpu_use(c0, c1, roots_, o_.ncpu);
    r.cpu_busy_pct = use.busy_pct;
    r.cpu_nice_pct = use.nice_pct;
    r.cpu_steal_pct = use.steal_pct;
    r.cpu_other_pct = use.other_pct;
    r.others_top = use.others_top;
    if (counters) read_counters(cl, r);
    hogs_.stop();
    r.wall = now_mono() - t0;

    std::string out = read_file(logp);
    if (st > 128 && attempt == 1) {
        std::string moved = logp.substr(0, logp.size() - 4) + "-killed.txt";
        rename(logp.c_str(), moved.c_str());
        throw KilledFromOutside{st, moved};
    }
    const bool parsed = st == 0 && parse_pgbench(out, r);
    if (!parsed || !(r.tps > 0)) {
        std::string tail = out.size() > 3000 ? out.substr(out.size() - 3000) : out;
        // pgbench exits 0 when the run ends before any transaction finished
        // (e.g. 3000 connections take longer than -T): say that, not "status 0"
        std::string why = st != 0 ? fmt("pgbench exited with status %d", st)
                          : !parsed ? std::string("pgbench's output has no tps line")
                          : fmt("pgbench finished no transaction in %d s (connecting %d clients may take "
                                "longer than --duration: raise it)", r.duration, cfg.clients);
        throw Error(fmt("%s (round %d, %s c=%d side %c); %s:\n", why.c_str(), r.index,
                        w.name.c_str(), cfg.clients, s.id, logp.c_str()) +
                    tail);
    }
    eta_.round_done(r.duration, r.wall);
    d_.rounds.push_back(r);
    append_csv_row(csv_, r);
    append_tranche_rows(tranche_csv_, r);
    std::string extra;
    if (r.c.present && r.xacts > 0)
        extra = fmt(", %.2f deschedules and %.2f grants /1000 xacts",
                    1000.0 * r.c.v["descheduled_while_holding"].value_or(0) / r.xacts,
                    1000.0 * r.c.v["grants"].value_or(0) / r.xacts);
    say(fmt("[round %d/%d]   %.1f tps, latency %.3f ms (sd %.3f)%s, load %.1f->%.1f, cpu %.0f%% (niced %.0f%%, "
            "other processes %.0f%%%s%s)",
            r.index, total_rounds_, r.tps, r.lat_avg, r.lat_sd, extra.c_str(), r.load_before.l1, r.load_after.l1,
            r.cpu_busy_pct, r.cpu_nice_pct, r.cpu_other_pct, r.others_top.empty() ? "" : ": ", r.others_top.c_str()));
    if (!r.warmup && r.cpu_other_pct > kOtherCpuRoundWarnPct)
        say(fmt("[round %d/%d]   WARNING: other processes used %.0f%% of the machine during this round: its figures "
                "are not results",
                r.index, total_rounds_, r.cpu_other_pct));
}

void Runner::write_outputs(bool final_plots) {
    std::vector<std::string> plots;
    std::string note;
    if (final_plots) {
        if (o_.plots)
            plots = make_plots(o_.out, d_, note);
        else
            note = "plots skipped (--no-plots)";
        if (!note.empty()) d_.machine["plots_note"] = note;
    }
    write_json(o_.out + "/results.json", d_);
    write_report(o_.out + "/report.md", d_, plots);
}

void Runner::run() {
    roots_.insert(static_cast<int>(getpid()));
    mkdirs(o_.out + "/logs");
    mkdirs(o_.out + "/conf");
    mkdirs(o_.work);
    give_to(run_user(), o_.work);
    if (!user_can_write(run_user(), o_.work))
        throw Error("user " + run_user().name + " cannot write to " + o_.work +
                    " (a parent folder is not searchable by it?); choose another --work");
    csv_ = o_.out + "/rounds.csv";
    tranche_csv_ = o_.out + "/tranches.csv";
    write_csv_header(csv_);
    write_tranche_header(tranche_csv_);

    total_rounds_ = static_cast<int>(o_.workloads.size() * o_.clients.size()) * 2 * (o_.rounds + 1);
    int cfg_index = 0;
    for (wi_ = 0; wi_ < o_.workloads.size(); wi_++) {
        const Workload& w = workload(o_, o_.workloads[wi_]);
        ci_ = 0;
        k_ = 0;
        setups_done_ = 0;
        ClusterInfo ia, ib;
        auto ca = setup_side(o_.a, w, ia);
        d_.clusters.push_back(ia);
        auto cb = setup_side(o_.b, w, ib);
        d_.clusters.push_back(ib);
        for (ci_ = 0; ci_ < o_.clients.size(); ci_++) {
            Config cfg;
            cfg.index = ++cfg_index;
            cfg.workload = w.name;
            cfg.clients = o_.clients[ci_];
            cfg.threads = config_threads(o_, cfg.clients);
            d_.configs.push_back(cfg);
            k_ = 0;
            for (int rep = 0; rep <= o_.rounds; rep++) {
                run_round(*ca, o_.a, w, cfg, rep, total_rounds_);
                k_++;
                run_round(*cb, o_.b, w, cfg, rep, total_rounds_);
                k_++;
            }
            write_outputs(false);
        }
        // Stop both servers, keep their logs, drop the clusters.
        for (auto* cl : {ca.get(), cb.get()}) {
            if (int pm = cl->postmaster_pid()) roots_.erase(pm);
            cl->stop(false);
        }
        for (const Side* s : {&o_.a, &o_.b}) {
            std::string tag = std::string(1, s->id) + "-" + w.name;
            std::string dir = o_.work + "/" + tag;
            if (file_exists(dir + "/server.log")) write_file(o_.out + "/logs/" + tag + "-server.log", read_file(dir + "/server.log"));
        }
        ca.reset();
        cb.reset();
        if (!o_.keep_work) {
            remove_tree(o_.work + "/A-" + w.name);
            remove_tree(o_.work + "/B-" + w.name);
        }
    }
}

static void print_plan(const Options& o) {
    say("plan: A = " + o.a.label() + " (" + o.a.prefix + "), B = " + o.b.label() + " (" + o.b.prefix + ")");
    say("  workloads: " + join(o.workloads, ", "));
    std::vector<std::string> cs;
    for (size_t i = 0; i < o.clients.size(); i++) cs.push_back(o.clients_spec[i] + "=" + std::to_string(o.clients[i]));
    say("  clients: " + join(cs, ", ") +
        (o.cpus == o.ncpu ? fmt(" (%d CPUs)", o.cpus) : fmt(" (planned for %d CPUs by --cpus; this machine has %d)", o.cpus, o.ncpu)));
    std::vector<std::string> ts;
    for (int c : o.clients) ts.push_back(std::to_string(config_threads(o, c)));
    say("  pgbench threads (-j): " + join(ts, ", ") +
        (o.threads > 0 ? fmt(" (--threads %d)", o.threads) : fmt(" (min(clients, %d CPUs))", o.cpus)));
    say(fmt("  per configuration and side: 1 warm-up round of %d s + %d rounds of %d s; hogs %d", o.warmup, o.rounds,
            o.duration, o.hogs));
    std::vector<std::string> sc;
    for (auto& w : o.workloads) sc.push_back(w + " " + std::to_string(workload_scale(o, w)));
    say(fmt("  scale: %s (shared_buffers %s / eviction %s), protocol %s", join(sc, ", ").c_str(),
            o.shared_buffers.c_str(), o.eviction_shared_buffers.c_str(), o.protocol.c_str()));
    for (auto& w : scale_warnings(o)) say("  " + w);
    if (o.a.patched || o.b.patched)
        say(o.detail ? "  detail counters: on (--detail: rseq_slice_detail = on on the patched side(s); every lock "
                       "section takes the slow path)"
                     : "  detail counters: off (the default; sections etc. are not counted: NA; --detail counts them)");
    if (o.rounds < kMinRoundsForIntervals)
        say(fmt("  note: %d measured round%s per side: a smoke test, no intervals or p-values (they need %d)", o.rounds,
                o.rounds == 1 ? "" : "s", kMinRoundsForIntervals));
    say("  output: " + o.out + (o.work != o.out + "/work" ? " (clusters in " + o.work + ")" : ""));
    double est = plan_seconds(o);
    if (o.budget_min > 0)
        say(fmt("  budget: %d min (--budget): the plan above is the first that fits with at least %d rounds of at "
                "least %d s, estimate %s",
                o.budget_min, kMinRoundsForIntervals, kBudgetMinDuration, human_duration(est).c_str()));
    say("  estimated time: " + human_duration(est) +
        " (pessimistic on a loaded machine: the estimate is refined while it runs)");
}

static void check_installation(const Side& s) {
    for (const char* p : {"postgres", "pgbench", "initdb", "pg_ctl"})
        if (access((s.prefix + "/bin/" + p).c_str(), X_OK) != 0)
            throw Error("side " + std::string(1, s.id) + " (" + s.label() + "): " + s.prefix + "/bin/" + p +
                        " not found; build it with `make postgres" + (s.flavour == "patched-cassert" ? std::string(" CASSERT=1") : std::string()) +
                        "` (and `make ext-install`), or point --pg-dir "
                        "(PGRSEQ_PG_DIR) or --" + (s.flavour == "stock" ? std::string("stock") : s.flavour == "patched" ? std::string("patched") : std::string("cassert")) +
                        "-prefix at an existing build");
}

}  // namespace bench

using namespace bench;

int main(int argc, char** argv) {
    install_signal_handlers();
    RunData d;
    try {
        if (!parse_options(argc, argv, d.opt)) return 0;
    } catch (const UsageError& e) {
        fprintf(stderr, "bench/run: %s\nTry 'bench/run --help'.\n", e.what());
        return 2;
    }
    const Options& o = d.opt;
    if (o.self_test) {
        int bad = stats_self_test();
        bad += report_self_test();
        bad += plan_self_test();
        printf("self-test: %s\n", bad ? "FAILED" : "all passed");
        return bad == 0 ? 0 : 1;
    }
    for (auto& wn : o.workloads) {
        const Workload& w = workload(o, wn);
        if (!w.script.empty() && !file_exists(w.script)) {
            fprintf(stderr, "bench/run: workload script %s not found\n", w.script.c_str());
            return 1;
        }
    }
    print_plan(o);
    if (o.dry_run) {
        // the plan is printed either way; say what the real run would stop at
        for (const Side* s : {&o.a, &o.b}) {
            try {
                check_installation(*s);
            } catch (const Error& e) {
                fprintf(stderr, "bench/run: WARNING (dry run): %s\n", e.what());
            }
        }
        return 0;
    }

    Runner runner(d);
    int status = 0;
    double t0 = now_mono();
    try {
        check_installation(o.a);
        check_installation(o.b);
        if (file_exists(o.out + "/rounds.csv"))
            throw Error(o.out + " already holds a run (rounds.csv); choose another --out");
        mkdirs(o.out + "/logs");
        set_run_user(setup_run_user(o.run_as));
        d.started_utc = utc_timestamp();
        d.machine = machine_info(o);
        std::string head = capture({"git", "-C", o.repo, "rev-parse", "HEAD"});
        d.git_commit = trim(head);
        d.git_dirty = !trim(capture({"git", "-C", o.repo, "status", "--porcelain", "--untracked-files=no"})).empty();
        char cwd[4096];
        // What else runs on the machine (second top iteration = current use),
        // and the machine's CPU use over that second, without this run's
        // processes (the driver and top).
        {
            std::set<int> me = {static_cast<int>(getpid())};
            CpuSnapshot s0 = cpu_snapshot();
            std::string top = capture({"top", "-b", "-n", "2", "-d", "1", "-w", "160"});
            CpuSnapshot s1 = cpu_snapshot();
            CpuUse u = cpu_use(s0, s1, me, o.ncpu);
            write_file(o.out + "/logs/top-start.txt", top);
            d.machine["busiest_start"] = top_summary(top);
            d.machine["cpu_busy_start_pct"] = fmt("%.1f", u.busy_pct);
            d.machine["cpu_nice_start_pct"] = fmt("%.1f", u.nice_pct);
            d.machine["cpu_other_start_pct"] = fmt("%.1f", u.other_pct);
            d.machine["others_start"] = u.others_top;
        }
        errno = 0;
        d.nice = getpriority(PRIO_PROCESS, 0);
        for (const Side* s : {&o.a, &o.b}) {
            auto& pb = d.pgbench[s->id - 'A'];
            pb.path = s->prefix + "/bin/pgbench";
            pb.version = trim(capture({pb.path, "--version"}));
            if (pb.version.empty()) pb.version = "unknown (pgbench --version failed)";
        }
        write_file(o.out + "/command.txt",
                   std::string("cd ") + shell_quote(getcwd(cwd, sizeof cwd) ? cwd : ".") + " && " +
                       shell_join(o.argv) + "\n# started " + d.started_utc + "\n");
        runner.run();
        d.status = "complete";
    } catch (const Interrupted& e) {
        fprintf(stderr, "\nbench/run: interrupted by signal %d (%s): stopping servers\n", e.signo, strsignal(e.signo));
        d.status = fmt("interrupted by signal %d", e.signo);
        status = 128 + e.signo;
    } catch (const std::exception& e) {
        fprintf(stderr, "bench/run: error: %s\n", e.what());
        d.status = std::string("failed: ") + e.what();
        status = 1;
    }
    run_cleanups();  // pgbench, hogs, servers: on every path
    d.finished_utc = utc_timestamp();
    d.elapsed = now_mono() - t0;
    if (!d.started_utc.empty()) {
        try {
            d.machine["loadavg_end"] = fmt("%.2f %.2f %.2f", read_loadavg().l1, read_loadavg().l5, read_loadavg().l15);
            if (status == 0) {
                std::string top = capture({"top", "-b", "-n", "2", "-d", "1", "-w", "160"});
                write_file(o.out + "/logs/top-end.txt", top);
                d.machine["busiest_end"] = top_summary(top);
            }
            runner.write_outputs(status == 0 || !d.rounds.empty());
            if (status == 0 && !o.keep_work)
                remove_tree(o.work);
            else if (status != 0 && file_exists(o.work))
                say("bench/run: clusters and their logs kept in " + o.work);
            say("bench/run: " + d.status + " in " + human_duration(d.elapsed) + "; report: " + o.out + "/report.md");
        } catch (const std::exception& e) {
            fprintf(stderr, "bench/run: writing the results failed: %s\n", e.what());
            if (status == 0) status = 1;
        }
    }
    return status;
}
