package dev.monoagent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code mono-agent --version} and {@code status} as separate JVMs with the launcher's flags, against two baselines
 * in the same run: the JVM floor (a main that only exits) and {@code --version} through the whole command tree (how
 * every command was parsed before the tree was built per command). Interleaved, medians, with the load. Run on demand
 * after {@code mvn -B -q package -DskipTests}:
 * {@code mvn -B -q test -Dtest=CliStartBenchmark -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class CliStartBenchmark {
    private static final int RUNS = 9;

    @TempDir
    Path ws;

    /** The JVM floor: start, load this class, exit. */
    static final class Floor {
        public static void main(String[] args) {
            System.exit(0);
        }
    }

    /** {@code --version} parsed with every command in the tree. */
    static final class WholeTreeVersion {
        public static void main(String[] args) {
            PrintWriter out = new PrintWriter(System.out, true);
            CliContext ctx = new CliContext(out, new PrintWriter(System.err, true), Path.of("").toAbsolutePath(),
                    System.getenv(), false);
            System.exit(MonoAgentCli.commandLine(ctx).execute("--version"));
        }
    }

    @Test
    void cliStartAgainstTheFloorAndTheWholeTree() throws Exception {
        Path jar = Path.of(System.getProperty("monoagent.projectDir", ".")).resolve("target/mono-agent.jar");
        assertTrue(Files.isRegularFile(jar), "build the fat jar first: mvn -B -q package -DskipTests");
        Path tests = Path.of(CliStartBenchmark.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cp = jar + File.pathSeparator + tests;
        List<String> flags = List.of(java, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", cp);
        Map<String, List<String>> cases = new LinkedHashMap<>();
        cases.put("JVM floor", List.of(Floor.class.getName()));
        cases.put("--version, whole tree (before)", List.of(WholeTreeVersion.class.getName()));
        cases.put("--version", List.of("dev.monoagent.cli.Main", "--version"));
        cases.put("status", List.of("dev.monoagent.cli.Main", "status"));
        Map<String, List<Long>> ms = new LinkedHashMap<>();
        cases.keySet().forEach(k -> ms.put(k, new ArrayList<>()));
        String load = Files.readString(Path.of("/proc/loadavg")).trim();
        for (int i = 0; i < RUNS + 1; i++) {
            for (var c : cases.entrySet()) {
                List<String> argv = new ArrayList<>(flags);
                argv.addAll(c.getValue());
                long t0 = System.nanoTime();
                Process p = new ProcessBuilder(argv).directory(ws.toFile()).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                assertTrue(p.waitFor(60, TimeUnit.SECONDS), c.getKey());
                long took = (System.nanoTime() - t0) / 1_000_000;
                if (!c.getKey().equals("status")) {
                    assertEquals(0, p.exitValue(), c.getKey());
                }
                if (i > 0) { // the first round warms the page cache
                    ms.get(c.getKey()).add(took);
                }
            }
        }
        long floor = median(ms.get("JVM floor"));
        System.out.println("CLI start, median of " + RUNS + " (load before: " + load + "; after: "
                + Files.readString(Path.of("/proc/loadavg")).trim() + ")");
        for (var e : ms.entrySet()) {
            long m = median(e.getValue());
            System.out.printf("  %-32s %5d ms  (%.2fx the floor)%n", e.getKey(), m, (double) m / floor);
        }
        long before = median(ms.get("--version, whole tree (before)"));
        long after = median(ms.get("--version"));
        System.out.printf("  --version: %.2fx faster than through the whole tree%n", (double) before / after);
    }

    private static long median(List<Long> xs) {
        List<Long> s = new ArrayList<>(xs);
        s.sort(null);
        return s.get(s.size() / 2);
    }
}
