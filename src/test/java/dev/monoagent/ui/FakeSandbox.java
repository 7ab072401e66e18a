package dev.monoagent.ui;

import dev.monoagent.common.Event;
import dev.monoagent.common.EventSink;
import dev.monoagent.common.ProbeResult;
import dev.monoagent.common.Violation;
import dev.monoagent.sandbox.ExecOutcome;
import dev.monoagent.sandbox.Policy;
import dev.monoagent.ui.port.CheckReport;
import dev.monoagent.ui.port.PolicyFactory;
import dev.monoagent.ui.port.PortResult;
import dev.monoagent.ui.port.ToolRunner;
import dev.monoagent.ui.port.SandboxPort;
import dev.monoagent.ui.port.SandboxSnapshot;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A scripted stand-in for the engine and the run's REPL, for view-model and widget tests until the real facade is
 * wired: ten passing probes, {@code >>} / {@code >} into a protected path is refused with an observed violation,
 * {@code echo} prints, {@code seq N} floods, and a tiny REPL keeps {@code const x = <int>} bindings and adds.
 */
public final class FakeSandbox implements SandboxPort, ToolRunner {
    public static final List<String> PROBES = List.of("engine", "denied-write", "allowed-write",
            "outside-write-denied", "own-netns", "external-connect-blocked", "loopback-works", "proxy-denies",
            "af-unix-refused", "violation-feed");

    private final Policy policy;
    private final List<EventSink> sinks = new CopyOnWriteArrayList<>();
    private final Map<String, Long> replVars = new HashMap<>();
    private volatile boolean available = true;
    private volatile Instant verified;
    private volatile CheckReport recorded;

    public FakeSandbox(Path workspace) {
        this.policy = PolicyFactory.defaults(workspace);
    }

    /** Makes the engine (un)available, as if it were removed or corrupted; emits a state change. */
    public void setAvailable(boolean ok) {
        available = ok;
        Event e = new Event.SandboxStateChanged(Instant.now(), ok ? dev.monoagent.common.Effective.NATIVE : dev.monoagent.common.Effective.BLOCKED,
                ok ? null : "sandbox_unavailable: srt engine missing");
        sinks.forEach(s -> s.accept(e));
    }

    /** Publishes an engine event (as the real engine's feed does, e.g. allowed host-loopback traffic). */
    public void publish(Event e) {
        sinks.forEach(s -> s.accept(e));
    }

    @Override
    public Policy policy() {
        return policy;
    }

    @Override
    public SandboxSnapshot snapshot() {
        SandboxSnapshot base = PolicyFactory.unproven(policy, available ? dev.monoagent.common.Effective.NATIVE : dev.monoagent.common.Effective.BLOCKED,
                available ? null : "sandbox_unavailable: srt engine missing", available ? "present" : "absent");
        return new SandboxSnapshot(base.effective(), base.reason(), base.engine(), "managed", "0.0.26",
                "sha256:4f2a…9c1e", "integrity-verified", "~/.cache/mono-agent/tools/srt/0.0.26",
                base.readableRoots(), base.writableRoots(), base.protectedPaths(), base.network(), base.grants(),
                base.fallback(), false, available ? verified : null);
    }

    /** What {@link #lastCheck()} answers, as if a check had been recorded in the private cache. */
    public void record(CheckReport r) {
        recorded = r;
        verified = r.passed() ? r.at() : null;
    }

    /** A recorded check of every probe at {@code at}; {@code failing} names a probe that failed, or null. */
    public static CheckReport report(Instant at, String failing) {
        List<ProbeResult> out = new ArrayList<>();
        for (String id : PROBES) {
            out.add(new ProbeResult(id, !id.equals(failing), id.equals(failing) ? id + " failed." : detail(id), 7));
        }
        return new CheckReport(failing == null, out, at);
    }

    @Override
    public CheckReport lastCheck() {
        return recorded;
    }

    @Override
    public CheckReport check(Consumer<ProbeResult> onProbe) {
        List<ProbeResult> out = new ArrayList<>();
        for (String id : PROBES) {
            boolean ok = available || !id.equals("engine");
            ProbeResult r = new ProbeResult(id, available && ok, available ? detail(id) : "SRT not found.", 3);
            out.add(r);
            onProbe.accept(r);
            if (!available) {
                break;
            }
        }
        CheckReport rep = new CheckReport(out.stream().allMatch(ProbeResult::passed), out, Instant.now());
        if (rep.passed()) {
            verified = rep.at();
        }
        recorded = rep;
        return rep;
    }

    private static String detail(String id) {
        return switch (id) {
            case "engine" -> "SRT initialized.";
            case "outside-write-denied" -> "Outside write denied.";
            default -> id.replace('-', ' ') + " proven.";
        };
    }

    @Override
    public CheckReport setup(Consumer<String> onStep, Consumer<ProbeResult> onProbe) {
        onStep.accept("Installing srt 0.0.26 into the private cache…");
        return check(onProbe);
    }

    private static final Pattern REDIRECT = Pattern.compile(".*>>?\\s*(\\S+)\\s*$");

    @Override
    public ExecOutcome bash(String command, String runId, String callId, Consumer<String> onOutput) {
        if (!available) {
            return ExecOutcome.PrepareFailed.unavailable("srt engine missing");
        }
        Matcher m = REDIRECT.matcher(command);
        if (m.matches() && policy.isProtected(policy.workspace().resolve(m.group(1)))) {
            String target = m.group(1);
            Violation v = new Violation(Instant.now(), Violation.Tier.OBSERVED, Violation.Kind.WRITE, runId, callId,
                    "Bash", command, target, "write to protected path denied (EROFS)");
            return new ExecOutcome.Completed(1, 0, "", "bash: " + target + ": Read-only file system\n", false,
                    false, List.of(v), 4, dev.monoagent.common.Effective.NATIVE);
        }
        if (command.startsWith("seq ")) {
            int n = Integer.parseInt(command.substring(4).trim());
            StringBuilder sb = new StringBuilder();
            for (int i = 1; i <= n; i++) {
                sb.append(i).append('\n');
                if (sb.length() > 64 * 1024) {
                    onOutput.accept(sb.toString());
                    sb.setLength(0);
                }
            }
            onOutput.accept(sb.toString());
            return new ExecOutcome.Completed(0, 0, "", "", false, false, List.of(), 5, dev.monoagent.common.Effective.NATIVE);
        }
        if (command.startsWith("echo ")) {
            return new ExecOutcome.Completed(0, 0, command.substring(5) + "\n", "", false, false, List.of(), 2,
                    dev.monoagent.common.Effective.NATIVE);
        }
        return new ExecOutcome.Completed(127, 0, "", "bash: " + command.split(" ")[0] + ": command not found\n",
                false, false, List.of(), 2, dev.monoagent.common.Effective.NATIVE);
    }

    @Override
    public void subscribe(EventSink sink) {
        sinks.add(sink);
    }

    private static final Pattern CONST = Pattern.compile("\\s*(?:const|let|var)\\s+(\\w+)\\s*=\\s*(-?\\d+)\\s*;?\\s*");
    private static final Pattern SUM = Pattern.compile("\\s*(\\w+)\\s*\\+\\s*(\\w+)\\s*;?\\s*");

    @Override
    public PortResult call(String runId, String callId, String tool, String argsJson, Consumer<String> onOutput) {
        com.fasterxml.jackson.databind.JsonNode args;
        try {
            args = new com.fasterxml.jackson.databind.ObjectMapper().readTree(argsJson);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            return new PortResult(dev.monoagent.common.ToolOutcome.INVALID_ARGUMENTS, e.getMessage(), List.of(), 0);
        }
        return switch (tool) {
            case "Bash" -> PortResult.of(bash(args.path("command").asText(), runId, callId, onOutput));
            case "NodeRepl" -> eval(args.path("code").asText());
            default -> new PortResult(dev.monoagent.common.ToolOutcome.TOOL_NOT_ALLOWED, "unknown tool " + tool, List.of(), 0);
        };
    }

    @Override
    public synchronized void endRun(String runId) {
        replVars.clear();
    }

    @Override
    public boolean reportsEvents() {
        return false;
    }

    synchronized PortResult eval(String code) {
        if (!available) {
            return new PortResult(dev.monoagent.common.ToolOutcome.SANDBOX_PREPARE_FAILED, ExecOutcome.FAIL_CLOSED_TEXT, List.of(), 0);
        }
        Matcher c = CONST.matcher(code);
        if (c.matches()) {
            replVars.put(c.group(1), Long.parseLong(c.group(2)));
            return new PortResult(dev.monoagent.common.ToolOutcome.OK, "undefined", List.of(), 1);
        }
        Matcher s = SUM.matcher(code);
        if (s.matches()) {
            Long a = value(s.group(1));
            Long b = value(s.group(2));
            if (a == null || b == null) {
                String missing = a == null ? s.group(1) : s.group(2);
                return new PortResult(dev.monoagent.common.ToolOutcome.FAILED, "Uncaught ReferenceError: " + missing + " is not defined", List.of(),
                        1);
            }
            return new PortResult(dev.monoagent.common.ToolOutcome.OK, String.valueOf(a + b), List.of(), 1);
        }
        return new PortResult(dev.monoagent.common.ToolOutcome.OK, "undefined", List.of(), 1);
    }

    private Long value(String token) {
        return token.matches("-?\\d+") ? Long.valueOf(token) : replVars.get(token);
    }

}
