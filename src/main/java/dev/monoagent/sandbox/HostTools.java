package dev.monoagent.sandbox;

import dev.monoagent.host.Platform;
import dev.monoagent.host.HostEnv;
import dev.monoagent.common.ChildProcesses;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The host programs the engine runs, found once and passed to srt as absolute paths (srt otherwise looks them up with
 * {@code which} and silently falls back when an explicit path is missing). Each must be a regular file after
 * resolving links, executable, not group/world-writable and owned by root or the current user.
 *
 * @param node  Node >= 20.11 (what srt 0.0.78 declares)
 * @param bwrap bubblewrap (Linux)
 * @param socat socat (Linux)
 * @param rg    ripgrep (Linux)
 * @param bash  the shell srt wraps commands with
 * @param nodeVersion e.g. {@code v20.20.2}
 * @param nodeSource  {@code host} (a qualifying Node on PATH, preferred) or {@code managed} (the pinned
 *                    {@link NodeRuntime} in the private cache)
 */
record HostTools(Path node, Path bwrap, Path socat, Path rg, Path bash, String nodeVersion, String nodeSource) {

    /** {@code node: v20.20.2 (host, /usr/bin/node)}: which Node runs the engine and NodeRepl. */
    String nodeLine() {
        return new NodeChoice(node, nodeVersion, nodeSource, List.of()).line();
    }

    /** What was found, or what is missing with the exact command that installs it. */
    sealed interface Found permits Ok, Missing {}

    record Ok(HostTools tools) implements Found {}

    record Missing(String detail, String installHint) implements Found {
        String line() {
            return detail + (installHint == null ? "" : " Install with: " + installHint);
        }
    }

    static final int[] MIN_NODE = {20, 11};

    static Found find(HostEnv env) {
        return find(env, List.of());
    }

    /** As {@link #find(HostEnv)}, never taking a tool from a PATH entry inside {@code untrusted} (agent-writable). */
    static Found find(HostEnv env, java.util.Collection<Path> untrusted) {
        return find(env, untrusted, Platform.current());
    }

    /** As above for {@code platform}'s tool set (Linux: bwrap, socat, rg; macOS: rg; both: node, bash). */
    static Found find(HostEnv env, java.util.Collection<Path> untrusted, Platform platform) {
        List<String> problems = new ArrayList<>();
        List<String> missingPkgs = new ArrayList<>();
        boolean mac = platform == Platform.MACOS;
        boolean linux = platform == Platform.LINUX;
        NodeChoice nc = chooseNode(env, untrusted);
        Path node = nc.node();
        problems.addAll(nc.problems());
        String nodeHint = mac ? "brew install node"
                : "mono-agent sandbox setup (installs the pinned Node " + NodeRuntime.VERSION
                        + " into the private cache), or apt-get install -y nodejs (>= 20.11)";
        Path bwrap = null;
        Path socat = null;
        Path rg = null;
        if (linux) {
            bwrap = resolve(env, untrusted, "bwrap", problems);
            if (bwrap == null) {
                missingPkgs.add("bubblewrap");
            }
            socat = resolve(env, untrusted, "socat", problems);
            if (socat == null) {
                missingPkgs.add("socat");
            }
            rg = resolve(env, untrusted, "rg", problems);
            if (rg == null) {
                missingPkgs.add("ripgrep");
            }
        } else if (mac) {
            rg = resolve(env, untrusted, "rg", problems);
        }
        Path bash = resolve(env, untrusted, "bash", problems);
        if (node == null || bash == null || (linux && (bwrap == null || socat == null || rg == null))
                || (mac && rg == null)) {
            String hint;
            if (node == null) {
                hint = nodeHint;
            } else if (mac) {
                hint = "brew install ripgrep";
            } else if (!missingPkgs.isEmpty()) {
                hint = "apt-get install -y " + String.join(" ", missingPkgs);
            } else {
                hint = null;
            }
            return new Missing(String.join(" ", problems), hint);
        }
        return new Ok(new HostTools(node, bwrap, socat, rg, bash, nc.version(), nc.source()));
    }

    /** The Node to use, or null with the reasons in {@code problems}. */
    record NodeChoice(Path node, String version, String source, List<String> problems) {
        /** The {@code node:} status line. */
        String line() {
            return node != null ? version + " (" + source + ", " + node + ")"
                    : "none usable (" + String.join(" ", problems) + " Run `mono-agent sandbox setup`.)";
        }
    }

    /**
     * The host's own Node when it qualifies, else the pinned managed one. A corrupt managed Node is never replaced by
     * a too-old host one, and nothing else on PATH is considered.
     */
    static NodeChoice chooseNode(HostEnv env, java.util.Collection<Path> untrusted) {
        List<String> problems = new ArrayList<>();
        Path node = resolve(env, untrusted, "node", problems);
        if (node != null) {
            String version = nodeVersion(node);
            if (version != null && versionOk(version)) {
                return new NodeChoice(node, version, "host", List.of());
            }
            problems.add("Node " + (version == null ? "(unknown version)" : version) + " at " + node
                    + " is too old; srt 0.0.78 needs >= 20.11.");
        }
        return switch (new NodeRuntime(env).resolve()) {
            case NodeRuntime.Verified v -> new NodeChoice(v.node(), "v" + NodeRuntime.VERSION, "managed", List.of());
            case NodeRuntime.Corrupt c -> {
                problems.add("Managed Node is corrupt: " + c.detail() + ".");
                yield new NodeChoice(null, null, null, problems);
            }
            case NodeRuntime.Absent a -> new NodeChoice(null, null, null, problems);
        };
    }

    /** Whether the host's own {@code node} (trusted PATH entries only) is >= 20.11, so no managed Node is needed. */
    static boolean hostNodeQualifies(HostEnv env, java.util.Collection<Path> untrusted) {
        Path node = resolve(env, untrusted, "node", new ArrayList<>());
        String v = node == null ? null : nodeVersion(node);
        return v != null && versionOk(v);
    }

    private static Path resolve(HostEnv env, java.util.Collection<Path> untrusted, String name,
                                List<String> problems) {
        Path p = env.which(name, untrusted);
        if (p == null) {
            problems.add(name + " not found on PATH (entries inside the workspace or writable roots are ignored).");
            return null;
        }
        try {
            Path real = p.toRealPath();
            String why = unsafe(real);
            if (why != null) {
                problems.add(name + " at " + real + " " + why + ".");
                return null;
            }
            return real;
        } catch (IOException e) {
            problems.add(name + " at " + p + " cannot be resolved: " + e.getMessage() + ".");
            return null;
        }
    }

    /**
     * The one rule for any host program we start ({@link #find} for the engine's, {@link ToolBinaries} for the
     * tools' {@code rg}/{@code node}): the first trusted PATH hit outside {@code untrusted}, real and safely owned, or
     * null.
     */
    static Path trusted(HostEnv env, java.util.Collection<Path> untrusted, String name) {
        return resolve(env, untrusted, name, new ArrayList<>());
    }

    /** Why a resolved program must not be trusted, or null. */
    static String unsafe(Path real) throws IOException {
        if (!Files.isRegularFile(real, LinkOption.NOFOLLOW_LINKS)) {
            return "is not a regular file";
        }
        if (!Files.isExecutable(real)) {
            return "is not executable";
        }
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(real, LinkOption.NOFOLLOW_LINKS);
        if (perms.contains(PosixFilePermission.GROUP_WRITE) || perms.contains(PosixFilePermission.OTHERS_WRITE)) {
            return "is group- or world-writable";
        }
        int owner = (Integer) Files.getAttribute(real, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        if (owner != 0 && owner != currentUid()) {
            return "is owned by uid " + owner + " (neither root nor the current user)";
        }
        return null;
    }

    static int currentUid() {
        return HostEnv.currentUid();
    }

    static String nodeVersion(Path node) {
        try {
            Process p = ChildProcesses.builder(node.toString(), "--version").redirectErrorStream(true).start();
            p.getOutputStream().close();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return null;
            }
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return p.exitValue() == 0 ? out : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    static boolean versionOk(String v) {
        Matcher m = Pattern.compile("^v?(\\d+)\\.(\\d+)").matcher(v);
        if (!m.find()) {
            return false;
        }
        int major = Integer.parseInt(m.group(1));
        int minor = Integer.parseInt(m.group(2));
        return major > MIN_NODE[0] || (major == MIN_NODE[0] && minor >= MIN_NODE[1]);
    }
}
