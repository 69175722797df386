# packaging/deb/lib.sh: shared by the scripts of packaging/deb (sourced).
#
# Everything goes under $DEB_OUT (default build/deb of the checkout):
#   apt/          private apt configuration (deb-src of sid only; the
#                 machine's own sources are never touched)
#   src/          Debian's postgresql-18 source package (.dsc, tarballs)
#   chroot/       the mmdebstrap'd sid tarballs (build: buildd variant for
#                 sbuild; check: apt variant for make deb-check)
#   server/       make deb: the patched source package and the .debs
#   ext/          make deb-ext: the extension's source package and .debs
#   check/        make deb-check: its chroot and log
# shellcheck shell=bash

PKG_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
DEB_OUT=${DEB_OUT:-$PKG_TOP/build/deb}
DEB_SUITE=${DEB_SUITE:-sid}
PG_SRC_PACKAGE=${PG_SRC_PACKAGE:-postgresql-18}
# The Debian mirror of this machine's own apt sources.
DEBIAN_MIRROR=${DEBIAN_MIRROR:-$("$PKG_TOP/tools/debian-mirror")}
APT_GET_WAIT=$PKG_TOP/tools/apt-get-wait
# The mirror may be a dated snapshot whose Release file has expired.
APT_DATE_OPTS=(-o Acquire::Check-Valid-Until=false -o Acquire::Check-Date=false)

msg() { echo "[pg_rseq deb] $*"; }
die() { echo "[pg_rseq deb] error: $*" >&2; exit 1; }

# Install missing host packages (dpkg-query), apt-get update only if needed.
host_need() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$p")
	done
	[ ${#missing[@]} = 0 ] && return 0
	msg "installing on the host: ${missing[*]}"
	local sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
	$sudo env DEBIAN_FRONTEND=noninteractive "$APT_GET_WAIT" install -y -q --no-install-recommends "${missing[@]}" \
	|| { $sudo env DEBIAN_FRONTEND=noninteractive "$APT_GET_WAIT" update -q \
	     && $sudo env DEBIAN_FRONTEND=noninteractive "$APT_GET_WAIT" install -y -q --no-install-recommends "${missing[@]}"; }
}

# Private apt configuration in $DEB_OUT/apt: deb-src of $DEB_SUITE only.
APT_DIR=$DEB_OUT/apt
APT_OPTS=(-o Dir::Etc::sourcelist="$APT_DIR/sources.list" -o Dir::Etc::sourceparts=-
          -o Dir::State="$APT_DIR/state" -o Dir::Cache="$APT_DIR/cache"
          -o APT::Sandbox::User=root "${APT_DATE_OPTS[@]}")
apt_private_update() {
	mkdir -p "$APT_DIR/state/lists/partial" "$APT_DIR/cache/archives/partial"
	echo "deb-src $DEBIAN_MIRROR $DEB_SUITE main" > "$APT_DIR/sources.list"
	msg "apt-get update (private config in $APT_DIR: deb-src $DEBIAN_MIRROR $DEB_SUITE main)"
	"$APT_GET_WAIT" -q "${APT_OPTS[@]}" update
}

# Debian's source package into $DEB_OUT/src (download only); prints the .dsc.
fetch_debian_source() {
	local dir=$DEB_OUT/src
	apt_private_update >&2
	mkdir -p "$dir"
	msg "apt-get source --download-only $PG_SRC_PACKAGE" >&2
	(cd "$dir" && "$APT_GET_WAIT" -q "${APT_OPTS[@]}" source --download-only "$PG_SRC_PACKAGE") >&2
	# the newest .dsc there (an older one may be left from an earlier fetch)
	local dsc
	dsc=$(ls "$dir"/"${PG_SRC_PACKAGE}"_*.dsc | sort -V | tail -1)
	[ -f "$dsc" ] || die "no $PG_SRC_PACKAGE .dsc in $dir"
	echo "$dsc"
}

# The mmdebstrap'd sid tarball $1 (buildd or apt variant), made if missing
# or older than MAX_AGE days (default 7).  Extra mmdebstrap arguments follow.
make_chroot_tarball() {
	local out=$1 variant=$2; shift 2
	if [ -s "$out" ] && [ -z "$(find "$out" -mtime +"${CHROOT_MAX_AGE:-7}")" ]; then
		msg "chroot tarball $out exists (CHROOT_MAX_AGE=${CHROOT_MAX_AGE:-7} days)"
		return 0
	fi
	mkdir -p "$(dirname "$out")"
	msg "mmdebstrap --variant=$variant $DEB_SUITE $out $DEBIAN_MIRROR"
	rm -f "$out.tmp.tar.zst"
	nice mmdebstrap --variant="$variant" \
		--aptopt='Acquire::Check-Valid-Until "false"' --aptopt='Acquire::Check-Date "false"' \
		"$@" "$DEB_SUITE" "$out.tmp.tar.zst" "$DEBIAN_MIRROR"
	mv -f "$out.tmp.tar.zst" "$out"
}

# The newest .dsc's version: "18.6-3".
dsc_version() { sed -n 's/^Version: //p' "$1" | head -1; }

# Add lwlock_patch/core/$RSEQ_PATCHES to the unpacked source package in $1
# as quilt patches rseq-000K-*.patch appended to debian/patches/series, and
# apply them with quilt (no fuzz); logs in $2.
RSEQ_PATCHES=${RSEQ_PATCHES:-0001 0002 0003 0004}
add_core_series() {
	local srcdir=$1 logdir=$2 n p name
	(
	cd "$srcdir" || exit 1
	export QUILT_PATCHES=debian/patches QUILT_PC=.pc
	[ -z "$(quilt unapplied 2>/dev/null)" ] || die "Debian's own patches are not all applied in $srcdir"
	for n in $RSEQ_PATCHES; do
		p=$(ls "$PKG_TOP"/lwlock_patch/core/"$n"-*.patch)
		name=rseq-$(basename "$p")
		cp "$p" debian/patches/"$name"
		echo "$name" >> debian/patches/series
		msg "quilt push --fuzz=0 $name"
		quilt push --fuzz=0 "$name" > "$logdir/quilt-$n.log" 2>&1 \
			|| { cat "$logdir/quilt-$n.log"; die "$name does not apply to $(dpkg-parsechangelog -S Source) $(dpkg-parsechangelog -S Version)"; }
	done
	[ -z "$(quilt unapplied 2>/dev/null)" ] || die "unapplied patches left: $(quilt unapplied)"
	)
}
