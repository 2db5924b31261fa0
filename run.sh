#!/usr/bin/env bash
# The front door of privic. Needs only Go (modules come from the proxy).
#   ./run.sh            regenerate every experiment into results/ (and the report)
#   ./run.sh test       gofmt check, go vet, all tests, race detector on the harness
#   ./run.sh help       everything else
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")"

BIN=./bin/privic

die() {
	echo "run.sh: $*" >&2
	exit 1
}

need_go() {
	command -v go >/dev/null 2>&1 || die "Go is not installed (https://go.dev/dl/); it is the only requirement"
}

# build compiles the CLI once per invocation into bin/ (git-ignored); go
# build's cache makes this a no-op when nothing changed.
# GLPK (Debian's libglpk-dev, through cgo) solves the optimal
# geo-indistinguishable mechanism's LP on grids that gonum's dense simplex
# cannot reach. It is optional: without it the pure-Go build skips those
# LPs (the report says so). tags prints the build tags to use.
have_glpk() {
	[ "$(go env CGO_ENABLED)" = "1" ] && command -v "$(go env CC)" >/dev/null 2>&1 &&
		{ [ -f /usr/include/glpk.h ] || [ -f /usr/local/include/glpk.h ]; }
}

# ensure_glpk installs libglpk-dev where it is missing and this shell may
# (root with apt-get); a failure only leaves the pure-Go path.
ensure_glpk() {
	have_glpk && return 0
	if [ "${PRIVIC_NO_GLPK:-}" = "" ] && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
		echo "run.sh: installing libglpk-dev (the optimal mechanism's LP solver; PRIVIC_NO_GLPK=1 skips this)" >&2
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libglpk-dev; } >/dev/null 2>&1 ||
			echo "run.sh: could not install libglpk-dev; using the pure-Go LP path" >&2
	fi
	have_glpk || echo "run.sh: GLPK not available: the optimal mechanism is solved with gonum only where it fits" >&2
}

# COIN-OR CLP (Debian's coinor-libclp-dev, through cgo) is the second LP
# solver: the optimal mechanism's decomposition on whole city grids is
# fastest with it. Optional like GLPK: without it the tests that need it
# skip and say so.
have_clp() {
	[ "$(go env CGO_ENABLED)" = "1" ] && command -v "$(go env CC)" >/dev/null 2>&1 &&
		{ [ -f /usr/include/coin/Clp_C_Interface.h ] || [ -f /usr/local/include/coin/Clp_C_Interface.h ]; }
}

ensure_clp() {
	have_clp && return 0
	if [ "${PRIVIC_NO_CLP:-}" = "" ] && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
		echo "run.sh: installing coinor-libclp-dev (the optimal mechanism's LP solver; PRIVIC_NO_CLP=1 skips this)" >&2
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq coinor-libclp-dev; } >/dev/null 2>&1 ||
			echo "run.sh: could not install coinor-libclp-dev; building without CLP" >&2
	fi
	have_clp || echo "run.sh: CLP not available: the optimal mechanism's decomposition uses GLPK or is skipped" >&2
}

tags() {
	local t=()
	if [ "${PRIVIC_NO_GLPK:-}" = "" ] && have_glpk; then t+=(glpk); fi
	if [ "${PRIVIC_NO_CLP:-}" = "" ] && have_clp; then t+=(clp); fi
	local IFS=,
	echo "${t[*]}"
}

build() {
	need_go
	mkdir -p bin
	go build -tags "$(tags)" -o "$BIN" ./cmd/privic
}

# has_command tells whether the CLI offers a subcommand (report is added
# by the experiments work).
has_command() {
	"$BIN" help "$1" >/dev/null 2>&1
}

usage() {
	cat <<'EOF'
usage: ./run.sh [COMMAND] [ARGS]

  (no command)          run every experiments/*.toml (except smoke/test specs),
                        then write the report; prints where it is
  test                  gofmt check, go vet ./..., go test ./..., go test -race ./harness/...
  bench [ARGS]          kernel benchmarks (-count 5) into results/bench/<date>.txt;
                        extra ARGS go to go test (e.g. -bench BA -benchtime 200ms)
  bench-scale [ARGS]    BenchmarkScale (hotspot grids up to 1024x1024), one process per
                        size with its peak memory, then the NumPy peer if present, into
                        results/bench/scale-<date>.txt; ARGS filter the sizes (e.g. BA10/256)
  profile SPEC          run SPEC with CPU and allocation profiles; prints the pprof commands
  fetch-data [ARGS]     download the SNAP Gowalla check-ins and build the city subsets
  datasets [ARGS]       regenerate the embedded per-cell counts in datasets/
  help                  this text
  SPEC.toml ...         run just these specs (flags such as -j 2 or --force pass through)

The CLI itself is bin/privic (privic help lists its commands).
EOF
}

# all_specs lists the specs ./run.sh runs: every experiments/*.toml except
# smoke and test specs.
all_specs() {
	local f base
	for f in experiments/*.toml; do
		[ -e "$f" ] || continue
		base=$(basename "$f" .toml)
		case "$base" in
		smoke* | test* | *-smoke | *-test) continue ;;
		esac
		echo "$f"
	done
}

cmd_all() {
	ensure_glpk
	ensure_clp
	build
	local specs=()
	local f
	while IFS= read -r f; do specs+=("$f"); done < <(all_specs)
	if [ ${#specs[@]} -eq 0 ]; then
		echo "run.sh: no experiment specs in experiments/ yet (smoke specs are skipped; try ./run.sh experiments/smoke.toml)"
		return 0
	fi
	"$BIN" run "${specs[@]}"
	if has_command report; then
		"$BIN" report
		echo "run.sh: report: results/REPORT.md (and results/REPORT.html for a browser)"
	else
		echo "run.sh: results are in results/ (one directory per experiment; no report command yet)"
	fi
}

cmd_test() {
	need_go
	# Every step runs even if an earlier one fails, so one pass shows all
	# problems; the exit status says whether any failed.
	local failed=()
	echo "== gofmt -l ."
	local unformatted
	unformatted=$(gofmt -l .)
	if [ -n "$unformatted" ]; then
		echo "these files need formatting (gofmt -w FILE):" >&2
		echo "$unformatted" >&2
		failed+=(gofmt)
	fi
	ensure_glpk
	ensure_clp
	local t
	t=$(tags)
	echo "== go vet -tags '$t' ./..."
	go vet -tags "$t" ./... || failed+=("go vet")
	echo "== go test -tags '$t' ./..."
	go test -tags "$t" ./... || failed+=("go test")
	echo "== go test -race ./harness/..."
	if [ "$(go env CGO_ENABLED)" = "1" ] && command -v "$(go env CC)" >/dev/null 2>&1; then
		go test -race ./harness/... || failed+=("go test -race")
	else
		echo "SKIPPED: the race detector needs cgo and a C compiler ($(go env CC)); install one (e.g. apt install gcc) to run it" >&2
	fi
	if [ ${#failed[@]} -gt 0 ]; then
		local IFS=,
		die "test FAILED: ${failed[*]}"
	fi
	echo "run.sh: all checks passed"
}

cmd_bench() {
	need_go
	mkdir -p results/bench
	local out tmp
	out="results/bench/$(date -u +%Y%m%d-%H%M%S).txt"
	tmp="$out.tmp"
	# BenchmarkScale (minutes, up to 1024 x 1024 grids) has its own command.
	echo "run.sh: benchmarking ./kernels/ (go test -bench '^Benchmark([^S]|S[^c])' -benchmem -count 5 $*)"
	go test -run '^$' -bench '^Benchmark([^S]|S[^c])' -benchmem -count 5 "$@" ./kernels/ | tee "$tmp"
	mv "$tmp" "$out"
	echo
	echo "run.sh: wrote $out"
	echo "compare two runs with benchstat:"
	echo "  go run golang.org/x/perf/cmd/benchstat@latest OLD.txt $out"
}

# cmd_bench_scale runs every BenchmarkScale size in a process of its own,
# so that /usr/bin/time -v (where installed) reports each size's peak
# memory, then the NumPy/POT peer on the same machine if ../shared has it.
cmd_bench_scale() {
	need_go
	mkdir -p results/bench
	local out tmp bin count filter
	out="results/bench/scale-$(date -u +%Y%m%d-%H%M%S).txt"
	tmp="$out.tmp"
	bin=$(mktemp -d)/kernels.test
	count=${PRIVIC_BENCH_COUNT:-5}
	filter=${1:-}
	go test -c -o "$bin" ./kernels/
	{
		echo "# ./run.sh bench-scale $*: $(uptime)"
		for kernel in BA10 IBU10 EMD Obfuscate TightEps; do
			for side in 32 64 100 128 256 512 1024; do
				case $kernel in BA10 | IBU10) ;; *) [ "$side" -le 256 ] || continue ;; esac
				name="BenchmarkScale/$kernel/$side"
				[ -z "$filter" ] || [[ $name == *"$filter"* ]] || continue
				if [ -x /usr/bin/time ]; then
					/usr/bin/time -v -o "$bin.time" "$bin" -test.run '^$' -test.bench "^$name\$" -test.benchmem -test.count "$count" |
						grep -v '^PASS\|^ok'
					echo "# $name peak RSS $(awk -F': ' '/Maximum resident/ {print $2}' "$bin.time") kB"
				else
					"$bin" -test.run '^$' -test.bench "^$name\$" -test.benchmem -test.count "$count" | grep -v '^PASS\|^ok'
				fi
			done
		done
		peer=../shared/peers/numpy_kernels.py
		if [ -f "$peer" ] && /usr/bin/python3 -c 'import numpy, ot' 2>/dev/null; then
			echo "# peer: /usr/bin/python3 $peer --sides 32,64,100: $(uptime)"
			/usr/bin/python3 "$peer" --sides 32,64,100 | sed 's/^/# peer /'
		else
			echo "# peer not run: $peer or python3-numpy/python3-pot missing"
		fi
	} 2>&1 | tee "$tmp"
	mv "$tmp" "$out"
	rm -rf "$(dirname "$bin")"
	echo
	echo "run.sh: wrote $out"
}

cmd_profile() {
	[ $# -ge 1 ] || die "profile needs a spec: ./run.sh profile experiments/NAME.toml"
	build
	local spec=$1
	shift
	local name dir
	name=$(basename "$spec" .toml)
	dir="results/profile"
	mkdir -p "$dir"
	"$BIN" run --force --cpuprofile "$dir/$name.cpu.pprof" --memprofile "$dir/$name.mem.pprof" "$@" "$spec"
	echo
	echo "run.sh: profiles written; open them with:"
	echo "  go tool pprof -http=localhost:8080 $BIN $dir/$name.cpu.pprof"
	echo "  go tool pprof -http=localhost:8080 -sample_index=alloc_space $BIN $dir/$name.mem.pprof"
	echo "or in the terminal: go tool pprof -top $BIN $dir/$name.cpu.pprof"
}

cmd_specs() {
	build
	"$BIN" run "$@"
}

main() {
	local cmd=${1:-}
	if [ $# -gt 0 ]; then shift; fi
	case "$cmd" in
	"") cmd_all ;;
	test) cmd_test "$@" ;;
	bench) cmd_bench "$@" ;;
	bench-scale) cmd_bench_scale "$@" ;;
	profile) cmd_profile "$@" ;;
	fetch-data)
		need_go
		go run ./datasets/internal/fetchdata "$@"
		;;
	datasets)
		need_go
		go run ./datasets/internal/gencounts "$@"
		;;
	help | -h | --help) usage ;;
	*.toml | -*) cmd_specs "$cmd" "$@" ;;
	*)
		usage >&2
		die "unknown command '$cmd'"
		;;
	esac
}

main "$@"
