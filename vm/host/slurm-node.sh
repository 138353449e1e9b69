#!/bin/sh
# vm/host/slurm-node.sh start|stop FOLDER: a Slurm cluster of one node, this
# machine, to try make grade-class SCHEDULER=slurm on (check 98 grades its
# class through it). As root: munged, slurmctld and slurmd, with their
# configuration, state, spool, logs, pid files and munge socket in FOLDER
# and ports of their own, so that nothing of the machine's own Slurm or
# munge is touched. No cgroups (a container has none to give):
# proctrack/linuxproc, task/none. "start" prints the line that points
# Slurm's commands at it: export SLURM_CONF=FOLDER/slurm.conf.
me=slurm-node.sh
. "$(dirname "$0")/lib.sh"
what=${1:-}
dir=${2:?usage: slurm-node.sh start|stop FOLDER}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd -P)
conf=$dir/slurm.conf

stop() {
	for d in slurmd slurmctld munged; do
		pid=$(cat "$dir/$d.pid" 2>/dev/null) || continue
		kill "$pid" 2>/dev/null || true
		i=0
		while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
		kill -9 "$pid" 2>/dev/null || true
		rm -f "$dir/$d.pid"
	done
}

case $what in
stop)	stop; exit 0 ;;
start)	;;
*)	die "usage: slurm-node.sh start|stop FOLDER" ;;
esac
[ "$(id -u)" = 0 ] || die "a Slurm node's daemons run as root: run it as root (sudo)"
for p in munged slurmctld slurmd sinfo; do
	command -v $p > /dev/null || die "no $p: install Debian's slurmctld slurmd slurm-client munge (make deps does)"
done
[ -r /etc/munge/munge.key ] || die "no /etc/munge/munge.key: reinstall Debian's munge, which makes it"
stop
node=$(hostname -s)
mkdir -p "$dir/state" "$dir/spool"
cat > "$conf" <<CONF
ClusterName=kstack
SlurmctldHost=$node
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge.socket
SlurmctldPort=${SLURM_NODE_PORT:-16817}
SlurmdPort=$((${SLURM_NODE_PORT:-16817} + 1))
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
NodeName=$node CPUs=$(nproc) RealMemory=$(($(awk '/MemTotal/ { print $2 }' /proc/meminfo) / 1024 - 512)) State=UNKNOWN
PartitionName=class Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$conf"
munged --force --socket="$dir/munge.socket" --pid-file="$dir/munged.pid" \
	--log-file="$dir/munged.log" --seed-file="$dir/munged.seed" 2> "$dir/munged.err" ||
	die "munged did not start: $(cat "$dir/munged.err")"
slurmctld -c || { stop; die "slurmctld did not start: see $dir/slurmctld.log"; }
slurmd || { stop; die "slurmd did not start: see $dir/slurmd.log"; }
i=0
until sinfo -h -o %t 2>/dev/null | grep -qx idle; do
	i=$((i + 1))
	[ $i -lt 100 ] || { stop; die "the node did not come up within 20 s: see $dir/slurmctld.log and $dir/slurmd.log"; }
	sleep 0.2
done
say "a Slurm node of $(nproc) CPUs is up ($node); stop it with: vm/host/slurm-node.sh stop $dir"
echo "export SLURM_CONF=$conf"
