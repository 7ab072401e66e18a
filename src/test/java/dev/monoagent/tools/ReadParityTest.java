package dev.monoagent.tools;

import static dev.monoagent.tools.Fixture.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.config.Enums;
import dev.monoagent.config.LoadedConfig;
import dev.monoagent.config.MonoConfig;
import dev.monoagent.host.HostEnv;
import dev.monoagent.sandbox.Sandbox;
import dev.monoagent.sandbox.TestEngine;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The file tools go no further than Bash for reads either: the home and toolchain secrets stay unreadable by every tool
 * whatever {@code readableRoots} says — Bash in the real sandbox (cat, /proc/self/root, python, perl, node, a hard link
 * and a symlink in the workspace), Read (directly and through a workspace symlink), Grep and Glob. For each root shape
 * (the secrets' parents, home itself, {@code /}) the tools agree, and a plain file next to the secrets is read by all
 * of them where a root covers it (so the test cannot pass by everything failing).
 */
class ReadParityTest {
    /** Secret files under a fake home (relative): toolchain credentials, our sign-in store, and the similar ones. */
    static final List<String> SECRETS = List.of(".cargo/credentials.toml", ".cargo/credentials", ".npmrc", ".pypirc",
            ".m2/settings.xml", ".gradle/gradle.properties", ".docker/config.json", ".kube/config",
            ".aws/credentials", ".ssh/id_canary", ".gnupg/private-keys-v1.d/k.key", ".netrc", ".git-credentials",
            ".config/gh/hosts.yml", ".config/git/credentials", ".codex/auth.json", ".config/mono-agent/auth.json",
            ".config/pip/pip.conf", ".config/gcloud/credentials.db", ".azure/msal_token_cache.json",
            ".terraform.d/credentials.tfrc.json", ".vault-token", ".config/hub", ".pgpass", ".my.cnf");

    /** Plain files beside the secrets: readable wherever a root covers them. */
    static final List<String> PLAIN = List.of(".config/plain.txt", ".cargo/env");

    @TempDir
    Path tmp;

    private static String canary(String rel) {
        return "CANARY-" + rel.replaceAll("[^A-Za-z0-9]", "_").toUpperCase();
    }

    private static String plain(String rel) {
        return "PLAINOK-" + rel.replaceAll("[^A-Za-z0-9]", "_").toUpperCase();
    }

    private static LoadedConfig config(Path ws, List<String> roots) {
        MonoConfig.Sandbox s = new MonoConfig.Sandbox(Enums.SandboxMode.NATIVE,
                new MonoConfig.Network(Enums.NetworkMode.NONE, List.of()), roots, List.of("."),
                MonoConfig.Sandbox.DEFAULT_DENY_WRITE, Enums.Fallback.FAIL_CLOSED, false);
        MonoConfig d = MonoConfig.DEFAULTS;
        MonoConfig mc = new MonoConfig(d.agent(), d.runtime(), d.providers(), d.context(), MonoConfig.Tools.DEFAULTS,
                s, d.memory(), d.processJobs(), d.monitors());
        return new LoadedConfig(ws.resolve("mono-agent.config.json"), false, ws, mc, Map.of(), List.of(), Map.of());
    }

    /** Every way a command reads {@code file}: the bytes it printed are what the sandbox let through. */
    private static String readEveryWay(Path file, int i) {
        String s = file.toString();
        return "cat '" + s + "'; cat '/proc/self/root" + s + "'; "
                + "[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'print(open(\"" + s + "\").read())'; "
                + "perl -e 'open F, \"<\", \"" + s + "\"; print <F>'; "
                + "node -e 'try { process.stdout.write(require(\"fs\").readFileSync(\"" + s
                + "\", \"utf8\")) } catch (e) {}'; "
                + "ln '" + s + "' hard-" + i + " 2>/dev/null && cat hard-" + i + "; rm -f hard-" + i + "; "
                + "ln -sfn '" + s + "' lk-" + i + "; cat lk-" + i + "; ";
    }

    @Test
    void everyToolAgreesOnEverySecretForEveryRootShape() throws Exception {
        Path home = Files.createDirectories(tmp.resolve("home")).toRealPath();
        for (String rel : SECRETS) {
            Files.createDirectories(home.resolve(rel).getParent());
            Files.writeString(home.resolve(rel), canary(rel) + "\n");
        }
        for (String rel : PLAIN) {
            Files.writeString(home.resolve(rel), plain(rel) + "\n");
        }
        HostEnv base = TestEngine.env();
        HostEnv env = new HostEnv(base.cacheRoot(), home, base.path(), base.tmpRoot(), base.hostEnv(), List.of());
        List<List<String>> shapes = List.of(
                List.of(".", home.resolve(".config").toString(), home.resolve(".cargo").toString()),
                List.of(".", home.toString()),
                List.of(".", "/"));
        List<String> leaks = new ArrayList<>();
        List<String> disagree = new ArrayList<>();
        int shapeNo = 0;
        for (List<String> roots : shapes) {
            Path ws = Files.createDirectories(tmp.resolve("ws" + shapeNo++)).toRealPath();
            Files.writeString(ws.resolve("README.md"), "# repo\n");
            LoadedConfig cfg = config(ws, roots);
            boolean homeCovered = !roots.contains("/");
            try (Sandbox sb = Sandbox.open(cfg, e -> { }, env); Tools tools = Tools.open(cfg, sb, e -> { })) {
                assertEquals("ready", sb.status().state(), String.join("\n", sb.status().lines()));
                Tools.Run r = tools.run("run-read-parity");
                StringBuilder cmd = new StringBuilder();
                int i = 0;
                for (String rel : SECRETS) {
                    cmd.append(readEveryWay(home.resolve(rel), i++));
                }
                for (String rel : PLAIN) {
                    cmd.append("cat '").append(home.resolve(rel)).append("'; ");
                }
                cmd.append("grep -r CANARY '").append(home).append("'; true");
                String bash = r.call("b", "Bash", json("command", cmd.toString())).text();
                for (String rel : SECRETS) {
                    if (bash.contains(canary(rel))) {
                        leaks.add(roots + " Bash read " + rel);
                    }
                }
                int n = 0;
                for (String rel : SECRETS) {
                    String read = r.call("r" + n, "Read", json("file_path", home.resolve(rel).toString())).text();
                    Files.deleteIfExists(ws.resolve("via-" + n));
                    Files.createSymbolicLink(ws.resolve("via-" + n), home.resolve(rel));
                    String viaLink = r.call("l" + n, "Read", json("file_path", "via-" + n)).text();
                    n++;
                    if (read.contains(canary(rel)) || viaLink.contains(canary(rel))) {
                        leaks.add(roots + " Read read " + rel);
                    }
                }
                List<String> searched = new ArrayList<>(roots.stream().filter(x -> !x.equals(".") && !x.equals("/"))
                        .toList());
                searched.add(home.toString());
                for (String dir : searched) {
                    String grep = r.call("g" + dir.hashCode() + shapeNo, "Grep", json("pattern", "CANARY|PLAINOK", "path", dir,
                            "output_mode", "content")).text();
                    String glob = r.call("gl" + dir.hashCode() + shapeNo, "Glob", json("pattern", "**/*", "path", dir)).text();
                    for (String rel : SECRETS) {
                        if (grep.contains(canary(rel))) {
                            leaks.add(roots + " Grep " + dir + " read " + rel);
                        }
                        if (glob.contains(rel.substring(rel.lastIndexOf('/') + 1))
                                && glob.contains(home.resolve(rel).toString())) {
                            leaks.add(roots + " Glob " + dir + " listed " + rel);
                        }
                    }
                    for (String rel : PLAIN) {
                        // Grep searches only inside a root (it refuses home in the first shape, a safe difference:
                        // a command's grep -r over home finds the plain files in the opened dirs)
                        boolean searchable = roots.stream().filter(x -> !x.equals(".") && !x.equals("/"))
                                .anyMatch(x -> Path.of(dir).startsWith(Path.of(x)));
                        boolean covered = searchable && home.resolve(rel).startsWith(Path.of(dir));
                        if (covered != grep.contains(plain(rel))) {
                            disagree.add(roots + " Grep " + dir + " on plain " + rel + ": " + grep);
                        }
                    }
                }
                for (String rel : PLAIN) {
                    boolean covered = homeCovered;
                    String read = r.call("p" + rel.hashCode(), "Read", json("file_path", home.resolve(rel).toString())).text();
                    if (covered != bash.contains(plain(rel)) || covered != read.contains(plain(rel))) {
                        disagree.add(roots + " plain " + rel + ": Bash " + bash.contains(plain(rel)) + ", Read "
                                + read.contains(plain(rel)) + ", expected " + covered);
                    }
                }
            }
            // nothing a command did carried a secret into the workspace
            try (Stream<Path> files = Files.walk(ws)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    if (Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS) && !f.startsWith(ws.resolve(".mono-agent"))
                            && Files.readString(f).contains("CANARY-")) {
                        leaks.add(roots + " workspace file " + f + " carries a secret");
                    }
                }
            }
        }
        assertEquals(List.of(), leaks, "a secret was readable by some tool");
        assertEquals(List.of(), disagree, "the tools must agree on the plain files");
        assertTrue(shapeNo == 3);
    }
}
