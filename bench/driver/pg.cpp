// pg.cpp: see pg.hpp.
#include "pg.hpp"

#include "proc.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>

#include <arpa/inet.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace bench {

static const char* kDbUser = "bench";  // initdb -U: the superuser pgbench and the driver use

Cluster::Cluster(const Side& side, const std::string& workload, const std::string& dir)
    : side_(side), workload_(workload), dir_(dir) {
    mkdirs(dir_);
    // The Unix socket path (dir + "/.s.PGSQL.NNNNN") must fit in 107 bytes.
    if (dir_.size() + 20 < 100) {
        sockdir_ = dir_;
    } else {
        char tmpl[] = "/tmp/pgrseq-bench-XXXXXX";
        if (!mkdtemp(tmpl)) throw Error(std::string("mkdtemp: ") + strerror(errno));
        sockdir_ = tmpl;
        tmp_sockdir_ = true;
    }
    give_to(run_user(), dir_);
    if (tmp_sockdir_) give_to(run_user(), sockdir_);
}

Cluster::~Cluster() {
    try {
        stop(true);
    } catch (...) {
    }
    if (tmp_sockdir_) rmdir(sockdir_.c_str());
}

void Cluster::initdb(const std::string& log) {
    SpawnOpts o;
    o.as_run_user = true;
    o.out_path = log;
    o.cwd = dir_;
    // -N: no fsync of the new cluster (it is thrown away after the run).
    run_cmd({bin("initdb"), "-N", "-D", datadir(), "-U", kDbUser, "--no-locale", "-E", "UTF8", "--auth=trust",
             "--no-instructions"},
            o, 600);
}

int Cluster::free_port() {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) throw Error(std::string("socket: ") + strerror(errno));
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        close(fd);
        throw Error(std::string("bind: ") + strerror(errno));
    }
    socklen_t len = sizeof a;
    getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    close(fd);
    return ntohs(a.sin_port);
}

std::string Cluster::configure(const std::string& shared_buffers, int max_connections,
                               const std::vector<std::pair<std::string, std::string>>& extra) {
    shared_buffers_ = shared_buffers;
    max_connections_ = max_connections;
    extra_ = extra;
    port_ = free_port();
    write_conf();
    std::ofstream pc(datadir() + "/postgresql.conf", std::ios::app);
    pc << "\n# bench/run: its settings for this run\ninclude = 'bench.conf'\n";
    if (!pc) throw Error("cannot append to " + datadir() + "/postgresql.conf");
    return conf_;
}

void Cluster::write_conf() {
    std::string c;
    c += "# bench.conf: written by bench/run for side " + std::string(1, side_.id) + " (" + side_.label() +
         "), workload " + workload_ + "\n";
    c += "listen_addresses = '127.0.0.1'          # localhost only\n";
    c += fmt("port = %d                            # a free port, chosen at start\n", port_);
    c += "unix_socket_directories = '" + sockdir_ + "'   # pgbench connects here\n";
    c += fmt("max_connections = %d                  # clients + 10 or more\n", max_connections_);
    c += "shared_buffers = " + shared_buffers_ + "\n";
    c += "huge_pages = off                        # same memory setup on both sides\n";
    c += "# The cluster is thrown away after the run, and the runs should measure CPU\n"
         "# and lock behaviour, not the shared disk of this machine:\n";
    c += "fsync = off                             # no flushes (checkpoints, WAL writer) to a disk others share\n";
    c += "synchronous_commit = off                # commits do not wait for WAL flushes (TPC-B would be I/O bound)\n";
    c += "full_page_writes = on\n";
    c += "checkpoint_timeout = 30min              # no timed checkpoint during a run\n";
    c += "max_wal_size = 4GB                      # no WAL-volume checkpoint during a run\n";
    c += "log_checkpoints = on                    # if one happens anyway, the log shows it\n";
    c += "autovacuum = on\n";
    c += "jit = off                               # pgbench queries are tiny\n";
    c += "log_line_prefix = '%m [%p] '\n";
    c += "log_min_messages = warning\n";
    if (side_.patched) c += "rseq_slice_mode = " + side_.mode + "              # the side's mode\n";
    // glibc < 2.41 registers a legacy rseq area, which a Linux 7.x kernel
    // refuses for the slice extension; the server's default (never) keeps it.
    // A benchmark server runs nothing else that uses glibc's area.
    if (side_.patched)
        c += "rseq_slice_register = auto             # replace glibc's legacy rseq area where the kernel has the "
             "slice extension\n";
    if (side_.patched && !side_.request.empty())
        c += "rseq_slice_request = " + side_.request + "          # the side's request policy\n";
    if (side_.patched && side_.detail)
        c += "rseq_slice_detail = on                 # --detail: count the detail counters (every lock section "
             "takes the slow path)\n";
    for (auto& [k, v] : extra_) {
        // a postgresql.conf string literal: quotes doubled, backslashes escaped
        std::string q;
        for (char ch : v) {
            if (ch == '\'') q += "''";
            else if (ch == '\\') q += "\\\\";
            else q += ch;
        }
        c += k + " = '" + q + "'                # --set\n";
    }
    conf_ = c;
    write_file(datadir() + "/bench.conf", c);
    give_to(run_user(), datadir() + "/bench.conf");
}

void Cluster::start() {
    for (int attempt = 1;; attempt++) {
        // Register the stop before starting: a signal during pg_ctl start
        // must still stop the server.
        if (!cleanup_id_) cleanup_id_ = at_cleanup([this]() { stop(true); });
        SpawnOpts o;
        o.as_run_user = true;
        o.out_path = dir_ + "/pg_ctl.log";
        o.append = true;
        o.cwd = dir_;
        running_ = true;
        int st = run_cmd({bin("pg_ctl"), "-D", datadir(), "-l", server_log(), "-w", "-t", "300", "start"}, o, 330,
                         false);
        if (st == 0) break;
        std::string log = file_exists(server_log()) ? read_file(server_log()) : "";
        stop(true);
        if (attempt < 3 && (log.find("could not bind") != std::string::npos ||
                            log.find("already in use") != std::string::npos)) {
            port_ = free_port();
            write_conf();
            continue;
        }
        throw Error("server " + std::string(1, side_.id) + " (" + side_.label() + ") did not start; see " +
                    server_log() + ":\n" + (log.size() > 2000 ? log.substr(log.size() - 2000) : log));
    }
}

int Cluster::postmaster_pid() const {
    try {
        if (!file_exists(datadir() + "/postmaster.pid")) return 0;
        long pid = strtol(read_file(datadir() + "/postmaster.pid").c_str(), nullptr, 10);
        return pid > 1 ? static_cast<int>(pid) : 0;
    } catch (...) {
        return 0;
    }
}

void Cluster::stop(bool immediate) {
    if (conn_) {
        // The backend ends when it reads the Terminate message PQfinish
        // sends; if the postmaster's shutdown signal reached it first, it
        // would log "FATAL: terminating connection due to administrator
        // command".  So wait for it to go (a loaded machine may not have
        // scheduled it yet).
        int backend = PQstatus(conn_) == CONNECTION_OK ? PQbackendPID(conn_) : 0;
        PQfinish(conn_);
        conn_ = nullptr;
        if (backend > 0 && running_ && !immediate) {
            double until = now_mono() + 10;
            while (kill(backend, 0) == 0 && now_mono() < until) usleep(10000);
        }
    }
    if (!running_) return;
    bool shielded = shield_signals(true);  // a ^C must not cut the stop short
    SpawnOpts o;
    o.as_run_user = true;
    o.out_path = dir_ + "/pg_ctl.log";
    o.append = true;
    o.cwd = dir_;
    int st = 1;
    try {
        st = run_cmd({bin("pg_ctl"), "-D", datadir(), "-m", immediate ? "immediate" : "fast", "-w", "-t", "120",
                      "stop"},
                     o, 150, false);
        if (st != 0 && !immediate)
            st = run_cmd({bin("pg_ctl"), "-D", datadir(), "-m", "immediate", "-w", "-t", "60", "stop"}, o, 90,
                         false);
    } catch (const std::exception&) {
        st = 1;
    }
    if (st != 0 && file_exists(datadir() + "/postmaster.pid")) {
        // Last resort: the postmaster's pid from postmaster.pid.
        try {
            std::string pidtxt = read_file(datadir() + "/postmaster.pid");
            long pid = strtol(pidtxt.c_str(), nullptr, 10);
            if (pid > 1) kill(static_cast<pid_t>(pid), SIGKILL);
        } catch (...) {
        }
    }
    shield_signals(shielded);
    running_ = false;
    if (cleanup_id_) {
        cancel_cleanup(cleanup_id_);
        cleanup_id_ = 0;
    }
}

std::vector<std::string> Cluster::pgbench_conn_args() const {
    return {"-h", sockdir_, "-p", std::to_string(port_), "-U", kDbUser};
}

PGconn* Cluster::conn() {
    if (conn_ && PQstatus(conn_) == CONNECTION_OK) return conn_;
    if (conn_) PQfinish(conn_);
    const char* keys[] = {"host", "port", "user", "dbname", "connect_timeout", "application_name", nullptr};
    std::string port = std::to_string(port_);
    const char* vals[] = {sockdir_.c_str(), port.c_str(), kDbUser, "postgres", "60", "pg_rseq_bench", nullptr};
    conn_ = PQconnectdbParams(keys, vals, 0);
    if (PQstatus(conn_) != CONNECTION_OK) {
        std::string msg = PQerrorMessage(conn_);
        PQfinish(conn_);
        conn_ = nullptr;
        throw Error("cannot connect to server " + std::string(1, side_.id) + ": " + msg);
    }
    return conn_;
}

std::vector<QueryResult> Cluster::query_multi(const std::string& sql) {
    PGconn* c = conn();
    if (!PQsendQuery(c, sql.c_str())) throw Error(std::string("query failed: ") + PQerrorMessage(c));
    std::vector<QueryResult> out;
    std::string err;
    while (PGresult* r = PQgetResult(c)) {
        ExecStatusType st = PQresultStatus(r);
        if (st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK) {
            QueryResult q;
            for (int j = 0; j < PQnfields(r); j++) q.cols.push_back(PQfname(r, j));
            for (int i = 0; i < PQntuples(r); i++) {
                std::vector<std::optional<std::string>> row;
                for (int j = 0; j < PQnfields(r); j++) {
                    if (PQgetisnull(r, i, j))
                        row.push_back(std::nullopt);
                    else
                        row.push_back(std::string(PQgetvalue(r, i, j)));
                }
                q.rows.push_back(std::move(row));
            }
            out.push_back(std::move(q));
        } else if (err.empty()) {
            err = PQresultErrorMessage(r);
        }
        PQclear(r);
    }
    if (!err.empty()) throw Error("server " + std::string(1, side_.id) + ": " + trim(err) + "\n  in: " + sql);
    return out;
}

QueryResult Cluster::query(const std::string& sql) {
    auto v = query_multi(sql);
    if (v.empty()) return {};
    return v.back();
}

std::optional<std::string> Cluster::scalar(const std::string& sql) {
    QueryResult q = query(sql);
    if (q.rows.empty() || q.rows[0].empty()) return std::nullopt;
    return q.rows[0][0];
}

std::string Cluster::startup_line() const {
    if (!file_exists(server_log())) return "";
    std::string log = read_file(server_log());
    size_t k = log.find("rseq slice extension: mode");
    if (k == std::string::npos) return "";
    size_t e = log.find('\n', k);
    return log.substr(k, e == std::string::npos ? std::string::npos : e - k);
}

}  // namespace bench
