#!/usr/bin/env bash
# Installs the real mail servers the `mail_servers` integration tests run
# against (Dovecot IMAP + LMTP, OpenSMTPD) and openssl for their test
# certificates, and headless Chromium (with a font for its pages) for the
# `archive_browser` test. Idempotent: does nothing when the binaries are already
# there. The tests start their own instances on free
# loopback ports, so any system instance the packages start is stopped.
set -euo pipefail

# OpenSMTPD must be 7.x: 6.8.0p2 (Debian 12's main archive) built against
# OpenSSL 3 fails every TLS handshake in its privilege-separated key process
# (upstream OpenSMTPD#1171, fixed in 7.3), so the STARTTLS/TLS tests need
# the 7.4 from bookworm-backports.
smtpd_ok() {
    command -v smtpd >/dev/null 2>&1 || return 1
    # `smtpd -h` prints the version and exits 1, hence no pipe.
    local usage
    usage=$(smtpd -h 2>&1 || true)
    grep -Eq 'OpenSMTPD ([7-9]|[1-9][0-9])\.' <<<"$usage"
}

need=()
command -v dovecot >/dev/null 2>&1 || need+=(dovecot-imapd)
[ -x /usr/lib/dovecot/lmtp ] || need+=(dovecot-lmtpd)
smtpd_ok || need+=(opensmtpd)
# The harness makes its test CA and server certificate with openssl.
command -v openssl >/dev/null 2>&1 || need+=(openssl)
# The archive's browser test: Debian's Chromium, run headless from file://.
# Without recommends it brings no font, so pages would render as boxes.
command -v chromium >/dev/null 2>&1 || need+=(chromium)
[ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need+=(fonts-dejavu-core)

if [ ${#need[@]} -eq 0 ]; then
    echo "install-test-deps: dovecot, opensmtpd, openssl and chromium already installed"
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "install-test-deps: need root to install ${need[*]} (run with sudo)" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
backports=()
if [[ " ${need[*]} " == *" opensmtpd "* ]] && grep -q 'VERSION_CODENAME=bookworm' /etc/os-release; then
    list=/etc/apt/sources.list.d/adjutant-backports.sources
    if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
        # Backports come from wherever this machine already gets bookworm:
        # the same mirror (and keyring) as its configured main archive, so
        # the script works behind any proxy or local mirror.
        mirror=$(bash "$(dirname "$0")/debian-mirror.sh" bookworm)
        if [ -z "$mirror" ]; then
            echo "install-test-deps: no configured apt source serves bookworm, so bookworm-backports cannot be added; add it by hand and run again" >&2
            exit 1
        fi
        keyring=/usr/share/keyrings/debian-archive-keyring.gpg
        printf 'Types: deb\nURIs: %s\nSuites: bookworm-backports\nComponents: main\nSigned-By: %s\n' "$mirror" "$keyring" >"$list"
        echo "install-test-deps: added bookworm-backports from $mirror"
    fi
    backports=(-t bookworm-backports)
fi
apt-get update
# policy-rc.d exit 101 stops Debian maintainer scripts from starting the
# system daemons on ports 25/143 while we install.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy"
    chmod +x "$policy"
    trap 'rm -f "$policy"' EXIT
fi
apt-get install -y --no-install-recommends "${backports[@]}" "${need[@]}"

# Where systemd is running, make sure the packaged instances stay off.
if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
    systemctl disable --now dovecot opensmtpd >/dev/null 2>&1 || true
fi
echo "install-test-deps: installed ${need[*]}"
