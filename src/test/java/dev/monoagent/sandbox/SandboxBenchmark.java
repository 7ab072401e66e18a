package dev.monoagent.sandbox;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.monoagent.common.EventSink;
import dev.monoagent.common.ProbeResult;
import dev.monoagent.config.Enums.NetworkMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Per-command cost of our engine against the srt CLI and bare bubblewrap + seccomp, in one run, with ratios.
 * Excluded from the normal suite (surefire excludes {@code **}{@code /*Benchmark.java}); run it with
 * {@code mvn -B -q test -Dtest=SandboxBenchmark -Dsurefire.failIfNoSpecifiedTests=false} (an explicit -Dtest
 * overrides the exclude), or via {@link #main}. Prints; asserts nothing (numbers depend on the machine).
 */
class SandboxBenchmark {
    private static final int RUNS = 40;
    private static final int CLI_RUNS = 12;

    public static void main(String[] args) throws Exception {
        new SandboxBenchmark().benchmark();
    }

    @Test
    void benchmark() throws Exception {
        HostEnv env = TestEngine.env();
        HostTools tools = ((HostTools.Ok) HostTools.find(env)).tools();
        SrtRuntime.Resolution res = new SrtRuntime(env).resolve();
        Path root = Files.createTempDirectory("mono-agent-bench-").toRealPath();
        Path ws = Files.createDirectories(root.resolve("ws"));
        Files.writeString(ws.resolve(".env"), "SECRET=1\n");

        long t0 = System.nanoTime();
        List<ProbeResult> probes = SelfCheck.run(env, tools, res, env.which("setsid"));
        double selfCheckMs = (System.nanoTime() - t0) / 1e6;
        boolean passed = probes.stream().allMatch(ProbeResult::passed);

        double ours;
        double oursWorkspace;
        try (Sandbox sb = Sandbox.open(TestEngine.config(ws, NetworkMode.NONE, List.of()), EventSink.NONE, env)) {
            if (!"ready".equals(sb.status().state())) {
                throw new IllegalStateException(sb.status().reason());
            }
            CommandSpec spec = new CommandSpec(List.of("true"), ws, Duration.ofSeconds(30), null, Map.of(), null, null,
                    "bench", 1 << 20);
            ours = median(RUNS, () -> sb.exec(spec));
            // an agent thinks between commands: the bridge prepares the next wrap in that gap
            double oursIdle = medianWithGap(RUNS / 2, () -> sb.exec(spec));
            CommandSpec bash = CommandSpec.bash("true", ws);
            oursWorkspace = median(RUNS, () -> sb.exec(bash));
            // the srt CLI with the same engine config our bridge was initialised with
            NativeEngine ne = sb.engine();
            Map<String, Object> cfg = PolicyCompiler.engineConfig(sb.policy(), ne.denyLiterals(), ne.facts(),
                    List.of());
            Path settings = root.resolve("srt-settings.json");
            Files.writeString(settings, new ObjectMapper().writeValueAsString(cfg));
            List<String> cli = List.of(tools.node().toString(), res.cliJs().toString(), "--settings",
                    settings.toString(), "-c", "true");
            double srtCli = median(CLI_RUNS, () -> run(cli, ws));
            List<String> bare = List.of(tools.bwrap().toString(), "--ro-bind", "/", "/", "--dev", "/dev",
                    "--unshare-net", "--unshare-pid", "--unshare-user", "--proc", "/proc", "--",
                    res.applySeccomp().toString(), "/bin/true");
            double bareMs = median(RUNS, () -> run(bare, ws));
            System.out.printf("%nSandboxBenchmark (median ms per sandboxed `true`, %d runs; srt CLI %d runs)%n",
                    RUNS, CLI_RUNS);
            System.out.printf("  ours  Sandbox.exec([true])             %8.1f%n", ours);
            System.out.printf("  ours  Sandbox.exec(bash -c true)       %8.1f%n", oursWorkspace);
            System.out.printf("  ours  Sandbox.exec([true]) after 150 ms idle (prepared wrap) %6.1f   -> %.1fx vs CLI, "
                    + "%.2fx vs bare%n", oursIdle, srtCli / oursIdle, oursIdle / bareMs);
            System.out.printf("  srt CLI  node cli.js --settings F -c true %6.1f   -> ours is %.1fx faster (goal >= 15x)%n",
                    srtCli, srtCli / ours);
            System.out.printf("  bare bwrap + apply-seccomp             %8.1f   -> ours / bare = %.2fx (goal <= 2x)%n",
                    bareMs, ours / bareMs);
            System.out.printf("  self-check (%d probes, %s)          %8.1f   (goal <= 1000)%n", probes.size(),
                    passed ? "PASS" : "FAIL", selfCheckMs);
        } finally {
            SrtRuntime.deleteTree(root);
        }
    }

    private interface Op {
        void run() throws Exception;
    }

    private static double median(int n, Op op) throws Exception {
        op.run();
        op.run();
        List<Double> ms = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long t = System.nanoTime();
            op.run();
            ms.add((System.nanoTime() - t) / 1e6);
        }
        Collections.sort(ms);
        return ms.get(n / 2);
    }

    private static double medianWithGap(int n, Op op) throws Exception {
        List<Double> ms = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Thread.sleep(150);
            long t = System.nanoTime();
            op.run();
            ms.add((System.nanoTime() - t) / 1e6);
        }
        Collections.sort(ms);
        return ms.get(n / 2);
    }

    private static void run(List<String> cmd, Path cwd) throws Exception {
        Process p = new ProcessBuilder(cmd).directory(cwd.toFile()).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
        }
    }
}
