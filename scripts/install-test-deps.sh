#!/usr/bin/env bash
# Installs the real mail servers the `mail_servers` integration tests run
# against (Dovecot IMAP + LMTP, OpenSMTPD) and openssl for their test
# certificates, and headless Chromium (with a font for its pages) for the
# `archive_browser` test. Idempotent: does nothing when the binaries are already
# there. The tests start their own instances on free
# loopback ports, so any system instance the packages start is stopped.
set -euo pipefail

need=()
command -v dovecot >/dev/null 2>&1 || need+=(dovecot-imapd)
[ -x /usr/lib/dovecot/lmtp ] || need+=(dovecot-lmtpd)
command -v smtpd >/dev/null 2>&1 || need+=(opensmtpd)
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
apt-get update
# policy-rc.d exit 101 stops Debian maintainer scripts from starting the
# system daemons on ports 25/143 while we install.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy"
    chmod +x "$policy"
    trap 'rm -f "$policy"' EXIT
fi
apt-get install -y --no-install-recommends "${need[@]}"

# Where systemd is running, make sure the packaged instances stay off.
if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
    systemctl disable --now dovecot opensmtpd >/dev/null 2>&1 || true
fi
echo "install-test-deps: installed ${need[*]}"
