# steplib.sh: step bookkeeping shared by bench/kernel-lab/lab, clock-lab and
# payoff-lab, plus two rr-model helpers (rr_quantum_ok, lab_qemu; below)
# (sourced, not run). A lab is a list of named steps (mostly one guest boot
# each) writing into one results folder OUT; these functions make it
# resumable and timed.
#
#   steps_init OUT FORCE SETTINGS_TEXT
#       Creates OUT/steps.csv (header) and OUT/.steps/. SETTINGS_TEXT (the
#       options that shape the results: clock, shift, vCPUs, run lengths,
#       ...) is kept in OUT/lab-settings.txt. If that file exists with a
#       different text, the folder holds results made with other settings:
#       returns 2 with a message (diff) unless FORCE is 1, in which case the
#       new text replaces the old one (and every step runs again).
#   step_done NAME RESULTS
#       Status 0 if step NAME finished before (OUT/.steps/NAME.done) and
#       every file of RESULTS (space-separated, relative to OUT) exists and
#       is not empty; 1 otherwise.
#   step_run NAME RESULTS CMD [ARG...]
#       Skips the step (row status "skipped", return 0) if FORCE is 0 and
#       step_done NAME RESULTS; otherwise removes NAME.done, runs CMD and
#       appends a row. The step counts as done (NAME.done written: its end
#       time and RESULTS) only if CMD exits 0 AND all RESULTS are present;
#       exit 0 with a result missing is recorded as "failed" with note
#       "results missing: ..." and returns 1. Returns CMD's status otherwise.
#
# OUT/steps.csv columns (one row per step per invocation, appended):
#   step, status (ran | skipped | failed), start_utc, end_utc (ISO 8601,
#   seconds), secs [wall s], exit (CMD's status; for skipped: the status
#   when it ran), host_load_start, host_load_end (/proc/loadavg 1-min
#   average), note (free text without commas)
#
# Variables used: STEPS_OUT, STEPS_FORCE (set by steps_init); STEP_NOTE
# (optional, set by the caller before step_run, copied to the note column).
# Messages go to stderr prefixed with "${STEPS_PROG:-steps}:".

# opt_val_ok VALUE: status 0 if an option's VALUE is there and is not the
# next option: "--secs --rounds 3" must not take --rounds as the seconds
# (and then refuse the 3 as an unknown option)
opt_val_ok() { [ -n "${1:-}" ] && case $1 in --*) false ;; esac; }

# rr_quantum_ok VALUE: status 0 if VALUE is a vCPU turn the lab's patched
# qemu accepts (QEMU_ICOUNT_RR_QUANTUM: 1024..65535 guest instructions) or 0
# (qemu's own round robin); used by run-in-guest, lab, clock-lab, payoff-lab
rr_quantum_ok() {
    [[ ${1:-} =~ ^(0|[1-9][0-9]{3,4})$ ]] && { [ "$1" = 0 ] || { [ "$1" -ge 1024 ] && [ "$1" -le 65535 ]; }; }
}
# lab_qemu BUILDDIR: make sure the lab's patched qemu (the rr and parallel
# models: --rr-quantum, --clock parallel) is there: nothing if
# KERNEL_LAB_QEMU names one, else bench/kernel-lab/build-qemu into
# BUILDDIR/qemu-rr (cached by its stamp: under a second when up to date)
lab_qemu() {
    [ -n "${KERNEL_LAB_QEMU:-}" ] && return 0
    "$(dirname "${BASH_SOURCE[0]}")/build-qemu" --build-dir "$1/qemu-rr" >&2
}
# in_tmpfs DIR: status 0 if DIR is under /tmp, /run or /dev/shm, which
# run-in-guest's guest replaces with an empty tmpfs (so nothing there can
# be run in the guest).
in_tmpfs() { case $1 in /tmp|/tmp/*|/run|/run/*|/dev/shm|/dev/shm/*) return 0 ;; *) return 1 ;; esac; }
# tmpfs_checkout PROG TOP DRYRUN: for a checkout TOP under a tmpfs, in a dry
# run (DRYRUN 1) a note on stderr, and KERNEL_LAB_TMPFS_NOTED exported so
# that run-in-guest's dry runs do not repeat it; in a real run "PROG: error:
# ..." and exit 2. Nothing for any other TOP. The lab scripts call it after
# checking their options (so option errors come first) and before anything
# is built or booted.
tmpfs_checkout() {
    in_tmpfs "$2" || return 0
    if [ "$3" = 1 ]; then
        echo "$1: note: the checkout $2 is under /tmp, /run or /dev/shm, which the guest replaces with an empty tmpfs: a real run exits 2 (clone it elsewhere)" >&2
        export KERNEL_LAB_TMPFS_NOTED=1
        return 0
    fi
    echo "$1: error: the checkout $2 is under /tmp, /run or /dev/shm, which the guest replaces with an empty tmpfs: clone it elsewhere (e.g. under /work or \$HOME)" >&2
    exit 2
}
# lab_scipy: make sure python3-scipy is installed (the summaries' 95 % t
# intervals, p-values and F tests need it; without it they print n/a):
# apt-get install through tools/apt-get-wait, which waits
# APT_LOCK_TIMEOUT s (default 600) while another apt or dpkg holds the
# lock, saying which process.  Status 1 (and a message) if it cannot.
lab_scipy() {
    /usr/bin/python3 -c 'import scipy' 2>/dev/null && return 0
    local sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo env DEBIAN_FRONTEND=noninteractive APT_LOCK_TIMEOUT="${APT_LOCK_TIMEOUT:-600}" \
        "$(dirname "${BASH_SOURCE[0]}")/../../tools/apt-get-wait" \
        install -y -q --no-install-recommends python3-scipy >/dev/null ||
        { echo "${STEPS_PROG:-steps}: apt-get install python3-scipy failed: the summary's intervals would be n/a" >&2; return 1; }
}
# list_ok OPTION VALUE: status 0 if the comma list VALUE has no empty entry
# (",," or a leading/trailing comma) and no entry twice; else a message on
# stderr ("OPTION: empty entry in 'VALUE'" / "OPTION: 'x' given twice")
# and status 1.  For --steps, --workloads, --vN-workloads, --arms.
list_ok() {
    local opt=$1 v=$2 e seen=, entries
    case ,$v, in *,,*) echo "${STEPS_PROG:-steps}: $opt: empty entry in '$v'" >&2; return 1 ;; esac
    IFS=, read -r -a entries <<< "$v"
    for e in "${entries[@]}"; do
        case $seen in *",$e,"*) echo "${STEPS_PROG:-steps}: $opt: '$e' given twice in '$v'" >&2; return 1 ;; esac
        seen=$seen$e,
    done
}
steps_say() { echo "${STEPS_PROG:-steps}: $*" >&2; }

steps_init() {   # steps_init OUT FORCE SETTINGS_TEXT
    STEPS_OUT=$1 STEPS_FORCE=$2
    local text=$3 f=$1/lab-settings.txt
    mkdir -p "$STEPS_OUT/.steps" || { steps_say "error: cannot create $STEPS_OUT/.steps"; return 2; }
    [ -s "$STEPS_OUT/steps.csv" ] || echo "step,status,start_utc,end_utc,secs,exit,host_load_start,host_load_end,note" > "$STEPS_OUT/steps.csv"
    if [ -f "$f" ] && [ "$(cat "$f")" != "$text" ]; then
        if [ "$STEPS_FORCE" = 1 ]; then
            steps_say "settings differ from those of $STEPS_OUT (--force: replacing them, every step runs again)"
        else
            steps_say "error: $STEPS_OUT holds results made with other settings; use another --out, or --force to redo the steps:"
            diff <(echo "$text") "$f" | sed -n 's/^</  now:   /p; s/^>/  there: /p' >&2
            return 2
        fi
    fi
    printf '%s\n' "$text" > "$f"
}

step_done() {   # step_done NAME RESULTS
    local r
    [ -f "$STEPS_OUT/.steps/$1.done" ] || return 1
    for r in $2; do [ -s "$STEPS_OUT/$r" ] || return 1; done
    return 0
}

steps_row() {   # steps_row NAME STATUS START END SECS EXIT LOAD0 LOAD1 NOTE
    local note=${9//,/;}
    echo "$1,$2,$3,$4,$5,$6,$7,$8,${note//$'\n'/ }" >> "$STEPS_OUT/steps.csv"
}

step_run() {   # step_run NAME RESULTS CMD...
    local name=$1 results=$2 t0 t1 s0 l0 l1 rc=0 missing="" r prev
    shift 2
    if [ "${STEPS_FORCE:-0}" != 1 ] && step_done "$name" "$results"; then
        prev=$(sed -n 's/^end_utc: //p' "$STEPS_OUT/.steps/$name.done")
        steps_say "step $name: done before (ended $prev), results present: skipped (--force redoes it)"
        s0=$(date -u +%FT%TZ); l0=$(cut -d' ' -f1 /proc/loadavg)
        steps_row "$name" skipped "$s0" "$s0" 0 0 "$l0" "$l0" "done $prev"
        return 0
    fi
    rm -f "$STEPS_OUT/.steps/$name.done"
    steps_say "step $name: start"
    t0=$(date +%s); s0=$(date -u +%FT%TZ); l0=$(cut -d' ' -f1 /proc/loadavg)
    "$@" || rc=$?
    t1=$(date +%s); l1=$(cut -d' ' -f1 /proc/loadavg)
    for r in $results; do [ -s "$STEPS_OUT/$r" ] || missing="$missing $r"; done
    if [ "$rc" = 0 ] && [ -z "$missing" ]; then
        printf 'end_utc: %s\nsecs: %s\nresults: %s\n' "$(date -u +%FT%TZ)" "$((t1 - t0))" "$results" > "$STEPS_OUT/.steps/$name.done"
        steps_row "$name" ran "$s0" "$(date -u +%FT%TZ)" "$((t1 - t0))" 0 "$l0" "$l1" "${STEP_NOTE:-}"
        steps_say "step $name: done in $((t1 - t0)) s"
        return 0
    fi
    local cmdrc=$rc
    [ "$rc" = 0 ] && rc=1
    steps_row "$name" failed "$s0" "$(date -u +%FT%TZ)" "$((t1 - t0))" "$cmdrc" "$l0" "$l1" \
        "${STEP_NOTE:-}${missing:+ results missing:$missing}"
    steps_say "step $name: FAILED (exit $rc${missing:+, results missing:$missing}) after $((t1 - t0)) s"
    return "$rc"
}
