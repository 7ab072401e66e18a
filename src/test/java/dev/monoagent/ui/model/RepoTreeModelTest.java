package dev.monoagent.ui.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.ui.port.PolicyFactory;
import dev.monoagent.ui.task.DirectTaskExecutor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RepoTreeModelTest {
    @TempDir
    Path ws;

    @BeforeEach
    void files() throws Exception {
        Files.createDirectories(ws.resolve("src/lib"));
        Files.createDirectories(ws.resolve(".git/hooks"));
        Files.writeString(ws.resolve(".git/config"), "[core]\n");
        Files.writeString(ws.resolve(".env"), "TOKEN=secret\n");
        Files.writeString(ws.resolve("README.md"), "# hi\n");
        Files.writeString(ws.resolve("src/lib/.env.production"), "X=1\n");
        Files.writeString(ws.resolve("src/a.js"), "1\n");
    }

    private RepoTreeModel model() {
        return new RepoTreeModel(ws, () -> PolicyFactory.defaults(ws), new DirectTaskExecutor());
    }

    private static List<String> names(List<FileEntry> l) {
        return l.stream().map(FileEntry::name).toList();
    }

    @Test
    void listsDirectoriesFirstWithProtectedBadges() throws Exception {
        RepoTreeModel m = model();
        List<FileEntry> root = m.list(ws);
        assertEquals(List.of(".git", "src", ".env", "README.md"), names(root));
        assertTrue(root.get(2).protectedPath());
        assertFalse(root.get(3).protectedPath());
        List<FileEntry> git = m.list(ws.resolve(".git"));
        assertTrue(git.stream().allMatch(FileEntry::protectedPath), git.toString());
        assertTrue(m.list(ws.resolve("src/lib")).get(0).protectedPath());
    }

    /** With the sandbox off nothing wraps the commands: the tree must not draw a single lock. */
    @Test
    void noLocksWhileTheSandboxIsOff() throws Exception {
        dev.monoagent.config.MonoConfig d = dev.monoagent.config.MonoConfig.DEFAULTS;
        dev.monoagent.config.MonoConfig.Sandbox off = new dev.monoagent.config.MonoConfig.Sandbox(
                dev.monoagent.config.Enums.SandboxMode.OFF, d.sandbox().network(), d.sandbox().readableRoots(),
                d.sandbox().writableRoots(), d.sandbox().denyWrite(), d.sandbox().fallback(), false);
        dev.monoagent.config.MonoConfig cfg = new dev.monoagent.config.MonoConfig(d.agent(), d.runtime(),
                d.providers(), d.context(), d.tools(), off, d.memory(), d.processJobs(), d.monitors());
        Path root = ws.toAbsolutePath().normalize();
        RepoTreeModel m = new RepoTreeModel(ws, () -> PolicyFactory.fromConfig(new dev.monoagent.config.LoadedConfig(
                root.resolve("mono-agent.config.json"), false, root, cfg, java.util.Map.of(), List.of(),
                java.util.Map.of())), new DirectTaskExecutor());
        assertTrue(m.list(ws).stream().noneMatch(FileEntry::protectedPath), m.list(ws).toString());
        assertFalse(m.isProtected(ws.resolve(".env")));
    }

    @Test
    void engineMountPointsThatAppearAfterOpenAreHidden() throws Exception {
        RepoTreeModel m = model();
        // what srt leaves on the host while a command runs: 0-byte read-only files and empty read-only dirs
        for (String n : List.of(".bashrc", ".gitconfig", ".mcp.json")) {
            Path p = Files.createFile(ws.resolve(n));
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("r--r--r--"));
        }
        Path vscode = Files.createDirectory(ws.resolve(".vscode"));
        Files.setPosixFilePermissions(vscode, PosixFilePermissions.fromString("r-xr-xr-x"));
        Files.writeString(ws.resolve("new.txt"), "real\n");
        Files.createFile(ws.resolve("empty-but-writable.txt"));
        assertEquals(List.of(".git", "src", ".env", "empty-but-writable.txt", "new.txt", "README.md"),
                names(m.list(ws)));
    }

    @Test
    void readOnlyEmptyFileThatExistedAtOpenIsShown() throws Exception {
        Path p = Files.createFile(ws.resolve(".profile"));
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("r--r--r--"));
        assertTrue(names(model().list(ws)).contains(".profile"));
    }

    @Test
    void changesMarkPathsAndAncestorsAndRequestRelisting() throws Exception {
        RepoTreeModel m = model();
        Path f = Files.writeString(ws.resolve("src/a.js"), "2\n");
        m.onChanges(List.of(f));
        assertTrue(m.isChanged(f));
        assertTrue(m.isChanged(ws.resolve("src")));
        assertFalse(m.isChanged(ws.resolve("README.md")));
        assertEquals(ws.resolve("src"), m.dirChangeProperty().get().dir());
    }

    @Test
    void mountPointLitterIsNotMarkedChanged() throws Exception {
        RepoTreeModel m = model();
        Path p = Files.createFile(ws.resolve(".bashrc"));
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("r--r--r--"));
        m.onChanges(List.of(p));
        assertFalse(m.isChanged(p));
    }

    @Test
    void loadDeliversRowsThroughTheExecutor() {
        RepoTreeModel m = model();
        List<List<FileEntry>> got = new java.util.ArrayList<>();
        m.load(ws.resolve("src"), got::add);
        assertEquals(List.of("lib", "a.js"), names(got.get(0)));
    }

    @Test
    void badgesFollowThePolicyInForceIncludingTheEnginesBuiltInNames() throws Exception {
        // real files (not mount-point litter) under srt's built-in names are protected by the engine itself
        Files.createDirectories(ws.resolve("tools/.vscode"));
        Files.writeString(ws.resolve("tools/.vscode/settings.json"), "{}\n");
        Files.writeString(ws.resolve("src/.bashrc"), "alias x=y\n");
        java.util.concurrent.atomic.AtomicReference<dev.monoagent.sandbox.Policy> policy =
                new java.util.concurrent.atomic.AtomicReference<>(PolicyFactory.defaults(ws));
        RepoTreeModel m = new RepoTreeModel(ws, policy::get, new DirectTaskExecutor());
        assertTrue(m.list(ws.resolve("tools")).get(0).protectedPath(), ".vscode");
        assertTrue(m.protection(ws.resolve("tools/.vscode/settings.json")).contains("built-in list (.vscode)"));
        assertTrue(m.list(ws.resolve("src")).stream().filter(f -> f.name().equals(".bashrc")).findFirst()
                .orElseThrow().protectedPath());
        assertTrue(m.protection(ws.resolve(".env")) != null, "the tooltip says why .env is protected");
        assertEquals(null, m.protection(ws.resolve("README.md")));

        // the engine's compiled policy can protect more (here: src/): the badges follow once it is in force
        assertFalse(m.list(ws).get(1).protectedPath(), "src under the provisional policy");
        long epoch = m.policyEpochProperty().get();
        m.policyMaybeChanged();
        assertEquals(epoch, m.policyEpochProperty().get(), "same policy: nothing to re-list");
        dev.monoagent.sandbox.Policy p = policy.get();
        policy.set(new dev.monoagent.sandbox.Policy(p.workspace(), p.mode(), p.fallback(), p.unsafeAllowed(),
                p.readableRoots(), p.writableRoots(), p.denyWriteGlobs(), List.of(ws.resolve("src")), p.denyRead(),
                p.network(), p.allowlist()));
        m.policyMaybeChanged();
        assertEquals(epoch + 1, m.policyEpochProperty().get());
        assertTrue(m.list(ws).get(1).protectedPath(), "src under the engine's policy");
        assertTrue(m.list(ws).get(0).protectedPath(), ".git is protected by name under both");
    }
}
