// proc.hpp: child processes (pgbench, initdb, pg_ctl, gnuplot, CPU hogs),
// dropping root privileges for PostgreSQL, signal handling and the cleanup
// that runs on every exit path.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <sys/types.h>

namespace bench {

// Who runs initdb, postgres and pgbench: the user itself, or (as root) an
// unprivileged user (PostgreSQL refuses to run as root).
struct RunUser {
    bool drop = false;  // true when we are root and switch users in children
    uid_t uid = 0;
    gid_t gid = 0;
    std::string name;
};
// Look up (and, as root, create with useradd if missing) the user.
// `requested` empty: "pgrseq" as root, else the current user.
RunUser setup_run_user(const std::string& requested);
// chown -R path to the run user (no-op without drop).
void give_to(const RunUser& u, const std::string& path);
// Whether the run user can create files in dir (checked in a child).
bool user_can_write(const RunUser& u, const std::string& dir);

struct SpawnOpts {
    bool as_run_user = false;  // drop to RunUser in the child
    std::string out_path;      // stdout (and stderr unless err_path) to this file; empty: inherit
    std::string err_path;      // stderr to this file
    bool append = false;
    std::string cwd;
    bool own_group = true;     // setpgid(0,0): the terminal's ^C reaches only us
    bool die_with_parent = true;  // PR_SET_PDEATHSIG SIGKILL
};

void set_run_user(const RunUser& u);   // used by SpawnOpts::as_run_user
const RunUser& run_user();

pid_t spawn(const std::vector<std::string>& argv, const SpawnOpts& o);
// Wait for pid.  timeout_s <= 0: no timeout.  On timeout the process group
// is killed and Error thrown; on a signal to us it is killed and
// Interrupted thrown.  Returns the exit status (128+sig if killed).
int wait_child(pid_t pid, double timeout_s, const std::string& what);
// spawn + wait_child; throws Error if the exit status is not 0 and check.
int run_cmd(const std::vector<std::string>& argv, const SpawnOpts& o, double timeout_s, bool check = true);
// Run and return stdout (stderr discarded); "" on failure.
std::string capture(const std::vector<std::string>& argv);
// Search PATH.
std::string which(const std::string& prog);

// Signals: SIGINT, SIGTERM, SIGHUP, SIGQUIT set a flag (no SA_RESTART).
void install_signal_handlers();
int pending_signal();          // 0 if none
void check_interrupt();        // throws Interrupted if a signal arrived
// While on, waits are not cut short by signals (stopping servers must finish
// even after ^C).  Returns the previous state.
bool shield_signals(bool on);
// Sleep up to seconds, returning early (and throwing) on a signal.
void sleep_interruptible(double seconds);

// CPU hogs: n busy-loop children in one process group.
class Hogs {
public:
    void start(int n);
    void stop();
    ~Hogs() { stop(); }
    int count() const { return static_cast<int>(pids_.size()); }

private:
    std::vector<pid_t> pids_;
};

// Cleanup actions run (in reverse order of registration) on every exit path;
// each returns an id for unregistering.
int at_cleanup(std::function<void()> fn);
void cancel_cleanup(int id);
void run_cleanups();

}  // namespace bench
