#!/usr/bin/env bash
# A throw-away S3 store: Ceph's RADOS Gateway (Debian packages radosgw, ceph-mon, ceph-osd) on
# 127.0.0.1, with one monitor, one in-memory OSD (memstore: nothing written to disk but logs), no
# cephx, and one user. The tests start it (test/support/rgw.ts); a developer can too:
#
#   scripts/rgw.sh start DIR [RGW_PORT [MON_PORT]]   # prints S3_ENDPOINT=..., AWS_ACCESS_KEY_ID=..., AWS_SECRET_ACCESS_KEY=...
#   scripts/rgw.sh stop DIR                          # stops the three daemons and removes DIR
#
# Buckets are made through S3 itself (CreateBucket), as a client would.
set -euo pipefail

ACCESS_KEY=${RGW_ACCESS_KEY:-GATEWAYTESTKEY}
SECRET_KEY=${RGW_SECRET_KEY:-gateway-test-secret-key}

command=${1:-}
dir=${2:-}
if [ -z "$command" ] || [ -z "$dir" ]; then
  echo "usage: $0 start DIR [RGW_PORT [MON_PORT]] | stop DIR" >&2
  exit 2
fi

stop() {
  local pids=() pid
  for name in client.rgw osd.0 mon.a; do
    [ -f "$dir/run/$name.pid" ] && pids+=("$(cat "$dir/run/$name.pid")")
  done
  # Nothing to keep (the OSD is in memory): all at once, and no long goodbye.
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for _ in $(seq 1 10); do
    local alive=0
    # A zombie (Z) has exited already; only its parent has not looked yet.
    for pid in "${pids[@]}"; do case $(ps -o stat= -p "$pid" 2>/dev/null || true) in '' | Z*) ;; *) alive=1 ;; esac; done
    [ $alive = 0 ] && break
    sleep 0.1
  done
  for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  rm -rf "$dir"
}

if [ "$command" = stop ]; then
  stop
  exit 0
fi
[ "$command" = start ] || { echo "unknown command $command (start or stop)" >&2; exit 2; }

for tool in ceph-mon ceph-osd radosgw radosgw-admin monmaptool ceph; do
  command -v "$tool" >/dev/null || { echo "$tool is not installed (apt-get install radosgw ceph-mon ceph-osd)" >&2; exit 3; }
done

free_port() {
  node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })'
}
rgw_port=${3:-$(free_port)}
mon_port=${4:-$(free_port)}

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
mkdir -p "$dir/run" "$dir/log" "$dir/mon" "$dir/osd0" "$dir/rgw"
fsid=$(cat /proc/sys/kernel/random/uuid)
conf="$dir/ceph.conf"
cat >"$conf" <<CONF
[global]
fsid = $fsid
mon host = v2:127.0.0.1:$mon_port
public addr = 127.0.0.1
ms bind ipv6 = false
# No cephx: nothing but this machine's loopback reaches these daemons.
auth cluster required = none
auth service required = none
auth client required = none
# radosgw asks for a "secure" monitor connection by default, which needs cephx.
ms mon client mode = crc
run dir = $dir/run
admin socket = $dir/run/\$name.asok
pid file = $dir/run/\$name.pid
log file = $dir/log/\$name.log
mon data = $dir/mon
osd data = $dir/osd\$id
keyring = $dir/keyring
osd objectstore = memstore
memstore device bytes = 1073741824
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd crush chooseleaf type = 0
mon allow pool size one = true
mon warn on pool no redundancy = false
# The disk holding the run's folder may be fuller than Ceph likes; it writes nothing there but logs.
mon data avail warn = 1
mon data avail crit = 0
[client.rgw]
rgw frontends = beast endpoint=127.0.0.1:$rgw_port
rgw data = $dir/rgw
rgw dns name = 127.0.0.1
CONF

trap 'echo "RGW did not start; logs in $dir/log" >&2; tail -n 20 "$dir"/log/*.log >&2 || true' ERR

monmaptool --create --add a "v2:127.0.0.1:$mon_port" --fsid "$fsid" "$dir/monmap" >/dev/null
ceph-mon -c "$conf" --mkfs -i a --monmap "$dir/monmap" 2>>"$dir/log/setup.log"
ceph-mon -c "$conf" -i a 2>>"$dir/log/setup.log"
ceph -c "$conf" --connect-timeout 30 osd create >/dev/null
ceph-osd -c "$conf" -i 0 --mkfs 2>>"$dir/log/setup.log"
ceph-osd -c "$conf" -i 0 2>>"$dir/log/setup.log"
radosgw -c "$conf" -n client.rgw --client-mount-timeout 60 2>>"$dir/log/setup.log"

endpoint="http://127.0.0.1:$rgw_port"
# RGW answers once it has made its pools on the OSD.
for _ in $(seq 1 240); do
  if [ "$(curl -s -o /dev/null -w '%{http_code}' "$endpoint/" || true)" = 200 ]; then break; fi
  sleep 0.25
done
[ "$(curl -s -o /dev/null -w '%{http_code}' "$endpoint/" || true)" = 200 ] || false
radosgw-admin -c "$conf" -n client.admin user create --uid=gateway --display-name=gateway --access-key="$ACCESS_KEY" --secret-key="$SECRET_KEY" >/dev/null 2>>"$dir/log/setup.log"

echo "S3_ENDPOINT=$endpoint"
echo "AWS_ACCESS_KEY_ID=$ACCESS_KEY"
echo "AWS_SECRET_ACCESS_KEY=$SECRET_KEY"
