package dev.monoagent.sandbox;

import dev.monoagent.host.HostEnv;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.config.Enums.NetworkMode;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Version-manager toolchains, through the real srt + bubblewrap: with a fake home holding each version manager's
 * layout, the shims on PATH run inside the sandbox, the managers' variables are there, and the secrets next to them
 * (and elsewhere in home) stay unreadable whatever reads them. One sandbox serves every case (a start costs seconds).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ToolchainSandboxTest {
    private Path tmp;
    private ToolchainHome th;
    private Path ws;
    private Sandbox sb;

    @BeforeAll
    void open() throws Exception {
        HostEnv base = TestEngine.env();
        tmp = Files.createTempDirectory("toolchain-test-");
        Path realNode = ((HostTools.Ok) HostTools.find(base)).tools().node();
        ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        th = new ToolchainHome(tmp.resolve("home"), realNode);
        // adversarial layouts: a tool linked from a dir that also holds secrets (~/.config) makes that dir a tool
        // root; ~/.config/gh and our own sign-in store inside it must stay hidden
        th.write(".config/fmt-tool", "#!/bin/sh\necho config-tool-ok\n", true);
        Files.createSymbolicLink(th.home.resolve(".local/bin/fmt-tool"), th.home.resolve(".config/fmt-tool"));
        // a shim that execs a program in a dir no known manager owns: it cannot run (validate names it)
        th.write(".hidden-tools/libexec/orphan", "#!/bin/sh\necho orphan-ran\n", true);
        th.write(".local/bin/orphan", "#!/bin/sh\nexec \"" + th.home.resolve(".hidden-tools/libexec/orphan")
                + "\" \"$@\"\n", true);
        sb = Sandbox.open(TestEngine.config(ws, NetworkMode.NONE, List.of()), new TestEngine.Events(),
                th.env(base));
        assertEquals("ready", sb.status().state(), String.valueOf(sb.status().reason()));
    }

    @AfterAll
    void close() {
        if (sb != null) {
            sb.close();
        }
        if (tmp != null) {
            SrtRuntime.deleteTree(tmp);
        }
    }

    private ExecOutcome.Completed run(String cmd) {
        ExecOutcome o = sb.exec(CommandSpec.bash(cmd, ws).withTimeout(Duration.ofSeconds(60)));
        return assertInstanceOf(ExecOutcome.Completed.class, o, o.toString());
    }

    @Test
    void everyManagersShimRunsInside() {
        Map<String, String> expected = Map.ofEntries(Map.entry("python3", "pyenv-python-ok"),
                Map.entry("npm", "nvm-npm-ok"), Map.entry("cargo", "cargo-ok"), Map.entry("black", "pipx-black-ok"),
                Map.entry("hello", "local-bin-ok"), Map.entry("java", "sdkman-java-ok"), Map.entry("go", "asdf-go-ok"),
                Map.entry("deno", "mise-ok"), Map.entry("yarn", "volta-ok"), Map.entry("cowsay", "bun-ok"),
                Map.entry("fmt-tool", "config-tool-ok"));
        StringBuilder cmd = new StringBuilder();
        expected.keySet().forEach(t -> cmd.append(t).append(" || echo FAILED-").append(t).append("; "));
        cmd.append("node -e 'console.log(\"nvm-node-ok\")'");
        ExecOutcome.Completed c = run(cmd.toString());
        for (var e : expected.entrySet()) {
            assertTrue(c.stdout().contains(e.getValue()), e.getKey() + " did not run inside the sandbox: "
                    + c.stdout() + "\n" + c.stderr());
        }
        assertTrue(c.stdout().contains("nvm-node-ok"), c.stderr());
        assertFalse(c.stdout().contains("FAILED-"), c.stdout() + c.stderr());
    }

    @Test
    void managersVariablesPassIn() {
        ExecOutcome.Completed c = run("for v in PYENV_ROOT NVM_DIR CARGO_HOME RUSTUP_HOME SDKMAN_DIR ASDF_DATA_DIR"
                + " MISE_DATA_DIR VOLTA_HOME BUN_INSTALL; do echo \"$v=${!v}\"; done");
        for (String v : List.of("PYENV_ROOT", "NVM_DIR", "CARGO_HOME", "RUSTUP_HOME", "SDKMAN_DIR", "ASDF_DATA_DIR",
                "MISE_DATA_DIR", "VOLTA_HOME", "BUN_INSTALL")) {
            assertTrue(c.stdout().contains(v + "=" + th.vars.get(v) + "\n"), v + " missing: " + c.stdout());
        }
    }

    @Test
    void aShimWhoseProgramLivesOutsideKnownRootsStillCannotRun() {
        ExecOutcome.Completed c = run("orphan; echo rc=$?");
        assertFalse(c.stdout().contains("orphan-ran"), "only known toolchain roots are opened: " + c.stdout());
    }

    /** Reads {@code file} with cat, /proc/self/root, bash, python, perl, node, a hard link, a symlink and cp. */
    private static String readEveryWay(Path file, int i) {
        String s = file.toString();
        return "cat '" + s + "'; "
                + "cat '/proc/self/root" + s + "'; "
                + "echo \"$(<'" + s + "')\"; "
                + "[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'print(open(\"" + s + "\").read())'; "
                + "perl -e 'open F, \"<\", \"" + s + "\"; print <F>'; "
                + "node -e 'try { process.stdout.write(require(\"fs\").readFileSync(\"" + s
                + "\", \"utf8\")) } catch (e) {}'; "
                + "ln '" + s + "' hard-" + i + " && cat hard-" + i + "; "
                + "ln -s '" + s + "' soft-" + i + "; cat soft-" + i + "; "
                + "cp '" + s + "' copy-" + i + " && cat copy-" + i + "; ";
    }

    @Test
    void everyReadingWayWorksOnAnOpenedRootsOrdinaryFile() throws Exception {
        // the control for the escape test below: each technique does read a non-secret file in an opened root
        th.write(".cargo/env", "CONTROL-OK\n", false);
        ExecOutcome.Completed c = run(readEveryWay(th.home.resolve(".cargo/env"), 900) + "rm -f hard-900 soft-900 copy-900");
        int hits = c.stdout().split("CONTROL-OK", -1).length - 1;
        // cat, /proc/self/root, bash, perl, node, symlink, cp (+ python when installed); the hard link crosses mounts
        assertTrue(hits >= 7, hits + " ways read it:\n" + c.stdout() + c.stderr());
    }

    @Test
    void secretsStayUnreadableWhateverReadsThem() throws Exception {
        StringBuilder cmd = new StringBuilder();
        int i = 0;
        for (String rel : ToolchainHome.SECRETS) {
            cmd.append(readEveryWay(th.home.resolve(rel), i++));
        }
        // listing and bulk reads of the whole home and of every opened root
        cmd.append("ls -laR '").append(th.home).append("'; ");
        cmd.append("find '").append(th.home).append("' -type f -exec cat {} + ; ");
        cmd.append("grep -r CANARY '").append(th.home).append("'; ");
        cmd.append("tar cf - '").append(th.home).append("' | grep -a CANARY; ");
        cmd.append("true");
        ExecOutcome.Completed c = run(cmd.toString());
        assertFalse(c.stdout().contains("CANARY-"), "a secret was read inside the sandbox:\n" + c.stdout());
        // a hard link or copy in the workspace would carry the secret out to the host
        try (Stream<Path> files = Files.walk(ws)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                if (Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) {
                    assertFalse(Files.readString(f).contains("CANARY-"), f + " carries a secret");
                }
            }
        }
        // the sandbox did run the probes (not a silent no-op): the listing of an opened root is there
        assertTrue(c.stdout().contains("pyvenv.cfg") && c.stdout().contains("libexec"), c.stdout());
    }
}
