#!/usr/bin/env bash
# Prints the URI of the first configured apt source that serves a Debian
# suite, so scripts can add a related suite (e.g. bookworm-backports) from
# the same mirror the machine already uses. Reads deb822 `.sources`
# stanzas, then one-line `deb [options] URI suite ...` entries.
# Usage: scripts/debian-mirror.sh SUITE [APT_DIR]   (APT_DIR: /etc/apt)
# Prints nothing (and exits 0) when no source serves SUITE.
set -uo pipefail
suite=${1:?usage: debian-mirror.sh SUITE [APT_DIR]}
apt=${2:-/etc/apt}
uri=""
shopt -s nullglob
sources=("$apt"/sources.list.d/*.sources)
if [ ${#sources[@]} -gt 0 ]; then
    uri=$(awk -v s="$suite" '
        BEGIN { RS = ""; FS = "\n" }
        {
            u = ""; su = ""; enabled = 1
            for (i = 1; i <= NF; i++) {
                line = $i
                if (line ~ /^URIs:/) { sub(/^URIs:[ \t]*/, "", line); u = line }
                if (line ~ /^Suites:/) { sub(/^Suites:[ \t]*/, "", line); su = " " line " " }
                if (line ~ /^Enabled:[ \t]*no/) enabled = 0
            }
            if (enabled && u != "" && index(su, " " s " ")) { split(u, a, " "); print a[1]; exit }
        }' "${sources[@]}")
fi
if [ -z "$uri" ]; then
    lists=("$apt"/sources.list "$apt"/sources.list.d/*.list)
    uri=$(cat "${lists[@]}" 2>/dev/null | awk -v s="$suite" '
        $1 == "deb" {
            i = 2
            if ($i ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
            if ($(i + 1) == s) { print $i; exit }
        }')
fi
printf '%s\n' "$uri" | sed '/^$/d'
