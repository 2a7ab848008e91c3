#!/usr/bin/env bash
# slurm_local.sh start|stop|status: a one-node Slurm cluster on this machine, for the tests and
# for trying scripts/slurm_sample.sh before a real cluster. `start` installs Debian's slurm-wlm
# and munge if missing, writes a localhost configuration under $SX_SLURM_DIR (default
# /tmp/sextant-slurm), and starts munged, slurmctld and slurmd; `stop` stops all three and
# leaves nothing running. Needs root (or sudo) to install and to run slurmd.
set -euo pipefail
dir=${SX_SLURM_DIR:-/tmp/sextant-slurm}
sudo_cmd=""
[ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
conf=$dir/slurm.conf

stop() {
    for d in slurmd slurmctld; do
        if [ -f "$dir/$d.pid" ]; then
            $sudo_cmd kill "$(cat "$dir/$d.pid")" 2>/dev/null || true
        fi
    done
    [ -f "$dir/munged.pid" ] && $sudo_cmd kill "$(cat "$dir/munged.pid")" 2>/dev/null || true
    for _ in $(seq 1 50); do
        pgrep -f "slurm(ctld|d) -f $conf" >/dev/null || pgrep -f "munged.*$dir" >/dev/null || break
        sleep 0.2
    done
    $sudo_cmd pkill -9 -f "slurm(ctld|d) -f $conf" 2>/dev/null || true
    $sudo_cmd pkill -9 -f "munged.*$dir" 2>/dev/null || true
    rm -f "$dir"/*.pid
}

start() {
    local missing=()
    for p in slurm-wlm munge; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "slurm_local: installing ${missing[*]}"
        $sudo_cmd apt-get update -q
        DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -q --no-install-recommends "${missing[@]}"
    fi
    stop
    mkdir -p "$dir/state" "$dir/spool" "$dir/munge" "$dir/log"
    chmod 700 "$dir/munge"
    # munge: its own key, socket and pid file under $dir, so a system munged is left alone.
    [ -f "$dir/munge/munge.key" ] || dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 2>/dev/null
    chmod 400 "$dir/munge/munge.key"
    local host cpus mem
    host=$(hostname -s)
    cpus=$(nproc)
    mem=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 1024 ))
    cat > "$conf" <<CONF
ClusterName=sextant-local
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CryptoType=crypto/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldPort=${SX_SLURM_PORT:-6817}
SlurmdPort=$(( ${SX_SLURM_PORT:-6817} + 1 ))
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SchedulerType=sched/backfill
JobRequeue=1
MaxArraySize=100000
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=${SX_SLURM_PARTITION:-sextant} Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
    $sudo_cmd munged --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
        --pid-file="$dir/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/seed" \
        --force
    $sudo_cmd slurmctld -f "$conf"
    $sudo_cmd slurmd -f "$conf"
    for _ in $(seq 1 50); do
        if SLURM_CONF=$conf sinfo -h -o '%t' 2>/dev/null | grep -qE '^(idle|mix|alloc)'; then
            echo "slurm_local: running (SLURM_CONF=$conf, partition ${SX_SLURM_PARTITION:-sextant})"
            return 0
        fi
        sleep 0.3
    done
    echo "slurm_local: the node did not come up; see $dir/log/" >&2
    SLURM_CONF=$conf sinfo >&2 || true
    return 1
}

case "${1:-}" in
start) start ;;
stop) stop; echo "slurm_local: stopped" ;;
status) SLURM_CONF=$conf sinfo ;;
*) sed -n 2,7p "$0"; exit 2 ;;
esac
