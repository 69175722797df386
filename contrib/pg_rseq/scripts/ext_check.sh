#!/bin/bash
# ext_check.sh: run pg_rseq's pg_regress schedule against a temporary server.
#
#   ext_check.sh FLAVOUR PREFIX OBJDIR WORKDIR [RUN_USER]
#
# FLAVOUR   stock, patched, patched-cassert, core or core-cassert (the
#           schedule follows from the server's headers, see Makefile; a
#           core flavour's server starts with rseq_slice_mode = measure,
#           which is PGC_POSTMASTER)
# PREFIX    the server's installation (PREFIX/bin/pg_config, initdb, pg_ctl)
# OBJDIR    pg_rseq's object directory for that server (already installed);
#           pg_regress writes results/ and regression.diffs there
# WORKDIR   scratch directory for the cluster (emptied first)
# RUN_USER  run initdb and the server as this user (needed when root)
#
# The server listens on localhost only, on the first free port from a
# per-flavour start, with no Unix socket; it is stopped on every exit path
# (trap), including test failures and interrupts.

set -euo pipefail

flavour=$1
prefix=$(realpath -m "$2")
objdir=$(realpath -m "$3")
workdir=$(realpath -m "$4")
run_user=${5:-}

src=$(cd "$(dirname "$0")/.." && pwd)
bin=$prefix/bin
data=$workdir/data
log=$workdir/server.log

msg() { echo "[pg_rseq] ext-check $flavour: $*"; }

as_user() {
	if [ -n "$run_user" ]; then
		runuser -u "$run_user" -- "$@"
	else
		"$@"
	fi
}

rm -rf "$workdir"
mkdir -p "$workdir"
if [ -n "$run_user" ]; then
	id -u "$run_user" >/dev/null 2>&1 ||
		useradd --system --user-group --no-create-home --shell /usr/sbin/nologin "$run_user"
	chown "$run_user": "$workdir"
fi

msg "initdb $data"
as_user "$bin/initdb" -D "$data" -U postgres --auth=trust --no-sync \
	--encoding=UTF8 --locale=C --no-instructions >"$workdir/initdb.log" 2>&1 ||
	{ cat "$workdir/initdb.log"; exit 1; }

started=0
stop_server() {
	if [ "$started" = 1 ]; then
		msg "stopping the server"
		as_user "$bin/pg_ctl" -D "$data" -m fast -w stop >/dev/null 2>&1 ||
			as_user "$bin/pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 || true
		started=0
	fi
}
trap stop_server EXIT
trap 'exit 130' INT TERM

# A port nobody listens on; if starting still fails because of the port
# (a race with another process), try the next one.
case "$flavour" in
	stock) base=54610 ;;
	patched) base=54640 ;;
	core*) base=54700 ;;
	*) base=54670 ;;
esac
server_opts=
case "$flavour" in
	core*) server_opts="-c rseq_slice_mode=measure" ;;
esac
port=
for p in $(seq "$base" $((base + 29))); do
	if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
		continue				# something listens there
	fi
	if as_user "$bin/pg_ctl" -D "$data" -l "$log" -w -t 120 \
		-o "-p $p -c listen_addresses=localhost -c unix_socket_directories='' -c fsync=off $server_opts" \
		start >/dev/null 2>&1; then
		port=$p
		started=1
		break
	fi
	if ! grep -q "could not bind\|could not create any TCP/IP sockets\|Address already in use" "$log" 2>/dev/null; then
		msg "the server did not start:"
		tail -n 30 "$log" >&2 || true
		exit 1
	fi
done
if [ -z "$port" ]; then
	msg "no free port in $base..$((base + 29))"
	exit 1
fi
msg "server on localhost:$port (log: $log)"

status=0
PGHOST=localhost PGPORT=$port PGUSER=postgres \
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	make --no-print-directory -C "$objdir" -f "$src/Makefile" \
	PG_CONFIG="$bin/pg_config" installcheck || status=$?

if [ "$status" != 0 ]; then
	if [ -f "$objdir/regression.diffs" ]; then
		echo "===== $objdir/regression.diffs ====="
		cat "$objdir/regression.diffs"
	fi
	echo "===== last lines of $log ====="
	tail -n 40 "$log" || true
	msg "FAILED"
	exit "$status"
fi
msg "passed"
