#!/usr/bin/env bash
# Installs the programs some tests need, for scripts/test.sh and CI alike: ripgrep (search_files' fast
# engine), openssh-server (the ssh backend's tests start a private sshd on a loopback port) and
# chromium (the browser tools' tests drive a real headless one) and espeak-ng (the local
# text_to_speech backend). It installs them with apt-get when
# run as root; otherwise it says which tests will skip and why.
set -uo pipefail

has_rg() { command -v rg >/dev/null 2>&1; }
has_sshd() { [ -x /usr/sbin/sshd ] || [ -x /usr/local/sbin/sshd ] || command -v sshd >/dev/null 2>&1; }
has_espeak() { command -v espeak-ng >/dev/null 2>&1; }
has_chromium() { command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; }

missing=()
has_rg || missing+=(ripgrep)
has_sshd || missing+=(openssh-server)
has_chromium || missing+=(chromium)
has_espeak || missing+=(espeak-ng)
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing for the tests: ${missing[*]}" >&2
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}") >/dev/null 2>&1 ||
    echo "apt-get could not install ${missing[*]}" >&2
fi
has_rg || echo "ripgrep (rg) is missing: the search_files tests of the ripgrep engine will skip" \
  "(the built-in engine is tested either way); as root: apt-get install ripgrep" >&2
has_sshd || echo "openssh-server (sshd) is missing: the ssh backend tests will skip (they need a private" \
  "sshd on a loopback port); as root: apt-get install openssh-server" >&2
has_chromium || echo "chromium is missing: the browser tool tests will skip (they drive a real headless" \
  "Chromium); as root: apt-get install chromium" >&2
has_espeak || echo "espeak-ng is missing: the local text_to_speech test will skip; as root: apt-get install" \
  "espeak-ng" >&2
exit 0
