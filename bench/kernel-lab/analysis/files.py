"""Reading the lab's files, shared by the analysis modules: CSV files with a
header (read_csv), "key: value" files such as qemu-settings.txt and
facts.txt (kv_file), and run_main, which turns a bad or unreadable input
into one line on stderr and exit status 1."""
import csv
import os
import sys


def read_csv(path):
    """the rows of a CSV file with a header, as dicts; [] if it is missing"""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return list(csv.DictReader(f))


def kv_file(path):
    """a file of "key: value" lines as a dict (first value of a key wins), {} if missing"""
    out = {}
    if os.path.exists(path):
        with open(path, errors="replace") as f:
            for line in f:
                if ":" in line:
                    k, v = line.split(":", 1)
                    out.setdefault(k.strip(), v.strip())
    return out


def run_main(main_fn, name, argv=None):
    """Run main_fn(argv) (default sys.argv) and exit with its status; a bad
    or unreadable input (OSError, ValueError, KeyError, csv.Error) is one
    line "NAME: error" on stderr and exit status 1 (a closed stdout pipe is
    not: it goes up to the caller)."""
    try:
        sys.exit(main_fn(sys.argv if argv is None else argv))
    except BrokenPipeError:
        raise   # the reader went away: bench/kernel-lab/analyse exits 0
    except (OSError, ValueError, KeyError, csv.Error) as e:
        print(f"{name}: {e}", file=sys.stderr)
        sys.exit(1)
