#!/bin/bash
# Orca under Xvfb reads the screen-reader mode (docs/ACCESSIBILITY.md): apt-get install orca xvfb at-spi2-core,
# then run this; what Orca spoke is in $OUT/orca.log (grep "SPEECH OUTPUT").
export OUT=${OUT:-/tmp/orca-trial}; mkdir -p "$OUT"
set -x
cd "$(dirname "$0")/.."
Xvfb :99 -screen 0 1280x1024x24 >${OUT:-/tmp/orca-trial}/xvfb.log 2>&1 &
XPID=$!
export DISPLAY=:99
sleep 2
dbus-run-session -- bash -c '
  /usr/libexec/at-spi-bus-launcher --launch-immediately >${OUT:-/tmp/orca-trial}/atspi.log 2>&1 &
  sleep 2
  gsettings set org.gnome.desktop.interface toolkit-accessibility true 2>/dev/null
  orca --replace --debug-file=${OUT:-/tmp/orca-trial}/orca.log >${OUT:-/tmp/orca-trial}/orca.out 2>&1 &
  OPID=$!
  sleep 8
  DIAMINO_ORCA_TRIAL=1 timeout 300 .venv/bin/python -m pytest -q -p no:randomly tests/browser/test_orca_trial.py -s > ${OUT:-/tmp/orca-trial}/orca_test.log 2>&1
  kill $OPID
'
kill $XPID
