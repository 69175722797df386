// bench.hpp: the driver's data model (options, sides, workloads, rounds).
#pragma once

#include "util.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace bench {

extern const std::vector<std::string> kModes;  // off measure upstream poc auto

// One side of the comparison: an installation and, if patched, a mode.
struct Side {
    char id = 'A';          // 'A' or 'B'
    std::string spec;       // as given: stock, patched, patched:off, ...
    std::string flavour;    // stock, patched, patched-cassert
    bool patched = false;   // the installation has the lock layer
    std::string mode;       // rseq_slice_mode for patched sides
    std::string request;    // rseq_slice_request for patched sides ("": the server's default, all)
    bool detail = false;    // rseq_slice_detail = on (--detail; patched sides only)
    std::string prefix;     // installation prefix
    std::string label() const {
        return patched ? flavour + ":" + mode + (request.empty() ? "" : ":" + request) : flavour;
    }
};

struct Workload {
    std::string name;       // select-only, tpcb, hot-lwlock, eviction
    std::string what;       // one line for the report
    std::string builtin;    // pgbench -b NAME, or empty
    std::string script;     // pgbench -f FILE, or empty
    bool eviction = false;  // small shared_buffers, larger scale
};
const std::vector<Workload>& all_workloads(const std::string& repo);

struct Options {
    std::vector<std::string> argv;  // the exact command line
    std::string repo;               // repository root
    Side a, b;
    std::vector<std::string> workloads;
    std::vector<std::string> clients_spec;  // as given: 1x, 4x, 8
    std::vector<int> clients;               // resolved
    int duration = 20;                      // s per measured round
    int warmup = 10;                        // s per warm-up round
    int rounds = 5;                         // measured rounds per side per configuration
    int scale = 10;                         // select-only (and tpcb unless tpcb_scale)
    int tpcb_scale = 0;                     // tpcb; 0: same as scale
    int eviction_scale = 6;                 // eviction
    std::string shared_buffers = "256MB";
    std::string eviction_shared_buffers = "16MB";
    int hogs = 0;
    int threads = 0;                        // pgbench -j; 0: min(clients, cpus)
    std::string protocol = "simple";
    std::vector<std::pair<std::string, std::string>> settings;  // --set
    std::string out;
    std::string work;
    bool keep_work = false;
    std::string pg_dir;                     // holds stock/, patched/, patched-cassert/
    std::string stock_prefix, patched_prefix, cassert_prefix;
    std::string run_as;
    std::string preset;  // "", quick, full, budget
    int budget_min = 0;  // --budget MIN: the plan was chosen to fit MIN minutes (0: no budget)
    bool plots = true;
    bool detail = false;  // --detail: rseq_slice_detail = on on the patched side(s)
    bool dry_run = false;
    bool self_test = false;
    int ncpu = 1;   // this machine's online CPUs (load and CPU-use figures)
    int cpus = 1;   // the CPUs the plan is made for: Nx client counts, default
                    // pgbench -j, the default plan's cap (--cpus N; default ncpu)
};
// Parses argv; throws UsageError.  Returns false if --help was printed.
bool parse_options(int argc, char** argv, Options& o);
std::string usage_text();

// The default plan's client counts: 1x, 4x, 16x, 50x of the plan's CPUs,
// each at most kDefaultMaxClients (then shown as "16x (cap 1000)"), equal
// counts once.  Why the cap: pgbench needs an open file per client plus 3
// and refuses to start above its soft RLIMIT_NOFILE (1024 by default on
// Linux), and 50x of 64 CPUs would be 3200 backends per server.  An
// explicit --clients is not capped (up to 5000).
constexpr int kDefaultMaxClients = 1000;
const std::vector<std::string>& default_client_multiples();  // 1x 4x 16x 50x
void resolve_clients(const std::vector<std::string>& spec, int cpus, bool cap, std::vector<int>& clients,
                     std::vector<std::string>& shown);
// The plan's time estimate at the start (setups, warm-up and measured
// rounds, the per-round overhead; main.cpp's model, also what --dry-run
// prints), seconds.
double plan_seconds(const Options& o);
// pgbench -j of a configuration: --threads (at most the clients), else min(clients, cpus).
int config_threads(const Options& o, int clients);
constexpr double kSetupBaseS = 7.0;      // s per cluster setup (initdb, start, pgbench -i ...), 2 CPUs
constexpr double kSetupPerScaleS = 0.7;  // s per pgbench scale unit of pgbench -i, 2 CPUs
constexpr double kRoundOverheadS = 1.0;  // s per round beyond its length (start, counters), 2 CPUs
// --budget: the smallest measured round and warm-up it uses, the rounds it
// starts from (kMinRoundsForIntervals) and may raise up to.
constexpr int kBudgetMinDuration = 5, kBudgetMaxDuration = 20, kBudgetWarmup = 3, kBudgetMaxRounds = 5;
// Checks the plan's rules (client counts per CPU count, the cap, threads,
// --budget's choices and estimates); prints failures, returns how many failed.
int plan_self_test();

// A counter's value: std::nullopt = not counted (the view's NULL: a detail
// counter while rseq_slice_detail is off), never shown or summed as 0.
using Count = std::optional<int64_t>;

// The lock layer's counters for one round (deltas: reset before, read after).
struct Counters {
    bool present = false;  // false on stock (views empty) or without the extension
    std::optional<bool> detail;  // pg_stat_rseq_totals.detail: the detail counters were counted
    std::map<std::string, Count> v;  // every column of kCounterCols
};
extern const std::vector<std::string> kCounterCols;
// The detail counters: counted only with rseq_slice_detail = on (NULL otherwise).
extern const std::vector<std::string> kDetailCols;
bool is_detail_col(const std::string& c);

struct TrancheRow {
    std::string tranche, lock_kind;
    Count acquisitions;  // NULL on the non-LWLock rows while detail is off
    int64_t descheduled = 0, grants = 0, yields = 0, yields_in_grant = 0, revoked = 0;
};

// How not-counted values are written (see report.cpp; the self-test checks them):
// rounds.csv and tranches.csv "NA" (empty = stock, no counters at all),
// results.json null, report.md kNotCountedNote.
extern const char* const kNotCountedNote;  // "n/a (detail off)"
std::string csv_count(const Count& c);      // "NA" or the number
std::string json_count(const Count& c);     // "null" or the number
// A view's cell: NULL -> not counted; throws Error on a non-number.
Count parse_count(const std::optional<std::string>& cell, const std::string& what);
// Sum (or maximum) over rounds: not counted if any part was not counted.
Count add_counts(const Count& a, const Count& b, bool max);

struct Round {
    int index = 0;            // 1-based, in run order
    int config = 0;           // index into configs
    std::string workload;
    int clients = 0, threads = 0;
    char side = 'A';
    std::string side_label;
    int rep = 0;              // 0 for the warm-up round, 1..rounds
    bool warmup = false;
    std::string start_utc;
    int duration = 0;
    double wall = 0;          // s, whole round including pgbench start-up
    int64_t xacts = 0, failed = 0;
    double tps = 0, lat_avg = 0, lat_sd = 0, conn_ms = 0;
    LoadAvg load_before, load_after;
    double cpu_busy_pct = 0;  // whole machine, during pgbench: all but idle and iowait (nice, steal included)
    double cpu_nice_pct = 0;  // of the machine: niced user time (background work started with nice)
    double cpu_steal_pct = 0; // of the machine: taken by the hypervisor
    double cpu_other_pct = -1;  // of the machine: busy minus this run's processes (driver, pgbench, hogs,
                                // both servers); -1: not measured
    std::string others_top;   // busiest other processes: "cc1 95%, make 3%" (% of one CPU)
    int hogs = 0;
    Counters c;
    std::vector<TrancheRow> tranches;
    std::string log;          // pgbench output file (relative to out)
};

struct Config {
    int index = 0;
    std::string workload;
    int clients = 0, threads = 0;
};

// What we learned about one side's cluster of one workload.
struct ClusterInfo {
    char side = 'A';
    std::string side_label;
    std::string workload;
    int port = 0;
    int scale = 0;
    std::string conf;             // the settings we wrote
    std::string conf_file;        // copy in out/
    std::string version;          // SELECT version()
    std::string server_version;
    std::string ext_version;      // pg_rseq, "" if not installed
    std::string startup_line;     // "rseq slice extension: mode ..." from the log
    std::string mode_setting;     // SHOW rseq_slice_mode
    std::string detail_setting;   // SHOW rseq_slice_detail (on, off; "" on stock)
    std::map<std::string, std::string> kernel;  // pg_rseq_kernel()
    int64_t accounts_bytes = 0;   // pg_total_relation_size(pgbench_accounts)
    int64_t shared_buffers_bytes = 0;
    double setup_seconds = 0;
    // What a reset + read alone counts: LWLock sections (always counted) and
    // sections (only with detail; nullopt: not counted or not measured).
    Count idle_read_lwlock_sections, idle_read_sections;
};

struct RunData {
    Options opt;
    std::string started_utc, finished_utc;
    std::string status = "running";  // complete, failed: ..., interrupted
    std::map<std::string, std::string> machine;
    std::string git_commit;
    bool git_dirty = false;
    struct PgbenchBin {
        std::string path, version;  // per side: prefix/bin/pgbench, `pgbench --version`
    } pgbench[2];
    int nice = 0;                    // the driver's nice value (its children inherit it)
    std::vector<Config> configs;
    std::vector<Round> rounds;
    std::vector<ClusterInfo> clusters;
    double elapsed = 0;
};

// report.cpp
void write_csv_header(const std::string& path);
void append_csv_row(const std::string& path, const Round& r);
void write_tranche_header(const std::string& path);
void append_tranche_rows(const std::string& path, const Round& r);
void write_json(const std::string& path, const RunData& d);
// The report's rules, also used by the self-test:
// intervals and p-values need this many measured rounds per side
constexpr int kMinRoundsForIntervals = 3;
// what a table cell says instead of an interval or p-value below that
std::string too_few_rounds_note(const Options& o);
// the scale a workload runs at
int workload_scale(const Options& o, const std::string& workload);
// "WARNING ..." sentences: tpcb with scale < clients
std::vector<std::string> scale_warnings(const Options& o);
// "WARNING ..." reasons why the machine was not idle (empty: it was)
constexpr double kOtherCpuWarnPct = 5;        // mean over measured rounds, % of the machine
constexpr double kOtherCpuRoundWarnPct = 25;  // any one measured round
constexpr double kOtherCpuStartWarnPct = 10;  // the 1 s sample before the first round
std::vector<std::string> load_warnings(const RunData& d);
// The y range of the log-scale ratio plot: every point estimate and 1, and
// the whiskers clipped to [1/kRatioClip, kRatioClip] (or a factor 1.25
// beyond the outermost point estimate, if further); clipped is set when a
// whisker reaches beyond the range.
constexpr double kRatioClip = 2.0;
void ratio_axis(const std::vector<double>& points, const std::vector<double>& whisker_ends, double& lo, double& hi,
                bool& clipped);
// The report header's sentence on rseq_slice_detail (on with --detail, else off).
std::string detail_header(const Options& o);
// Checks the rules above; prints failures, returns how many failed.
int report_self_test();
void write_report(const std::string& path, const RunData& d, const std::vector<std::string>& plots);
std::vector<std::string> make_plots(const std::string& outdir, const RunData& d, std::string& note);

}  // namespace bench
