package dev.monoagent.sandbox;

import dev.monoagent.host.HostEnv;
import dev.monoagent.common.EventSink;
import dev.monoagent.config.Enums.NetworkMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Per-command cost of a sandboxed {@code true} at 1k / 10k / 100k workspace files, and the
 * share of it that is the protected-path scan ({@link ProtectedScan#snapshot}, run before and after each command:
 * from the watch index, and the full walk it replaces when the index cannot be trusted);
 * plus the cost of the toolchain roots and secret denies on the per-command path: the same command
 * with a PATH holding every manager's layout vs the system dirs only. Run on demand:
 * {@code mvn -B -q test -Dtest=RepoSizeBenchmark -Dsurefire.failIfNoSpecifiedTests=false} (add
 * {@code -Dsurefire.extraArgs=-Dbench.toolchainsOnly=true} for the toolchain line alone). Prints; asserts nothing.
 */
public class RepoSizeBenchmark {
    private static final int RUNS = 21;

    /** One repo size's medians: a sandboxed {@code true} and one protected-path snapshot (index, and full walk). */
    public record SizePoint(int files, double commandMs, double scanMs, double fullWalkMs) {}

    /** The workspace sizes the per-command overhead is judged at. */
    public static final int[] SIZES = {1_000, 10_000, 100_000};

    /**
     * Per-command overhead at each size in {@code sizes}: a workspace of that many files under {@code root}, one
     * sandbox each, {@code runs} commands (median). Public for {@code SandboxBenchmark}, which prints the same line.
     */
    public static List<SizePoint> overheadBySize(Path root, HostEnv env, int[] sizes, int runs) throws Exception {
        Path rg = ((HostTools.Ok) HostTools.find(env)).tools().rg();
        List<Path> wss = new ArrayList<>();
        List<Sandbox> sbs = new ArrayList<>();
        try {
            for (int n : sizes) {
                Path ws = Files.createDirectories(root.resolve("ws-" + n));
                populate(ws, n);
                wss.add(ws);
                Sandbox sb = Sandbox.open(TestEngine.config(ws, NetworkMode.NONE, List.of()), EventSink.NONE, env);
                sbs.add(sb);
                ready(sb);
            }
            // all sizes open at once and their commands interleaved, so a load swing on this shared machine hits
            // every size alike (the ratio is what the goal is about)
            List<List<Double>> cmd = new ArrayList<>();
            for (int k = 0; k < sizes.length; k++) {
                sbs.get(k).exec(trueIn(wss.get(k)));
                cmd.add(new ArrayList<>());
            }
            for (int i = 0; i < runs; i++) {
                // the starting size rotates too: the first command of a round pays for the others' background work
                for (int j = 0; j < sizes.length; j++) {
                    int k = (i + j) % sizes.length;
                    Sandbox sb = sbs.get(k);
                    Path ws = wss.get(k);
                    cmd.get(k).add(timed(() -> sb.exec(trueIn(ws))));
                }
            }
            List<SizePoint> out = new ArrayList<>();
            for (int k = 0; k < sizes.length; k++) {
                NativeEngine ne = sbs.get(k).engine();
                Policy policy = sbs.get(k).policy();
                double scan = median(() -> ne.scan(), runs);
                double walk = median(() -> ProtectedScan.snapshot(policy, ne.denyLiterals(), rg), runs);
                out.add(new SizePoint(sizes[k], mid(cmd.get(k)), scan, walk));
            }
            return out;
        } finally {
            sbs.forEach(Sandbox::close);
        }
    }

    /** The machine's load averages, to print beside every timing. */
    public static String load() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (java.io.IOException e) {
            return "unknown";
        }
    }

    @Test
    void benchmark() throws Exception {
        HostEnv env = TestEngine.env();
        boolean onlyToolchains = Boolean.getBoolean("bench.toolchainsOnly");
        Path root = Files.createTempDirectory("mono-agent-repo-bench-").toRealPath();
        try {
            System.out.printf("%nRepoSizeBenchmark (median ms, %d runs each; load %s)%n", RUNS, load());
            List<SizePoint> pts = onlyToolchains ? List.of() : overheadBySize(root, env, SIZES, RUNS);
            for (SizePoint pt : pts) {
                System.out.printf("  %,7d files: command %7.1f (%.2fx of 1k), one scan %6.1f (full walk %6.1f)%n",
                        pt.files(), pt.commandMs(), pt.commandMs() / pts.get(0).commandMs(), pt.scanMs(),
                        pt.fullWalkMs());
            }
            if (!pts.isEmpty()) {
                System.out.printf("  ratio 100k/1k: %.2fx (goal <= 1.2x); load after %s%n",
                        pts.get(pts.size() - 1).commandMs() / pts.get(0).commandMs(), load());
            }
            Path ws = Files.createDirectories(root.resolve("ws-tc"));
            ToolchainHome th = new ToolchainHome(root.resolve("home"),
                    ((HostTools.Ok) HostTools.find(env)).tools().node());
            // both sandboxes open at once and the commands alternate, so load swings hit both sides alike
            List<Double> plainMs = new ArrayList<>();
            List<Double> tcMs = new ArrayList<>();
            try (Sandbox plainSb = Sandbox.open(TestEngine.config(ws, NetworkMode.NONE, List.of()), EventSink.NONE,
                    env.withHome(th.home));
                 Sandbox tcSb = Sandbox.open(TestEngine.config(ws, NetworkMode.NONE, List.of()), EventSink.NONE,
                         th.env(env))) {
                ready(plainSb);
                ready(tcSb);
                plainSb.exec(trueIn(ws));
                tcSb.exec(trueIn(ws));
                for (int i = 0; i < RUNS; i++) {
                    plainMs.add(timed(() -> plainSb.exec(trueIn(ws))));
                    tcMs.add(timed(() -> tcSb.exec(trueIn(ws))));
                }
            }
            double plain = mid(plainMs);
            double withTc = mid(tcMs);
            long t = System.nanoTime();
            Toolchains.Plan plan = Toolchains.plan(th.env(env), List.of(ws));
            double planMs = (System.nanoTime() - t) / 1e6;
            System.out.printf("  toolchains: command with 9 managers on PATH %.1f vs system PATH %.1f (%.2fx); plan "
                    + "%.1f ms once per engine start (%d roots, %d secret denies)%n", withTc, plain, withTc / plain,
                    planMs, plan.roots().size(), plan.secrets().size());
        } finally {
            SrtRuntime.deleteTree(root);
        }
    }

    private static CommandSpec trueIn(Path ws) {
        return new CommandSpec(List.of("true"), ws, Duration.ofSeconds(30), null, Map.of(), null, null, "bench",
                1 << 20);
    }

    private static void ready(Sandbox sb) {
        if (!"ready".equals(sb.status().state())) {
            throw new IllegalStateException(sb.status().reason());
        }
    }

    /** {@code n} small files, 100 per dir, in a two-level tree (a monorepo's shape, not one flat dir). */
    public static void populate(Path ws, int n) throws Exception {
        for (int i = 0; i < n; i++) {
            Path dir = ws.resolve("pkg" + (i / 10_000)).resolve("mod" + (i / 100 % 100));
            if (i % 100 == 0) {
                Files.createDirectories(dir);
            }
            Files.writeString(dir.resolve("f" + i + ".txt"), "x\n");
        }
    }

    /** A step to time (public so callers can pass their own). */
    public interface Op {
        void run() throws Exception;
    }

    private static double timed(Op op) throws Exception {
        long t = System.nanoTime();
        op.run();
        return (System.nanoTime() - t) / 1e6;
    }

    private static double mid(List<Double> ms) {
        List<Double> sorted = new ArrayList<>(ms);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }

    private static double median(Op op, int runs) throws Exception {
        op.run();
        List<Double> ms = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
            long t = System.nanoTime();
            op.run();
            ms.add((System.nanoTime() - t) / 1e6);
        }
        Collections.sort(ms);
        return ms.get(runs / 2);
    }
}
