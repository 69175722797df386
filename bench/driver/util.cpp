// util.cpp: see util.hpp.
#include "util.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

namespace bench {

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::string cur;
    for (char c : s) {
        if (c == sep) {
            out.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    out.push_back(cur);
    return out;
}

std::string trim(const std::string& s) {
    size_t b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return "";
    size_t e = s.find_last_not_of(" \t\r\n");
    return s.substr(b, e - b + 1);
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
    std::string out;
    for (size_t i = 0; i < v.size(); i++) {
        if (i) out += sep;
        out += v[i];
    }
    return out;
}

bool starts_with(const std::string& s, const std::string& prefix) {
    return s.compare(0, prefix.size(), prefix) == 0;
}

std::string fmt(const char* f, ...) {
    va_list ap;
    va_start(ap, f);
    char buf[512];
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(buf, sizeof buf, f, ap);
    va_end(ap);
    if (n < 0) {
        va_end(ap2);
        return "";
    }
    if (static_cast<size_t>(n) < sizeof buf) {
        va_end(ap2);
        return std::string(buf, n);
    }
    std::string big(n + 1, '\0');
    vsnprintf(&big[0], n + 1, f, ap2);
    va_end(ap2);
    big.resize(n);
    return big;
}

std::string shell_quote(const std::string& s) {
    if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=/.,:@%") ==
                          std::string::npos)
        return s;
    std::string out = "'";
    for (char c : s) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    return out + "'";
}

std::string shell_join(const std::vector<std::string>& argv) {
    std::vector<std::string> q;
    for (auto& a : argv) q.push_back(shell_quote(a));
    return join(q, " ");
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("cannot read " + path + ": " + strerror(errno));
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

bool file_exists(const std::string& path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0;
}

void write_file(const std::string& path, const std::string& content) {
    std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) throw Error("cannot write " + tmp + ": " + strerror(errno));
        out << content;
        if (!out) throw Error("cannot write " + tmp);
    }
    if (rename(tmp.c_str(), path.c_str()) != 0) throw Error("cannot rename " + tmp + ": " + strerror(errno));
}

void mkdirs(const std::string& path) {
    if (path.empty()) return;
    std::string cur;
    for (const auto& part : split(path, '/')) {
        cur += part;
        cur += '/';
        if (part.empty()) continue;
        if (mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST)
            throw Error("cannot create directory " + cur + ": " + strerror(errno));
    }
}

static int rm_one(const char* p, const struct stat*, int type, struct FTW*) {
    if (type == FTW_DP)
        rmdir(p);
    else
        unlink(p);
    return 0;
}

void remove_tree(const std::string& path) {
    if (path.empty() || path == "/") return;
    nftw(path.c_str(), rm_one, 32, FTW_DEPTH | FTW_PHYS);
}

std::string abs_path(const std::string& path) {
    if (!path.empty() && path[0] == '/') return path;
    char buf[PATH_MAX];
    if (!getcwd(buf, sizeof buf)) throw Error("getcwd failed");
    std::string p = path;
    while (starts_with(p, "./")) p = p.substr(2);
    if (p == "." || p.empty()) return buf;
    return std::string(buf) + "/" + p;
}

std::string dirname_of(const std::string& path) {
    size_t k = path.find_last_of('/');
    if (k == std::string::npos) return ".";
    if (k == 0) return "/";
    return path.substr(0, k);
}

double now_mono() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

std::string utc_timestamp() {
    time_t t = time(nullptr);
    struct tm tm;
    gmtime_r(&t, &tm);
    char buf[64];
    strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

std::string local_stamp() {
    time_t t = time(nullptr);
    struct tm tm;
    localtime_r(&t, &tm);
    char buf[64];
    strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
    return buf;
}

std::string human_duration(double seconds) {
    if (!(seconds >= 0)) seconds = 0;
    long s = std::lround(seconds);
    if (s >= 3600) return fmt("%ldh%02ldm%02lds", s / 3600, (s / 60) % 60, s % 60);
    if (s >= 60) return fmt("%ldm%02lds", s / 60, s % 60);
    return fmt("%lds", s);
}

long parse_long(const std::string& s, const std::string& what, long min, long max) {
    errno = 0;
    char* end = nullptr;
    long v = strtol(s.c_str(), &end, 10);
    if (s.empty() || errno || *end != '\0' || v < min || v > max)
        throw UsageError(fmt("%s: expected an integer from %ld to %ld, got '%s'", what.c_str(), min, max,
                             s.c_str()));
    return v;
}

double parse_double(const std::string& s, const std::string& what) {
    errno = 0;
    char* end = nullptr;
    double v = strtod(s.c_str(), &end);
    if (s.empty() || errno || *end != '\0' || !std::isfinite(v))
        throw UsageError(what + ": expected a number, got '" + s + "'");
    return v;
}

LoadAvg read_loadavg() {
    LoadAvg l;
    FILE* f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf %lf %lf", &l.l1, &l.l5, &l.l15) != 3) l = LoadAvg{};
        fclose(f);
    }
    return l;
}

CpuTimes read_cpu_times() {
    CpuTimes c;
    FILE* f = fopen("/proc/stat", "r");
    if (!f) return c;
    unsigned long long v[10] = {0};
    if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
               &v[5], &v[6], &v[7], &v[8], &v[9]) >= 8) {
        // user nice system idle iowait irq softirq steal guest guest_nice;
        // guest time is already counted in user/nice.
        uint64_t idle = v[3] + v[4];
        uint64_t total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
        c.total = total;
        c.busy = total - idle;
        c.nice = v[1];
        c.steal = v[7];
    }
    fclose(f);
    return c;
}

std::vector<ProcStat> read_procs() {
    std::vector<ProcStat> out;
    DIR* d = opendir("/proc");
    if (!d) return out;
    while (dirent* e = readdir(d)) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
        std::string path = std::string("/proc/") + e->d_name + "/stat";
        FILE* f = fopen(path.c_str(), "r");
        if (!f) continue;
        char buf[1024];
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = '\0';
        // pid (comm) state ppid ... ; comm may hold spaces and parentheses:
        // it ends at the last ')'.
        char* open = strchr(buf, '(');
        char* close = strrchr(buf, ')');
        if (!open || !close || close < open) continue;
        ProcStat p;
        p.pid = atoi(buf);
        p.comm.assign(open + 1, close - open - 1);
        // fields after ')': 3 state, 4 ppid, ... 14 utime 15 stime 16 cutime 17 cstime
        char state;
        long long ppid;
        unsigned long long skip, ut, st;
        long long cut, cst;
        if (sscanf(close + 1, " %c %lld %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %lld %lld", &state,
                   &ppid, &skip, &skip, &skip, &skip, &skip, &skip, &skip, &skip, &skip, &ut, &st, &cut, &cst) != 15)
            continue;
        p.ppid = static_cast<int>(ppid);
        p.ticks = ut + st;
        p.child_ticks = static_cast<uint64_t>(std::max(0LL, cut) + std::max(0LL, cst));
        out.push_back(p);
    }
    closedir(d);
    return out;
}

std::string json_escape(const std::string& s) {
    std::string out = "\"";
    for (unsigned char c : s) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (c < 0x20)
                out += fmt("\\u%04x", c);
            else
                out += static_cast<char>(c);
        }
    }
    return out + "\"";
}

std::string csv_escape(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

}  // namespace bench
