# Sourced by scripts/rocm-runtimes.sh and build.rs-tools/scripts/fetch-rocm-headers.sh:
# apt with a private sources list, state and cache (nothing installed
# system-wide), on the Debian mirror this machine's apt already uses, so no
# host name is written in the repository.

# The Debian mirror of /etc/apt (not the security one).
debian_mirror() {
  local f m
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    m=$(awk '/^URIs:/ {print $2; exit}' "$f")
    case "$m" in *debian-security*|"") ;; *) echo "$m"; return 0 ;; esac
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    m=$(awk '$1=="deb" && $0 !~ /security/ {for(i=2;i<=NF;i++) if ($i ~ /^[a-z]+:\/\//) {print $i; exit}}' "$f")
    [ -n "$m" ] && { echo "$m"; return 0; }
  done
  echo "no Debian mirror found in /etc/apt" >&2
  return 1
}

# private_apt WORK SUITES: prepares WORK for apt on the main component of
# SUITES (one suite, or several separated by spaces, e.g. "unstable
# experimental": a package pinned to experimental's version resolves its
# dependencies in unstable) and sets the array `apt_opts` to the options
# that make apt-get/apt-cache use it.
private_apt() {
  local work=$1 suites=$2 mirror suite
  mirror=$(debian_mirror) || return 1
  mkdir -p "$work/state/lists/partial" "$work/cache/archives/partial" "$work/etc/preferences.d"
  : >"$work/etc/sources.list"
  for suite in $suites; do
    echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main" >>"$work/etc/sources.list"
  done
  touch "$work/state/status"
  apt_opts=(
    -o "Dir::Etc::SourceList=$work/etc/sources.list"
    -o "Dir::Etc::SourceParts=-"
    -o "Dir::Etc::Preferences=$work/etc/preferences"
    -o "Dir::Etc::PreferencesParts=$work/etc/preferences.d"
    -o "Dir::State=$work/state"
    -o "Dir::State::Status=$work/state/status"
    -o "Dir::Cache=$work/cache"
    -o "APT::Architecture=amd64"
  )
}
