// options.cpp: command line of bench/run.
#include "bench.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include <sys/stat.h>
#include <unistd.h>

namespace bench {

namespace {
// The options given on the command line (a preset leaves these to the user).
struct Given {
    bool workloads = false, clients = false, rounds = false, duration = false, warmup = false, scale = false,
         tpcb_scale = false;
};
}  // namespace

const std::vector<std::string> kModes = {"off", "measure", "upstream", "poc", "auto"};

std::string usage_text() {
    return R"(Usage: bench/run [OPTIONS]

Compares two PostgreSQL 18 servers built by `make postgres` (default: stock
against patched in rseq_slice_mode auto) with pgbench.  Every workload gets a
fresh cluster per side (initdb, tuned postgresql.conf, pgbench -i) on a free
127.0.0.1 port; measured rounds alternate A B A B ..., after one discarded
warm-up round per side and configuration (workload x client count).  Writes a
CSV, a JSON file, a Markdown report and PNG plots to the output folder.  All
servers, pgbench processes and CPU hogs are stopped on every exit path
(normal end, error, Ctrl-C / SIGTERM / SIGHUP).

Sides:
  --a SIDE           side A (default: stock)
  --b SIDE           side B (default: patched:auto)
                     SIDE is stock | patched[:MODE[:REQUEST]] |
                     patched-cassert[:MODE[:REQUEST]], MODE one of off,
                     measure, upstream, poc, auto (the GUC rseq_slice_mode;
                     default auto), REQUEST one of all, shared, spinning,
                     adaptive (the GUC rseq_slice_request; default: not set,
                     i.e. all; it only matters in upstream and poc).
                     Examples: --a patched:off --b patched:auto,
                     --a patched:auto --b patched:auto:shared
  --pg-dir DIR       folder holding the installations stock/, patched/ and
                     patched-cassert/ (default: $PGRSEQ_PG_DIR, else
                     <repo>/build/pg), e.g. another clone's build/pg
  --stock-prefix DIR, --patched-prefix DIR, --cassert-prefix DIR
                     one installation (default PG_DIR/stock, PG_DIR/patched,
                     PG_DIR/patched-cassert); each side runs the initdb,
                     postgres and pgbench of its own installation

Workload:
  --workloads LIST   comma list of select-only (pgbench -S), tpcb (built-in
                     TPC-B-like), hot-lwlock (bench/workloads/hot-lwlock.sql:
                     nextval() on one sequence, one hot buffer content LWLock),
                     eviction (bench/workloads/eviction.sql: random reads of
                     data ~6x shared_buffers, clock-sweep buffer header
                     spinlocks).  Default: all four, in that order.
  --clients LIST     comma list of client counts: N (absolute) or Nx (N times
                     the number of CPUs, here )" + std::to_string(sysconf(_SC_NPROCESSORS_ONLN)) +
           R"(; --cpus N for N).  Default: 1x,4x,16x,50x,
                     each at most 1000 (pgbench needs an open file per client
                     and stops above its soft limit, 1024 by default; 50x of
                     64 CPUs would be 3200 backends); a given LIST is not
                     capped (up to 5000).  2 CPUs: 2,8,32,100; 16 CPUs:
                     16,64,256,800; 64 CPUs: 64,256,1000
  --duration SEC     length of each measured round, seconds (default 20)
  --warmup SEC       length of the warm-up round, seconds (default 10)
  --rounds N         measured rounds per side per configuration (default 5)
  --scale N          pgbench scale for select-only and tpcb (default 10:
                     1,000,000 accounts, ~150 MB); hot-lwlock uses scale 1
  --tpcb-scale N     pgbench scale for tpcb alone (default: --scale; --quick:
                     the largest client count).  pgbench's documentation asks
                     for scale >= clients for TPC-B (each transaction updates
                     one of `scale` branch rows); the report warns otherwise
  --eviction-scale N pgbench scale for eviction (default 6: pgbench_accounts
                     and its index ~95 MB, ~6x --eviction-shared-buffers)
  --shared-buffers SIZE           shared_buffers, PostgreSQL units or a plain number
                                  of 8kB pages, at least 128kB (default 256MB; else exit 2)
  --eviction-shared-buffers SIZE  shared_buffers for eviction (default 16MB)
  --hogs N           N busy-loop processes run during every round (warm-up
                     included) so that lock holders compete for CPUs (default 0)
  --threads N        pgbench -j (default: min(clients, CPUs))
  --cpus N           make the plan for N CPUs instead of this machine's: the
                     Nx client counts, the default pgbench -j and the cap
                     above follow N (the load and CPU-use figures keep the
                     machine's count).  For --dry-run: the plan and estimate
                     of a bigger machine, e.g. --cpus 16 --budget 5
  --protocol P       pgbench -M: simple, extended or prepared (default simple)
  --set NAME=VALUE   extra postgresql.conf setting on both sides (repeatable;
                     quoted for the file; rseq_slice_mode, rseq_slice_detail,
                     port, shared_buffers, max_connections and the socket
                     settings are refused, and any rseq_* setting while a
                     side is stock; patched sides get rseq_slice_register =
                     auto, see bench/README.md)
  --detail           rseq_slice_detail = on on the patched side(s): the lock
                     layer also counts sections, spinlock_sections,
                     buffer_header_sections, wait_list_sections,
                     nested_entries, max_depth and the spinlock / buffer
                     header / wait list rows' acquisitions.  It costs: every
                     lock section then takes the out-of-line slow path, so
                     patched tps are not those of the default configuration.
                     Default off (what users run): those counters are not
                     counted and read NA (rounds.csv, tranches.csv), null
                     (results.json), n/a (detail off) (report.md);
                     requests is one of them (lock layer layout 3); the
                     other counters (lwlock_sections, grants, yields,
                     yields_in_grant, revoked, deschedules) are counted
                     either way

Presets (explicit options override them, wherever they stand):
  --quick            smoke test, under 3 minutes on 2 CPUs: select-only,tpcb;
                     clients 1x,4x; 2 rounds of 4 s; 2 s warm-up; scale 1,
                     tpcb scale = the largest client count.  It checks that
                     everything runs; its figures are not results: with fewer
                     than 3 measured rounds per side the report gives no
                     interval and no p-value (its tables say: n/a, smoke test)
  --full             the committed results' preset (~25 minutes on 2 CPUs):
                     all four workloads; clients 1x,16x,50x; 5 rounds of 10 s;
                     5 s warm-up; scale 10; eviction scale 6
  --budget MIN       a plan whose estimate (cluster setups, warm-up and
                     measured rounds, as --dry-run prints it) fits MIN
                     minutes, with intervals: at least 3 measured rounds of
                     at least 5 s per side; 3 s warm-up.  It tries, in this
                     order, the workloads select-only,tpcb,hot-lwlock,eviction
                     (tpcb at scale = its largest client count, as pgbench
                     asks) / select-only,hot-lwlock,eviction /
                     hot-lwlock,eviction / hot-lwlock, each with the clients
                     1x,4x,16x,50x / 1x,4x,50x / 1x,50x (capped as above);
                     the first that fits gets more rounds (up to 5), then
                     longer ones (up to 20 s).  --workloads, --clients,
                     --rounds (3 or more), --duration, --warmup fix their
                     part.  --budget 5 on 16 CPUs: hot-lwlock,eviction with
                     16 and 800 clients, 4 rounds of 6 s, estimate 4m54s;
                     with both PostgreSQL builds (~4.5 min there, an
                     estimate: bench/README.md) about 10 minutes in all

Output:
  --out DIR          output folder (default: $PGRSEQ_BENCH_RESULTS/run-YYYYmmdd-HHMMSS,
                     PGRSEQ_BENCH_RESULTS defaulting to <repo>/build/bench-results,
                     outside git; to commit a run, e.g. --out bench/results/NAME)
  --work DIR         cluster folder (default OUT/work; removed at the end
                     unless --keep-work; server logs are copied to OUT/logs)
  --keep-work        keep the clusters
  --no-plots         skip gnuplot
  --run-as USER      user for initdb/postgres/pgbench when run as root
                     (default pgrseq, created if missing)
  --dry-run          print the plan and the time estimate, run nothing
  --self-test        check the statistics code against reference values
  -h, --help         this text

Exit status: 0 done, 1 a step failed (servers stopped, partial results
kept; also bench/run before PostgreSQL is built, which checks only --help
and --pg-dir then), 2 bad options, 128+N interrupted by signal N (servers
stopped).
)";
}

// True when path names a directory (following symlinks).
static bool is_dir(const std::string& path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

static std::string repo_default() {
    const char* e = getenv("PGRSEQ_REPO");
    if (e && *e) return e;
#ifdef PGRSEQ_REPO_ROOT
    return PGRSEQ_REPO_ROOT;
#else
    return abs_path(".");
#endif
}

static Side parse_side(const std::string& s, char id, const Options& o) {
    Side side;
    side.id = id;
    side.spec = s;
    std::string flav = s, mode, request;
    size_t k = s.find(':');
    if (k != std::string::npos) {
        flav = s.substr(0, k);
        mode = s.substr(k + 1);
        size_t k2 = mode.find(':');
        if (k2 != std::string::npos) {
            request = mode.substr(k2 + 1);
            mode = mode.substr(0, k2);
        }
    }
    std::string opt = std::string("--") + static_cast<char>(tolower(id));
    if (flav == "stock") {
        if (!mode.empty()) throw UsageError(opt + " " + s + ": the stock server has no rseq_slice_mode");
        side.flavour = "stock";
        side.prefix = o.stock_prefix;
    } else if (flav == "patched" || flav == "patched-cassert") {
        side.flavour = flav;
        side.patched = true;
        if (k != std::string::npos && mode.empty())  // "patched:" or "patched::x": a colon promises a mode
            throw UsageError(opt + " " + s + ": empty mode after ':' (expected off, measure, upstream, poc or auto)");
        side.mode = mode.empty() ? "auto" : mode;
        if (std::find(kModes.begin(), kModes.end(), side.mode) == kModes.end())
            throw UsageError(opt + " " + s + ": unknown mode '" + side.mode +
                             "' (expected off, measure, upstream, poc or auto)");
        static const std::vector<std::string> kRequests = {"all", "shared", "spinning", "adaptive"};
        if (k != std::string::npos && s.find(':', k + 1) != std::string::npos &&
            std::find(kRequests.begin(), kRequests.end(), request) == kRequests.end())
            throw UsageError(opt + " " + s + ": unknown request policy '" + request +
                             "' (expected all, shared, spinning or adaptive)");
        side.request = request;
        side.prefix = flav == "patched" ? o.patched_prefix : o.cassert_prefix;
    } else {
        throw UsageError(opt + " " + s + ": expected stock, patched[:MODE[:REQUEST]] or patched-cassert[:MODE[:REQUEST]]");
    }
    return side;
}

const std::vector<std::string>& default_client_multiples() {
    static const std::vector<std::string> m = {"1x", "4x", "16x", "50x"};
    return m;
}

void resolve_clients(const std::vector<std::string>& spec, int cpus, bool cap, std::vector<int>& clients,
                     std::vector<std::string>& shown) {
    clients.clear();
    shown.clear();
    std::set<int> seen;
    for (auto c : spec) {
        c = trim(c);
        long n;
        if (!c.empty() && (c.back() == 'x' || c.back() == 'X'))
            n = parse_long(c.substr(0, c.size() - 1), "--clients (multiple of CPUs, e.g. 4x)", 1, 1000) * cpus;
        else
            n = parse_long(c, "--clients (count, or e.g. 4x)", 1, 5000);
        std::string s = c;
        if (cap && n > kDefaultMaxClients) {
            n = kDefaultMaxClients;
            s = c + " (cap " + std::to_string(kDefaultMaxClients) + ")";
        }
        if (n > 5000) throw UsageError("--clients: " + c + " is more than 5000 clients");
        if (seen.insert(static_cast<int>(n)).second) {
            clients.push_back(static_cast<int>(n));
            shown.push_back(s);
        }
    }
}

// --budget MIN (see usage_text): the first plan of the ladders below that
// fits with 3 rounds of 5 s, then more rounds, then longer ones.  What an
// option fixes stays as given.
static void apply_budget(Options& o, const Given& g) {
    const double budget = 60.0 * o.budget_min;
    if (g.rounds && o.rounds < kMinRoundsForIntervals)
        throw UsageError(fmt("--budget with --rounds %d: a budget plan gives intervals, which need at least %d "
                             "measured rounds per side",
                             o.rounds, kMinRoundsForIntervals));
    std::vector<std::vector<std::string>> wl_ladder = {{"select-only", "tpcb", "hot-lwlock", "eviction"},
                                                       {"select-only", "hot-lwlock", "eviction"},
                                                       {"hot-lwlock", "eviction"},
                                                       {"hot-lwlock"}};
    std::vector<std::vector<std::string>> cl_ladder = {default_client_multiples(), {"1x", "4x", "50x"}, {"1x", "50x"}};
    if (g.workloads) wl_ladder = {o.workloads};
    std::vector<std::pair<std::vector<int>, std::vector<std::string>>> clients;
    if (g.clients)
        clients.push_back({o.clients, o.clients_spec});
    else
        for (auto& spec : cl_ladder) {
            clients.emplace_back();
            resolve_clients(spec, o.cpus, true, clients.back().first, clients.back().second);
        }
    if (!g.warmup) o.warmup = kBudgetWarmup;
    const int r0 = g.rounds ? o.rounds : kMinRoundsForIntervals, d0 = g.duration ? o.duration : kBudgetMinDuration;
    const int scale0 = o.tpcb_scale;
    double smallest = -1;
    std::string smallest_what;
    for (auto& wl : wl_ladder)
        for (auto& [cl, shown] : clients) {
            o.workloads = wl;
            o.clients = cl;
            o.clients_spec = shown;
            // tpcb as pgbench asks: scale >= clients (unless --scale or --tpcb-scale)
            bool tpcb = std::find(wl.begin(), wl.end(), "tpcb") != wl.end();
            o.tpcb_scale = !tpcb || g.scale || g.tpcb_scale ? scale0
                                                             : std::max(o.scale, *std::max_element(cl.begin(), cl.end()));
            o.rounds = r0;
            o.duration = d0;
            double t = plan_seconds(o);
            if (t > budget) {
                if (smallest < 0 || t < smallest) {
                    smallest = t;
                    smallest_what = fmt("%s with %s clients, %d rounds of %d s", join(wl, ",").c_str(),
                                        join(shown, ",").c_str(), r0, d0);
                }
                continue;
            }
            if (!g.rounds)
                while (o.rounds < kBudgetMaxRounds) {
                    o.rounds++;
                    if (plan_seconds(o) > budget) {
                        o.rounds--;
                        break;
                    }
                }
            if (!g.duration)
                while (o.duration < kBudgetMaxDuration) {
                    o.duration++;
                    if (plan_seconds(o) > budget) {
                        o.duration--;
                        break;
                    }
                }
            return;
        }
    throw UsageError(fmt("--budget %d: even the smallest plan (%s) needs %s", o.budget_min, smallest_what.c_str(),
                         human_duration(smallest).c_str()));
}

bool parse_options(int argc, char** argv, Options& o) {
    o.argv.assign(argv, argv + argc);
    if (const char* a0 = getenv("PGRSEQ_BENCH_ARGV0"); a0 && *a0 && !o.argv.empty()) o.argv[0] = a0;
    o.repo = repo_default();
    o.ncpu = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
    if (o.ncpu < 1) o.ncpu = 1;
    o.cpus = o.ncpu;  // --cpus N below

    // Pass 1: presets (so that explicit options win wherever they stand).
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        std::string p = a == "--quick" || a == "--full" ? a.substr(2)
                        : a == "--budget" || starts_with(a, "--budget=") ? "budget" : "";
        if (p.empty()) continue;
        if (!o.preset.empty() && o.preset != p)
            throw UsageError("--quick, --full and --budget exclude each other");
        o.preset = p;
    }
    std::string a_spec = "stock", b_spec = "patched:auto";
    std::string workloads = "select-only,tpcb,hot-lwlock,eviction";
    std::string clients = "1x,4x,16x,50x";
    if (o.preset == "quick") {
        workloads = "select-only,tpcb";
        clients = "1x,4x";
        o.rounds = 2;
        o.duration = 4;
        o.warmup = 2;
        o.scale = 1;
        o.tpcb_scale = -1;  // the largest client count, resolved below
    } else if (o.preset == "full") {
        workloads = "select-only,tpcb,hot-lwlock,eviction";
        clients = "1x,16x,50x";
        o.rounds = 5;
        o.duration = 10;
        o.warmup = 5;
        o.scale = 10;
        o.eviction_scale = 6;
    }

    auto need = [&](int& i, const std::string& name, std::string& inline_val) -> std::string {
        if (!inline_val.empty()) return inline_val;
        if (i + 1 >= argc || starts_with(argv[i + 1], "--"))
            throw UsageError(name + " needs a value" + (i + 1 < argc ? std::string(" (got option ") + argv[i + 1] + ")" : ""));
        if (argv[i + 1][0] == '\0') throw UsageError(name + " needs a value (got an empty string)");
        return argv[++i];
    };
    Given given;
    for (int i = 1; i < argc; i++) {
        std::string arg = argv[i], val;
        if (starts_with(arg, "--") && arg.find('=') != std::string::npos) {
            val = arg.substr(arg.find('=') + 1);
            arg = arg.substr(0, arg.find('='));
            if (val.empty()) throw UsageError(arg + "= needs a value");
        }
        auto flag = [&]() {
            if (!val.empty()) throw UsageError(arg + " takes no value");
        };
        if (arg == "-h" || arg == "--help") {
            fputs(usage_text().c_str(), stdout);
            return false;
        } else if (arg == "--quick" || arg == "--full") {
            flag();
        } else if (arg == "--budget") {
            o.budget_min = static_cast<int>(parse_long(need(i, arg, val), "--budget (minutes)", 1, 1440));
        } else if (arg == "--cpus") {
            o.cpus = static_cast<int>(parse_long(need(i, arg, val), "--cpus", 1, 4096));
        } else if (arg == "--a") {
            a_spec = need(i, arg, val);
        } else if (arg == "--b") {
            b_spec = need(i, arg, val);
        } else if (arg == "--workloads") {
            workloads = need(i, arg, val);
            given.workloads = true;
        } else if (arg == "--clients") {
            clients = need(i, arg, val);
            given.clients = true;
        } else if (arg == "--duration") {
            o.duration = parse_long(need(i, arg, val), "--duration (seconds)", 1, 86400);
            given.duration = true;
        } else if (arg == "--warmup") {
            o.warmup = parse_long(need(i, arg, val), "--warmup (seconds)", 1, 86400);
            given.warmup = true;
        } else if (arg == "--rounds") {
            o.rounds = parse_long(need(i, arg, val), "--rounds", 1, 10000);
            given.rounds = true;
        } else if (arg == "--scale") {
            o.scale = parse_long(need(i, arg, val), "--scale", 1, 100000);
            given.scale = true;
        } else if (arg == "--tpcb-scale") {
            o.tpcb_scale = parse_long(need(i, arg, val), "--tpcb-scale", 1, 100000);
            given.tpcb_scale = true;
        } else if (arg == "--eviction-scale") {
            o.eviction_scale = parse_long(need(i, arg, val), "--eviction-scale", 1, 100000);
        } else if (arg == "--shared-buffers") {
            o.shared_buffers = need(i, arg, val);
        } else if (arg == "--eviction-shared-buffers") {
            o.eviction_shared_buffers = need(i, arg, val);
        } else if (arg == "--hogs") {
            o.hogs = parse_long(need(i, arg, val), "--hogs", 0, 1024);
        } else if (arg == "--threads") {
            o.threads = parse_long(need(i, arg, val), "--threads", 1, 1024);
        } else if (arg == "--protocol") {
            o.protocol = need(i, arg, val);
            if (o.protocol != "simple" && o.protocol != "extended" && o.protocol != "prepared")
                throw UsageError("--protocol: expected simple, extended or prepared, got '" + o.protocol + "'");
        } else if (arg == "--set") {
            std::string kv = need(i, arg, val);
            size_t k = kv.find('=');
            if (k == std::string::npos || k == 0 || k + 1 >= kv.size())
                throw UsageError("--set: expected NAME=VALUE, got '" + kv + "'");
            std::string name = trim(kv.substr(0, k));
            if (name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_.") != std::string::npos)
                throw UsageError("--set: bad setting name '" + name + "'");
            if (name == "rseq_slice_mode")
                throw UsageError("--set rseq_slice_mode: the mode belongs to each side, e.g. --a patched:off --b patched:auto");
            if (name == "rseq_slice_request")
                throw UsageError("--set rseq_slice_request: the policy belongs to each patched side, e.g. "
                                 "--b patched:auto:shared");
            if (name == "rseq_slice_detail")
                throw UsageError("--set rseq_slice_detail: use --detail (on for the patched side(s); the report "
                                 "and the checks depend on it)");
            if (name == "port" || name == "unix_socket_directories" || name == "listen_addresses" ||
                name == "shared_buffers" || name == "max_connections")
                throw UsageError("--set " + name + ": bench/run sets it itself (see --shared-buffers, --clients)");
            std::string v = trim(kv.substr(k + 1));
            if (v.find_first_of("\n\r") != std::string::npos)
                throw UsageError("--set " + name + ": the value may not contain a line break");
            o.settings.push_back({name, v});
        } else if (arg == "--out") {
            o.out = need(i, arg, val);
        } else if (arg == "--work") {
            o.work = need(i, arg, val);
        } else if (arg == "--keep-work") {
            flag();
            o.keep_work = true;
        } else if (arg == "--no-plots") {
            flag();
            o.plots = false;
        } else if (arg == "--pg-dir") {
            o.pg_dir = need(i, arg, val);
        } else if (arg == "--stock-prefix") {
            o.stock_prefix = need(i, arg, val);
        } else if (arg == "--patched-prefix") {
            o.patched_prefix = need(i, arg, val);
        } else if (arg == "--cassert-prefix") {
            o.cassert_prefix = need(i, arg, val);
        } else if (arg == "--run-as") {
            o.run_as = need(i, arg, val);
        } else if (arg == "--detail") {
            flag();
            o.detail = true;
        } else if (arg == "--dry-run") {
            flag();
            o.dry_run = true;
        } else if (arg == "--self-test") {
            flag();
            o.self_test = true;
        } else {
            throw UsageError("unknown option '" + arg + "'");
        }
    }

    auto size_ok = [](const std::string& s) {
        if (s.empty()) return false;
        size_t k = s.find_first_not_of("0123456789");
        if (k == 0) return false;
        if (k == std::string::npos) return true;  // plain number: 8kB pages, as in postgresql.conf
        std::string unit = s.substr(k);
        return unit.empty() || unit == "kB" || unit == "MB" || unit == "GB" || unit == "TB";
    };
    // in kB; -1 if it does not parse or is absurdly large (more than 12 digits)
    auto size_kb = [](const std::string& s) -> long long {
        size_t k = s.find_first_not_of("0123456789");
        std::string digits = s.substr(0, k == std::string::npos ? s.size() : k);
        if (digits.empty() || digits.size() > 12) return -1;
        long long v = std::stoll(digits);
        std::string unit = k == std::string::npos ? "" : s.substr(k);
        if (unit.empty()) return v * 8;  // 8kB pages
        if (unit == "kB") return v;
        if (unit == "MB") return v * 1024;
        if (unit == "GB") return v * 1024 * 1024;
        return v * 1024LL * 1024 * 1024;  // TB (size_ok checked the unit)
    };
    // PostgreSQL's minimum shared_buffers is 16 buffers = 128kB (guc_tables.c)
    if (!size_ok(o.shared_buffers) || size_kb(o.shared_buffers) < 128)
        throw UsageError("--shared-buffers: expected a size of at least 128kB (PostgreSQL's minimum), e.g. 256MB, got '" +
                         o.shared_buffers + "'");
    if (!size_ok(o.eviction_shared_buffers) || size_kb(o.eviction_shared_buffers) < 128)
        throw UsageError("--eviction-shared-buffers: expected a size of at least 128kB, e.g. 16MB, got '" +
                         o.eviction_shared_buffers + "'");

    // An explicit --pg-dir or --*-prefix naming no directory is a usage
    // error (exit 2); an existing directory without a build is found later
    // (check_installation: exit 1 with how to build it).
    const std::pair<const char*, const std::string*> dirs[] = {{"--pg-dir", &o.pg_dir},
                                                               {"--stock-prefix", &o.stock_prefix},
                                                               {"--patched-prefix", &o.patched_prefix},
                                                               {"--cassert-prefix", &o.cassert_prefix}};
    for (const auto& [name, dir] : dirs)
        if (!dir->empty() && !is_dir(*dir))
            throw UsageError(std::string(name) + " " + *dir + ": no such directory");
    if (o.pg_dir.empty()) {
        const char* e = getenv("PGRSEQ_PG_DIR");
        o.pg_dir = e && *e ? e : o.repo + "/build/pg";
    }
    o.pg_dir = abs_path(o.pg_dir);
    if (o.stock_prefix.empty()) o.stock_prefix = o.pg_dir + "/stock";
    if (o.patched_prefix.empty()) o.patched_prefix = o.pg_dir + "/patched";
    if (o.cassert_prefix.empty()) o.cassert_prefix = o.pg_dir + "/patched-cassert";
    o.stock_prefix = abs_path(o.stock_prefix);
    o.patched_prefix = abs_path(o.patched_prefix);
    o.cassert_prefix = abs_path(o.cassert_prefix);
    o.a = parse_side(a_spec, 'A', o);
    o.b = parse_side(b_spec, 'B', o);
    // a stock server refuses to start with an rseq_* setting it does not know
    for (const auto& st : o.settings)
        if (st.first.rfind("rseq_", 0) == 0 && (!o.a.patched || !o.b.patched))
            throw UsageError("--set " + st.first + ": the stock server has no such setting (it would not start); "
                             "use it only when both sides are patched");
    o.a.detail = o.detail && o.a.patched;
    o.b.detail = o.detail && o.b.patched;
    if (o.detail && !o.a.patched && !o.b.patched)
        throw UsageError("--detail: no patched side (rseq_slice_detail exists only on the patched server)");

    std::set<std::string> seen;
    o.workloads.clear();
    for (auto w : split(workloads, ',')) {
        w = trim(w);
        if (w == "select_only" || w == "S") w = "select-only";
        if (w == "tpcb-like" || w == "tpc-b") w = "tpcb";
        if (w.empty()) throw UsageError("--workloads: empty entry in '" + workloads + "'");
        bool known = false;
        for (auto& k : all_workloads(o.repo))
            if (k.name == w) known = true;
        if (!known)
            throw UsageError("--workloads: unknown workload '" + w +
                             "' (expected select-only, tpcb, hot-lwlock or eviction)");
        if (seen.insert(w).second) o.workloads.push_back(w);
    }

    resolve_clients(split(clients, ','), o.cpus, !given.clients, o.clients, o.clients_spec);

    // --quick: tpcb at scale >= clients (pgbench -i of scale 8 takes seconds),
    // unless --scale or --tpcb-scale was given
    if (o.preset == "budget") apply_budget(o, given);
    if (o.tpcb_scale == -1) {
        bool explicit_scale = false;
        for (int i = 1; i < argc; i++)
            if (std::string(argv[i]) == "--scale" || starts_with(argv[i], "--scale=")) explicit_scale = true;
        o.tpcb_scale = explicit_scale ? 0 : std::max(o.scale, *std::max_element(o.clients.begin(), o.clients.end()));
    }

    if (o.out.empty()) {
        const char* e = getenv("PGRSEQ_BENCH_RESULTS");
        std::string root = e && *e ? e : o.repo + "/build/bench-results";
        o.out = root + "/run-" + local_stamp();
    }
    o.out = abs_path(o.out);
    if (o.work.empty()) o.work = o.out + "/work";
    o.work = abs_path(o.work);
    return true;
}

// ---------------------------------------------------------------------------
// Self-test of the plan: client counts, threads, --budget (bench/run --self-test)
// ---------------------------------------------------------------------------
static int pcheck(const std::string& what, bool ok, const std::string& got) {
    printf("  %-48s %s%s\n", what.c_str(), ok ? "ok" : "FAILED", ok ? "" : (": " + got).c_str());
    return ok ? 0 : 1;
}

// parse_options on "bench/run ARGS" (--dry-run added); throws UsageError.
static Options plan_of(std::vector<std::string> args) {
    args.insert(args.begin(), "bench/run");
    args.push_back("--dry-run");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    Options o;
    parse_options(static_cast<int>(args.size()), argv.data(), o);
    return o;
}

static std::string ints(const std::vector<int>& v) {
    std::vector<std::string> s;
    for (int x : v) s.push_back(std::to_string(x));
    return join(s, ",");
}

static std::string threads_of(const Options& o) {
    std::vector<int> t;
    for (int c : o.clients) t.push_back(config_threads(o, c));
    return ints(t);
}

static std::string plan_line(const Options& o) {
    return fmt("%s; clients %s (%s); threads %s; %d x %d s, warm-up %d s; tpcb scale %d; %.1f s", join(o.workloads, ",").c_str(),
               ints(o.clients).c_str(), join(o.clients_spec, ",").c_str(), threads_of(o).c_str(), o.rounds, o.duration,
               o.warmup, workload_scale(o, "tpcb"), plan_seconds(o));
}

int plan_self_test() {
    int bad = 0, n = 0;
    printf("plan self-test\n");
    auto near = [](double a, double b) { return std::fabs(a - b) < 1e-6; };
    const std::string all4 = "select-only,tpcb,hot-lwlock,eviction";
    // The default plan: 4 workloads x 4 client counts x 2 sides x (10 s
    // warm-up + 5 x 20 s), 1 s overhead per round, setups 2 x (7 + 0.7 x
    // scale) per workload (select-only 10, tpcb 10, hot-lwlock 1, eviction
    // 6): 16 x 232 + 93.8 = 3805.8 s, at any CPU count up to 16.
    Options o = plan_of({"--cpus", "2"});
    n++, bad += pcheck("2 CPUs: clients 2,8,32,100, threads 2 each",
                       ints(o.clients) == "2,8,32,100" && join(o.clients_spec, ",") == "1x,4x,16x,50x" &&
                           threads_of(o) == "2,2,2,2",
                       plan_line(o));
    n++, bad += pcheck("2 CPUs: default estimate 3805.8 s (1h03m26s)",
                       near(plan_seconds(o), 3805.8) && human_duration(plan_seconds(o)) == "1h03m26s", plan_line(o));
    o = plan_of({"--cpus", "16"});
    n++, bad += pcheck("16 CPUs: clients 16,64,256,800, threads 16 each",
                       ints(o.clients) == "16,64,256,800" && threads_of(o) == "16,16,16,16" && o.cpus == 16,
                       plan_line(o));
    n++, bad += pcheck("16 CPUs: default estimate 3805.8 s, tpcb scale 10 warned",
                       near(plan_seconds(o), 3805.8) && workload_scale(o, "tpcb") == 10 && scale_warnings(o).size() == 1,
                       plan_line(o));
    // 64 CPUs: 16x = 1024 and 50x = 3200 are capped to 1000, once:
    // 12 configurations: 12 x 232 + 93.8 = 2877.8 s
    o = plan_of({"--cpus", "64"});
    n++, bad += pcheck("64 CPUs: clients 64,256,1000 (16x capped, 50x gone)",
                       ints(o.clients) == "64,256,1000" && join(o.clients_spec, ",") == "1x,4x,16x (cap 1000)" &&
                           threads_of(o) == "64,64,64",
                       plan_line(o));
    n++, bad += pcheck("64 CPUs: default estimate 2877.8 s", near(plan_seconds(o), 2877.8), plan_line(o));
    o = plan_of({"--cpus", "64", "--clients", "50x"});
    n++, bad += pcheck("64 CPUs, --clients 50x: 3200, not capped", ints(o.clients) == "3200", plan_line(o));
    o = plan_of({"--cpus", "16", "--threads", "4"});
    n++, bad += pcheck("16 CPUs, --threads 4: 4 each", threads_of(o) == "4,4,4,4", plan_line(o));
    o = plan_of({"--cpus", "2", "--quick"});
    // select-only scale 1, tpcb scale 8: 2 x 7.7 + 2 x 12.6 + 4 x (2 x 3 + 4 x 5) = 144.6 s
    n++, bad += pcheck("--quick on 2 CPUs unchanged: 2,8, tpcb scale 8, 144.6 s",
                       ints(o.clients) == "2,8" && workload_scale(o, "tpcb") == 8 && near(plan_seconds(o), 144.6),
                       plan_line(o));
    o = plan_of({"--cpus", "2", "--full"});
    n++, bad += pcheck("--full on 2 CPUs unchanged: 2,32,100, 1557.8 s",
                       ints(o.clients) == "2,32,100" && near(plan_seconds(o), 1557.8), plan_line(o));

    // --budget 5 (300 s) on 16 CPUs: all four workloads need tpcb at scale
    // 800 (2 x 567 s of setup): no; select-only,hot-lwlock,eviction with
    // 16,800 needs 65.8 + 6 x (8 + 36) = 329.8 s: no; hot-lwlock,eviction
    // with 16,64,800: 37.8 + 6 x 44 = 301.8 s: no; with 16,800: 37.8 + 4 x
    // 44 = 213.8 s: yes; 4 rounds 261.8 s (5: 309.8 s), then 6 s rounds:
    // 37.8 + 4 x (8 + 8 x 7) = 293.8 s (7 s: 325.8 s).
    o = plan_of({"--cpus", "16", "--budget", "5"});
    n++, bad += pcheck("16 CPUs --budget 5: hot-lwlock,eviction x 16,800",
                       join(o.workloads, ",") == "hot-lwlock,eviction" && ints(o.clients) == "16,800" &&
                           threads_of(o) == "16,16",
                       plan_line(o));
    n++, bad += pcheck("16 CPUs --budget 5: 4 rounds of 6 s, 3 s warm-up",
                       o.rounds == 4 && o.duration == 6 && o.warmup == 3 && o.preset == "budget" && o.budget_min == 5,
                       plan_line(o));
    n++, bad += pcheck("16 CPUs --budget 5: estimate 293.8 s (4m54s)",
                       near(plan_seconds(o), 293.8) && human_duration(plan_seconds(o)) == "4m54s", plan_line(o));
    o = plan_of({"--cpus", "2", "--budget", "5"});
    n++, bad += pcheck("2 CPUs --budget 5: same plan with 2,100, 293.8 s",
                       join(o.workloads, ",") == "hot-lwlock,eviction" && ints(o.clients) == "2,100" &&
                           o.rounds == 4 && o.duration == 6 && near(plan_seconds(o), 293.8),
                       plan_line(o));
    // --budget 10 on 16 CPUs: select-only,hot-lwlock,eviction with all four
    // client counts: 65.8 + 12 x 44 = 593.8 s; a 4th round would be 737.8 s
    o = plan_of({"--cpus", "16", "--budget", "10"});
    n++, bad += pcheck("16 CPUs --budget 10: 3 workloads x 4 counts, 3 x 5 s",
                       join(o.workloads, ",") == "select-only,hot-lwlock,eviction" && ints(o.clients) == "16,64,256,800" &&
                           o.rounds == 3 && o.duration == 5 && near(plan_seconds(o), 593.8),
                       plan_line(o));
    // --budget 60 on 2 CPUs: all four (tpcb at scale 100: 2 x 77 s), 16
    // configurations, 5 rounds; 19 s rounds: 219.8 + 16 x (8 + 10 x 20) = 3547.8 s
    o = plan_of({"--cpus", "2", "--budget", "60"});
    n++, bad += pcheck("2 CPUs --budget 60: all 4 x 4, tpcb scale 100, 5 x 19 s",
                       join(o.workloads, ",") == all4 && ints(o.clients) == "2,8,32,100" &&
                           workload_scale(o, "tpcb") == 100 && o.rounds == 5 && o.duration == 19 &&
                           near(plan_seconds(o), 3547.8) && scale_warnings(o).empty(),
                       plan_line(o));
    // what an option fixes stays: --workloads hot-lwlock --rounds 3
    // --duration 10; the clients still follow the ladder: 4 counts need
    // 15.4 + 4 x (8 + 6 x 11) = 311.4 s, 16,64,800 need 15.4 + 3 x 74 = 237.4 s
    o = plan_of({"--cpus", "16", "--budget", "5", "--workloads", "hot-lwlock", "--rounds", "3", "--duration", "10"});
    n++, bad += pcheck("--budget 5 with fixed workloads, rounds, duration",
                       join(o.workloads, ",") == "hot-lwlock" && ints(o.clients) == "16,64,800" && o.rounds == 3 &&
                           o.duration == 10 && o.warmup == 3 && near(plan_seconds(o), 237.4),
                       plan_line(o));
    // --clients 2,4 kept: all four workloads (tpcb at scale 10 >= 4):
    // 93.8 + 8 x 44 = 445.8 s in 8 min (a 4th round: 541.8 s)
    o = plan_of({"--cpus", "16", "--budget", "8", "--clients", "2,4"});
    n++, bad += pcheck("--budget 8 --clients 2,4: kept, 4 workloads, 445.8 s",
                       join(o.workloads, ",") == all4 && ints(o.clients) == "2,4" && workload_scale(o, "tpcb") == 10 &&
                           o.rounds == 3 && o.duration == 5 && near(plan_seconds(o), 445.8),
                       plan_line(o));
    auto refused = [&](std::vector<std::string> args, const std::string& needle) {
        try {
            Options r = plan_of(args);
            return std::string("accepted: ") + plan_line(r);
        } catch (const UsageError& e) {
            return std::string(e.what()).find(needle) != std::string::npos ? std::string() : std::string(e.what());
        }
    };
    std::string why = refused({"--budget", "1"}, "the smallest plan (hot-lwlock with 1x,50x clients, 3 rounds of 5 s) needs 1m43s");
    n++, bad += pcheck("--budget 1: refused, smallest plan 1m43s", why.empty(), why);
    why = refused({"--budget", "5", "--rounds", "2"}, "need at least 3");
    n++, bad += pcheck("--budget with --rounds 2: refused", why.empty(), why);
    why = refused({"--budget", "5", "--quick"}, "exclude each other");
    n++, bad += pcheck("--budget with --quick: refused", why.empty(), why);
    why = refused({"--cpus", "0"}, "--cpus");
    n++, bad += pcheck("--cpus 0: refused", why.empty(), why);
    printf("plan self-test: %d passed, %d failed\n", n - bad, bad);
    return bad;
}

}  // namespace bench
