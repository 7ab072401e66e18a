package dev.monoagent.tools;

import static dev.monoagent.tools.Fixture.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.host.HostEnv;
import dev.monoagent.sandbox.Policy;
import dev.monoagent.sandbox.ToolBinaries;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tools' own host programs ({@code rg} for Glob/Grep, {@code node} for NodeRepl) follow the host-tool rule: an
 * executable the agent planted in the workspace's {@code bin/}, with that directory on the user's PATH, is never run
 * on the host — not even when no system copy exists.
 */
class PlantedHostToolTest {
    @TempDir
    Path tmp;

    private Path plant(Path ws, String name) throws Exception {
        Path bin = Files.createDirectories(ws.resolve("bin"));
        Path marker = tmp.resolve(name + "-ran");
        Path f = bin.resolve(name);
        Files.writeString(f, "#!/bin/sh\ntouch '" + marker + "'\necho planted\n");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rwx------"));
        return marker;
    }

    private ToolOrchestrator orchestrator(Path ws, ToolBinaries bins) {
        Policy p = Fixture.policy(ws);
        return new ToolOrchestrator(new ToolRegistry(ToolPolicy.ALL, BuiltinTools.all()), ws, p,
                new HostProcessPort(), e -> { }, ws.resolve(".mono-agent/artifacts"), bins);
    }

    @Test
    void plantedRgWithNoSystemRgIsNeverExecuted() throws Exception {
        Path ws = Fixture.real(Files.createDirectories(tmp.resolve("ws")));
        Files.writeString(ws.resolve("a.txt"), "needle\n");
        Path marker = plant(ws, "rg");
        // the user's PATH: the workspace bin first, then a dir with no rg (so "no system rg")
        Path empty = Files.createDirectories(tmp.resolve("empty"));
        HostEnv env = HostEnv.from(Map.of("PATH", ws.resolve("bin") + ":" + empty));
        ToolBinaries bins = ToolBinaries.find(env, Fixture.policy(ws));
        assertEquals(null, bins.rg(), "a planted workspace rg must not be trusted");
        ToolOrchestrator o = orchestrator(ws, bins);
        try (RunScope scope = new RunScope("r1")) {
            ToolResult grep = o.call(scope, "c1", "Grep", json("pattern", "needle"));
            ToolResult glob = o.call(scope, "c2", "Glob", json("pattern", "*.txt"));
            assertInstanceOf(ToolResult.Failed.class, grep, grep.text());
            assertTrue(grep.text().contains("ripgrep (rg) is not installed"), grep.text());
            assertInstanceOf(ToolResult.Failed.class, glob, glob.text());
        }
        assertFalse(Files.exists(marker), "the planted rg ran on the host");
    }

    @Test
    void plantedRgBeforeTheSystemRgLosesToIt() throws Exception {
        Path ws = Fixture.real(Files.createDirectories(tmp.resolve("ws")));
        Files.writeString(ws.resolve("a.txt"), "needle\n");
        Path marker = plant(ws, "rg");
        HostEnv env = HostEnv.from(Map.of("PATH", ws.resolve("bin") + ":/usr/local/bin:/usr/bin:/bin"));
        ToolBinaries bins = ToolBinaries.find(env, Fixture.policy(ws));
        assertNotNull(bins.rg(), "this test needs a system rg");
        assertFalse(bins.rg().startsWith(ws));
        try (RunScope scope = new RunScope("r1")) {
            ToolResult grep = orchestrator(ws, bins).call(scope, "c1", "Grep", json("pattern", "needle"));
            assertTrue(grep.text().contains("a.txt"), grep.text());
        }
        assertFalse(Files.exists(marker), "the planted rg ran on the host");
    }

    @Test
    void plantedNodeIsNeverStartedForNodeRepl() throws Exception {
        Path ws = Fixture.real(Files.createDirectories(tmp.resolve("ws")));
        Path marker = plant(ws, "node");
        // an empty private cache: a managed Node installed there (sandbox setup on a host without one) is not PATH
        HostEnv env = HostEnv.from(Map.of("PATH", ws.resolve("bin").toString(), "MONO_AGENT_CACHE_DIR",
                Files.createDirectories(tmp.resolve("empty-cache")).toString()));
        ToolBinaries bins = ToolBinaries.find(env, Fixture.policy(ws));
        assertEquals(null, bins.node());
        try (RunScope scope = new RunScope("r1")) {
            ToolResult r = orchestrator(ws, bins).call(scope, "c1", "NodeRepl", json("code", "1 + 1"));
            assertInstanceOf(ToolResult.Failed.class, r, r.text());
            assertTrue(r.text().contains("Node.js (node) is not installed"), r.text());
        }
        assertFalse(Files.exists(marker), "the planted node ran");
    }
}
