#!/usr/bin/perl
# check_meta.pl: validate META.json against the PGXN Meta Spec 1.0.0
# (https://pgxn.org/spec/) and against the extension's control file.
#
#   check_meta.pl META.json contrib/pg_rseq/pg_rseq.control
#
# Checks every field the spec defines (required ones present, types,
# semantic versions, terms, license names, prereq phases/relations and
# version ranges, resources, meta-spec version; unknown top-level keys must
# start with x_ or X_), then that the control file's default_version, the
# META version and provides.pg_rseq.version agree, that provided files
# exist, and that PostgreSQL >= 17.0.0 (the oldest major supported) is a
# runtime requirement.
# Core Perl only (JSON::PP).  Exit status 1 and one line per problem if
# anything is wrong.

use strict;
use warnings;
use JSON::PP;
use File::Basename qw(dirname);

my ($meta_file, $control_file) = @ARGV;
die "usage: $0 META.json extension.control\n" unless $meta_file && $control_file;

my @errors;
sub err { push @errors, join('', @_); }

open(my $fh, '<', $meta_file) or die "$meta_file: $!\n";
my $text = do { local $/; <$fh> };
close $fh;
my $meta = eval { JSON::PP->new->decode($text) };
if (!$meta) { print "$meta_file: not valid JSON: $@"; exit 1; }
err("top level must be an object") unless ref $meta eq 'HASH';

my $semver = qr/^(?:0|[1-9][0-9]*)\.(?:0|[1-9][0-9]*)\.(?:0|[1-9][0-9]*)(?:[a-zA-Z][a-zA-Z0-9-]*)?$/;
my $term   = qr/^[^\s\/\\:\x00-\x1f]{2,}$/;
my $uri    = qr/^[a-zA-Z][a-zA-Z0-9+.-]*:\S+$/;
my %licenses = map { $_ => 1 } qw(agpl_3 apache_1_1 apache_2_0 artistic_1 artistic_2
  bsd freebsd gfdl_1_2 gfdl_1_3 gpl_1 gpl_2 gpl_3 lgpl_2_1 lgpl_3_0 mit mozilla_1_0
  mozilla_1_1 openssl perl_5 postgresql qpl_1_0 ssleay sun zlib open_source restricted
  unrestricted unknown);
my %known = map { $_ => 1 } qw(name abstract description version maintainer license
  provides prereqs resources no_index release_status tags generated_by meta-spec);

sub is_str { defined $_[0] && !ref $_[0] && $_[0] ne '' }

sub check_version_range
{
	my ($where, $range) = @_;
	return err("$where: version range must be a string") unless is_str($range);
	return if $range eq '0';
	for my $part (split /\s*,\s*/, $range)
	{
		my ($op, $v) = $part =~ /^(==|!=|>=|<=|>|<)?\s*(\S+)$/;
		err("$where: bad version range '$range'") unless defined $v && $v =~ $semver;
	}
}

# --- required fields ---
for my $f (qw(name abstract version maintainer license provides meta-spec))
{
	err("missing required field '$f'") unless exists $meta->{$f};
}
for my $k (keys %$meta)
{
	err("unknown top-level field '$k' (custom fields start with x_ or X_)")
	  unless $known{$k} || $k =~ /^[xX]_/;
}

err("name must be a term (2+ chars, no spaces, slashes, colons)")
  unless is_str($meta->{name}) && $meta->{name} =~ $term;
err("abstract must be a non-empty string") unless is_str($meta->{abstract});
err("description must be a string")
  if exists $meta->{description} && !is_str($meta->{description});
err("version must be a semantic version") unless is_str($meta->{version}) && $meta->{version} =~ $semver;

my $m = $meta->{maintainer};
if (ref $m eq 'ARRAY') { err("maintainer list is empty") unless @$m; is_str($_) or err("maintainer entries must be strings") for @$m; }
elsif (!is_str($m)) { err("maintainer must be a string or a list of strings"); }

my $l = $meta->{license};
if (ref $l eq 'HASH') { $_ =~ $uri or err("license URL '$_' is not a URI") for values %$l; }
elsif (ref $l eq 'ARRAY') { $licenses{$_} or err("unknown license '$_'") for @$l; }
elsif (!is_str($l) || !$licenses{$l}) { err("unknown license '", ($l // ''), "'"); }

# --- provides ---
my $p = $meta->{provides};
if (ref $p ne 'HASH' || !%$p) { err("provides must be a non-empty object"); $p = {}; }
for my $ext (sort keys %$p)
{
	my $e = $p->{$ext};
	err("provides: '$ext' is not a term") unless $ext =~ $term;
	if (ref $e ne 'HASH') { err("provides.$ext must be an object"); next; }
	for my $k (keys %$e)
	{
		err("provides.$ext: unknown field '$k'") unless $k =~ /^(file|version|abstract|docfile)$/ || $k =~ /^[xX]_/;
	}
	err("provides.$ext.file is required") unless is_str($e->{file});
	err("provides.$ext.version must be a semantic version") unless is_str($e->{version}) && $e->{version} =~ $semver;
	for my $k (qw(file docfile))
	{
		next unless is_str($e->{$k});
		my $path = dirname($meta_file) . "/$e->{$k}";
		err("provides.$ext.$k: $e->{$k} does not exist") unless -f $path;
	}
}

# --- prereqs ---
if (exists $meta->{prereqs})
{
	my $pr = $meta->{prereqs};
	if (ref $pr ne 'HASH') { err("prereqs must be an object"); $pr = {}; }
	for my $phase (keys %$pr)
	{
		err("prereqs: unknown phase '$phase'") unless $phase =~ /^(configure|build|test|runtime|develop)$/ || $phase =~ /^[xX]_/;
		my $rels = $pr->{$phase};
		if (ref $rels ne 'HASH') { err("prereqs.$phase must be an object"); next; }
		for my $rel (keys %$rels)
		{
			err("prereqs.$phase: unknown relationship '$rel'") unless $rel =~ /^(requires|recommends|suggests|conflicts)$/ || $rel =~ /^[xX]_/;
			my $deps = $rels->{$rel};
			if (ref $deps ne 'HASH') { err("prereqs.$phase.$rel must be an object"); next; }
			check_version_range("prereqs.$phase.$rel.$_", $deps->{$_}) for keys %$deps;
		}
	}
}

# --- resources ---
if (exists $meta->{resources})
{
	my $r = $meta->{resources};
	if (ref $r ne 'HASH') { err("resources must be an object"); $r = {}; }
	for my $k (keys %$r)
	{
		err("resources: unknown field '$k'") unless $k =~ /^(homepage|bugtracker|repository)$/ || $k =~ /^[xX]_/;
	}
	err("resources.homepage must be a URI") if exists $r->{homepage} && !(is_str($r->{homepage}) && $r->{homepage} =~ $uri);
	for my $k (qw(bugtracker repository))
	{
		next unless exists $r->{$k};
		if (ref $r->{$k} ne 'HASH') { err("resources.$k must be an object"); next; }
		for my $f (keys %{$r->{$k}})
		{
			my $v = $r->{$k}{$f};
			if ($f =~ /^(web|url)$/) { err("resources.$k.$f must be a URI") unless is_str($v) && $v =~ $uri; }
			elsif ($f eq 'mailto') { err("resources.$k.mailto must be an email address") unless is_str($v) && $v =~ /^[^@\s]+@[^@\s]+$/; }
			elsif ($f eq 'type') { err("resources.$k.type must be a lowercase word") unless $k eq 'repository' && is_str($v) && $v =~ /^[a-z]+$/; }
			elsif ($f !~ /^[xX]_/) { err("resources.$k: unknown field '$f'"); }
		}
	}
}

# --- the rest ---
err("release_status must be stable, testing or unstable")
  if exists $meta->{release_status} && !(is_str($meta->{release_status}) && $meta->{release_status} =~ /^(stable|testing|unstable)$/);
if (exists $meta->{tags})
{
	if (ref $meta->{tags} ne 'ARRAY') { err("tags must be a list"); }
	else { is_str($_) && length($_) < 256 && $_ !~ /[\/\\\x00-\x1f]/ or err("bad tag '", ($_ // ''), "'") for @{$meta->{tags}}; }
}
err("generated_by must be a string") if exists $meta->{generated_by} && !is_str($meta->{generated_by});
my $ms = $meta->{'meta-spec'};
err("meta-spec.version must be 1.0.0") unless ref $ms eq 'HASH' && ($ms->{version} // '') eq '1.0.0';
err("meta-spec.url must be a URI") if ref $ms eq 'HASH' && exists $ms->{url} && !(is_str($ms->{url}) && $ms->{url} =~ $uri);

# --- consistency with the control file and the project's requirements ---
open(my $cf, '<', $control_file) or die "$control_file: $!\n";
my ($default_version) = map { /^\s*default_version\s*=\s*'([^']*)'/ ? $1 : () } <$cf>;
close $cf;
my $extname = $control_file =~ m{([^/]+)\.control$} ? $1 : '';
err("$control_file has no default_version") unless defined $default_version;
if (defined $default_version)
{
	err("META version $meta->{version} != control default_version $default_version")
	  unless ($meta->{version} // '') eq $default_version;
	err("provides.$extname.version != control default_version $default_version")
	  unless ($p->{$extname}{version} // '') eq $default_version;
}
err("provides has no entry for extension '$extname'") unless exists $p->{$extname};
my $pg = $meta->{prereqs}{runtime}{requires}{PostgreSQL};
err("prereqs.runtime.requires.PostgreSQL must require >= 17.0.0")
  unless defined $pg && $pg =~ /^(?:>=\s*)?(\d+)\.\d+\.\d+$/ && $1 >= 17;

if (@errors)
{
	print "$meta_file: $_\n" for @errors;
	exit 1;
}
print "$meta_file: valid (PGXN meta spec 1.0.0), $meta->{name} $meta->{version}\n";
exit 0;
