package dev.monoagent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A command that loads the memory index (and with it the libraries that log through SLF4J) prints nothing of theirs
 * on stderr: without an SLF4J provider on the classpath, SLF4J warned "No SLF4J providers were found" on every
 * {@code run} and {@code memory} command. A separate JVM, since SLF4J initializes once per process.
 */
class QuietStderrTest {
    @TempDir
    Path ws;

    @Test
    void memorySearchPrintsNoSlf4jWarning() throws Exception {
        Files.writeString(ws.resolve("mono-agent.config.json"), """
                {"runtime": {"model": "ollama:qwen"}, "memory": {"mode": "journal"}}
                """);
        ProcessBuilder pb = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-cp", System.getProperty("java.class.path"), Main.class.getName(), "memory", "search", "foo"))
                .directory(ws.toFile());
        pb.environment().put("MONO_AGENT_CONFIG_DIR", ws.resolve(".cfg").toString());
        Process p = pb.redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        String err = new String(p.getErrorStream().readAllBytes());
        p.waitFor(60, TimeUnit.SECONDS);
        assertEquals(0, p.exitValue(), err);
        assertFalse(err.contains("SLF4J"), err);
    }
}
