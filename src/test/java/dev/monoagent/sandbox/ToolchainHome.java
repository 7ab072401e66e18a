package dev.monoagent.sandbox;

import dev.monoagent.host.HostEnv;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A fake home holding the on-disk layouts of the version managers reviewers use (pyenv, nvm, rustup/cargo, sdkman,
 * asdf, mise, volta, bun, pipx behind {@code ~/.local/bin}) and the secrets that sit next to them, each with its own
 * canary. The shims behave like the real ones where it matters to the sandbox: a pyenv shim execs
 * {@code $PYENV_ROOT/libexec/pyenv}, which picks the version from {@code $PYENV_ROOT/version}; cargo is a link to a
 * rustup proxy that reads {@code $RUSTUP_HOME}; npm is a link into {@code lib/node_modules}; pipx tools are links into
 * their venvs.
 */
final class ToolchainHome {
    /** Secret paths under home (relative) and the canary each holds. */
    static final List<String> SECRETS = List.of(".cargo/credentials.toml", ".npmrc", ".pypirc", ".m2/settings.xml",
            ".gradle/gradle.properties", ".docker/config.json", ".kube/config", ".aws/credentials", ".ssh/id_ed25519",
            ".gnupg/private-keys-v1.d/key.key", ".netrc", ".git-credentials", ".config/gh/hosts.yml",
            ".codex/auth.json", ".config/mono-agent/auth.json",
            ".nvm/versions/node/v20.11.1/etc/npmrc");

    final Path home;
    /** PATH entries, in order, ahead of the system dirs. */
    final List<Path> pathEntries = new ArrayList<>();
    /** The managers' variables as a login shell would export them. */
    final Map<String, String> vars = new LinkedHashMap<>();

    private final Path realNode;

    /** {@code realNode}: the host's Node, which the nvm layout's {@code node} wrapper execs. */
    ToolchainHome(Path home, Path realNode) throws IOException {
        this.home = Files.createDirectories(home).toRealPath();
        this.realNode = realNode;
        pyenv();
        nvm();
        cargo();
        localBin();
        sdkman();
        asdf();
        mise();
        volta();
        bun();
        for (String s : SECRETS) {
            write(s, canary(s) + "\n", false);
        }
    }

    /** The canary text stored in secret {@code rel}. */
    static String canary(String rel) {
        return "CANARY-" + rel.replaceAll("[^A-Za-z0-9]", "_").toUpperCase();
    }

    /** The host environment a user of these managers has (no real home variables leak in from the test JVM). */
    HostEnv env(HostEnv base) {
        StringBuilder path = new StringBuilder();
        for (Path p : pathEntries) {
            path.append(p).append(':');
        }
        path.append("/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin");
        Map<String, String> host = new LinkedHashMap<>(vars);
        host.put("PATH", path.toString());
        host.put("LANG", "C.UTF-8");
        return new HostEnv(base.cacheRoot(), home, path.toString(), base.tmpRoot(), host, List.of());
    }

    private void pyenv() throws IOException {
        Path root = home.resolve(".pyenv");
        write(".pyenv/version", "3.12.1\n", false);
        write(".pyenv/libexec/pyenv", """
                #!/usr/bin/env bash
                # as pyenv's own: `pyenv exec PROG` runs PROG from the selected version
                set -e
                [ "$1" = exec ] || { echo "pyenv: no such command '$1'" >&2; exit 1; }
                shift; prog="$1"; shift
                version="${PYENV_VERSION:-$(cat "$PYENV_ROOT/version")}"
                exec "$PYENV_ROOT/versions/$version/bin/$prog" "$@"
                """, true);
        write(".pyenv/versions/3.12.1/bin/python3", """
                #!/bin/sh
                cat "$(dirname "$0")/../lib/python3.12/os.py"
                """, true);
        write(".pyenv/versions/3.12.1/lib/python3.12/os.py", "pyenv-python-ok\n", false);
        write(".pyenv/shims/python3", """
                #!/usr/bin/env bash
                set -e
                program="${0##*/}"
                export PYENV_ROOT="%s"
                exec "%s/libexec/pyenv" exec "$program" "$@"
                """.formatted(root, root), true);
        pathEntries.add(root.resolve("shims"));
        vars.put("PYENV_ROOT", root.toString());
    }

    private void nvm() throws IOException {
        Path root = home.resolve(".nvm");
        String v = ".nvm/versions/node/v20.11.1/";
        // nvm's node is a real binary: a link to the host's (the system's or the pinned managed one) stands in
        Files.createDirectories(home.resolve(v + "bin"));
        Files.createSymbolicLink(home.resolve(v + "bin/node"), realNode);
        write(v + "lib/node_modules/npm/bin/npm-cli.js", """
                #!/usr/bin/env node
                console.log(require("../lib/marker.js"));
                """, true);
        write(v + "lib/node_modules/npm/lib/marker.js", "module.exports = 'nvm-npm-ok';\n", false);
        Files.createSymbolicLink(home.resolve(v + "bin/npm"), Path.of("../lib/node_modules/npm/bin/npm-cli.js"));
        write(".nvm/nvm.sh", "# nvm\n", false);
        pathEntries.add(home.resolve(v + "bin"));
        vars.put("NVM_DIR", root.toString());
        vars.put("NVM_BIN", home.resolve(v + "bin").toString());
    }

    private void cargo() throws IOException {
        write(".rustup/settings.toml", "default_toolchain = \"stable-x86_64-unknown-linux-gnu\"\n", false);
        write(".rustup/toolchains/stable-x86_64-unknown-linux-gnu/bin/cargo", "#!/bin/sh\necho cargo-ok\n", true);
        write(".cargo/bin/rustup", """
                #!/bin/sh
                # a rustup proxy: the name it runs under picks the tool, RUSTUP_HOME the toolchain
                tc=$(sed -n 's/^default_toolchain = "\\(.*\\)"/\\1/p' "${RUSTUP_HOME:-$HOME/.rustup}/settings.toml")
                exec "${RUSTUP_HOME:-$HOME/.rustup}/toolchains/$tc/bin/${0##*/}" "$@"
                """, true);
        Files.createSymbolicLink(home.resolve(".cargo/bin/cargo"), Path.of("rustup"));
        pathEntries.add(home.resolve(".cargo/bin"));
        vars.put("CARGO_HOME", home.resolve(".cargo").toString());
        vars.put("RUSTUP_HOME", home.resolve(".rustup").toString());
    }

    private void localBin() throws IOException {
        // pipx: the tool's #! names its venv's python, which reads the venv (a script here, run by the kernel)
        Path venv = home.resolve(".local/share/pipx/venvs/black");
        write(".local/share/pipx/venvs/black/bin/python", "#!/bin/sh\ncat \"" + venv.resolve("pyvenv.cfg")
                + "\"\n", true);
        write(".local/share/pipx/venvs/black/bin/black", "#!" + venv.resolve("bin/python") + "\nimport black\n",
                true);
        write(".local/share/pipx/venvs/black/pyvenv.cfg", "pipx-black-ok\n", false);
        Files.createDirectories(home.resolve(".local/bin"));
        Files.createSymbolicLink(home.resolve(".local/bin/black"),
                home.resolve(".local/share/pipx/venvs/black/bin/black"));
        write(".local/bin/hello", "#!/bin/sh\necho local-bin-ok\n", true);
        pathEntries.add(home.resolve(".local/bin"));
    }

    private void sdkman() throws IOException {
        write(".sdkman/candidates/java/21.0.2-tem/bin/java", """
                #!/bin/sh
                cat "$(dirname "$0")/../release"
                """, true);
        write(".sdkman/candidates/java/21.0.2-tem/release", "sdkman-java-ok\n", false);
        Files.createSymbolicLink(home.resolve(".sdkman/candidates/java/current"), Path.of("21.0.2-tem"));
        pathEntries.add(home.resolve(".sdkman/candidates/java/current/bin"));
        vars.put("SDKMAN_DIR", home.resolve(".sdkman").toString());
    }

    private void asdf() throws IOException {
        write(".asdf/installs/golang/1.22.0/bin/go", "#!/bin/sh\necho asdf-go-ok\n", true);
        write(".asdf/bin/asdf", """
                #!/bin/sh
                [ "$1" = exec ] && shift
                tool="$1"; shift
                v=$(sed -n 's/^golang //p' "$HOME/.tool-versions")
                exec "${ASDF_DATA_DIR:-$HOME/.asdf}/installs/golang/$v/bin/$tool" "$@"
                """, true);
        write(".asdf/shims/go", "#!/bin/sh\nexec " + home.resolve(".asdf/bin/asdf") + " exec go \"$@\"\n", true);
        write(".tool-versions", "golang 1.22.0\n", false);
        pathEntries.add(home.resolve(".asdf/shims"));
        vars.put("ASDF_DATA_DIR", home.resolve(".asdf").toString());
    }

    private void mise() throws IOException {
        write(".local/share/mise/installs/node/22.1.0/bin/deno", "#!/bin/sh\necho mise-ok\n", true);
        write(".local/share/mise/shims/deno", "#!/bin/sh\nexec " + home.resolve(
                ".local/share/mise/installs/node/22.1.0/bin/deno") + " \"$@\"\n", true);
        pathEntries.add(home.resolve(".local/share/mise/shims"));
        vars.put("MISE_DATA_DIR", home.resolve(".local/share/mise").toString());
    }

    private void volta() throws IOException {
        write(".volta/tools/image/node/20.11.1/bin/yarn", "#!/bin/sh\necho volta-ok\n", true);
        write(".volta/bin/yarn", "#!/bin/sh\nexec \"$VOLTA_HOME/tools/image/node/20.11.1/bin/yarn\" \"$@\"\n", true);
        pathEntries.add(home.resolve(".volta/bin"));
        vars.put("VOLTA_HOME", home.resolve(".volta").toString());
    }

    private void bun() throws IOException {
        write(".bun/install/global/node_modules/cowsay/cli.sh", "#!/bin/sh\necho bun-ok\n", true);
        Files.createDirectories(home.resolve(".bun/bin"));
        Files.createSymbolicLink(home.resolve(".bun/bin/cowsay"), Path.of(
                "../install/global/node_modules/cowsay/cli.sh"));
        pathEntries.add(home.resolve(".bun/bin"));
        vars.put("BUN_INSTALL", home.resolve(".bun").toString());
    }

    void write(String rel, String text, boolean exec) throws IOException {
        Path p = home.resolve(rel);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
        if (exec) {
            p.toFile().setExecutable(true);
        }
    }
}
