#!/bin/sh
# The training lab's speed beside a PyTorch peer of the same task, model, batch and optimiser
# (bench/torch_peer.py), each on one thread, in one run so both see the same machine:
#   bench/train_peer.sh TRAIN_DRIVER
# TRAIN_DRIVER is bench/train-driver of a Release build with -DSMLAB_BUILD_BENCH=ON (`make bench`
# makes one). The peer needs Debian's python3-torch (bench/install-peers.sh --torch installs it; it
# is 150 packages, so `make test` and CI never need it). Prints the load average, each side's steps
# per second at d_k 16, L 9 (the default) and at d_k 256, L 64, and the app's ratio to the peer.
set -eu
driver=$1
here=$(dirname "$0")
/usr/bin/python3 -c 'import torch' 2>/dev/null || { echo "train_peer: python3-torch is missing (bench/install-peers.sh --torch)" >&2; exit 1; }
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
app=$("$driver" speed)
echo "$app"
for config in "16 9" "256 64"; do
  set -- $config
  peer=$(/usr/bin/python3 "$here/torch_peer.py" "$1" "$2" 3)
  echo "peer: $peer"
  # train-driver's line for this size: "default (recall, d_k 16, L 9) …" or "d_k 256, L 64 …".
  [ "$1" = 16 ] && pattern='^default' || pattern="^d_k $1, L $2"
  app_rate=$(echo "$app" | grep "$pattern" | sed 's/.* \([0-9.]*\) steps\/s on 1 thread.*/\1/')
  peer_rate=$(echo "$peer" | sed 's/.*"steps_per_second": \([0-9.]*\).*/\1/')
  echo "d_k $1, L $2: app $app_rate steps/s, peer $peer_rate steps/s, app/peer $(echo "$app_rate $peer_rate" | awk '{printf "%.2f", $1 / $2}')"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
