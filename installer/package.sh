#!/usr/bin/env bash
# Builds the installable app from the fat jar: a jlink-trimmed runtime (only the modules jdeps finds in the jar), a
# jpackage app image with two launchers (`mono-agent` = the CLI, `mono-agent-workbench` = the window from the app
# menu), the JDK's AOT cache trained on a CLI run and (when a display can be faked with xvfb-run) a window run, and
# the OS package: .deb on Linux, .dmg on macOS, .msi on Windows (the latter two need their OS and tools).
# Run by `mvn -Pinstaller package` (after the fat jar is built); usable alone: installer/package.sh [--type deb|dmg|msi|app-image]
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
out="$root/target/installer"
jar="$root/target/mono-agent.jar"
version="${MONO_AGENT_PACKAGE_VERSION:-$(sed -n 's:^  <version>\([0-9.]*\).*</version>:\1:p' pom.xml | head -n1)}"

case "$(uname -s)" in
  Linux) os=linux; type=deb; icon=assets/icons/mono-agent.png; os_args=installer/linux/deb.args ;;
  Darwin) os=macos; type=dmg; icon=assets/icons/mono-agent.icns; os_args=installer/macos/dmg.args ;;
  MINGW*|MSYS*|CYGWIN*) os=windows; type=msi; icon=assets/icons/mono-agent.ico; os_args=installer/windows/msi.args ;;
  *) echo "package: unsupported OS $(uname -s)" >&2; exit 2 ;;
esac
[ "${1:-}" = "--type" ] && type="$2"

[ -f "$jar" ] || { echo "package: $jar missing (mvn -B package -DskipTests first)" >&2; exit 1; }

# The packaging JDK: the newest >= 21 with jlink and jpackage (>= 24 adds the AOT cache). MONO_AGENT_PACKAGE_JDK wins.
pick_jdk() {
  local best="" bestv=0 d v
  for d in "${MONO_AGENT_PACKAGE_JDK:-}" "${JAVA_HOME:-}" /usr/lib/jvm/* /Library/Java/JavaVirtualMachines/*/Contents/Home; do
    [ -n "$d" ] && [ -x "$d/bin/jpackage" ] && [ -x "$d/bin/jlink" ] || continue
    v="$("$d/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p' | head -n1)"
    [ -n "$v" ] || continue
    if [ -n "${MONO_AGENT_PACKAGE_JDK:-}" ] && [ "$d" = "$MONO_AGENT_PACKAGE_JDK" ]; then best="$d"; bestv="$v"; break; fi
    if [ "$v" -ge 21 ] && [ "$v" -gt "$bestv" ]; then best="$d"; bestv="$v"; fi
  done
  [ -n "$best" ] || { echo "package: no JDK >= 21 with jlink and jpackage found (set MONO_AGENT_PACKAGE_JDK)" >&2; exit 1; }
  jdk="$best"; jdk_version="$bestv"
}
pick_jdk
echo "package: JDK $jdk_version at $jdk, version $version, type $type"
t0=$(date +%s)

rm -rf "$out"
mkdir -p "$out/input"
cp "$jar" "$out/input/mono-agent.jar"
if [ "$os" = linux ]; then
  # the menu entry and icons the .deb's postinst installs (lib/app/desktop/)
  mkdir -p "$out/input/desktop"
  cp installer/linux/mono-agent-workbench.desktop assets/icons/mono-agent-[0-9]*.png "$out/input/desktop/"
fi
# JavaFX's native libraries next to the jar (lib/app/), where JavaFX looks first for a class-path jar: otherwise it
# unpacks them into ~/.openjfx/cache on first start, a file outside the user's cache/config that uninstalling would
# leave behind (CI checks this).
natives=$("$jdk/bin/jar" tf "$jar" | grep -E '^[^/]*\.(so|dylib|dll)$' || true)
if [ -n "$natives" ]; then
  # shellcheck disable=SC2086
  (cd "$out/input" && "$jdk/bin/jar" xf "$jar" $natives)
fi

# Only the modules the app uses: what jdeps finds in the fat jar.
modules="$("$jdk/bin/jdeps" --ignore-missing-deps --print-module-deps --multi-release 21 "$out/input/mono-agent.jar" | tail -n1)"
echo "package: modules $modules"
"$jdk/bin/jlink" --add-modules "$modules" --strip-debug --no-header-files --no-man-pages --compress=zip-6 \
  --output "$out/runtime"
t1=$(date +%s)

"$jdk/bin/jpackage" @installer/jpackage/common.args --type app-image --dest "$out" --input "$out/input" \
  --runtime-image "$out/runtime" --app-version "$version" --icon "$icon" \
  --add-launcher mono-agent-workbench=installer/jpackage/workbench.properties

case "$os" in
  macos) image="$out/mono-agent.app"; app="$image/Contents/app"; java="$image/Contents/runtime/Contents/Home/bin/java" ;;
  windows) image="$out/mono-agent"; app="$image/app"; java="$image/runtime/bin/java.exe" ;;
  *) image="$out/mono-agent"; app="$image/lib/app"; java="$image/lib/runtime/bin/java" ;;
esac

# AOT cache (JDK >= 25: -XX:AOTCacheOutput trains and writes in one run). The class path must be the launcher's own
# ($APPDIR/mono-agent.jar), so training runs through the image's java with that jar. A launcher gets its cache
# option only once the cache exists, so a failed training never leaves a launcher pointing at a missing file.
if [ "$jdk_version" -ge 25 ] && [ "${MONO_AGENT_NO_AOT:-}" != 1 ]; then
  train="$(mktemp -d)"
  mkdir -p "$train/ws" "$train/home"
  # the launchers' own flags (a cache only loads under the flags it was made with) and a throw-away home
  common=(-XX:+UseSerialGC -XX:TieredStopAtLevel=1 --enable-native-access=ALL-UNNAMED
          -Duser.home="$train/home" -cp "$app/mono-agent.jar")
  (cd "$train/ws" && HOME="$train/home" XDG_CACHE_HOME="$train/home/.cache" "$java" "${common[@]}" dev.monoagent.cli.Main \
      init --preset code-sandbox --model openai-codex:gpt-5.6-terra >/dev/null)
  if (cd "$train/ws" && HOME="$train/home" XDG_CACHE_HOME="$train/home/.cache" "$java" "${common[@]}" \
        -XX:AOTCacheOutput="$app/mono-agent-cli.aot" dev.monoagent.cli.Main status >/dev/null 2>"$train/cli.err"); then
    # -Xlog:aot=off: a cache that no longer matches (a jar touched after install) is skipped without printing
    # errors on every command; CI proves the cache is used (.ci/installer-check)
    printf 'java-options=-Xlog:aot=off\njava-options=-XX:AOTCache=$APPDIR/mono-agent-cli.aot\n' >> "$app/mono-agent.cfg"
    echo "package: CLI AOT cache $(du -h "$app/mono-agent-cli.aot" | cut -f1)"
  else
    rm -f "$app/mono-agent-cli.aot"
    echo "package: CLI AOT training failed (launcher runs without a cache):"; grep -v '\[warning\]\[aot' "$train/cli.err" | tail -n 20
  fi
  if [ "$os" = linux ] && command -v xvfb-run >/dev/null; then
    if (cd "$train/ws" && HOME="$train/home" XDG_CACHE_HOME="$train/home/.cache" timeout 300 xvfb-run -a "$java" \
          "${common[@]}" -Dmonoagent.exitWhenShown=true -XX:AOTCacheOutput="$app/mono-agent-workbench.aot" \
          dev.monoagent.cli.Main workbench "$train/ws" >"$train/win.out" 2>&1) \
        && [ -s "$app/mono-agent-workbench.aot" ]; then
      printf 'java-options=-Xlog:aot=off\njava-options=-XX:AOTCache=$APPDIR/mono-agent-workbench.aot\n' \
        >> "$app/mono-agent-workbench.cfg"
      echo "package: window AOT cache $(du -h "$app/mono-agent-workbench.aot" | cut -f1)"
    else
      rm -f "$app/mono-agent-workbench.aot"
      echo "package: window AOT training failed (launcher runs without a cache):"; grep -v '\[warning\]\[aot' "$train/win.out" | tail -n 20
    fi
  else
    echo "package: no xvfb-run; the window launcher runs without an AOT cache"
  fi
  rm -rf "$train"
else
  echo "package: no AOT cache (JDK $jdk_version; it needs >= 25, and MONO_AGENT_NO_AOT=1 skips it)"
fi
t2=$(date +%s)

if [ "$type" != app-image ]; then
  # a .deb is repacked below when it carries AOT caches: jpackage's own archive need not be compressed
  repack=""
  if [ "$type" = deb ] && ls "$app"/*.aot >/dev/null 2>&1; then repack=1; fi
  ${repack:+env DPKG_DEB_COMPRESSOR_TYPE=none} "$jdk/bin/jpackage" --type "$type" --app-image "$image" --dest "$out" --app-version "$version" \
    --name mono-agent --vendor mono-agent \
    --description "Desktop workbench and CLI for running an AI code agent inside a provable OS sandbox" \
    @"$os_args"
  # jpackage copies the image without its timestamps, and an AOT cache only maps when the jar's mtime is the one it
  # was trained with: give the packaged jar its trained mtime back (repack with dpkg-deb, same control files).
  if [ -n "$repack" ]; then
    deb="$(ls "$out"/*.deb)"
    fix="$(mktemp -d)"
    dpkg-deb -R "$deb" "$fix/root"
    touch -r "$app/mono-agent.jar" "$fix/root/opt/mono-agent/lib/app/mono-agent.jar"
    dpkg-deb --root-owner-group -b "$fix/root" "$deb" >/dev/null
    rm -rf "$fix"
  fi
fi
t3=$(date +%s)

echo "package: sizes: runtime $(du -sh "$out/runtime" | cut -f1), app image $(du -sh "$image" | cut -f1)$(
  for f in "$out"/*.deb "$out"/*.dmg "$out"/*.msi; do [ -f "$f" ] && printf ', %s %s' "$(basename "$f")" "$(du -h "$f" | cut -f1)"; done)"
echo "package: times: jdeps+jlink $((t1 - t0)) s, app image + AOT $((t2 - t1)) s, $type $((t3 - t2)) s"
