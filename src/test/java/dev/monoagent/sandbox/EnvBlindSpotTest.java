package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.Violation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * New {@code .env.*} entries a scan built on ripgrep would miss — symlinks (ripgrep does not list
 * them), names that are not valid UTF-8 (lost when rg's output is decoded), fifos — are recorded and moved out of the
 * workspace, byte-exact.
 */
class EnvBlindSpotTest {
    @TempDir
    Path tmp;

    private static boolean detected(ExecOutcome.Completed c, String nameStart) {
        return c.violations().stream().anyMatch(v -> v.tier() == Violation.Tier.DETECTED && v.target() != null
                && Path.of(v.target()).getFileName().toString().startsWith(nameStart));
    }

    /** Names under {@code dir} (one level) starting with {@code prefix}, as Java decodes them. */
    private static List<String> names(Path dir, String prefix) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(prefix)).sorted().toList();
        }
    }

    @Test
    void symlinksNonUtf8NamesAndFifosAreDetectedAndMoved() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Files.createDirectories(ws.resolve("app"));
        Files.writeString(ws.resolve("README.md"), "hi\n");
        try (Sandbox sb = TestEngine.openReady(ws)) {
            ExecOutcome.Completed link = TestEngine.bash(sb, ws, "ln -s /etc/hostname .env.custom && ln -s "
                    + "../README.md app/.env", "run-e", "c-link", Duration.ofSeconds(20));
            assertTrue(detected(link, ".env.custom") && detected(link, ".env"), link.violations().toString());
            assertEquals(List.of(), names(ws, ".env"));
            assertEquals(List.of(), names(ws.resolve("app"), ".env"));

            ExecOutcome.Completed bytes = TestEngine.bash(sb, ws, "printf s > $'.env.\\xff\\xfe' && printf s > "
                    + "$'app/.env.\\xc3'", "run-e", "c-bytes", Duration.ofSeconds(20));
            assertTrue(detected(bytes, ".env."), bytes.violations().toString());
            assertEquals(List.of(), names(ws, ".env"), "a non-UTF-8 .env.* name stayed in the workspace");
            assertEquals(List.of(), names(ws.resolve("app"), ".env"));

            ExecOutcome.Completed fifo = TestEngine.bash(sb, ws, "mkfifo .env.pipe", "run-e", "c-fifo",
                    Duration.ofSeconds(20));
            assertTrue(detected(fifo, ".env.pipe"), fifo.violations().toString());
            assertEquals(List.of(), names(ws, ".env"));
        }
    }
}
