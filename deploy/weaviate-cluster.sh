#!/usr/bin/env bash
# deploy/weaviate-cluster.sh — a three-node Weaviate cluster on loopback, for the replication test
# (vector/cluster_integration_test.go, `make cluster-test`). Separate from deploy/local.sh's
# single Weaviate, which it never touches.
#
#   deploy/weaviate-cluster.sh up             start the nodes that are not running; wait until all
#                                             three are ready and see each other
#   deploy/weaviate-cluster.sh down           stop every node this script started (pid files only)
#   deploy/weaviate-cluster.sh stop-node N    stop node N (1..3), e.g. to test a node failure
#   deploy/weaviate-cluster.sh start-node N   start node N again and wait until it is ready
#   deploy/weaviate-cluster.sh status         one line per node; exit 0 only if all three are up
#   deploy/weaviate-cluster.sh env            `export` lines: ARIADNE_WEAVIATE_CLUSTER_URLS, _GRPCS
#   deploy/weaviate-cluster.sh wipe           delete the stopped cluster's data
#
# The binary is deploy/local.sh's weaviate-server (built once with `go install`). Node N listens on
# 127.0.0.1 with REST 8080+100N, gRPC 50051+100N, gossip 7946+100N (data +1) and Raft 8300+100N
# (internal RPC +1), each shifted by ARIADNE_PORT_OFFSET like every other server (node 1 of
# ARIADNE_PORT_OFFSET=3000: REST 11180). Data in $ARIADNE_HOME/weaviate-cluster/nodeN, logs in
# $ARIADNE_HOME/logs/weaviate-nodeN.log, pid files in $ARIADNE_HOME/run/weaviate-nodeN.pid.
# Like the single node, Weaviate binds gRPC and gossip/data on all interfaces (docs/security.md), so
# the nodes require the single node's API key (deploy/local.sh: ARIADNE_WEAVIATE_API_KEY, else
# $ARIADNE_HOME/weaviate/api-key, generated there once), and their cluster data ports basic auth
# with the same key.
set -euo pipefail

REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ARIADNE_HOME=${ARIADNE_HOME:-$REPO_ROOT/.ariadne}
OFFSET=${ARIADNE_PORT_OFFSET:-0}
WEAVIATE_VERSION=$(sed -n 's/^WEAVIATE_VERSION=//p' "$REPO_ROOT/deploy/local.sh")
WEAVIATE_BIN=$ARIADNE_HOME/bin/weaviate-server-$WEAVIATE_VERSION
READY_TIMEOUT=${ARIADNE_READY_TIMEOUT:-180}
NODES=(1 2 3)
RUN_DIR=$ARIADNE_HOME/run
LOG_DIR=$ARIADNE_HOME/logs
DATA_DIR=$ARIADNE_HOME/weaviate-cluster

say() { printf '[weaviate-cluster] %s\n' "$*"; }
die() { printf '[weaviate-cluster] error: %s\n' "$*" >&2; exit 1; }

rest_port() { echo $((8080 + 100 * $1 + OFFSET)); }
grpc_port() { echo $((50051 + 100 * $1 + OFFSET)); }
gossip_port() { echo $((7946 + 100 * $1 + OFFSET)); }
raft_port() { echo $((8300 + 100 * $1 + OFFSET)); }

for n in "${NODES[@]}"; do
	for p in "$(rest_port "$n")" "$(grpc_port "$n")" "$(($(gossip_port "$n") + 1))" "$(($(raft_port "$n") + 1))"; do
		if ! [ "$p" -ge 1 ] 2>/dev/null || [ "$p" -gt 65535 ]; then
			die "port $p of node $n is outside 1..65535 (ARIADNE_PORT_OFFSET=$OFFSET)"
		fi
	done
done

node_name() { echo "ariadne-cluster-$1"; }
pidfile() { echo "$RUN_DIR/weaviate-node$1.pid"; }
running_pid() {
	local f pid
	f=$(pidfile "$1")
	[ -f "$f" ] || return 1
	pid=$(cat "$f")
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
	echo "$pid"
}
ready() { curl -fsS -o /dev/null --max-time 3 "http://127.0.0.1:$(rest_port "$1")/v1/.well-known/ready" 2>/dev/null; } # public

# api_key prints the key the nodes require: deploy/local.sh's (it generates the file the first time).
api_key() { "$REPO_ROOT/deploy/local.sh" api-key; }

# key_curl ARGS... is curl with the API key as a bearer token, the header read from standard input
# rather than the command line (which ps shows to every user).
key_curl() {
	local key
	key=$(api_key) || return 1
	printf 'Authorization: Bearer %s\n' "$key" | curl -H @- "$@"
}

check_node() {
	case ${1:-} in 1 | 2 | 3) ;; *) die "node must be 1, 2 or 3, not '${1:-}'" ;; esac
}

raft_join() {
	local n out=()
	for n in "${NODES[@]}"; do out+=("$(node_name "$n"):$(raft_port "$n")"); done
	local IFS=,
	echo "${out[*]}"
}

# gossip_join lists the gossip addresses of the other nodes that run, comma-separated.
gossip_join() {
	local n out=()
	for n in "${NODES[@]}"; do
		[ "$n" = "$1" ] && continue
		running_pid "$n" >/dev/null && out+=("127.0.0.1:$(gossip_port "$n")")
	done
	local IFS=,
	echo "${out[*]}"
}

# wait_gossip waits until node $1 listens on its gossip port (before others join it).
wait_gossip() {
	local deadline=$((SECONDS + READY_TIMEOUT))
	while ((SECONDS < deadline)); do
		(exec 3<>"/dev/tcp/127.0.0.1/$(gossip_port "$1")") 2>/dev/null && return 0
		running_pid "$1" >/dev/null || die "node$1 exited; read $LOG_DIR/weaviate-node$1.log"
		sleep 0.5
	done
	die "node$1 does not listen on its gossip port $(gossip_port "$1") after ${READY_TIMEOUT}s"
}

start_node() {
	local n=$1 log=$LOG_DIR/weaviate-node$1.log
	if running_pid "$n" >/dev/null; then
		say "node$n already running (pid $(cat "$(pidfile "$n")"))"
		return 0
	fi
	local p
	for p in "$(rest_port "$n")" "$(grpc_port "$n")" "$(gossip_port "$n")" "$(($(gossip_port "$n") + 1))" \
		"$(raft_port "$n")" "$(($(raft_port "$n") + 1))"; do
		if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			die "port $p of node$n is already in use by a process this script did not start; leaving it alone"
		fi
	done
	[ -x "$WEAVIATE_BIN" ] || "$REPO_ROOT/deploy/local.sh" install weaviate
	mkdir -p "$RUN_DIR" "$LOG_DIR" "$DATA_DIR/node$n"
	local key
	key=$(api_key)
	# A node joins the gossip of the nodes already running (none for the first; Weaviate exits when
	# a listed address does not answer); Raft is bootstrapped by the three voters of RAFT_JOIN.
	# CLUSTER_ADVERTISE_PORT must be set with CLUSTER_ADVERTISE_ADDR: memberlist otherwise
	# advertises its default 7946 — the single Weaviate's gossip port — and the nodes gossip with
	# that server (which then reports itself UNHEALTHY). The node names differ from its "node1".
	# CLUSTER_IN_LOCALHOST lets memberlist run several nodes on one host (as Weaviate's own
	# tools/dev/run_dev_server.sh does for its three local nodes). Authentication as in
	# deploy/local.sh: the API key and the cluster API's password reach the node through its
	# environment only (exported below, never on a command line); the nodes share the password to
	# replicate to each other.
	AUTHENTICATION_APIKEY_ALLOWED_KEYS=$key CLUSTER_BASIC_AUTH_PASSWORD=$key setsid nohup env \
		PERSISTENCE_DATA_PATH="$DATA_DIR/node$n" \
		AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=false \
		AUTHENTICATION_APIKEY_ENABLED=true AUTHENTICATION_APIKEY_USERS=ariadne \
		CLUSTER_BASIC_AUTH_USERNAME=ariadne \
		DEFAULT_VECTORIZER_MODULE=none ENABLE_MODULES= \
		CLUSTER_HOSTNAME="$(node_name "$n")" CLUSTER_IN_LOCALHOST=true \
		CLUSTER_ADVERTISE_ADDR=127.0.0.1 CLUSTER_ADVERTISE_PORT="$(gossip_port "$n")" \
		CLUSTER_GOSSIP_BIND_PORT="$(gossip_port "$n")" CLUSTER_DATA_BIND_PORT="$(($(gossip_port "$n") + 1))" \
		CLUSTER_JOIN="$(gossip_join "$n")" \
		RAFT_PORT="$(raft_port "$n")" RAFT_INTERNAL_RPC_PORT="$(($(raft_port "$n") + 1))" \
		RAFT_JOIN="$(raft_join)" RAFT_BOOTSTRAP_EXPECT=3 \
		GO_PROFILING_DISABLE=true GRPC_PORT="$(grpc_port "$n")" QUERY_DEFAULTS_LIMIT=25 \
		DISABLE_TELEMETRY=true LIMIT_RESOURCES=true GOMAXPROCS=1 \
		"$WEAVIATE_BIN" --host 127.0.0.1 --port "$(rest_port "$n")" --scheme http \
		>>"$log" 2>&1 </dev/null &
	echo $! >"$(pidfile "$n")"
	say "node$n started (pid $!): http://127.0.0.1:$(rest_port "$n"), gRPC 127.0.0.1:$(grpc_port "$n"), log $log"
}

wait_ready() {
	local n=$1 pid deadline=$((SECONDS + READY_TIMEOUT))
	pid=$(cat "$(pidfile "$n")")
	while ((SECONDS < deadline)); do
		ready "$n" && return 0
		if ! kill -0 "$pid" 2>/dev/null; then
			rm -f "$(pidfile "$n")"
			die "node$n exited before it became ready on 127.0.0.1:$(rest_port "$n"); read $LOG_DIR/weaviate-node$n.log"
		fi
		sleep 1
	done
	die "node$n did not become ready on 127.0.0.1:$(rest_port "$n") within ${READY_TIMEOUT}s; read $LOG_DIR/weaviate-node$n.log"
}

# wait_members waits until node $1 lists every running node as HEALTHY in GET /v1/nodes.
wait_members() {
	local n=$1 want=$2 deadline=$((SECONDS + READY_TIMEOUT)) got
	while ((SECONDS < deadline)); do
		got=$(key_curl -fsS --max-time 3 "http://127.0.0.1:$(rest_port "$n")/v1/nodes" 2>/dev/null |
			grep -o '"status":"HEALTHY"' | wc -l || true)
		[ "${got:-0}" -ge "$want" ] && return 0
		sleep 1
	done
	die "node$n sees ${got:-0} healthy nodes, want $want, after ${READY_TIMEOUT}s; read $LOG_DIR/weaviate-node*.log"
}

stop_node() {
	local n=$1 pid i
	if ! pid=$(running_pid "$n"); then
		rm -f "$(pidfile "$n")"
		say "node$n not running (no live pid file)"
		return 0
	fi
	kill -TERM "$pid" 2>/dev/null || true
	for i in $(seq 1 60); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.5
	done
	if kill -0 "$pid" 2>/dev/null; then
		say "node$n (pid $pid) did not stop in 30s; sending SIGKILL"
		kill -KILL "$pid" 2>/dev/null || true
	fi
	rm -f "$(pidfile "$n")"
	say "node$n stopped (pid $pid)"
}

cmd_up() {
	local n
	for n in "${NODES[@]}"; do
		start_node "$n"
		wait_gossip "$n"
	done
	for n in "${NODES[@]}"; do wait_ready "$n"; done
	wait_members 1 3
	say "cluster up: 3 nodes healthy ($(cmd_urls))"
}

cmd_urls() {
	local n out=()
	for n in "${NODES[@]}"; do out+=("http://127.0.0.1:$(rest_port "$n")"); done
	local IFS=,
	echo "${out[*]}"
}

cmd_grpcs() {
	local n out=()
	for n in "${NODES[@]}"; do out+=("127.0.0.1:$(grpc_port "$n")"); done
	local IFS=,
	echo "${out[*]}"
}

cmd_status() {
	local n rc=0 pid
	for n in "${NODES[@]}"; do
		if ready "$n"; then
			pid=$(running_pid "$n" || echo "?")
			printf 'node%s up    pid %-7s http://127.0.0.1:%s, gRPC 127.0.0.1:%s\n' "$n" "$pid" "$(rest_port "$n")" "$(grpc_port "$n")"
		else
			printf 'node%s down\n' "$n"
			rc=3
		fi
	done
	return $rc
}

main() {
	local cmd=${1:-} n
	[ $# -gt 0 ] && shift
	case $cmd in
	up) cmd_up ;;
	down) for n in "${NODES[@]}"; do stop_node "$n"; done ;;
	stop-node) check_node "${1:-}"; stop_node "$1" ;;
	start-node)
		check_node "${1:-}"
		start_node "$1"
		wait_ready "$1"
		;;
	status) cmd_status ;;
	env) printf 'export %s\n' "ARIADNE_WEAVIATE_CLUSTER_URLS=$(cmd_urls)" "ARIADNE_WEAVIATE_CLUSTER_GRPCS=$(cmd_grpcs)" ;; # no characters to quote
	wipe)
		for n in "${NODES[@]}"; do running_pid "$n" >/dev/null && die "node$n is running; run '$0 down' first"; done
		rm -rf "$DATA_DIR"
		say "cluster data wiped"
		;;
	*)
		sed -n '2,23p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
		[ -z "$cmd" ] || [ "$cmd" = help ] || exit 2
		;;
	esac
}

main "$@"
