package dev.monoagent.sandbox;

import dev.monoagent.host.HostEnv;
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
 * The Bash tool's round trips and the bare baseline run the same command, the Bash tool's
 * {@code bash --noprofile --norc -c true}; srt's wrapped command and its CLI run {@code true} through srt's own shell;
 * bare bwrap + seccomp running {@code /bin/true} alone (the sandbox without bash's start-up) is printed as well. Lines:
 * the Bash tool's round trip on the run's warm shell and on the per-command path, srt's own wrapped command run
 * directly, bare bwrap + seccomp, the srt CLI, {@code sandbox check}, and the per-command overhead by repository size.
 * Excluded from the normal suite (surefire excludes {@code **}{@code /*Benchmark.java}); run it with
 * {@code mvn -B test -Pbench} (the profile names it as {@code -Dtest} and gives the JVM the launcher's flags, as the
 * product runs; it prints whether it got them), or via {@link #main}. Prints; asserts nothing (numbers depend on the
 * machine).
 */
class SandboxBenchmark {
    private static final int RUNS = 40;
    private static final int CLI_RUNS = 12;
    /** Checks run again after the first, in the same JVM. */
    private static final int CHECK_RUNS = 5;
    /**
     * Runs before each measured series (the CLI's: 2): medians are of the steady state, after the JIT has compiled
     * the engine's per-command path — a JVM's first few hundred commands are slower (about 1.5x after 100 here).
     */
    private static final int WARMUP = 300;
    /** Commands the warm shell has run before its second, steady-state series. */
    private static final int STEADY = 1_500;
    /** The headline pair's block: that many warm commands, then that many bare, in turn until each has {@link #RUNS}. */
    private static final int BLOCK = 10;
    /** Idle time before each command of the idle series. */
    private static final int IDLE_MS = 20;

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
        String loadBefore = load();
        boolean warmWas = NativeEngine.warmDefault;

        long t0 = System.nanoTime();
        List<ProbeResult> probes = SelfCheck.run(env, tools, res, env.which("setsid"));
        double selfCheckMs = (System.nanoTime() - t0) / 1e6;
        boolean passed = probes.stream().allMatch(ProbeResult::passed);
        // the same check again in this (now warm) JVM, as the workbench's Check button runs it: 1 s apart
        List<Double> again = new ArrayList<>();
        for (int i = 0; i < CHECK_RUNS; i++) {
            Thread.sleep(1000);
            long ta = System.nanoTime();
            passed &= SelfCheck.run(env, tools, res, env.which("setsid")).stream().allMatch(ProbeResult::passed);
            again.add((System.nanoTime() - ta) / 1e6);
        }
        Collections.sort(again);

        // the Bash tool's own spec (tools/BashTool): bash without profiles, BASH_ENV/ENV empty, in a run
        CommandSpec bashTool = new CommandSpec(List.of("/bin/bash", "--noprofile", "--norc", "-c", "true"), ws,
                Duration.ofSeconds(30), null, Map.of("BASH_ENV", "/dev/null", "ENV", "/dev/null"), "bench-run",
                "bench-call", "Bash", 1 << 20);
        double warm;
        double steadyWarm;
        double steadyBare;
        double idleWarm;
        double idleBare;
        List<Double> shellOnly = new ArrayList<>();
        double cold;
        double srtWrapped;
        double srtCli;
        double bareMs;
        double bareAlone;
        double bareTrueMs;
        // the baseline runs what the Bash tool runs (its own argv), in bare bwrap + seccomp and nothing else; the
        // same sandbox running /bin/true alone is printed too (the sandbox's own cost, without bash's start-up)
        List<String> bare = bareArgv(tools, res, bashTool.argv());
        List<String> bareTrue = bareArgv(tools, res, List.of("/bin/true"));
        try {
            NativeEngine.warmDefault = true;
            try (Sandbox sb = open(ws, env)) {
                // the headline pair, warm and bare, in alternating blocks of BLOCK after the warm-ups: the same build
                // measured minutes apart differed by a quarter here (2026-12-04, 7.5 vs 9.9 ms), more than the goal's
                // margin, so the two are measured in the same minutes
                for (int i = 0; i < WARMUP; i++) {
                    sb.exec(bashTool);
                }
                for (int i = 0; i < BLOCK; i++) {
                    run(bare, ws);
                }
                double[] pair = blocks(() -> shellOnly.add((double) ((ExecOutcome.Completed) sb.exec(bashTool))
                        .elapsedMillis()), () -> run(bare, ws));
                warm = pair[0];
                bareMs = pair[1];
                // the same shell much later in the session (the JIT keeps compiling the per-command path for about a
                // thousand commands here), against bare bwrap + seccomp in the same interval, one of each in turn
                for (int i = WARMUP + RUNS; i < STEADY; i++) {
                    sb.exec(bashTool);
                }
                double[] steady = alternating(() -> sb.exec(bashTool), () -> run(bare, ws), 0);
                steadyWarm = steady[0];
                steadyBare = steady[1];
                // the same again with the machine idle before each command, as between an agent's turns (the model's
                // reply takes seconds): every hand-off between processes then wakes an idle core
                double[] idle = alternating(() -> sb.exec(bashTool), () -> run(bare, ws), IDLE_MS);
                idleWarm = idle[0];
                idleBare = idle[1];
            }
            NativeEngine.warmDefault = false;
            try (Sandbox sb = open(ws, env)) {
                cold = median(RUNS, () -> sb.exec(bashTool));
                NativeEngine ne = sb.engine();
                // srt's own wrapped command, run directly: one wrap, spawned again and again, no scans, no Java
                // orchestration around it (what the per-command path costs at the least)
                NativeEngine.Prepared prep = ne.prepare(List.of("true"), new NativeEngine.Attribution(null, null,
                        "bench", "true"), Map.of(), null, false);
                List<String> wrapped = prep.argv();
                Map<String, String> wenv = prep.env();
                srtWrapped = median(RUNS, () -> runWith(wrapped, wenv, ws));
                ne.bridge().cleanup();
                // the srt CLI with the same engine config our bridge was initialised with
                Map<String, Object> cfg = PolicyCompiler.engineConfig(sb.policy(), ne.denyLiterals(), ne.facts(),
                        List.of());
                Path settings = root.resolve("srt-settings.json");
                Files.writeString(settings, new ObjectMapper().writeValueAsString(cfg));
                List<String> cli = List.of(tools.node().toString(), res.cliJs().toString(), "--settings",
                        settings.toString(), "-c", "true");
                srtCli = median(CLI_RUNS, 2, () -> run(cli, ws));
            }
            bareAlone = median(RUNS, () -> run(bare, ws));
            bareTrueMs = median(RUNS, () -> run(bareTrue, ws));
        } finally {
            NativeEngine.warmDefault = warmWas;
        }
        System.out.printf("%nSandboxBenchmark (median ms per sandboxed `true`: the Bash tool's `bash --noprofile --norc -c true` "
                + "on the warm, per-command and bare lines, `true` through srt's shell on srt's lines; %d runs after %d "
                + "warm-up runs each (the bare line paired with the warm one: after %d); srt CLI %d runs after 2; load before: "
                + "%s)%n", RUNS, WARMUP, BLOCK, CLI_RUNS, loadBefore);
        System.out.printf("  JVM: %s%n", jvmVerdict());
        System.out.printf("  Bash tool round trip, warm shell        %8.1f   -> %.2fx bare (goal <= 1.0x), %.1fx faster "
                + "than the srt CLI (goal >= 30x)%n", warm, warm / bareMs, srtCli / warm);
        Collections.sort(shellOnly);
        System.out.printf("    of which the warm shell's own round trip (request to done frame, sweep included) %.0f ms "
                + "-> %.2fx bare; the rest is the host's work around it: the two protected-path scans, moving the "
                + "placeholders in and out, the check after the sweep, the violation collection%n",
                shellOnly.get(shellOnly.size() / 2), shellOnly.get(shellOnly.size() / 2) / bareMs);
        System.out.printf("  ... the same after %,d commands, alternating with bare bwrap + seccomp: %.1f vs %.1f  -> %.2fx "
                + "bare (goal <= 1.0x)%n", STEADY, steadyWarm, steadyBare, steadyWarm / steadyBare);
        System.out.printf("  ... the same with %d ms idle before each command (as between an agent's turns): %.1f vs %.1f  "
                + "-> %.2fx bare (goal <= 1.0x)%n", IDLE_MS, idleWarm, idleBare, idleWarm / idleBare);
        System.out.printf("  Bash tool round trip, per-command (cold) %7.1f   -> %.2fx bare, %.1fx faster than the CLI%n",
                cold, cold / bareMs, srtCli / cold);
        System.out.printf("  srt's own wrapped command, run directly %8.1f%n", srtWrapped);
        System.out.printf("  bare bwrap + apply-seccomp, the same bash -c true %5.1f   (the baseline of the ratios above: "
                + "%d blocks of %d in turn with the warm line's)%n", bareMs, RUNS / BLOCK, BLOCK);
        System.out.printf("  ... the same on its own, after the srt CLI's runs %8.1f   (the warm line is %.2fx this)%n",
                bareAlone, warm / bareAlone);
        System.out.printf("  bare bwrap + apply-seccomp, /bin/true alone %11.1f   (the warm round trip is %.2fx this)%n",
                bareTrueMs, warm / bareTrueMs);
        System.out.printf("  srt CLI  node cli.js --settings F -c true %6.1f%n", srtCli);
        System.out.printf("  sandbox check (%d probes, %s), first in this JVM %8.1f   (goal <= 1000)%n", probes.size(),
                passed ? "PASS" : "FAIL", selfCheckMs);
        System.out.printf("  sandbox check again, median of %d in the warm JVM %7.1f   (goal <= 1000; min %.1f, max %.1f)%n",
                CHECK_RUNS, again.get(CHECK_RUNS / 2), again.get(0), again.get(CHECK_RUNS - 1));
        repoSizeOverhead(root.resolve("sizes"), env);
        System.out.printf("  load after: %s%n", load());
        SrtRuntime.deleteTree(root);
    }

    /**
     * The per-command overhead at 1k / 10k / 100k files, measured by {@code RepoSizeBenchmark.overheadBySize}.
     * Called reflectively, so this benchmark builds on a tree without that entry point; without it the line says so
     * instead of a copy of its generator.
     */
    static void repoSizeOverhead(Path root, HostEnv env) throws Exception {
        java.lang.reflect.Method m;
        try {
            m = RepoSizeBenchmark.class.getDeclaredMethod("overheadBySize", Path.class, HostEnv.class, int[].class,
                    int.class);
        } catch (NoSuchMethodException e) {
            System.out.println("  per-command overhead at 1k / 10k / 100k files: not measured here — "
                    + "RepoSizeBenchmark.overheadBySize (issue-12-flat) is not on this branch yet");
            return;
        }
        Files.createDirectories(root);
        List<?> points = (List<?>) m.invoke(null, root, env, new int[] {1_000, 10_000, 100_000}, 41);
        double base = -1;
        for (Object p : points) {
            int files = (int) p.getClass().getMethod("files").invoke(p);
            double ms = (double) p.getClass().getMethod("commandMs").invoke(p);
            if (base < 0) {
                base = ms;
            }
            System.out.printf("  per-command overhead at %,7d files     %8.1f   (%.2fx of 1k; goal <= 1.2x at 100k)%n",
                    files, ms, ms / base);
        }
    }

    private static List<String> bareArgv(HostTools tools, SrtRuntime.Resolution res, List<String> command) {
        List<String> argv = new ArrayList<>(List.of(tools.bwrap().toString(), "--ro-bind", "/", "/", "--dev", "/dev",
                "--unshare-net", "--unshare-pid", "--unshare-user", "--proc", "/proc", "--",
                res.applySeccomp().toString()));
        argv.addAll(command);
        return argv;
    }

    private static Sandbox open(Path ws, HostEnv env) {
        Sandbox sb = Sandbox.open(TestEngine.config(ws, NetworkMode.NONE, List.of()), EventSink.NONE, env);
        if (!"ready".equals(sb.status().state())) {
            throw new IllegalStateException(sb.status().reason());
        }
        return sb;
    }

    /**
     * Whether this JVM runs with the launcher's flags (installer/mono-agent: the serial collector and the C1 compiler
     * only), as the product does: with the default flags the JIT's compiler threads compete with the engine for a
     * 2-core machine's CPU, and a first check in the JVM took ≈ 1.0–1.1 s instead of ≈ 0.85 s (`mvn -B test -Pbench`
     * sets them; the normal command does not).
     */
    static String jvmVerdict() {
        List<String> mine = java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments();
        List<String> launcher = new ArrayList<>();
        Path script = Path.of(System.getProperty("monoagent.projectDir", "."), "installer", "mono-agent");
        try {
            String exec = Files.readAllLines(script).stream().filter(l -> l.startsWith("exec ")).findFirst().orElse("");
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("-XX:\\S+").matcher(exec);
            while (m.find()) {
                launcher.add(m.group());
            }
        } catch (java.io.IOException e) {
            return "flags " + mine + "; the launcher's flags are unknown (" + script + " not readable)";
        }
        List<String> missing = launcher.stream().filter(f -> !mine.contains(f)).toList();
        return missing.isEmpty() ? "the launcher's flags " + launcher + " (as the product runs)"
                : "NOT the launcher's flags (missing " + missing + "): the figures are not the product's; `mvn -B test "
                + "-Pbench` runs this benchmark with them";
    }

    static String load() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (java.io.IOException e) {
            return "unknown";
        }
    }

    private static void runWith(List<String> cmd, Map<String, String> env, Path cwd) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(cwd.toFile()).redirectErrorStream(true);
        pb.environment().clear();
        pb.environment().putAll(env);
        Process p = pb.start();
        p.getInputStream().readAllBytes();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
        }
    }

    /** Medians of {@code a} and {@code b}, {@link #RUNS} each, run in blocks of {@link #BLOCK} in turn. */
    private static double[] blocks(Op a, Op b) throws Exception {
        List<Double> ta = new ArrayList<>();
        List<Double> tb = new ArrayList<>();
        while (ta.size() < RUNS) {
            for (int i = 0; i < BLOCK; i++) {
                long t = System.nanoTime();
                a.run();
                ta.add((System.nanoTime() - t) / 1e6);
            }
            for (int i = 0; i < BLOCK; i++) {
                long t = System.nanoTime();
                b.run();
                tb.add((System.nanoTime() - t) / 1e6);
            }
        }
        Collections.sort(ta);
        Collections.sort(tb);
        return new double[] {ta.get(ta.size() / 2), tb.get(tb.size() / 2)};
    }

    /** Medians of {@code a} and {@code b} run one of each in turn, {@code idleMs} of sleep before each. */
    private static double[] alternating(Op a, Op b, int idleMs) throws Exception {
        List<Double> ta = new ArrayList<>();
        List<Double> tb = new ArrayList<>();
        for (int i = 0; i < RUNS; i++) {
            Thread.sleep(idleMs);
            long t = System.nanoTime();
            a.run();
            ta.add((System.nanoTime() - t) / 1e6);
            Thread.sleep(idleMs);
            t = System.nanoTime();
            b.run();
            tb.add((System.nanoTime() - t) / 1e6);
        }
        Collections.sort(ta);
        Collections.sort(tb);
        return new double[] {ta.get(RUNS / 2), tb.get(RUNS / 2)};
    }

    private interface Op {
        void run() throws Exception;
    }

    private static double median(int n, Op op) throws Exception {
        return median(n, WARMUP, op);
    }

    private static double median(int n, int warmup, Op op) throws Exception {
        for (int i = 0; i < warmup; i++) {
            op.run();
        }
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
