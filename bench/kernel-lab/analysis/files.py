"""Reading the lab's files, shared by the analysis modules: CSV files with a
header (read_csv), "key: value" files such as qemu-settings.txt and
facts.txt (kv_file, kv_text), a file of every boot folder whether loose or
packed in that folder's raw.tar.xz (boot_files), and run_main, which turns
a bad or unreadable input into one line on stderr and exit status 1."""
import csv
import functools
import glob
import os
import sys
import tarfile


def read_csv(path):
    """the rows of a CSV file with a header, as dicts; [] if it is missing"""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return list(csv.DictReader(f))


def kv_text(text):
    """"key: value" lines as a dict (first value of a key wins)"""
    out = {}
    for line in text.splitlines():
        if ":" in line:
            k, v = line.split(":", 1)
            out.setdefault(k.strip(), v.strip())
    return out


def kv_file(path):
    """a file of "key: value" lines as a dict (first value of a key wins), {} if missing"""
    if not os.path.exists(path):
        return {}
    with open(path, errors="replace") as f:
        return kv_text(f.read())


@functools.lru_cache(maxsize=64)
def _packed(archive):
    """{member name: text} of the regular files at the top of a boot
    folder's raw.tar.xz (bench/kernel-lab/pack-results packs a committed
    folder's per-boot files there)"""
    out = {}
    with tarfile.open(archive, "r:xz") as t:
        for m in t.getmembers():
            n = m.name[2:] if m.name.startswith("./") else m.name
            if m.isfile() and "/" not in n:
                out[n] = t.extractfile(m).read().decode("utf-8", "replace")
    return out


def boot_files(labdir, name, pattern="*"):
    """[(path, text)] of NAME in every boot folder LABDIR/PATTERN/ that has
    it, sorted by path: the file itself, or else the member NAME of that
    folder's raw.tar.xz (path then still BOOT/NAME, for messages)"""
    out = []
    for d in sorted(glob.glob(os.path.join(glob.escape(labdir), pattern, ""))):
        d = d.rstrip("/")
        p = os.path.join(d, name)
        if os.path.isfile(p):
            with open(p, errors="replace") as f:
                out.append((p, f.read()))
            continue
        a = os.path.join(d, "raw.tar.xz")
        if os.path.isfile(a):
            try:
                text = _packed(a).get(name)
            except (tarfile.TarError, OSError, EOFError) as e:
                raise OSError(f"{a}: cannot read ({e})")
            if text is not None:
                out.append((p, text))
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
