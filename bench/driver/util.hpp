// util.hpp: small helpers shared by the driver (strings, files, time, errors).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace bench {

// A failure of the run (exit status 1).
struct Error : std::runtime_error {
    using std::runtime_error::runtime_error;
};
// A bad command line (exit status 2).
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};
// SIGINT/SIGTERM/SIGHUP arrived (exit status 128 + signal).
struct Interrupted : std::runtime_error {
    int signo;
    explicit Interrupted(int s) : std::runtime_error("interrupted by signal"), signo(s) {}
};

std::vector<std::string> split(const std::string& s, char sep);
std::string trim(const std::string& s);
std::string join(const std::vector<std::string>& v, const std::string& sep);
bool starts_with(const std::string& s, const std::string& prefix);
std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
// Shell-quote one word (for the command lines we record).
std::string shell_quote(const std::string& s);
std::string shell_join(const std::vector<std::string>& argv);

std::string read_file(const std::string& path);
bool file_exists(const std::string& path);
void write_file(const std::string& path, const std::string& content);
void mkdirs(const std::string& path);
void remove_tree(const std::string& path);
std::string abs_path(const std::string& path);
std::string dirname_of(const std::string& path);

double now_mono();                // seconds, CLOCK_MONOTONIC
std::string utc_timestamp();      // 2026-01-02T03:04:05Z
std::string local_stamp();        // 20260102-030405 (local time, for folder names)
std::string human_duration(double seconds);  // 4m10s

// Parse helpers: throw UsageError with `what` in the message.
long parse_long(const std::string& s, const std::string& what, long min, long max);
double parse_double(const std::string& s, const std::string& what);

// /proc readings.
struct LoadAvg {
    double l1 = 0, l5 = 0, l15 = 0;
};
LoadAvg read_loadavg();
// The first line of /proc/stat, clock ticks (sysconf(_SC_CLK_TCK)) summed
// over all CPUs.
struct CpuTimes {
    uint64_t busy = 0, total = 0;  // busy: all but idle and iowait (nice and steal count as busy)
    uint64_t nice = 0;             // niced user time (guest_nice included, as in the kernel's count)
    uint64_t steal = 0;            // time the hypervisor gave to others
};
CpuTimes read_cpu_times();

// One process of /proc/PID/stat, CPU times in clock ticks.
struct ProcStat {
    int pid = 0, ppid = 0;
    std::string comm;
    uint64_t ticks = 0;        // utime + stime
    uint64_t child_ticks = 0;  // cutime + cstime: children it has reaped
};
// Every process of the machine (those that vanish while being read are
// skipped).
std::vector<ProcStat> read_procs();

std::string json_escape(const std::string& s);
std::string csv_escape(const std::string& s);

}  // namespace bench
