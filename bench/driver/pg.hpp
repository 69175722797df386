// pg.hpp: one benchmark cluster (initdb, postgresql.conf, start, stop) and
// libpq queries against it.
#pragma once

#include "bench.hpp"

#include <optional>
#include <string>
#include <vector>

typedef struct pg_conn PGconn;

namespace bench {

struct QueryResult {
    std::vector<std::string> cols;
    std::vector<std::vector<std::optional<std::string>>> rows;
};

class Cluster {
public:
    // dir: the cluster's folder (data/, server.log, socket); logdir: where
    // the server log is copied when the cluster stops.
    Cluster(const Side& side, const std::string& workload, const std::string& dir);
    ~Cluster();
    Cluster(const Cluster&) = delete;
    Cluster& operator=(const Cluster&) = delete;

    void initdb(const std::string& log);
    // Writes data/bench.conf (included from postgresql.conf); returns its text.
    std::string configure(const std::string& shared_buffers, int max_connections,
                          const std::vector<std::pair<std::string, std::string>>& extra);
    void start();
    // Closes the driver's connection first and (unless immediate) waits up
    // to 10 s for its backend to exit, so that the server log does not end
    // with that backend's "FATAL: terminating connection due to
    // administrator command"; then pg_ctl stop -m fast (immediate: -m
    // immediate).  Safe to repeat.
    void stop(bool immediate);
    int postmaster_pid() const;  // from postmaster.pid; 0 if not running
    bool running() const { return running_; }

    QueryResult query(const std::string& sql);                      // one statement
    std::vector<QueryResult> query_multi(const std::string& sql);   // several, one round trip
    std::optional<std::string> scalar(const std::string& sql);
    void exec(const std::string& sql) { query_multi(sql); }

    std::vector<std::string> pgbench_conn_args() const;  // -h SOCK -p PORT -U bench
    std::string bin(const std::string& prog) const { return side_.prefix + "/bin/" + prog; }
    std::string server_log() const { return dir_ + "/server.log"; }
    std::string datadir() const { return dir_ + "/data"; }
    std::string startup_line() const;  // "rseq slice extension: mode ..." or ""
    int port() const { return port_; }
    const std::string& conf_text() const { return conf_; }

private:
    PGconn* conn();
    void write_conf();
    static int free_port();

    Side side_;
    std::string workload_;
    std::string dir_, sockdir_;
    bool tmp_sockdir_ = false;
    std::string shared_buffers_;
    int max_connections_ = 100;
    std::vector<std::pair<std::string, std::string>> extra_;
    std::string conf_;
    int port_ = 0;
    bool running_ = false;
    int cleanup_id_ = 0;
    PGconn* conn_ = nullptr;
};

}  // namespace bench
