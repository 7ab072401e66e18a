package dev.monoagent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.config.ConfigException;
import dev.monoagent.config.ConfigLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A workspace or writable root that is, or contains, the user's home directory is refused before anything runs: the
 * agent could otherwise write {@code .zshenv}, {@code .config/autostart/*}, {@code .local/bin/git} and the like, which
 * no list of protected names covers. Each command that loads the config exits non-zero with an error naming the field
 * or the workspace, and no stack trace.
 */
class HomeRootRefusalTest {
    @TempDir
    Path tmp;

    private Map<String, String> env() throws Exception {
        Map<String, String> env = new HashMap<>();
        env.put("MONO_AGENT_CACHE_DIR", Files.createDirectories(tmp.resolve("cache")).toString());
        return env;
    }

    private Path workspace(String writableRoots) throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Files.writeString(ws.resolve(ConfigLoader.CONFIG_FILE), "{\"runtime\":{\"model\":\"ollama:qwen\"},"
                + "\"sandbox\":{\"writableRoots\":" + writableRoots + "}}");
        return ws;
    }

    @Test
    void writableRootHoldingHomeIsAConfigErrorNamingTheField() throws Exception {
        String home = System.getProperty("user.home");
        for (String[] c : new String[][] {{"[\".\", \"~\"]", "sandbox.writableRoots[1]"},
                {"[\"/\"]", "sandbox.writableRoots[0]"},
                {"[\".\", \"" + Path.of(home).toAbsolutePath().normalize() + "\"]", "sandbox.writableRoots[1]"}}) {
            Path ws = workspace(c[0]);
            ConfigException e = org.junit.jupiter.api.Assertions.assertThrows(ConfigException.class,
                    () -> ConfigLoader.load(new ConfigLoader.Options(ws, null, null, Map.of())));
            assertTrue(e.errors().stream().anyMatch(er -> er.field().equals(c[1])
                    && er.message().contains(c[1]) && er.message().contains("home")), c[0] + ": " + e.errors());
            for (String[] args : new String[][] {{"validate"}, {"tools", "call", "Read", "{\"file_path\":\"a\"}"},
                    {"run", "hello"}, {"start"}}) {
                CliHarness.Result r = CliHarness.run(ws, env(), args);
                assertNotEquals(0, r.exit(), String.join(" ", args) + ": " + r.out() + r.err());
                assertTrue((r.out() + r.err()).contains(c[1]), String.join(" ", args) + ": " + r.out() + r.err());
                assertFalse((r.out() + r.err()).contains("\tat "), r.err());
            }
        }
        // a tool home under home is refused like home: protected names inside a root cannot cover it
        for (String[] c : new String[][] {{"[\".\", \"~/.config\"]", "sandbox.writableRoots[1]"},
                {"[\".\", \"~/.cargo\"]", "sandbox.writableRoots[1]"}}) {
            Path ws = workspace(c[0]);
            ConfigException e = org.junit.jupiter.api.Assertions.assertThrows(ConfigException.class,
                    () -> ConfigLoader.load(new ConfigLoader.Options(ws, null, null, Map.of())));
            assertTrue(e.errors().stream().anyMatch(er -> er.field().equals(c[1])
                    && er.message().contains("where your tools keep settings")), c[0] + ": " + e.errors());
        }
        // a root inside home is fine
        Path ws = workspace("[\".\", \"~/projects/other\"]");
        assertEquals(ws, ConfigLoader.load(new ConfigLoader.Options(ws, null, null, Map.of())).workspace());
    }

    @Test
    void homeAsTheWorkspaceIsRefused() throws Exception {
        Path home = Path.of(System.getProperty("user.home")).toAbsolutePath().normalize();
        Map<String, String> env = env();
        env.put("MONO_AGENT_WORKSPACE", home.toString());
        ConfigException e = org.junit.jupiter.api.Assertions.assertThrows(ConfigException.class,
                () -> ConfigLoader.load(new ConfigLoader.Options(tmp, null, null, env)));
        assertTrue(e.errors().stream().anyMatch(er -> er.field().equals("workspace")
                && er.message().contains(home.toString())), e.errors().toString());
        Path parent = home.getParent() == null ? home : home.getParent();
        env.put("MONO_AGENT_WORKSPACE", parent.toString());
        for (String[] args : new String[][] {{"validate"}, {"tools", "call", "Read", "{\"file_path\":\"a\"}"}}) {
            CliHarness.Result r = CliHarness.run(tmp, env, args);
            assertNotEquals(0, r.exit(), String.join(" ", args) + ": " + r.out() + r.err());
            assertTrue((r.out() + r.err()).contains("The workspace " + parent), r.out() + r.err());
        }
    }

    /**
     * The exported {@code HOME} counts as home even when it is not Java's {@code user.home} (sudo -E, containers,
     * service accounts): the reviewer's shell, git and our launcher read {@code .bash_login}, {@code .local/bin},
     * {@code .cache/mono-agent/java-path} from there. A workspace that is it, or a writable root holding it, is
     * refused, and a Bash write there never happens.
     */
    @Test
    void exportedHomeThatIsNotUserHomeIsRefusedToo() throws Exception {
        Path home = Files.createDirectories(tmp.resolve("h")).toRealPath();
        Files.writeString(home.resolve(ConfigLoader.CONFIG_FILE), "{\"runtime\":{\"model\":\"ollama:qwen\"}}");
        org.junit.jupiter.api.Assumptions.assumeFalse(
                home.startsWith(Path.of(System.getProperty("user.home")).toRealPath()), "the temp dir is in user.home");
        Map<String, String> env = env();
        env.put("HOME", home.toString());
        String bash = "{\"command\":\"echo touch pwned > .bash_login; mkdir -p .local/bin; echo x > .local/bin/git\"}";
        for (String[] args : new String[][] {{"validate"}, {"tools", "call", "Bash", bash}}) {
            CliHarness.Result r = CliHarness.run(home, env, args);
            assertNotEquals(0, r.exit(), String.join(" ", args) + ": " + r.out() + r.err());
            assertTrue((r.out() + r.err()).contains("is or contains the home directory " + home),
                    String.join(" ", args) + ": " + r.out() + r.err());
            assertFalse((r.out() + r.err()).contains("\tat "), r.err());
        }
        assertFalse(Files.exists(home.resolve(".bash_login")), "the agent wrote the exported home's .bash_login");
        assertFalse(Files.exists(home.resolve(".local")), "the agent wrote the exported home's .local/bin");
        // a writable root holding the exported home, from a workspace elsewhere
        Path ws = workspace("[\".\", \"" + tmp + "\"]");
        ConfigException e = org.junit.jupiter.api.Assertions.assertThrows(ConfigException.class,
                () -> ConfigLoader.load(new ConfigLoader.Options(ws, null, null, env)));
        assertTrue(e.errors().stream().anyMatch(er -> er.field().equals("sandbox.writableRoots[1]")
                && er.message().contains("home directory " + home)), e.errors().toString());
        // a project inside the exported home is fine
        Path proj = Files.createDirectories(home.resolve("proj"));
        assertEquals(proj, ConfigLoader.load(new ConfigLoader.Options(proj, null, null, env)).workspace());
    }
}
