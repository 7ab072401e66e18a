package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A sandboxed command that makes a user + mount namespace of its own cannot strip the sandbox's read-only binds or read
 * masks (srt 0.0.78 does not refuse {@code unshare}/{@code mount} as 0.0.80's seccomp lockdown does; ADR 0029).
 *
 * <p>The attack ({@code nested-ns/attack.sh}) enters a fresh user + mount namespace five ways ({@code unshare -Urm},
 * {@code unshare -Ur --mount}, two levels of {@code unshare -Urm}, and the raw {@code unshare(2)} syscall from Perl and
 * from Python), where it is root with every capability, and there tries on {@code .env}, {@code .env.local},
 * {@code .git/config}, {@code .git/hooks/} and {@code .mono-agent/}: {@code umount}/{@code umount -l}/{@code umount2},
 * {@code mount -o remount,rw,bind} and raw {@code MS_REMOUNT|MS_BIND}, {@code mount_setattr} clearing
 * {@code MOUNT_ATTR_RDONLY}, a bind over the file, a non-recursive bind or {@code open_tree} clone of the workspace
 * (which would leave the binds behind), a recursive one whose copies it then unmounts or makes writable; it writes
 * through every path so obtained; and it tries to unmount the masks over the home and {@code ~/.ssh} or look under
 * them through a non-recursive bind of {@code /} or of the home's parent.
 *
 * <p>Why it holds: every mount the sandbox made (bubblewrap's binds, srt's denies, the warm shell's placeholders) was
 * made in a mount namespace owned by a more privileged user namespace than the one the command creates. When
 * {@code unshare(CLONE_NEWNS)} copies them into a namespace owned by a less privileged user namespace, the kernel marks
 * each copy {@code MNT_LOCKED} (it cannot be unmounted or moved apart from its parent: EINVAL) and locks its flags
 * ({@code MNT_LOCK_READONLY}, {@code _NODEV}, {@code _NOSUID}, …: remount or {@code mount_setattr} that clears them is
 * EPERM), and these locks travel with every clone ({@code mount --bind}, {@code open_tree}). A bind or
 * {@code open_tree} that is not recursive is refused (EINVAL) when the subtree has locked mounts below it, so no copy
 * of the workspace or of {@code /} without the binds can be made. A bind <em>over</em> a protected file succeeds, but
 * only changes what that private namespace sees; writes land in the file bound over it, never in the host's file.
 *
 * <p>Judged by the host: the protected files keep their bytes, no hook or state file appears, nothing is added to the
 * home, and the {@code ~/.ssh} canary is in no output. The attack's own marker lines prove each namespace was entered.
 */
class NestedNamespaceTest {
    private static final String SECRET = "SECRET=1\n";
    private static final String STATE = "{\"state\":1}\n";
    private static final List<String> WAYS = List.of("unshare-Urm", "unshare-Ur--mount", "nested-twice",
            "perl-unshare2", "python-unshare2");
    private Path root;
    private Path ws;
    private Set<String> hooksBefore;
    private Set<String> homeBefore;
    private String gitConfig;

    @BeforeEach
    void workspace() throws Exception {
        root = Files.createTempDirectory("mono-agent-nested-ns-").toRealPath();
        ws = Files.createDirectories(root.resolve("ws"));
        assertEquals(0, new ProcessBuilder("git", "init", "-q", ws.toString()).inheritIO().start().waitFor());
        Files.writeString(ws.resolve(".env"), SECRET);
        Files.writeString(ws.resolve(".env.local"), SECRET);
        Files.createDirectories(ws.resolve(".mono-agent"));
        Files.writeString(ws.resolve(".mono-agent/state.json"), STATE);
        Path attack = Files.createDirectories(ws.resolve("attack"));
        for (String f : List.of("attack.sh", "ns.pl", "ns.py", "raw.pl")) {
            try (InputStream in = NestedNamespaceTest.class.getResourceAsStream("nested-ns/" + f)) {
                Files.write(attack.resolve(f), in.readAllBytes());
            }
        }
        gitConfig = Files.readString(ws.resolve(".git/config"));
        hooksBefore = names(ws.resolve(".git/hooks"));
        homeBefore = tree(TestEngine.env().home());
        assertTrue(Files.readString(ssh().resolve("id_test")).contains("PRIVATE-KEY-CANARY"));
    }

    @AfterEach
    void clean() {
        SrtRuntime.deleteTree(root);
    }

    private static Path ssh() {
        return TestEngine.env().home().resolve(".ssh");
    }

    private String command() {
        Path home = TestEngine.env().home();
        return "export SSH_DIR='" + ssh() + "' HOME_DIR='" + home + "'; bash attack/attack.sh";
    }

    @ParameterizedTest(name = "warm shell: {0}")
    @ValueSource(booleans = {true, false})
    void aBashCommandInANestedNamespaceCannotRemoveABindNorAMask(boolean warm) throws Exception {
        boolean was = NativeEngine.warmDefault;
        NativeEngine.warmDefault = warm;
        try (Sandbox sb = TestEngine.openReady(ws)) {
            ExecOutcome.Completed c = TestEngine.bash(sb, ws, command(), "run-ns", "call-ns", Duration.ofSeconds(120));
            assertHeld(c.stdout() + c.stderr());
        } finally {
            NativeEngine.warmDefault = was;
        }
    }

    /** The same from a long-lived sandboxed process, the kind NodeRepl runs (its child_process runs in it). */
    @Test
    void aLongLivedProcessInANestedNamespaceCannotRemoveABindNorAMask() throws Exception {
        try (TestEngine.Warm w = TestEngine.openWarm(ws, new TestEngine.Events())) {
            SandboxProcess p = TestEngine.longLived(w.sandbox(), ws, command() + " > attack.out 2>&1", "run-ns",
                    "call-repl", Duration.ofSeconds(120));
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the attack ended");
            p.violations().get(30, TimeUnit.SECONDS);
            String out = Files.readString(ws.resolve("attack.out"));
            assertHeld(out + new String(p.stdout().readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    private void assertHeld(String out) throws IOException {
        for (String way : WAYS) {
            assertTrue(out.contains("INNER " + way + " uid=0") && out.contains("DONE " + way),
                    "the attack entered a namespace of its own as root (" + way + "):\n" + out);
        }
        assertTrue(out.contains("raw " + ws.resolve(".env") + ": umount2=22 remount=1 mount_setattr=1"),
                "the kernel refused the raw calls with EINVAL/EPERM:\n" + out);
        assertFalse(out.contains("PRIVATE-KEY-CANARY"), "the ~/.ssh canary stayed hidden:\n" + out);
        for (String f : List.of(".env", ".env.local")) {
            Path p = ws.resolve(f);
            assertTrue(Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS), f);
            assertEquals(SECRET, Files.readString(p), f);
        }
        assertEquals(gitConfig, Files.readString(ws.resolve(".git/config")), ".git/config");
        assertEquals(hooksBefore, names(ws.resolve(".git/hooks")), ".git/hooks");
        assertFalse(Files.exists(ws.resolve(".mono-agent/pwned"), LinkOption.NOFOLLOW_LINKS), ".mono-agent/pwned");
        assertEquals(STATE, Files.readString(ws.resolve(".mono-agent/state.json")), "state.json");
        assertEquals(homeBefore, tree(TestEngine.env().home()), "the home on the host");
    }

    private static Set<String> names(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).collect(Collectors.toCollection(TreeSet::new));
        }
    }

    private static Set<String> tree(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.map(p -> dir.relativize(p) + (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS) ? "/" : ""))
                    .collect(Collectors.toCollection(TreeSet::new));
        }
    }
}
