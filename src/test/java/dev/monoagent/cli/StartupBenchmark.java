package dev.monoagent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Start-up with and without the JDK's AOT cache (JEP 483/514, JDK >= 25), measured in one run on the fat jar with the
 * launcher's JVM flags: {@code --version}, {@code status} in a set-up workspace, and the window (headless Monocle,
 * {@code -Dmonoagent.exitWhenShown=true}: JVM start to the first event after the stage is shown). The caches are
 * trained here exactly as {@code installer/package.sh} trains the installed launchers'. Run on demand after
 * {@code mvn -B -q package -DskipTests}:
 * {@code mvn -B -q test -Dtest=StartupBenchmark -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class StartupBenchmark {
    private static final int RUNS = 7;
    private static final Pattern SHOWN = Pattern.compile("window interactive after (\\d+) ms");

    @TempDir
    Path tmp;

    @Test
    void startupWithAndWithoutTheAotCache() throws Exception {
        int feature = Runtime.version().feature();
        assertTrue(feature >= 25, "the AOT cache needs JDK >= 25; this JVM is " + feature);
        Path jar = Path.of(System.getProperty("monoagent.projectDir", ".")).resolve("target/mono-agent.jar");
        assertTrue(Files.isRegularFile(jar), "build the fat jar first: mvn -B -q package -DskipTests");
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path monocle = Path.of(Class.forName("com.sun.glass.ui.monocle.MonocleApplication").getProtectionDomain()
                .getCodeSource().getLocation().toURI());
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Path home = Files.createDirectories(tmp.resolve("home"));
        String cp = jar + File.pathSeparator + monocle;
        List<String> base = List.of(java.toString(), "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Dglass.platform=Monocle", "-Dmonocle.platform=Headless", "-Dprism.order=sw", "-Dprism.text=t2k",
                "-Dheadless.geometry=1280x800-32", "-Dmonoagent.exitWhenShown=true", "-cp", cp,
                "dev.monoagent.cli.Main");
        run(ws, home, base, null, "init", "--preset", "code-sandbox", "--model", "openai-codex:gpt-5.6-terra");

        Path cliAot = tmp.resolve("cli.aot");
        Path winAot = tmp.resolve("window.aot");
        run(ws, home, base, "-XX:AOTCacheOutput=" + cliAot, "status");
        run(ws, home, base, "-XX:AOTCacheOutput=" + winAot, "workbench", ws.toString());
        assertTrue(Files.size(cliAot) > 0 && Files.size(winAot) > 0, "training wrote no cache");

        String load = uptime();
        List<String> lines = new ArrayList<>();
        lines.add("Start-up, median of " + RUNS + " (load: " + load + ")");
        for (String[] c : new String[][] {{"--version"}, {"status"}}) {
            long[] plain = times(ws, home, base, null, c);
            long[] cached = times(ws, home, base, "-XX:AOTCache=" + cliAot, c);
            lines.add(row(String.join(" ", c), median(plain), median(cached)));
        }
        long[] winPlain = new long[RUNS];
        long[] winCached = new long[RUNS];
        long[] winWallPlain = new long[RUNS];
        long[] winWallCached = new long[RUNS];
        for (int i = 0; i < RUNS; i++) {
            long t0 = System.nanoTime();
            winPlain[i] = shown(run(ws, home, base, null, "workbench", ws.toString()));
            winWallPlain[i] = (System.nanoTime() - t0) / 1_000_000;
            t0 = System.nanoTime();
            winCached[i] = shown(run(ws, home, base, "-XX:AOTCache=" + winAot, "workbench", ws.toString()));
            winWallCached[i] = (System.nanoTime() - t0) / 1_000_000;
        }
        lines.add(row("window interactive (JVM uptime)", median(winPlain), median(winCached)));
        lines.add(row("window process wall time", median(winWallPlain), median(winWallCached)));
        lines.add("AOT cache sizes: CLI " + Files.size(cliAot) / (1 << 20) + " MB, window "
                + Files.size(winAot) / (1 << 20) + " MB");
        lines.forEach(System.out::println);
    }

    private static String row(String what, long plain, long cached) {
        return String.format("  %-34s without %5d ms   with AOT cache %5d ms   (%.2fx)", what, plain, cached,
                plain / (double) Math.max(1, cached));
    }

    private long[] times(Path ws, Path home, List<String> base, String flag, String... args) throws Exception {
        long[] t = new long[RUNS];
        for (int i = 0; i < RUNS; i++) {
            long t0 = System.nanoTime();
            run(ws, home, base, flag, args);
            t[i] = (System.nanoTime() - t0) / 1_000_000;
        }
        return t;
    }

    private static long median(long[] v) {
        long[] c = v.clone();
        Arrays.sort(c);
        return c[c.length / 2];
    }

    private static long shown(String out) {
        Matcher m = SHOWN.matcher(out);
        assertTrue(m.find(), "no start-up figure in: " + out);
        return Long.parseLong(m.group(1));
    }

    private static String run(Path ws, Path home, List<String> base, String flag, String... args)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(base.subList(0, 1));
        if (flag != null) {
            cmd.add(flag);
        }
        cmd.addAll(base.subList(1, base.size()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(ws.toFile()).redirectErrorStream(true);
        pb.environment().put("HOME", home.toString());
        pb.environment().put("XDG_CACHE_HOME", home.resolve(".cache").toString());
        pb.environment().put("XDG_CONFIG_HOME", home.resolve(".config").toString());
        pb.environment().remove("DISPLAY");
        Process p = pb.start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "timed out: " + cmd);
        assertEquals(0, p.exitValue(), String.join(" ", cmd) + "\n" + out);
        if (flag != null && flag.startsWith("-XX:AOTCache=")) {
            // a run that uses the cache says nothing about it unless the cache could not be used
            assertTrue(!out.contains("][aot"), "the AOT cache was refused: " + out);
        }
        return out;
    }

    private static String uptime() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (IOException e) {
            return "unknown";
        }
    }
}
