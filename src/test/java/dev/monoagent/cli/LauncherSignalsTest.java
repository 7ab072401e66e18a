package dev.monoagent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher ({@code installer/mono-agent}) starts java with SIGINT and SIGQUIT at their defaults even when it was
 * started with them ignored (as {@code nohup ... &} from a script leaves them), since a JVM that starts with SIGINT
 * ignored installs no handler and Ctrl-C would not stop it. Other ignored signals (SIGHUP under nohup) stay ignored.
 * A stand-in {@code java} reports the signal dispositions it was started with, read from {@code /proc}.
 */
class LauncherSignalsTest {
    @TempDir
    Path tmp;

    @Test
    void javaStartsWithDefaultIntAndQuitWhateverTheLauncherInherited() throws Exception {
        assumeTrue(Files.isReadable(Path.of("/proc/self/status")), "reads dispositions from /proc (Linux)");
        assumeTrue(new ProcessBuilder("env", "--ignore-signal=INT", "true").start().waitFor() == 0,
                "needs GNU env --ignore-signal to start the launcher with signals ignored");
        Path java = tmp.resolve("java");
        Files.writeString(java, """
                #!/bin/sh
                case "$*" in *-XshowSettings*) echo '    java.specification.version = 21' >&2; exit 0 ;; esac
                exec sed -n 's/^SigIgn:[[:space:]]*//p' /proc/self/status
                """);
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwx------"));
        Path jar = Files.writeString(tmp.resolve("mono-agent.jar"), "");

        // bits: 0x1 SIGHUP, 0x2 SIGINT, 0x4 SIGQUIT (this JVM may itself have inherited SIGHUP ignored)
        assertEquals(0x1, ignoredMask(java, jar, "HUP"), "nohup's SIGHUP stays ignored");
        assertEquals(0x1, ignoredMask(java, jar, "INT,QUIT,HUP"), "SIGINT/SIGQUIT reset, SIGHUP kept");
        assertEquals(0x0, ignoredMask(java, jar, "INT,QUIT") & 0x6, "SIGINT/SIGQUIT reset");
    }

    private long ignoredMask(Path java, Path jar, String ignored) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(List.of("env", "--ignore-signal=" + ignored, "bash",
                Path.of("installer", "mono-agent").toAbsolutePath().toString(), "--version"));
        pb.environment().put("MONO_AGENT_JAVA", java.toString());
        pb.environment().put("MONO_AGENT_JAR", jar.toString());
        pb.environment().put("MONO_AGENT_NO_CDS", "1");
        pb.environment().put("XDG_CACHE_HOME", tmp.resolve("cache").toString());
        Process p = pb.redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes()).strip();
        p.waitFor(10, TimeUnit.SECONDS);
        assertEquals(0, p.exitValue(), out);
        return Long.parseLong(out, 16) & 0x7; // HUP, INT, QUIT
    }
}
