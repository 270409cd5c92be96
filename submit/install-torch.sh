#!/usr/bin/env bash
# Installs PyTorch for the ddp-* systems of time-to-accuracy and their tests: Debian's python3-torch (1.13.1 on
# Debian 12, with DistributedDataParallel, gloo and DDP's communication hooks), for Debian's /usr/bin/python3 (or
# $BITOPK_PYTHON). Does nothing when that interpreter already imports it; installs as root, or through sudo;
# otherwise stops with one line giving the command to run as root. submit/netlab.sh calls it for ddp-* systems.
set -euo pipefail
PYTHON="${BITOPK_PYTHON:-/usr/bin/python3}"
PACKAGE=python3-torch
ROOT_COMMAND="apt-get update && apt-get install -y --no-install-recommends $PACKAGE"
has_torch() {
  "$PYTHON" -c 'import sys, torch.distributed as d; sys.exit(0 if d.is_available() and d.is_gloo_available() else 1)' \
    2>/dev/null
}
has_torch && exit 0
if [[ "$(id -u)" == 0 ]]; then
  SUDO=()
elif command -v sudo >/dev/null; then
  SUDO=(sudo)
else
  echo "install-torch.sh: error: $PYTHON has no PyTorch and this user can neither install packages nor run sudo: as root run '$ROOT_COMMAND'" >&2
  exit 2
fi
echo "install-torch.sh: $PYTHON has no PyTorch: installing the Debian package $PACKAGE" >&2
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -qq
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends "$PACKAGE" >/dev/null
has_torch || { echo "install-torch.sh: error: installed $PACKAGE but $PYTHON still cannot import torch.distributed with gloo (set BITOPK_PYTHON to the interpreter it was installed for)" >&2; exit 1; }
