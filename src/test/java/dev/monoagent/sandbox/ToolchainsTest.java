package dev.monoagent.sandbox;

import dev.monoagent.host.HostEnv;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The toolchain plan (what opens, what stays secret) and validate's report of PATH tools that cannot run inside. */
class ToolchainsTest {
    @TempDir
    Path tmp;

    private HostEnv env(Path home, String path, Map<String, String> vars) {
        Map<String, String> host = new LinkedHashMap<>(vars);
        host.put("PATH", path);
        return new HostEnv(tmp.resolve("cache"), home, path, tmp.resolve("tmp"), host, List.of());
    }

    @Test
    void managerRootsOpenAndTheirSecretsAreListed() throws Exception {
        ToolchainHome th = new ToolchainHome(tmp.resolve("home"), Path.of("/bin/sh"));
        Toolchains.Plan plan = Toolchains.plan(th.env(env(th.home, "/usr/bin", Map.of())), List.of());
        Path h = th.home;
        for (String root : List.of(".pyenv", ".nvm", ".cargo", ".rustup", ".sdkman", ".asdf", ".tool-versions",
                ".local/share/mise", ".volta", ".bun", ".local/share/pipx/venvs/black")) {
            assertTrue(plan.roots().contains(h.resolve(root)), root + " not opened: " + plan.roots());
        }
        assertFalse(plan.roots().stream().anyMatch(h::startsWith), "home itself opened: " + plan.roots());
        // secrets inside an opened root are denied (even before they exist: a later `cargo login`); the rest of home
        // is hidden by the home deny and not listed (each listed path costs every command's wrap a lookup)
        for (String s : List.of(".cargo/credentials.toml", ".cargo/credentials", ".nvm/versions/node/v20.11.1/etc/npmrc")) {
            assertTrue(plan.secrets().contains(h.resolve(s)), s + " not denied: " + plan.secrets());
        }
        assertFalse(plan.secrets().contains(h.resolve(".aws")), plan.secrets().toString());
        // once a root holds them (a readable root of ~/.config), they are listed
        Toolchains.Plan wide = Toolchains.plan(th.env(env(th.home, "/usr/bin", Map.of())), List.of(),
                List.of(h.resolve(".config")));
        assertTrue(wide.secrets().containsAll(List.of(h.resolve(".config/gh"), h.resolve(".config/mono-agent"))),
                wide.secrets().toString());
    }

    @Test
    void linksNeverOpenHomeASecretOrAPrefixPlantedByTheAgent() throws Exception {
        Path home = Files.createDirectories(tmp.resolve("home"));
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Path bin = Files.createDirectories(home.resolve(".local/bin"));
        Files.createDirectories(home.resolve(".aws/bin"));
        Files.writeString(home.resolve(".aws/bin/z"), "#!/bin/sh\n");
        Files.createSymbolicLink(bin.resolve("z"), home.resolve(".aws/bin/z"));
        Files.writeString(home.resolve("y"), "#!/bin/sh\n");
        Files.createSymbolicLink(bin.resolve("y"), home.resolve("y"));
        Files.createDirectories(home.resolve("Documents/taxes"));
        Files.writeString(home.resolve("Documents/taxes/t"), "#!/bin/sh\n");
        Files.createDirectories(home.resolve(".pyenv/versions/3.12.1/bin"));
        Files.writeString(home.resolve(".pyenv/versions/3.12.1/bin/python3.12"), "#!/bin/sh\n");
        // the agent writes links into a PATH entry inside the workspace between sessions
        Path wsBin = Files.createDirectories(ws.resolve(".venv/bin"));
        Files.createSymbolicLink(wsBin.resolve("t"), home.resolve("Documents/taxes/t"));
        Files.createSymbolicLink(wsBin.resolve("python"), home.resolve(".pyenv/versions/3.12.1/bin/python3.12"));
        Files.writeString(wsBin.resolve("s"), "#!" + home.resolve("Documents/taxes/t") + "\n");
        Toolchains.Plan plan = Toolchains.plan(env(home, wsBin + ":" + bin + ":/usr/bin", Map.of()), List.of(ws));
        assertFalse(plan.roots().contains(home), plan.roots().toString());
        assertFalse(plan.roots().stream().anyMatch(r -> r.startsWith(home.resolve(".aws"))), plan.roots().toString());
        assertFalse(plan.roots().stream().anyMatch(r -> r.startsWith(home.resolve("Documents"))),
                "a link the agent planted opened a home dir: " + plan.roots());
        // a workspace venv on a pyenv python still works: links may lead into a known manager's root
        assertTrue(plan.roots().contains(home.resolve(".pyenv")), plan.roots().toString());
    }

    @Test
    void validateNamesEachToolThatCannotRunAndWhy() throws Exception {
        Path home = Files.createDirectories(tmp.resolve("home"));
        Path bin = Files.createDirectories(home.resolve(".local/bin"));
        Files.createDirectories(home.resolve(".aws/bin"));
        Files.writeString(home.resolve(".aws/bin/awsx"), "#!/bin/sh\n");
        Files.createSymbolicLink(bin.resolve("awsx"), home.resolve(".aws/bin/awsx"));
        Files.createDirectories(home.resolve(".hidden-tools/libexec"));
        Files.writeString(bin.resolve("orphan"), "#!/bin/sh\nexec \"" + home.resolve(".hidden-tools/libexec/orphan")
                + "\" \"$@\"\n");
        bin.resolve("orphan").toFile().setExecutable(true);
        Files.createSymbolicLink(bin.resolve("dangling"), home.resolve("gone/tool"));
        Files.writeString(bin.resolve("fine"), "#!/bin/sh\necho ok\n");
        bin.resolve("fine").toFile().setExecutable(true);
        Files.writeString(home.resolve("tool-in-home"), "#!/bin/sh\n");
        home.resolve("tool-in-home").toFile().setExecutable(true);
        List<String> lines = Toolchains.check(env(home, bin + ":" + home + ":/usr/bin", Map.of()), List.of());
        String all = String.join("\n", lines);
        assertTrue(all.contains("orphan (") && all.contains("the program it execs " + home.resolve(
                ".hidden-tools/libexec/orphan") + " is under the hidden home"), all);
        assertTrue(all.contains("awsx (") && all.contains("inside the secret " + home.resolve(".aws")), all);
        assertTrue(all.contains("dangling (") && all.contains("does not exist"), all);
        assertTrue(all.contains("PATH entry " + home + " (") && all.contains("holds the home dir"), all);
        assertFalse(all.contains("fine ("), "a runnable tool is not reported: " + all);
    }

    @Test
    void validateIsQuietWhenEveryManagersToolCanRun() throws Exception {
        ToolchainHome th = new ToolchainHome(tmp.resolve("home"), Path.of("/bin/sh"));
        List<String> lines = Toolchains.check(th.env(env(th.home, "/usr/bin", Map.of())), List.of());
        assertFalse(lines.stream().anyMatch(l -> l.startsWith("[WARN]")), String.join("\n", lines));
        assertTrue(lines.get(0).contains(th.home.resolve(".pyenv").toString()), lines.get(0));
    }

    @Test
    void onlyTheManagersVariablesPassNotTheirTokens() {
        Map<String, String> host = new LinkedHashMap<>();
        host.put("PYENV_ROOT", "/h/.pyenv");
        host.put("CARGO_HOME", "/h/.cargo");
        host.put("VIRTUAL_ENV", "/w/.venv");
        host.put("NPM_TOKEN", "npm_secret");
        host.put("CARGO_REGISTRY_TOKEN", "cargo_secret");
        host.put("GH_TOKEN", "gh_secret");
        Map<String, String> e = SandboxEnv.of(env(tmp, "/usr/bin", host), "/tmp/x", "/bin/bash", Map.of());
        assertEquals("/h/.pyenv", e.get("PYENV_ROOT"));
        assertEquals("/h/.cargo", e.get("CARGO_HOME"));
        assertEquals("/w/.venv", e.get("VIRTUAL_ENV"));
        assertFalse(e.containsValue("npm_secret") || e.containsValue("cargo_secret") || e.containsValue("gh_secret"),
                e.toString());
    }

    @Test
    void aToolchainDirInsideTheWorkspaceIsStillNotTrustedForHostTools() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Path venvBin = Files.createDirectories(ws.resolve(".venv/bin"));
        for (String t : List.of("rg", "bwrap", "node", "bash")) {
            Path p = venvBin.resolve(t);
            Files.writeString(p, "#!/bin/sh\necho planted\n");
            p.toFile().setExecutable(true);
        }
        HostEnv e = env(tmp.resolve("home"), venvBin + ":/usr/local/bin:/usr/bin:/bin",
                Map.of("VIRTUAL_ENV", ws.resolve(".venv").toString()));
        for (String t : List.of("rg", "bwrap", "bash")) {
            Path found = HostTools.trusted(e, List.of(ws), t);
            if (found != null) {
                assertFalse(found.startsWith(ws), t + " taken from the workspace venv: " + found);
            }
        }
        assertNotEquals(venvBin.resolve("node"), HostTools.chooseNode(e, List.of(ws)).node());
        // the same venv is readable inside (it is in the workspace) but never opens anything beyond it
        Toolchains.Plan plan = Toolchains.plan(e, List.of(ws));
        assertNotNull(plan);
        assertTrue(plan.roots().stream().allMatch(r -> r.startsWith(ws)), plan.roots().toString());
    }
}
