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

# have_cgo tells whether cgo is on and its C compiler present; asked of
# go env once per run.sh (each go env takes tens of milliseconds).
CGO_OK=
have_cgo() {
	if [ -z "$CGO_OK" ]; then
		local env
		env=$(go env CGO_ENABLED CC)
		CGO_OK=no
		if [ "$(sed -n 1p <<<"$env")" = "1" ] && command -v "$(sed -n 2p <<<"$env")" >/dev/null 2>&1; then
			CGO_OK=yes
		fi
	fi
	[ "$CGO_OK" = yes ]
}

# build compiles the CLI once per invocation into bin/ (git-ignored); go
# build's cache makes this a no-op when nothing changed.
# GLPK (Debian's libglpk-dev, through cgo) solves the optimal
# geo-indistinguishable mechanism's LP on grids that gonum's dense simplex
# cannot reach. It is optional: without it the pure-Go build skips those
# LPs (the report says so). tags prints the build tags to use.
have_glpk() {
	have_cgo && { [ -f /usr/include/glpk.h ] || [ -f /usr/local/include/glpk.h ]; }
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
	have_cgo && { [ -f /usr/include/coin/Clp_C_Interface.h ] || [ -f /usr/local/include/coin/Clp_C_Interface.h ]; }
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
  all [--check] [ARGS]  run every spec whose results are committed under results/ (paper,
                        examples, extended, fine, scale), longest jobs first, ending with a
                        table of spec, wall time, jobs and peak memory, then the report;
                        --check regenerates into a scratch directory instead and compares
                        every committed CSV column by column (exit 1 on a difference)
  bench-compare REV     the kernel benchmarks on the paper grids at git revision REV and in the
                        working tree, interleaved in one session, compared by benchstat
  test                  gofmt check, go vet (also -tags purego and GOARCH=arm64), go test ./...
                        (also -tags purego where it selects other files), go test -race
                        ./harness/...; ends with the skipped tests and their reasons
  mutate [PKG[:GLOBS]...]  mutation testing with gremlins (installed if missing) on the
                        numerical packages, or on PKG (GLOBS: comma-separated file globs);
                        reports in results/mutation/; slow (hours for all), not part of test;
                        --check [PKG...] only lists the survivors entries whose code is gone
  bugs [NAME-REGEXP]    replay the deliberate bugs of .ci/deliberate-bugs.tsv in a scratch
                        copy and check that the tests catch each
  bench [ARGS]          kernel benchmarks (-count 5) into results/bench/<date>.txt;
                        extra ARGS go to go test (e.g. -bench BA -benchtime 200ms)
  bench-scale [ARGS]    BenchmarkScale (hotspot grids up to 1024x1024), one process per
                        size with its peak memory, then the NumPy and POT peers if present
                        (PRIVIC_EMD_PEER_SIDES: the POT sides, 32,64,100), into
                        results/bench/scale-<date>.txt; ARGS filter the sizes (e.g. BA10/256)
  profile SPEC          run SPEC with CPU and allocation profiles; prints the pprof commands
  report-page [DIR]     write DIR/REPORT.md and .html again (DIR: results) and open the page in
                        headless Chromium (Debian's chromium, installed if missing): checks that
                        the page has its contents and every figure it links, and writes a
                        screenshot of its top to DIR/report-page.png
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

# cmd_committed runs every spec whose results are committed (the spec
# files their manifests name), in one privic run so that the longest jobs
# of all specs go first; with --check it runs them into a scratch
# directory and compares the tables with the committed ones.
cmd_committed() {
	local check=
	if [ "${1:-}" = "--check" ]; then
		check=1
		shift
	fi
	ensure_glpk
	ensure_clp
	build
	local specs=() f
	while IFS= read -r f; do specs+=("$f"); done < <("$BIN" list --specs-of results)
	[ ${#specs[@]} -gt 0 ] || die "no committed results under results/ to regenerate"
	if [ -z "$check" ]; then
		echo "run.sh: regenerating ${#specs[@]} committed experiments (uptime: $(uptime))"
		"$BIN" run --summary "$@" "${specs[@]}"
		"$BIN" report
		echo "run.sh: report: results/REPORT.md (and results/REPORT.html for a browser)"
		return 0
	fi
	local scratch
	scratch=${PRIVIC_CHECK_DIR:-$(mktemp -d -t privic-check.XXXXXX)}
	echo "run.sh: regenerating ${#specs[@]} committed experiments into $scratch to compare (uptime: $(uptime))"
	"$BIN" run --summary --history results --out "$scratch" "$@" "${specs[@]}"
	echo "run.sh: done (uptime: $(uptime))"
	"$BIN" compare results "$scratch"
}

# cmd_bench_compare runs the kernel benchmarks on the paper grids at a git
# revision and in the working tree, alternating the two binaries run by
# run so that both see the same machine, then compares them with benchstat.
cmd_bench_compare() {
	need_go
	[ $# -ge 1 ] || die "bench-compare needs a revision: ./run.sh bench-compare 1aa42b3"
	local rev=$1
	shift
	git rev-parse --verify -q "$rev^{commit}" >/dev/null || die "bench-compare: $rev is not a commit of this repository"
	local tmp count pattern benchtime
	tmp=$(mktemp -d -t privic-bench.XXXXXX)
	count=${PRIVIC_BENCH_COUNT:-10}
	pattern=${PRIVIC_BENCH:-'^Benchmark(BA10|IBU10|IBU10Dense|Obfuscate|TightEps)$'}
	benchtime=${PRIVIC_BENCH_TIME:-200ms}
	mkdir -p "$tmp/rev" results/bench
	git archive "$rev" | tar -x -C "$tmp/rev"
	echo "run.sh: building the kernel benchmarks at $rev and in the working tree"
	(cd "$tmp/rev" && go test -c -o "$tmp/rev.test" ./kernels/) || die "bench-compare: cannot build the benchmarks at $rev"
	go test -c -o "$tmp/head.test" ./kernels/
	echo "run.sh: $count rounds of -bench '$pattern' -benchtime $benchtime, alternating ($(uptime))"
	local i
	for ((i = 1; i <= count; i++)); do
		(cd kernels && "$tmp/rev.test" -test.run '^$' -test.bench "$pattern" -test.benchtime "$benchtime" -test.benchmem "$@") | grep -v '^PASS\|^ok' >>"$tmp/$rev.txt"
		(cd kernels && "$tmp/head.test" -test.run '^$' -test.bench "$pattern" -test.benchtime "$benchtime" -test.benchmem "$@") | grep -v '^PASS\|^ok' >>"$tmp/head.txt"
		printf '.'
	done
	echo " ($(uptime))"
	local out
	out="results/bench/compare-$rev-$(date -u +%Y%m%d-%H%M%S).txt"
	{
		echo "# ./run.sh bench-compare $rev: $(git rev-parse --short HEAD)$(git diff --quiet -- kernels || echo ' with uncommitted kernels/ changes') against $rev, $count alternating rounds"
		go run golang.org/x/perf/cmd/benchstat@$BENCHSTAT_VERSION "$tmp/$rev.txt" "$tmp/head.txt"
	} | tee "$out"
	rm -rf "$tmp"
	echo "run.sh: wrote $out"
}

# benchstat's version (golang.org/x/perf), fetched by go run on first use.
BENCHSTAT_VERSION=v0.0.0-20260908200009-22c9c6c9d4da

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

# shared_data tells whether the project's shared data directory (../shared
# next to the repository, with the raw Gowalla check-ins) is present; the
# data tests run only then.
shared_data() {
	[ -d ../shared/datasets/gowalla ]
}

# purego_pkgs lists the packages that have files selected by the purego
# build tag (portable versions of the assembly kernels).
purego_pkgs() {
	grep -rlE --include='*.go' --include='*.s' '^//go:build.*purego' . | xargs -n1 dirname | sort -u
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
	echo "== go vet -tags '$t' ./... ./.ci/..."
	local ci=()
	local p
	while IFS= read -r p; do ci+=("$p"); done < <(ci_pkgs)
	go vet -tags "$t" ./... "${ci[@]}" || failed+=("go vet")
	# The portable files (purego, other architectures) are vetted too, so
	# that they cannot rot unnoticed on this amd64 machine.
	echo "== go vet -tags purego ./..."
	go vet -tags purego ./... || failed+=("go vet -tags purego")
	echo "== GOARCH=arm64 go vet ./..."
	GOARCH=arm64 go vet ./... || failed+=("GOARCH=arm64 go vet")
	local pkgs=()
	while IFS= read -r p; do pkgs+=("$p"); done < <(purego_pkgs)
	echo "== go test -tags purego ${pkgs[*]}"
	go test -tags purego "${pkgs[@]}" || failed+=("go test -tags purego")
	echo "== go test -race ./harness/..."
	if [ "$(go env CGO_ENABLED)" = "1" ] && command -v "$(go env CC)" >/dev/null 2>&1; then
		go test -race ./harness/... || failed+=("go test -race")
	else
		echo "SKIPPED: the race detector needs cgo and a C compiler ($(go env CC)); install one (e.g. apt install gcc) to run it" >&2
	fi
	# The main run last, so that its summary of skipped tests ends the
	# output. With the shared data present, a data test that skips fails.
	local data=()
	if shared_data; then data=(-data); fi
	echo "== go test -tags '$t' ./... ./.ci/..."
	go test -tags "$t" -json ./... "${ci[@]}" 2>&1 | go run ./.ci/testsummary "${data[@]}" || failed+=("go test")
	if [ ${#failed[@]} -gt 0 ]; then
		local IFS=,
		die "test FAILED: ${failed[*]}"
	fi
	echo "run.sh: all checks passed"
}

# The CI tools live in .ci/ (go ./... does not enter dot directories).
ci_pkgs() {
	local d
	for d in .ci/*/; do
		compgen -G "$d*.go" >/dev/null && echo "./${d%/}"
	done
}

# Mutation testing (gremlins; not part of CI: a full pass takes hours).
GREMLINS_VERSION=v0.6.0

# mutate_default lists what ./run.sh mutate covers without arguments: the
# numerical packages, and in kernels the files of BA, IBU, obfuscation,
# binomial sampling and tight epsilon (the rest of kernels is exercised
# through them and by the EMD and stencil tests).
mutate_default() {
	echo "kernels:ba*.go,ibu*.go,obfuscate*.go,binomial*.go,tighteps*.go"
	echo kernels/emd
	echo kernels/lp
	echo "kernels/mechanism:$MUTATE_MECH_LP"
	echo "kernels/mechanism:$MUTATE_MECH_OPT"
	echo "kernels/mechanism:$MUTATE_MECH_REST"
	echo datasets
}

# kernels/mechanism is mutated in three scopes. Its LP files need the
# solver build (cgo, GLPK and CLP) and the decomposition tests (20 s a run
# idle, two minutes under load); the front end of the optimal mechanism
# (optimal*.go) is tested without the two slowest decomposition tests
# (over half of the run time), which aim at the column generation, so that
# its score is the other tests' own; the rest is tested in
# 2 s without solver tags, where the package has no cgo and a mutant
# compiles in a second.
MUTATE_MECH_LP="lp_*.go"
MUTATE_MECH_OPT="optimal*.go"
MUTATE_MECH_REST="adapters.go,calibrate.go,coarse.go,elastic.go,identify.go,mechanism.go,metrics.go,operator.go,planar*.go,quad.go,rr.go,spellings.go"

# mutate_opts prints the build tags, then the go test -skip pattern, for a
# scope (tab-separated; "-" for none). PRIVIC_MUTATE_TAGS and
# PRIVIC_MUTATE_SKIP override them.
mutate_opts() {
	local tags skip=-
	tags=$(tags)
	case "$1" in
	"kernels/mechanism:$MUTATE_MECH_REST") tags= ;;
	# Its slowest test (10 s) compares with the other mechanisms, which the
	# other scope's tests cover; the LP tests that remain take 10 s.
	"kernels/mechanism:$MUTATE_MECH_LP") skip='^TestDecomposeNoWorseThanOtherGeoIndMechanisms$' ;;
	"kernels/mechanism:$MUTATE_MECH_OPT") skip='^Test(DecomposeNoWorseThanOtherGeoIndMechanisms|DecomposeMatchesBruteForceLP|DecomposeGeoIndAndTightEps)$' ;;
	esac
	tags=${PRIVIC_MUTATE_TAGS-$tags}
	skip=${PRIVIC_MUTATE_SKIP:-$skip}
	printf '%s\t%s\n' "${tags:--}" "$skip"
}

# ensure_gremlins prints the path of gremlins $GREMLINS_VERSION, installing
# it with go install when it is missing or another version.
ensure_gremlins() {
	local bin
	bin="$(go env GOPATH)/bin/gremlins"
	if ! go version -m "$bin" 2>/dev/null | grep -q "mod[[:space:]]*github.com/go-gremlins/gremlins[[:space:]]*$GREMLINS_VERSION"; then
		echo "run.sh: installing gremlins $GREMLINS_VERSION (go install)" >&2
		go install "github.com/go-gremlins/gremlins/cmd/gremlins@$GREMLINS_VERSION" >&2 ||
			die "could not install gremlins $GREMLINS_VERSION"
	fi
	echo "$bin"
}

# mutate_excludes prints gremlins' --exclude-files pattern for a package
# directory and a comma-separated list of file globs (empty: every file):
# files in subdirectories (other packages: gremlins walks recursively) and
# the package's files that match none of the globs.
mutate_excludes() {
	local dir=$1 globs=$2 f base g keep
	local skip=()
	if [ -n "$globs" ]; then
		for f in "$dir"/*.go; do
			base=$(basename "$f")
			case "$base" in *_test.go) continue ;; esac
			keep=
			local IFS=,
			for g in $globs; do
				# shellcheck disable=SC2254
				case "$base" in $g) keep=1 ;; esac
			done
			unset IFS
			[ -n "$keep" ] || skip+=("${base//./\\.}")
		done
	fi
	local pat='^[^/]+/'
	if [ ${#skip[@]} -gt 0 ]; then
		local IFS='|'
		pat="$pat|^(${skip[*]})\$"
	fi
	echo "$pat"
}

# mutate_check checks the survivors files of the packages given (default:
# those ./run.sh mutate covers) against their source, without gremlins:
# STALE for an entry whose function or expression is gone, MOVED for one
# whose position hint is out of date (exit 1 if any is stale).
mutate_check() {
	local pkgs=("$@") t status=0
	if [ ${#pkgs[@]} -eq 0 ]; then
		while IFS= read -r t; do pkgs+=("${t%%:*}"); done < <(mutate_default | sort -u -t: -k1,1)
	fi
	for t in "${pkgs[@]}"; do
		echo "== ${t%%:*}"
		go run ./.ci/mutants -check -pkg "${t%%:*}" || status=1
	done
	return $status
}

cmd_mutate() {
	need_go
	if [ "${1:-}" = --check ]; then
		shift
		mutate_check "$@"
		return
	fi
	ensure_glpk
	local gremlins
	gremlins=$(ensure_gremlins)
	local targets=("$@")
	if [ ${#targets[@]} -eq 0 ]; then
		local t
		while IFS= read -r t; do targets+=("$t"); done < <(mutate_default)
	fi
	local out=results/mutation
	mkdir -p "$out"
	local workers=${PRIVIC_MUTATE_WORKERS:-1}
	# PRIVIC_MUTATE_RUN restricts every test run (coverage and mutants) to
	# the tests matching a -run pattern: a package whose whole suite takes
	# half a minute can then be mutated file by file with the tests that
	# target that file. A mutant killed only by other tests then counts as
	# lived (or not covered), so the score is the targeted tests' own.
	local run=${PRIVIC_MUTATE_RUN:-}
	# -count=1: gremlins sets each mutant's timeout from the time of its
	# coverage run, which must not be a cached result.
	local target dir globs name start status=0 opts mtags skip goflags
	for target in "${targets[@]}"; do
		opts=$(mutate_opts "$target")
		mtags=${opts%%$'\t'*}
		skip=${opts#*$'\t'}
		[ "$mtags" != - ] || mtags=
		[ "$skip" != - ] || skip=
		goflags="${GOFLAGS:+$GOFLAGS }-count=1"
		[ -z "$run" ] || goflags="$goflags -run=$run"
		[ -z "$skip" ] || goflags="$goflags -skip=$skip"
		dir=${target%%:*}
		globs=
		[ "$dir" = "$target" ] || globs=${target#*:}
		dir=${dir%/}
		dir=${dir#./}
		[ -d "$dir" ] || die "mutate: no package directory '$dir'"
		name=${dir//\//-}
		# One report per scope: file scopes of one package do not overwrite
		# each other.
		[ -z "$globs" ] || name="$name-$(echo "$globs" | tr -c 'A-Za-z0-9\n' '_')"
		echo "== gremlins on ./$dir${globs:+ (files $globs)}${run:+ (tests -run $run)}${mtags:+ (tags $mtags)}, $workers worker(s); log: $out/$name.log"
		start=$(date +%s)
		rm -f "$out/$name.json"
		if ! GOFLAGS=$goflags "$gremlins" unleash --workers "$workers" --timeout-coefficient 5 --tags "$mtags" \
			--exclude-files "$(mutate_excludes "$dir" "$globs")" -o "$out/$name.json" "./$dir" >"$out/$name.log" 2>&1; then
			echo "run.sh: gremlins failed on ./$dir; see $out/$name.log" >&2
			status=1
			continue
		fi
		echo "   took $(($(date +%s) - start)) s"
		if [ ! -f "$out/$name.json" ]; then
			echo "   no mutants in ./$dir${globs:+ (files $globs)}"
			continue
		fi
		go run ./.ci/mutants -pkg "$dir" -scope "$dir${globs:+:$globs}${run:+ -run $run}${skip:+ -skip $skip}${mtags:+ -tags $mtags}" -summary "$out/summary.tsv" "$out/$name.json" || status=1
	done
	echo "run.sh: per-package results in $out/summary.tsv (gremlins reports: $out/*.json)"
	return $status
}

cmd_bugs() {
	need_go
	go run ./.ci/bugs "$@"
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
		for kernel in BA10 IBU10 EMD EMDUniform EMDTranspose Obfuscate TightEps; do
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
		# POT's dense network simplex on the far EMD pairs (EMDUniform,
		# EMDTranspose); at 128 x 128 it needs about 13 GB and minutes.
		peer=../shared/peers/emd_pairs.py
		sides=${PRIVIC_EMD_PEER_SIDES:-32,64,100}
		if [ -f "$peer" ] && /usr/bin/python3 -c 'import numpy, ot' 2>/dev/null; then
			echo "# peer: /usr/bin/python3 $peer --sides $sides: $(uptime)"
			/usr/bin/python3 "$peer" --sides "$sides" | sed 's/^/# peer /'
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
	# The report is assembled from what results/ holds (a run elsewhere,
	# with --out, leaves it alone).
	local a
	for a in "$@"; do
		case "$a" in --out | --out=* | --shard | --shard=*) return 0 ;; esac
	done
	"$BIN" report
}

# CHROMIUM_FLAGS start Chromium headless on a machine without a display,
# sandbox or network: no first-run, sync, update or background requests.
CHROMIUM_FLAGS=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
	--disable-background-networking --disable-component-update --disable-sync --hide-scrollbars)

# ensure_chromium installs Debian's chromium where it is missing and this
# shell may (root with apt-get); only report-page needs it.
ensure_chromium() {
	command -v chromium >/dev/null 2>&1 && return 0
	if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
		echo "run.sh: installing Debian's chromium (for report-page)" >&2
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >/dev/null 2>&1 ||
			die "could not install chromium (apt-get install chromium)"
	fi
	command -v chromium >/dev/null 2>&1 || die "report-page needs Chromium: apt-get install chromium"
}

# cmd_report_page regenerates DIR's report, loads REPORT.html in headless
# Chromium, checks what the browser built (the table of contents, every
# heading it links to, every figure file the page shows) and saves a
# screenshot of the page's top as DIR/report-page.png.
cmd_report_page() {
	local dir=${1:-results}
	[ -d "$dir" ] || die "report-page: no directory $dir"
	build
	ensure_chromium
	"$BIN" report --out "$dir" 2>/dev/null
	local page tmp
	page="$(cd "$dir" && pwd)/REPORT.html"
	tmp=$(mktemp -d)
	# A fresh profile each time: nothing of an earlier session leaks in.
	chromium "${CHROMIUM_FLAGS[@]}" --user-data-dir="$tmp/profile" --dump-dom "file://$page" >"$tmp/dom.html" 2>"$tmp/log" ||
		{ cat "$tmp/log" >&2; rm -rf "$tmp"; die "report-page: chromium could not load $page"; }
	local problems=0 id src
	grep -q '<h2 id="contents">Contents</h2>' "$tmp/dom.html" || { echo "report-page: the page has no Contents heading" >&2; problems=1; }
	while IFS= read -r id; do
		# The page writes anchors percent-encoded ("%CE%B2" for β); the
		# browser decodes them to find the heading.
		id=$(printf '%b' "${id//%/\\x}")
		grep -qF " id=\"$id\"" "$tmp/dom.html" || { echo "report-page: a link to #$id reaches no heading" >&2; problems=1; }
	done < <(grep -o 'href="#[^"]*"' "$tmp/dom.html" | sed 's/^href="#//; s/"$//' | sort -u)
	local figures=0
	while IFS= read -r src; do
		figures=$((figures + 1))
		[ -s "$dir/$src" ] || { echo "report-page: figure $src is missing" >&2; problems=1; }
	done < <(grep -o '<img src="[^"]*"' "$tmp/dom.html" | sed 's/^<img src="//; s/"$//' | sort -u)
	chromium "${CHROMIUM_FLAGS[@]}" --user-data-dir="$tmp/profile2" --window-size=1000,1300 --force-device-scale-factor=1 \
		--screenshot="$tmp/shot.png" "file://$page" >/dev/null 2>"$tmp/log" ||
		{ cat "$tmp/log" >&2; rm -rf "$tmp"; die "report-page: chromium could not take the screenshot"; }
	mv "$tmp/shot.png" "$dir/report-page.png"
	rm -rf "$tmp"
	echo "run.sh: report-page: $page loaded in $(chromium --version 2>/dev/null); $figures figures shown; screenshot $dir/report-page.png"
	[ "$problems" = 0 ] || die "report-page: the page has problems (above)"
}

main() {
	local cmd=${1:-}
	if [ $# -gt 0 ]; then shift; fi
	case "$cmd" in
	"") cmd_all ;;
	test) cmd_test "$@" ;;
	all) cmd_committed "$@" ;;
	bench-compare) cmd_bench_compare "$@" ;;
	bench) cmd_bench "$@" ;;
	mutate) cmd_mutate "$@" ;;
	bugs) cmd_bugs "$@" ;;
	bench-scale) cmd_bench_scale "$@" ;;
	profile) cmd_profile "$@" ;;
	report-page) cmd_report_page "$@" ;;
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
