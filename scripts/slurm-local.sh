#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for the tests that submit table
# and book plans to a real Slurm (and for trying a plan by hand).
#
#   scripts/slurm-local.sh up        install slurm-wlm and munge (Debian) when
#                                    missing, start munged, slurmctld and
#                                    slurmd, and wait until the node is idle
#   scripts/slurm-local.sh down      stop everything `up` started, jobs too
#   scripts/slurm-local.sh status    say whether it is up, and its node
#   scripts/slurm-local.sh exec CMD  run CMD beside the cluster (sbatch,
#                                    squeue, a submission script ...)
#
# The daemons run as root in a network namespace of their own that holds
# only a loopback interface, so nothing they open can be reached from
# outside this machine (Slurm itself has no setting to listen on one
# address). Commands reach them through `exec`, which runs CMD in that
# namespace with SLURM_CONF set. The key, configuration, state, spool and
# logs live under $SLURM_LOCAL_DIR (default /tmp/slurm-local); `down` leaves
# them there to read, and `up` starts afresh. The node offers every core
# and the memory less 1 GiB. Jobs are held to the memory they asked for as
# Slurm advises clusters to: by a memory cgroup (task/cgroup with
# ConstrainRAMSpace), where the kernel first takes back the job's page
# cache and kills only for memory it cannot take back. Where the machine
# has no cgroup v1 memory controller, or with SLURM_LOCAL_MEMORY=rss, the
# job's resident size is polled instead and the job killed past its request
# (JobAcctGatherParams=$gather), mapped file pages counted too.
set -euo pipefail

dir=${SLURM_LOCAL_DIR:-/tmp/slurm-local}
memory=${SLURM_LOCAL_MEMORY:-}
if [ -z "$memory" ]; then
  if [ -d /sys/fs/cgroup/memory ]; then memory=cgroup; else memory=rss; fi
fi
conf=$dir/slurm.conf
say() { echo "slurm-local: $*" >&2; }

holder_pid() {
  local pid
  pid=$(cat "$dir/run/netns.pid" 2>/dev/null) || return 1
  [ -e "/proc/$pid/ns/net" ] || return 1
  echo "$pid"
}

# Runs "$@" in the cluster's network namespace.
inside() {
  local pid
  pid=$(holder_pid) || {
    say "not up (scripts/slurm-local.sh up)"
    return 1
  }
  SLURM_CONF=$conf nsenter --net="/proc/$pid/ns/net" "$@"
}

install_packages() {
  command -v slurmctld >/dev/null && command -v munged >/dev/null && return
  say "installing slurm-wlm and munge"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    slurm-wlm munge >/dev/null
}

write_conf() {
  local host cpus mem_mb proctrack=proctrack/linuxproc task=task/none gather=OverMemoryKill
  case $memory in
  cgroup)
    proctrack=proctrack/cgroup task=task/cgroup gather=NoOverMemoryKill
    cat >"$dir/cgroup.conf" <<EOF
# Written by scripts/slurm-local.sh: jobs held to their memory by cgroup v1.
CgroupPlugin=cgroup/v1
CgroupMountpoint=/sys/fs/cgroup
CgroupAutomount=no
ConstrainRAMSpace=yes
ConstrainSwapSpace=yes
ConstrainCores=no
EOF
    ;;
  rss) ;;
  *)
    say "SLURM_LOCAL_MEMORY is cgroup or rss, not $memory"
    return 1
    ;;
  esac
  host=$(hostname -s)
  cpus=$(nproc)
  mem_mb=$(awk '/^MemTotal:/ { print int($2 / 1024) - 1024 }' /proc/meminfo)
  cat >"$conf" <<EOF
# Written by scripts/slurm-local.sh: one node, everything as root, on loopback.
ClusterName=xqlocal
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=6817
SlurmdPort=6818
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/run/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=$proctrack
TaskPlugin=$task
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=task=1
JobAcctGatherParams=$gather
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SlurmctldTimeout=30
SlurmdTimeout=30
KillWait=5
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
}

up() {
  if holder_pid >/dev/null; then
    say "already up ($dir)"
    return 0
  fi
  install_packages
  rm -rf "$dir"
  mkdir -p "$dir"/{run,state,spool,log}
  chmod 755 "$dir" # munged wants its socket's directories searchable by all
  write_conf
  head -c 1024 /dev/urandom >"$dir/munge.key"
  chmod 400 "$dir/munge.key"
  # The namespace's holder: a process that only sleeps in it. Its loopback
  # also gets an address outside 127/8, because the daemons look up their
  # wildcard address with AI_ADDRCONFIG, which finds nothing to listen on
  # where a machine has only 127.0.0.1; the interface is still loopback.
  setsid unshare --net sh -c \
    'ip link set lo up && ip addr add 10.254.0.1/32 dev lo && exec sleep infinity' \
    </dev/null >/dev/null 2>&1 &
  echo $! >"$dir/run/netns.pid"
  sleep 0.2
  holder_pid >/dev/null || {
    say "cannot make a network namespace (unshare --net needs root)"
    return 1
  }
  inside munged --force --socket="$dir/run/munge.socket" --key-file="$dir/munge.key" \
    --pid-file="$dir/run/munged.pid" --log-file="$dir/log/munged.log" \
    --seed-file="$dir/state/munge.seed"
  inside slurmctld -f "$conf"
  inside slurmd -f "$conf"
  local started state=""
  started=$(date +%s)
  while [ $(($(date +%s) - started)) -lt 60 ]; do
    state=$(inside timeout 5 sinfo -h -o %T 2>/dev/null || true)
    [ "$state" = idle ] && break
    sleep 0.5
  done
  local waited=$(($(date +%s) - started))
  if [ "$state" != idle ]; then
    say "the node did not come up in 60 s (state '${state}'); logs in $dir/log"
    down
    return 1
  fi
  say "up in ${waited} s: node $(hostname -s), $(nproc) cores, memory held by $memory; logs in $dir/log"
}

down() {
  local pid ns self
  pid=$(holder_pid) || {
    say "not up"
    return 0
  }
  ns=$(readlink "/proc/$pid/ns/net")
  self=$(readlink /proc/self/ns/net)
  [ "$ns" != "$self" ] || {
    say "refusing: the cluster's namespace is this shell's own"
    return 1
  }
  # Every process in the cluster's namespace: the daemons, the jobs, the holder.
  local victims=() p
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/ns/net" 2>/dev/null)" = "$ns" ] && victims+=("${p#/proc/}")
  done
  [ ${#victims[@]} -eq 0 ] || kill -TERM "${victims[@]}" 2>/dev/null || true
  local waited=0
  while [ $waited -lt 50 ] && kill -0 "$pid" 2>/dev/null; do
    sleep 0.1
    waited=$((waited + 1))
  done
  for p in "${victims[@]}"; do
    kill -KILL "$p" 2>/dev/null || true
  done
  rm -f "$dir/run/netns.pid"
  say "down (${#victims[@]} processes stopped); logs in $dir/log"
}

case "${1:-}" in
up) up ;;
down) down ;;
status)
  if holder_pid >/dev/null; then
    inside sinfo -N -o "%N %T %c %m"
  else
    say "not up"
    exit 1
  fi
  ;;
exec)
  shift
  [ $# -gt 0 ] || {
    say "exec what?"
    exit 2
  }
  inside "$@"
  ;;
*)
  awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0" >&2
  exit 2
  ;;
esac
