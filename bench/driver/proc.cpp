// proc.cpp: see proc.hpp.
#include "proc.hpp"

#include "util.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <map>
#include <mutex>

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace bench {

namespace {
RunUser g_user;
volatile sig_atomic_t g_signal = 0;
bool g_cleaning = false;  // in run_cleanups: signals no longer abort waits
std::map<int, std::function<void()>> g_cleanups;
int g_next_cleanup = 1;
std::map<pid_t, std::string> g_children;  // live children, killed by cleanup

void on_signal(int s) {
    if (!g_signal) g_signal = s;
}

// Environment for children: ours without PG* variables (no stray PGHOST,
// PGOPTIONS, ... may change what pgbench or initdb do), C locale so that the
// output we parse is English with '.' decimals.
std::vector<std::string> child_env() {
    std::vector<std::string> env;
    for (char** e = environ; *e; e++) {
        std::string kv = *e;
        if (starts_with(kv, "PG") || starts_with(kv, "LC_") || starts_with(kv, "LANG=") ||
            starts_with(kv, "LANGUAGE="))
            continue;
        env.push_back(kv);
    }
    env.push_back("LC_ALL=C");
    env.push_back("LANG=C");
    return env;
}
}  // namespace

void set_run_user(const RunUser& u) { g_user = u; }
const RunUser& run_user() { return g_user; }

std::string which(const std::string& prog) {
    if (prog.find('/') != std::string::npos) return access(prog.c_str(), X_OK) == 0 ? prog : "";
    const char* path = getenv("PATH");
    std::string p = path ? path : "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";
    for (const auto& dir : split(p + ":/usr/sbin:/sbin", ':')) {
        if (dir.empty()) continue;
        std::string cand = dir + "/" + prog;
        if (access(cand.c_str(), X_OK) == 0) return cand;
    }
    return "";
}

pid_t spawn(const std::vector<std::string>& argv, const SpawnOpts& o) {
    if (argv.empty()) throw Error("spawn: empty command");
    std::string exe = which(argv[0]);
    if (exe.empty()) throw Error("command not found: " + argv[0]);

    int outfd = -1, errfd = -1;
    int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (o.append ? O_APPEND : O_TRUNC);
    if (!o.out_path.empty()) {
        outfd = open(o.out_path.c_str(), flags, 0644);
        if (outfd < 0) throw Error("cannot open " + o.out_path + ": " + strerror(errno));
    }
    if (!o.err_path.empty()) {
        errfd = open(o.err_path.c_str(), flags, 0644);
        if (errfd < 0) {
            if (outfd >= 0) close(outfd);
            throw Error("cannot open " + o.err_path + ": " + strerror(errno));
        }
    }
    std::vector<std::string> env = child_env();
    if (o.as_run_user && g_user.drop) {
        // HOME of the run user: it has none; point it at the working folder.
        env.push_back("HOME=" + (o.cwd.empty() ? std::string("/") : o.cwd));
    }
    std::vector<char*> cargv, cenv;
    for (auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
    cargv.push_back(nullptr);
    for (auto& e : env) cenv.push_back(const_cast<char*>(e.c_str()));
    cenv.push_back(nullptr);
    pid_t parent = getpid();

    pid_t pid = fork();
    if (pid < 0) throw Error(std::string("fork: ") + strerror(errno));
    if (pid == 0) {
        // Child: only async-signal-safe calls from here on.
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        signal(SIGQUIT, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        if (o.own_group) setpgid(0, 0);
        int nullfd = open("/dev/null", O_RDONLY);
        if (nullfd >= 0) dup2(nullfd, 0);
        if (outfd >= 0) dup2(outfd, 1);
        if (errfd >= 0)
            dup2(errfd, 2);
        else if (outfd >= 0)
            dup2(outfd, 2);
        if (!o.cwd.empty() && chdir(o.cwd.c_str()) != 0) _exit(126);
        if (o.as_run_user && g_user.drop) {
            if (setgroups(1, &g_user.gid) != 0 || setgid(g_user.gid) != 0 || setuid(g_user.uid) != 0) {
                const char msg[] = "bench: cannot drop privileges\n";
                (void)!write(2, msg, sizeof msg - 1);
                _exit(126);
            }
        }
        // Set after setuid (a credential change clears it).
        if (o.die_with_parent) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != parent) _exit(125);
        }
        execve(exe.c_str(), cargv.data(), cenv.data());
        _exit(127);
    }
    if (o.own_group) setpgid(pid, pid);  // no race with the child's own call
    if (outfd >= 0) close(outfd);
    if (errfd >= 0) close(errfd);
    g_children[pid] = argv[0];
    return pid;
}

static void kill_group(pid_t pid, int sig) {
    if (kill(-pid, sig) != 0) kill(pid, sig);
}

int wait_child(pid_t pid, double timeout_s, const std::string& what) {
    double start = now_mono();
    bool killed = false;
    double killed_at = 0;
    int status = 0;
    std::string reason;
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid) break;
        if (r < 0 && errno != EINTR) {
            g_children.erase(pid);
            throw Error("waitpid(" + what + "): " + strerror(errno));
        }
        if (!killed && ((g_signal && !g_cleaning) || (timeout_s > 0 && now_mono() - start > timeout_s))) {
            reason = (g_signal && !g_cleaning) ? "signal" : "timeout";
            kill_group(pid, SIGTERM);
            killed = true;
            killed_at = now_mono();
        } else if (killed && now_mono() - killed_at > 3.0) {
            kill_group(pid, SIGKILL);
        }
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, nullptr);
    }
    g_children.erase(pid);
    if (killed && reason == "signal") throw Interrupted(g_signal);
    if (killed) throw Error(fmt("%s did not finish within %.0f s (killed)", what.c_str(), timeout_s));
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return 255;
}

int run_cmd(const std::vector<std::string>& argv, const SpawnOpts& o, double timeout_s, bool check) {
    pid_t pid = spawn(argv, o);
    int st = wait_child(pid, timeout_s, argv[0]);
    if (check && st != 0) {
        std::string where = o.out_path.empty() ? "" : " (output: " + o.out_path + ")";
        throw Error(fmt("command failed with status %d: ", st) + shell_join(argv) + where);
    }
    return st;
}

std::string capture(const std::vector<std::string>& argv) {
    if (which(argv[0]).empty()) return "";
    char tmpl[] = "/tmp/pgrseq-bench-cap-XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd < 0) return "";
    close(fd);
    SpawnOpts o;
    o.out_path = tmpl;
    o.err_path = "/dev/null";
    std::string out;
    try {
        if (run_cmd(argv, o, 60, false) == 0) out = read_file(tmpl);
    } catch (const Interrupted&) {
        unlink(tmpl);
        throw;
    } catch (const std::exception&) {
    }
    unlink(tmpl);
    return out;
}

RunUser setup_run_user(const std::string& requested) {
    RunUser u;
    bool root = geteuid() == 0;
    std::string name = requested;
    if (name.empty()) {
        if (!root) {
            struct passwd* pw = getpwuid(geteuid());
            u.name = pw ? pw->pw_name : "unknown";
            u.uid = geteuid();
            u.gid = getegid();
            return u;
        }
        name = "pgrseq";
    }
    struct passwd* pw = getpwnam(name.c_str());
    // Only the project's own default user is created; a --run-as name that
    // does not exist is a typo, not a request for a new system account.
    if (!pw && root && !requested.empty() && requested != "pgrseq")
        throw Error("--run-as " + requested + ": no such user (create it first, or leave --run-as out to use pgrseq)");
    if (!pw && root) {
        fprintf(stderr, "[bench] creating user %s to run PostgreSQL as non-root\n", name.c_str());
        SpawnOpts o;
        run_cmd({"useradd", "--system", "--user-group", "--no-create-home", "--shell", "/usr/sbin/nologin", name}, o,
                60);
        pw = getpwnam(name.c_str());
    }
    if (!pw) throw Error("user " + name + " does not exist");
    u.name = pw->pw_name;
    u.uid = pw->pw_uid;
    u.gid = pw->pw_gid;
    if (u.uid == geteuid()) return u;
    if (!root) throw Error("--run-as " + name + ": only root can run PostgreSQL as another user");
    if (u.uid == 0) throw Error("--run-as root: initdb and postgres refuse to run as root");
    u.drop = true;
    return u;
}

void give_to(const RunUser& u, const std::string& path) {
    if (!u.drop) return;
    SpawnOpts o;
    run_cmd({"chown", "-R", fmt("%u:%u", u.uid, u.gid), path}, o, 120);
}

bool user_can_write(const RunUser& u, const std::string& dir) {
    SpawnOpts o;
    o.as_run_user = true;
    o.out_path = "/dev/null";
    return run_cmd({"test", "-w", dir, "-a", "-x", dir}, o, 30, false) == 0;
}

void install_signal_handlers() {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;  // no SA_RESTART: blocking calls return EINTR
    for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaction(s, &sa, nullptr);
    signal(SIGPIPE, SIG_IGN);
}

int pending_signal() { return g_signal; }

bool shield_signals(bool on) {
    bool prev = g_cleaning;
    g_cleaning = on;
    return prev;
}

void check_interrupt() {
    if (g_signal) throw Interrupted(g_signal);
}

void sleep_interruptible(double seconds) {
    double end = now_mono() + seconds;
    while (now_mono() < end) {
        check_interrupt();
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, nullptr);
    }
    check_interrupt();
}

void Hogs::start(int n) {
    stop();
    pid_t parent = getpid();
    for (int i = 0; i < n; i++) {
        pid_t pid = fork();
        if (pid < 0) throw Error(std::string("fork (hog): ") + strerror(errno));
        if (pid == 0) {
            signal(SIGINT, SIG_IGN);  // the driver kills us; ^C at the terminal does not
            signal(SIGTERM, SIG_DFL);
            signal(SIGHUP, SIG_DFL);
            signal(SIGQUIT, SIG_DFL);
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != parent) _exit(0);
            setpgid(0, 0);
            volatile unsigned long x = 0;
            for (;;) x = x + 1;
        }
        setpgid(pid, pid);
        pids_.push_back(pid);
        g_children[pid] = "hog";
    }
}

void Hogs::stop() {
    for (pid_t p : pids_) kill(p, SIGKILL);
    for (pid_t p : pids_) {
        int st;
        while (waitpid(p, &st, 0) < 0 && errno == EINTR) {
        }
        g_children.erase(p);
    }
    pids_.clear();
}

int at_cleanup(std::function<void()> fn) {
    int id = g_next_cleanup++;
    g_cleanups[id] = std::move(fn);
    return id;
}

void cancel_cleanup(int id) { g_cleanups.erase(id); }

void run_cleanups() {
    // Children first (pgbench, hogs, anything still running), then the
    // registered actions (server stops) newest first.
    g_cleaning = true;
    for (auto& [pid, name] : g_children) kill_group(pid, SIGKILL);
    for (auto& [pid, name] : g_children) {
        int st;
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
        }
    }
    g_children.clear();
    while (!g_cleanups.empty()) {
        auto it = std::prev(g_cleanups.end());
        auto fn = std::move(it->second);
        g_cleanups.erase(it);
        try {
            fn();
        } catch (const std::exception& e) {
            fprintf(stderr, "[bench] cleanup: %s\n", e.what());
        }
    }
}

}  // namespace bench
