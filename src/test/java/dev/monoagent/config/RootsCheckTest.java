package dev.monoagent.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Which readable roots break every command, as measured on the real engine: a read-only root over a writable one
 * ({@code "."} over {@code "src"}, {@code ".."} over the workspace) does; one that is writable itself ({@code "."}
 * beside {@code ["build", "."]}) does not.
 */
class RootsCheckTest {
    @TempDir
    Path ws;

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        ".       | .        | 0",
        ".       | src      | 1",
        ".;..    | .        | 1",
        ".       | build;.  | 0",
        "../lib  | .        | 0"})
    void aReadOnlyRootOverAWritableOneIsRefused(String readable, String writable, int problems) {
        List<String> r = List.of(readable.split(";"));
        List<String> w = List.of(writable.split(";"));
        MonoConfig.Sandbox sb = new MonoConfig.Sandbox(Enums.SandboxMode.NATIVE, MonoConfig.Network.DEFAULTS, r, w,
                MonoConfig.Sandbox.DEFAULT_DENY_WRITE, Enums.Fallback.FAIL_CLOSED, false);
        MonoConfig d = MonoConfig.DEFAULTS;
        MonoConfig cfg = new MonoConfig(d.agent(), d.runtime(), d.providers(), d.context(), d.tools(), sb, d.memory(),
                d.processJobs(), d.monitors());
        List<Path> rp = r.stream().map(e -> ws.resolve(e).normalize()).toList();
        List<Path> wp = w.stream().map(e -> ws.resolve(e).normalize()).toList();
        assertEquals(problems, RootsCheck.problems(cfg, ws, rp, wp, "sandbox.readableRoots").size());
    }
}
