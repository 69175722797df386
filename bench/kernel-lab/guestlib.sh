# guestlib.sh: helpers shared by the lab's in-guest scripts
# (bench/kernel-lab/payoff-in-guest and the in-guest half of
# bench/kernel-lab/core-mechanism); sourced, not run. Bash only.
#
# CPU hogs: busy loops (bash 'while :; do :; done') that compete with a
# run for the guest's vCPUs. They are stopped (SIGSTOP) outside the runs, so
# that server starts and stops, mode switches and counter readings do not
# pay for them (in guest time, and under icount in host time too).
#   hogs_start N   starts N hogs (N >= 0) and stops them at once; their pids
#                  are appended to the array HOG_PIDS
#   hogs_resume    SIGCONT to every hog (right before a counted run)
#   hogs_pause     SIGSTOP to every hog (right after it)
#   hogs_stop      kills and reaps every hog; HOG_PIDS is empty afterwards.
#                  Callers set `trap hogs_stop EXIT`; it keeps the
#                  caller's exit status.
# All four return 0; signals to hogs that are already gone are ignored.
#
# Huge pages (huge_pages = on): a hugetlb mapping reserves its pages when it
# is created (HugePages_Rsvd) and takes them from HugePages_Free as it
# faults them in, so the pages a new mapping can have are Free - Rsvd
# (Linux Documentation/admin-guide/mm/hugetlbpage.rst).
#   hp_free        prints that number, in huge pages, from $HP_MEMINFO
#                  (default /proc/meminfo; check-lab passes a copy); status
#                  1 with a message if either line is missing or not a
#                  count, or Rsvd exceeds Free
#   hp_need SERVER prints the huge pages SERVER's shared memory needs
#                  (postgres -C shared_memory_size_in_huge_pages, which
#                  PostgreSQL 15 and later compute without starting); status
#                  1 with a message if it does not give a positive count
#   hp_reserve SERVER  (server stopped) raises vm.nr_hugepages until
#                  hp_free >= hp_need SERVER; status 0 when they fit, 1 with
#                  a message (need, free, nr_hugepages) when the kernel
#                  cannot give that many
# The caller provides say MESSAGE (to stderr), asuser CMD... (runs CMD as
# the servers' user), bindir SERVER and datadir SERVER.

HOG_PIDS=()
hogs_start() {
    local i
    for ((i = 0; i < $1; i++)); do bash -c 'while :; do :; done' & HOG_PIDS+=($!); done
    hogs_pause
}
# (kill fails when no hog is left to signal: || true, so that set -e callers
# go on)
hogs_pause() { [ ${#HOG_PIDS[@]} -eq 0 ] || kill -STOP "${HOG_PIDS[@]}" 2>/dev/null || true; return 0; }
hogs_resume() { [ ${#HOG_PIDS[@]} -eq 0 ] || kill -CONT "${HOG_PIDS[@]}" 2>/dev/null || true; return 0; }
hogs_stop() {
    if [ ${#HOG_PIDS[@]} -gt 0 ]; then
        kill "${HOG_PIDS[@]}" 2>/dev/null || true
        kill -CONT "${HOG_PIDS[@]}" 2>/dev/null || true
        # the hogs end by SIGTERM: wait returns 143, which must not become
        # the caller's exit status (set -e, or an EXIT trap's last command)
        wait "${HOG_PIDS[@]}" 2>/dev/null || true
    fi
    HOG_PIDS=()
    return 0
}

hp_free() {
    local m=${HP_MEMINFO:-/proc/meminfo}
    awk '/^HugePages_Free:/ { f = $2 } /^HugePages_Rsvd:/ { r = $2 }
         END { if (f !~ /^[0-9]+$/ || r !~ /^[0-9]+$/ || r + 0 > f + 0) exit 1; print f - r }' "$m" 2>/dev/null \
        || { say "$m has no usable HugePages_Free and HugePages_Rsvd lines"; return 1; }
}
hp_need() {
    local need
    need=$(asuser "$(bindir "$1")/postgres" -D "$(datadir "$1")" -C shared_memory_size_in_huge_pages 2>&1)
    [[ $need =~ ^[1-9][0-9]*$ ]] || { say "postgres -C shared_memory_size_in_huge_pages ($1) gave '$need'"; return 1; }
    echo "$need"
}
hp_reserve() {
    local need have
    need=$(hp_need "$1") || return 1
    have=$(hp_free) || return 1
    [ "$have" -ge "$need" ] && return 0
    echo $(($(cat /proc/sys/vm/nr_hugepages) + need - have)) > /proc/sys/vm/nr_hugepages
    have=$(hp_free) || return 1
    [ "$have" -ge "$need" ] || { say "cannot reserve $need huge pages for the $1 server: $have free after raising vm.nr_hugepages to $(cat /proc/sys/vm/nr_hugepages)"; return 1; }
}
