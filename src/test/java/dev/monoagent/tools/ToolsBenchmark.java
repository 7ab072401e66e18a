package dev.monoagent.tools;

import static dev.monoagent.tools.Fixture.json;

import dev.monoagent.config.Enums;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.host.HostEnv;
import dev.monoagent.sandbox.Sandbox;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Speed of the code tools against their baselines. Not part of the normal test run (surefire excludes
 * {@code **}{@code /*Benchmark.java}); run it with
 * {@code mvn -B test -Dtest=ToolsBenchmark -Dsurefire.failIfNoSpecifiedTests=false} (an explicit -Dtest overrides
 * the exclude). Prints medians and ratios; goals: NodeRepl round trip ≥ 30× faster than {@code node -e} per
 * evaluation with p50 ≤ 3 ms; Grep on a 100k-file tree ≤ 1.3× plain {@code rg}.
 *
 * <p>The NodeRepl is measured on a host-process port: the sandbox only wraps the REPL's start, a round trip is
 * the same pipe traffic either way.
 */
class ToolsBenchmark {

    public static void main(String[] args) throws Exception {
        new ToolsBenchmark().run();
    }

    @Test
    void run() throws Exception {
        Path tmp = Files.createTempDirectory("mono-tools-bench-").toRealPath();
        try {
            nodeRepl(tmp);
            sandboxedNodeRepl(tmp);
            grep(tmp);
        } finally {
            deleteTree(tmp);
        }
    }

    private static void nodeRepl(Path tmp) throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("repl"));
        HostProcessPort port = new HostProcessPort();
        ToolOrchestrator orch = new ToolOrchestrator(new ToolRegistry(ToolPolicy.ALL, List.of(new NodeReplTool())),
                ws, Fixture.policy(ws), port, e -> { }, null);
        RunScope scope = new RunScope("bench");
        long[] repl = new long[300];
        try {
            check("undefined", orch.call(scope, "w0", "NodeRepl", json("code", "const n = 40")));
            for (int i = 0; i < 50; i++) {
                orch.call(scope, "w" + i, "NodeRepl", json("code", "n + 2"));
            }
            String args = json("code", "n + 2");
            for (int i = 0; i < repl.length; i++) {
                long t0 = System.nanoTime();
                ToolResult r = orch.call(scope, "c" + i, "NodeRepl", args);
                repl[i] = System.nanoTime() - t0;
                check("42", r);
            }
        } finally {
            scope.close();
        }
        String node = dev.monoagent.sandbox.ToolBinaries.find(dev.monoagent.host.HostEnv.detect(), Fixture.policy(ws)).node().toString();
        long[] cold = new long[20];
        for (int i = 0; i < cold.length; i++) {
            long t0 = System.nanoTime();
            Process p = new ProcessBuilder(node, "-e", "const n = 40; console.log(n + 2)").start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            p.waitFor();
            cold[i] = System.nanoTime() - t0;
            if (!out.equals("42")) {
                throw new IllegalStateException("node -e printed " + out);
            }
        }
        double p50 = median(repl);
        double p90 = percentile(repl, 0.9);
        double coldP50 = median(cold);
        System.out.printf(Locale.ROOT, "NodeRepl round trip n + 2: p50 %.3f ms, p90 %.3f ms (n=%d)%n", p50, p90,
                repl.length);
        System.out.printf(Locale.ROOT, "node -e per evaluation:    p50 %.1f ms (n=%d)%n", coldP50, cold.length);
        System.out.printf(Locale.ROOT, "speedup %.0fx (goal >= 30x) %s; p50 goal <= 3 ms %s%n", coldP50 / p50,
                coldP50 / p50 >= 30 ? "MET" : "MISSED", p50 <= 3 ? "MET" : "MISSED");
    }

    /** The same round trip with the REPL started inside the real sandbox (engine installed into a temp cache). */
    private static void sandboxedNodeRepl(Path tmp) throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("sandboxed"));
        Path home = Files.createDirectories(tmp.resolve("home"));
        HostEnv env = HostEnv.detect().withCacheRoot(tmp.resolve("cache")).withHome(home)
                .withPath("/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin");
        LoadedConfig cfg = SandboxedToolsTest.config(ws, Enums.NetworkMode.LOCALHOST);
        try (Sandbox sb = Sandbox.open(cfg, e -> { }, env)) {
            if (!"ready".equals(sb.status().state())) {
                sb.setup(line -> { });
            }
        }
        try (Sandbox sb = Sandbox.open(cfg, e -> { }, env); Tools tools = Tools.open(cfg, sb, e -> { })) {
            if (!"ready".equals(sb.status().state())) {
                System.out.println("sandboxed NodeRepl: engine not ready, skipped: " + sb.status().lines());
                return;
            }
            Tools.Run run = tools.run("bench-sb");
            long t0 = System.nanoTime();
            check("undefined", run.call("NodeRepl", json("code", "const n = 40")));
            double startMs = (System.nanoTime() - t0) / 1e6;
            String args = json("code", "n + 2");
            for (int i = 0; i < 50; i++) {
                run.call("NodeRepl", args);
            }
            long[] rt = new long[300];
            for (int i = 0; i < rt.length; i++) {
                long s0 = System.nanoTime();
                ToolResult r = run.call("NodeRepl", args);
                rt[i] = System.nanoTime() - s0;
                check("42", r);
            }
            System.out.printf(Locale.ROOT, "NodeRepl in the sandbox: first call (start + eval) %.0f ms; round trip "
                    + "p50 %.3f ms, p90 %.3f ms%n", startMs, median(rt), percentile(rt, 0.9));
        }
    }

    private static void grep(Path tmp) throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("tree"));
        long g0 = System.nanoTime();
        int files = 100_000;
        byte[] plain = "public class Foo {\n    int x = 1;\n    String s = \"hello world\";\n}\n"
                .getBytes(StandardCharsets.UTF_8);
        byte[] hit = "public class Foo {\n    // needle_marker here\n}\n".getBytes(StandardCharsets.UTF_8);
        for (int d = 0; d < files / 100; d++) {
            Path dir = Files.createDirectories(ws.resolve("pkg" + (d / 50)).resolve("d" + d));
            for (int f = 0; f < 100; f++) {
                int idx = d * 100 + f;
                Files.write(dir.resolve("F" + f + ".java"), idx % 997 == 0 ? hit : plain);
            }
        }
        System.out.printf(Locale.ROOT, "generated %d files in %.1f s%n", files, (System.nanoTime() - g0) / 1e9);

        Fixture fx = new Fixture(ws, SandboxPort.UNAVAILABLE);
        String args = json("pattern", "needle_marker");
        String expectedHead = "Found " + (files / 997 + 1) + " files";
        long[] tool = new long[7];
        long[] rg = new long[7];
        String rgBin = dev.monoagent.sandbox.ToolBinaries.find(dev.monoagent.host.HostEnv.detect(), fx.policy).rg().toString();
        for (int warm = 0; warm < 2; warm++) {
            fx.call("Grep", args);
            runRg(rgBin, ws);
        }
        for (int i = 0; i < tool.length; i++) {
            long t0 = System.nanoTime();
            int n = runRg(rgBin, ws);
            rg[i] = System.nanoTime() - t0;
            if (n != files / 997 + 1) {
                throw new IllegalStateException("rg found " + n);
            }
            t0 = System.nanoTime();
            ToolResult r = fx.call("Grep", args);
            tool[i] = System.nanoTime() - t0;
            if (!r.text().startsWith(expectedHead)) {
                throw new IllegalStateException("Grep said " + r.text().lines().findFirst().orElse(""));
            }
        }
        double toolP50 = median(tool);
        double rgP50 = median(rg);
        System.out.printf(Locale.ROOT, "Grep tool on %d files: p50 %.1f ms; rg alone: p50 %.1f ms; ratio %.2fx "
                + "(goal <= 1.3x) %s%n", files, toolP50, rgP50, toolP50 / rgP50, toolP50 / rgP50 <= 1.3 ? "MET"
                : "MISSED");
    }

    /** Plain {@code rg -l PATTERN .} as a user would type it; returns the number of files listed. */
    private static int runRg(String rg, Path dir) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(rg, "-l", "needle_marker", ".").directory(dir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        return (int) out.lines().count();
    }

    private static void check(String expected, ToolResult r) {
        if (!expected.equals(r.text())) {
            throw new IllegalStateException("expected " + expected + " got " + r.text());
        }
    }

    private static double median(long[] ns) {
        return percentile(ns, 0.5);
    }

    private static double percentile(long[] ns, double q) {
        long[] s = ns.clone();
        Arrays.sort(s);
        return s[(int) Math.min(s.length - 1, Math.floor(q * s.length))] / 1e6;
    }

    private static void deleteTree(Path p) throws IOException {
        try (Stream<Path> w = Files.walk(p)) {
            List<Path> all = new ArrayList<>(w.toList());
            all.sort(Comparator.reverseOrder());
            for (Path x : all) {
                Files.deleteIfExists(x);
            }
        }
    }
}
