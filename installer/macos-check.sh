#!/usr/bin/env bash
# macos-check: proves mono-agent's sandbox on a Mac, which the Linux CI cannot. It builds the product, installs and
# proves the pinned engine (`sandbox setup`, `sandbox check`), runs the escape corpus that applies to macOS, prints one
# RESULT line per result and ends with a summary block to paste into an issue. Runs only on macOS (exit 2 elsewhere).
# Output format and what to do with it: docs/macos.md, "macos-check". Written for the bash 3.2 macOS ships.
#
#   installer/macos-check.sh            # from anywhere; works in the repository this script belongs to
#   MACOS_CHECK_CORPUS=EscapeSuiteTest installer/macos-check.sh   # a narrower corpus (comma-separated classes)
#
# Exit: 0 everything passed, 1 something failed (each failure is a RESULT line with FAIL), 2 not a Mac / no repo.
set -uo pipefail

MACOS_CHECK_VERSION=1

# The escape corpus for macOS: test classes whose attempts are behaviour against the real engine with nothing
# Linux-specific in what they prove. Left out, with the Linux mechanism each one tests: FailClosedMatrixTest (a
# replaced bwrap / apply-seccomp), LimitsTest and FreezeCoverageTest (cgroups), HelperLeftoverTest (srt's socat
# bridges), CreateDeleteWatchTest (inotify; the watch is off on macOS), LoopbackGrantsTest (plain connects to granted
# ports through in-sandbox forwarders), GitAppearsAfterStartTest (bwrap mount points), ReadScopeTest (Linux's top
# level), ToolchainSandboxTest (Linux version-manager layouts), SrtConfigGoldenTest (the Linux config bytes).
DEFAULT_CORPUS="SandboxSmokeTest,EscapeSuiteTest,BlindSpotTest,EnvBlindSpotTest,CredentialIsolationTest,\
GitRedirectionTest,HostControlEscapeTest,QuarantineSymlinkTest,QuarantineRaceTest,NetworkModesTest,HomeOnPathTest"

n_pass=0
n_fail=0
n_skip=0
failures=""

# RESULT <section> <id> <pass|FAIL|skip> <detail...>: one line per result, greppable, no tabs.
result() {
  local section=$1 id=$2 status=$3 detail=${4:-}
  detail=$(printf '%s' "$detail" | tr '\t\n\r' '   ')
  printf 'RESULT %s %s %s %s\n' "$section" "$id" "$status" "$detail"
  case "$status" in
    pass) n_pass=$((n_pass + 1)) ;;
    skip) n_skip=$((n_skip + 1)) ;;
    *) n_fail=$((n_fail + 1)); failures="${failures}FAIL ${section} ${id}: ${detail}"$'\n' ;;
  esac
}

# `sandbox check` prints "[ok]   <id>: <detail>" or "[FAIL] <id>: <detail>" per probe (SandboxCommand.printProbes).
parse_check() {
  local line id detail
  while IFS= read -r line; do
    case "$line" in
      "[ok]  "*|"[FAIL]"*)
        id=${line#\[*\] }; id=${id# }; id=${id# }; detail=${id#*: }; id=${id%%:*}
        case "$line" in "[ok]"*) result check "$id" pass "$detail" ;; *) result check "$id" FAIL "$detail" ;; esac
        ;;
    esac
  done
}

# Surefire XML reports (one file per class) → one RESULT corpus line per test case.
parse_surefire() {
  local f cls name status msg
  for f in "$@"; do
    [ -f "$f" ] || continue
    while IFS=$'\t' read -r cls name status msg; do
      [ -n "$name" ] || continue
      result corpus "${cls##*.}.${name// /_}" "$status" "$msg"
    done < <(awk '
      function attr(s, a,   r) {
        if (match(s, a "=\"[^\"]*\"")) { r = substr(s, RSTART + length(a) + 2, RLENGTH - length(a) - 3); return r }
        return ""
      }
      function unxml(s) {
        gsub(/&#10;|&#13;/, " ", s); gsub(/&lt;/, "<", s); gsub(/&gt;/, ">", s); gsub(/&quot;/, "\"", s)
        gsub(/&apos;/, "\047", s); gsub(/&amp;/, "\\&", s); return s
      }
      function emit() { msg = unxml(msg); name = unxml(name); if (name != "") printf "%s\t%s\t%s\t%s\n", cls, name, status, msg; name = "" }
      /<testcase / {
        emit(); name = attr($0, "name"); cls = attr($0, "classname"); status = "pass"; msg = ""
        if ($0 ~ /\/>[[:space:]]*$/) emit()
        next
      }
      /<failure|<error/ { status = "FAIL"; msg = attr($0, "message"); if (msg == "") msg = attr($0, "type") }
      /<skipped/ { status = "skip"; msg = attr($0, "message") }
      /<\/testcase>/ { emit() }
      END { emit() }
    ' "$f")
  done
}

# The block a reviewer pastes: what ran where, the counts, every failure.
summary() {
  printf '%s\n' "----- macos-check summary (paste into the issue) -----"
  printf 'macos-check v%s: mono-agent %s on %s, %s\n' "$MACOS_CHECK_VERSION" "${rev:-unknown}" "${os_line:-unknown}" \
    "$(date -u +%Y-%m-%dT%H:%MZ)"
  printf 'tools: %s\n' "${tools_line:-unknown}"
  printf 'results: %d pass, %d FAIL, %d skip\n' "$n_pass" "$n_fail" "$n_skip"
  printf '%s' "$failures"
  printf '%s\n' "----- end of summary -----"
}

java_major() {
  "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p' | head -n1
}

prereqs() {
  local j v found=""
  for j in "${JAVA_HOME:+$JAVA_HOME/bin/java}" "$(command -v java 2>/dev/null || true)" \
           /Library/Java/JavaVirtualMachines/*/Contents/Home/bin/java; do
    if [ -z "$j" ] || [ ! -x "$j" ]; then continue; fi
    v=$(java_major "$j")
    if [ -n "$v" ] && [ "$v" -ge 21 ]; then found="$j ($v)"; break; fi
  done
  if [ -n "$found" ]; then result prereq java pass "$found"; else result prereq java FAIL "no JDK >= 21 (brew install --cask temurin@21)"; fi
  if command -v mvn >/dev/null; then result prereq mvn pass "$(command -v mvn)"; else result prereq mvn FAIL "brew install maven"; fi
  if command -v node >/dev/null; then
    v=$(node --version 2>/dev/null)
    case "$v" in
      v2[0-9].*|v[3-9][0-9].*) result prereq node pass "$v $(command -v node)" ;;
      *) result prereq node FAIL "node $v is older than 20.11 (brew install node)" ;;
    esac
  else
    result prereq node FAIL "brew install node"
  fi
  if command -v rg >/dev/null; then result prereq rg pass "$(command -v rg)"; else result prereq rg FAIL "brew install ripgrep"; fi
  if command -v setsid >/dev/null || [ -x /opt/homebrew/opt/util-linux/bin/setsid ] \
     || [ -x /usr/local/opt/util-linux/bin/setsid ]; then
    result prereq setsid pass "found"
  else
    result prereq setsid FAIL "brew install util-linux"
  fi
  if [ -x /usr/bin/sandbox-exec ]; then result prereq sandbox-exec pass /usr/bin/sandbox-exec; else result prereq sandbox-exec FAIL "missing /usr/bin/sandbox-exec"; fi
  # srt's violation feed is `log stream`; macOS may refuse it to some users, and the feed probe then fails
  local ls_out
  if ls_out=$(/usr/bin/log stream --timeout 1 --predicate 'eventMessage ENDSWITH "_macos_check_none_"' 2>&1); then
    result prereq log-stream pass "log stream runs"
  else
    result prereq log-stream FAIL "log stream refused: $(printf '%s' "$ls_out" | head -n 2)"
  fi
  tools_line="java ${found:-none}; node $(node --version 2>/dev/null || echo none); rg $(rg --version 2>/dev/null | head -n1 | cut -d' ' -f2); bash ${BASH_VERSION}"
}

main() {
  if [ "$(uname -s)" != Darwin ]; then
    echo "macos-check: this proves the sandbox on macOS and runs only on a Mac (this is $(uname -s)); on Linux the" \
      "proof is mvn -B verify" >&2
    exit 2
  fi
  local here
  here=$(cd "$(dirname "$0")/.." && pwd)
  if [ ! -f "$here/pom.xml" ]; then
    echo "macos-check: $here is not the mono-agent repository (no pom.xml)" >&2
    exit 2
  fi
  cd "$here" || exit 2
  local out=target/macos-check
  mkdir -p "$out"
  rev="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo '+dirty')"
  os_line="macOS $(sw_vers -productVersion) ($(sw_vers -buildVersion)) $(uname -m)"
  echo "macos-check v$MACOS_CHECK_VERSION: mono-agent $rev on $os_line; logs in $here/$out"

  prereqs
  if mvn -B -q package -DskipTests >"$out/build.log" 2>&1; then
    result build package pass "target/mono-agent.jar"
  else
    result build package FAIL "mvn package failed; see $out/build.log: $(tail -n 3 "$out/build.log")"
    summary
    exit 1
  fi
  if target/mono-agent sandbox setup >"$out/setup.log" 2>&1; then
    result setup sandbox-setup pass "$(grep -m1 -i 'srt' "$out/setup.log")"
  else
    result setup sandbox-setup FAIL "see $out/setup.log: $(tail -n 3 "$out/setup.log")"
  fi
  target/mono-agent sandbox check >"$out/check.log" 2>&1
  local rc=$?
  parse_check <"$out/check.log"
  if [ "$rc" -eq 0 ]; then
    result check exit pass "sandbox check exit 0"
  else
    result check exit FAIL "sandbox check exit $rc; see $out/check.log"
  fi

  local corpus=${MACOS_CHECK_CORPUS:-$DEFAULT_CORPUS}
  rm -f target/surefire-reports/TEST-*.xml
  mvn -B test -Dtest="$corpus" -Dsurefire.failIfNoSpecifiedTests=false \
    >"$out/corpus.log" 2>&1
  local reports=(target/surefire-reports/TEST-*.xml)
  if [ -f "${reports[0]}" ]; then
    parse_surefire "${reports[@]}"
  else
    result corpus run FAIL "no surefire reports; see $out/corpus.log: $(tail -n 3 "$out/corpus.log")"
  fi

  summary | tee "$out/summary.txt"
  [ "$n_fail" -eq 0 ]
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  main "$@"
  exit $?
fi
