package dev.monoagent.config;

import dev.monoagent.config.Enums.Fallback;
import dev.monoagent.config.Enums.SandboxMode;
import dev.monoagent.config.TrustItem.Kind;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * Which workspace settings may not take effect on their own: a pure comparison of the configuration the reviewer's
 * sources give ({@code reviewer}: defaults, user-level config, exported env, a config file outside the workspace) with
 * the one the workspace's sources add ({@code full}). A workspace value that is equal or stricter passes; one that
 * widens the sandbox, sends a credential or data to an endpoint, turns on a feature or raises a budget is a
 * {@link Change}: the key paths to put back to the reviewer's value unless the reviewer accepted it.
 */
final class TrustRules {
    private TrustRules() {}

    /**
     * One workspace setting that needs the reviewer.
     *
     * @param revert the key paths whose workspace value is dropped while this is not accepted
     */
    record Change(String key, String value, Kind kind, List<String> revert) {}

    /**
     * The limits on what a run may spend (model turns, tokens per request, retries and their waits, how long a request
     * may take, recalled memory, background work and its output), by key path. A workspace may lower each one; a
     * higher value costs the reviewer money or time and waits.
     */
    static final Map<String, java.util.function.ToLongFunction<MonoConfig>> BUDGETS = budgets();

    private static Map<String, java.util.function.ToLongFunction<MonoConfig>> budgets() {
        Map<String, java.util.function.ToLongFunction<MonoConfig>> b = new java.util.LinkedHashMap<>();
        b.put("agent.maxTurns", c -> c.agent().maxTurns());
        b.put("context.maxTokens", c -> c.context().maxTokens());
        b.put("context.reserveTokens", c -> c.context().reserveTokens()); // the answer's token cap
        b.put("runtime.requestTimeoutMs", c -> c.runtime().requestTimeoutMs());
        b.put("runtime.retry.primaryAttempts", c -> c.runtime().retry().primaryAttempts());
        b.put("runtime.retry.backoffMs", c -> c.runtime().retry().backoffMs());
        b.put("runtime.retry.maxBackoffMs", c -> c.runtime().retry().maxBackoffMs());
        b.put("memory.maxBytes", c -> c.memory().maxBytes());
        b.put("memory.embeddings.timeoutMs", c -> c.memory().embeddings().timeoutMs());
        b.put("processJobs.maxConcurrent", c -> c.processJobs().maxConcurrent());
        b.put("processJobs.maxRuntimeMs", c -> c.processJobs().maxRuntimeMs());
        b.put("processJobs.maxOutputBytes", c -> c.processJobs().maxOutputBytes());
        b.put("monitors.maxActive", c -> c.monitors().maxActive());
        b.put("monitors.maxBatchLines", c -> c.monitors().maxBatchLines());
        return java.util.Collections.unmodifiableMap(b);
    }

    static List<Change> changes(MonoConfig reviewer, MonoConfig full, Function<String, Path> resolve) {
        List<Change> out = new ArrayList<>();
        MonoConfig.Sandbox r = reviewer.sandbox();
        MonoConfig.Sandbox f = full.sandbox();
        if (f.mode() == SandboxMode.OFF && r.mode() != SandboxMode.OFF) {
            out.add(new Change("sandbox.mode", "off", Kind.WIDENS_SANDBOX, List.of("sandbox.mode")));
        }
        if ((f.fallback() == Fallback.UNSAFE_HOST_PROCESS && r.fallback() != Fallback.UNSAFE_HOST_PROCESS)
                || (f.unsafeAllowHostProcess() && !r.unsafeAllowHostProcess())) {
            out.add(new Change("sandbox.fallback", f.fallback().wire() + " (unsafeAllowHostProcess "
                    + f.unsafeAllowHostProcess() + ")", Kind.WIDENS_SANDBOX,
                    List.of("sandbox.fallback", "sandbox.unsafeAllowHostProcess")));
        }
        List<String> wider = new ArrayList<>(networkGrants(f.network()));
        wider.removeIf(n -> networkGrants(r.network()).stream().anyMatch(o -> covers(o, n)));
        if (!wider.isEmpty()) {
            out.add(new Change("sandbox.network", describe(f.network()), Kind.WIDENS_SANDBOX,
                    List.of("sandbox.network")));
        }
        roots("sandbox.readableRoots", r.readableRoots(), f.readableRoots(), resolve, out);
        roots("sandbox.writableRoots", r.writableRoots(), f.writableRoots(), resolve, out);
        if (!new HashSet<>(f.denyWrite()).containsAll(r.denyWrite())) {
            List<String> gone = r.denyWrite().stream().filter(g -> !f.denyWrite().contains(g)).toList();
            out.add(new Change("sandbox.denyWrite", String.valueOf(f.denyWrite()) + " (drops " + gone + ")",
                    Kind.WIDENS_SANDBOX, List.of("sandbox.denyWrite")));
        }
        MonoConfig.Tools rt = reviewer.tools();
        MonoConfig.Tools ft = full.tools();
        boolean rAll = rt.allowedTools().contains("*");
        if (!rAll && !lower(rt.allowedTools()).containsAll(lower(ft.allowedTools()))) {
            out.add(new Change("tools.allowedTools", String.valueOf(ft.allowedTools()), Kind.WIDENS_SANDBOX,
                    List.of("tools.allowedTools")));
        }
        if (!lower(ft.disallowedTools()).containsAll(lower(rt.disallowedTools()))) {
            out.add(new Change("tools.disallowedTools", String.valueOf(ft.disallowedTools()), Kind.WIDENS_SANDBOX,
                    List.of("tools.disallowedTools")));
        }
        for (Map.Entry<String, MonoConfig.Provider> e : full.providers().entrySet()) {
            String id = e.getKey();
            MonoConfig.Provider fp = e.getValue();
            MonoConfig.Provider rp = reviewer.providers().get(id);
            boolean newEntry = rp == null;
            MonoConfig.Provider base = newEntry ? MonoConfig.Provider.DEFAULTS : rp;
            if (!Objects.equals(fp.baseUrl(), base.baseUrl())) {
                out.add(new Change("providers." + id + ".baseUrl", String.valueOf(fp.baseUrl()),
                        Kind.SENDS_CREDENTIAL, List.of(newEntry ? "providers." + id : "providers." + id + ".baseUrl")));
            }
            if (!Objects.equals(fp.apiKeyEnv(), base.apiKeyEnv())) {
                out.add(new Change("providers." + id + ".apiKeyEnv", String.valueOf(fp.apiKeyEnv()),
                        Kind.SENDS_CREDENTIAL, List.of(newEntry ? "providers." + id : "providers." + id + ".apiKeyEnv")));
            }
            if (!newEntry && !Objects.equals(fp.api(), base.api())) {
                // another wire to the same endpoint carries the key another way (a header the endpoint logs)
                out.add(new Change("providers." + id + ".api", String.valueOf(fp.api()), Kind.SENDS_CREDENTIAL,
                        List.of("providers." + id + ".api")));
            }
        }
        String rm = reviewer.runtime().model();
        String fm = full.runtime().model();
        if (fm != null && !Objects.equals(provider(fm), rm == null ? null : provider(rm))) {
            // another provider is another endpoint: the session (and that provider's key) would go there
            out.add(new Change("runtime.model", fm + " (provider " + provider(fm) + ")", Kind.SENDS_CREDENTIAL,
                    List.of("runtime.model")));
        } else if (fm != null && rm != null && !fm.equals(rm)) {
            // the same provider's other model may cost many times more per turn
            out.add(new Change("runtime.model", fm + " (yours: " + rm + ")", Kind.RAISES_SPEND,
                    List.of("runtime.model")));
        }
        for (String tool : List.of("rememberTool", "recallTool")) {
            boolean mine = tool.equals("rememberTool") ? reviewer.memory().rememberTool().enabled()
                    : reviewer.memory().recallTool().enabled();
            boolean theirs = tool.equals("rememberTool") ? full.memory().rememberTool().enabled()
                    : full.memory().recallTool().enabled();
            if (theirs && !mine) {
                // a tool you turned off; Remember writes what later sessions recall
                out.add(new Change("memory." + tool + ".enabled", "true", Kind.WIDENS_SANDBOX,
                        List.of("memory." + tool)));
            }
        }
        MonoConfig.Embeddings re = reviewer.memory().embeddings();
        MonoConfig.Embeddings fe = full.memory().embeddings();
        if (!Objects.equals(re.provider(), fe.provider()) || !Objects.equals(re.endpoint(), fe.endpoint())
                || !Objects.equals(re.apiKeyEnv(), fe.apiKeyEnv())) {
            String key = fe.apiKeyEnv() != null ? fe.apiKeyEnv() : "openai".equals(fe.provider()) ? "OPENAI_API_KEY" : null;
            out.add(new Change("memory.embeddings", fe.provider()
                    + (fe.endpoint() == null ? "" : " at " + fe.endpoint())
                    + (key == null ? "" : " with key " + key),
                    Kind.SENDS_CREDENTIAL, List.of("memory.embeddings")));
        }
        if (!Objects.equals(reviewer.memory().path(), full.memory().path())) {
            out.add(new Change("memory.path", full.memory().path(), Kind.INSTRUCTIONS, List.of("memory.path")));
        }
        if (full.processJobs().enabled() && !reviewer.processJobs().enabled()) {
            out.add(new Change("processJobs.enabled", "true", Kind.WIDENS_SANDBOX, List.of("processJobs.enabled")));
        }
        if (full.monitors().enabled() && !reviewer.monitors().enabled()) {
            out.add(new Change("monitors.enabled", "true", Kind.WIDENS_SANDBOX, List.of("monitors.enabled")));
        }
        BUDGETS.forEach((key, of) -> {
            long mine = of.applyAsLong(reviewer);
            long theirs = of.applyAsLong(full);
            if (theirs > mine) {
                out.add(new Change(key, theirs + " (yours: " + mine + ")", Kind.RAISES_SPEND, List.of(key)));
            }
        });
        return out;
    }

    /** The provider part of a model reference (only the first colon counts; a leading {@code pi:} is dropped). */
    static String provider(String model) {
        String m = model.startsWith("pi:") ? model.substring(3) : model;
        int c = m.indexOf(':');
        return c < 0 ? m : m.substring(0, c);
    }

    private static void roots(String key, List<String> r, List<String> f, Function<String, Path> resolve,
                              List<Change> out) {
        List<Path> granted = r.stream().map(resolve).toList();
        List<String> extra = f.stream().filter(e -> granted.stream().noneMatch(g -> resolve.apply(e).startsWith(g)))
                .map(e -> e + " -> " + resolve.apply(e)).toList();
        if (!extra.isEmpty()) {
            out.add(new Change(key, f + " (adds " + extra + ")", Kind.WIDENS_SANDBOX, List.of(key)));
        }
    }

    private static Set<String> lower(List<String> xs) {
        Set<String> out = new HashSet<>();
        xs.forEach(x -> out.add(x.toLowerCase(Locale.ROOT)));
        return out;
    }

    private static String describe(MonoConfig.Network n) {
        return switch (n.mode()) {
            case NONE -> "none";
            case ALL -> "all";
            case LOCALHOST -> "localhost" + (n.localhostPorts().isEmpty() ? " (every loopback port)"
                    : " (ports " + n.localhostPorts() + ")");
            case ALLOWLIST -> "allowlist " + n.allowlist();
        };
    }

    /**
     * What network settings let a command reach: {@code all}; {@code loopback:*} or {@code loopback:<port>} in
     * localhost mode; {@code host:<entry>} per allowlist entry (a plain entry also grants its subdomains).
     */
    static List<String> networkGrants(MonoConfig.Network n) {
        return switch (n.mode()) {
            case NONE -> List.of();
            case ALL -> List.of("all");
            case LOCALHOST -> n.localhostPorts().isEmpty() ? List.of("loopback:*")
                    : n.localhostPorts().stream().map(p -> "loopback:" + p).toList();
            case ALLOWLIST -> n.allowlist().stream().map(h -> h.trim().toLowerCase(Locale.ROOT))
                    .filter(h -> !h.isEmpty()).map(h -> "host:" + h).toList();
        };
    }

    /** Whether grant {@code o} already grants {@code n}. */
    static boolean covers(String o, String n) {
        if (o.equals(n) || o.equals("all") || (o.equals("loopback:*") && n.startsWith("loopback:"))) {
            return true;
        }
        return o.startsWith("host:") && n.startsWith("host:") && hostCovers(o.substring(5), n.substring(5));
    }

    /** Whether allowlist entry {@code o} grants everything entry {@code n} grants. */
    static boolean hostCovers(String o, String n) {
        boolean oSub = o.startsWith("*.");
        String ob = oSub ? o.substring(2) : o;
        boolean nSub = n.startsWith("*.");
        String nb = nSub ? n.substring(2) : n;
        if (nb.endsWith("." + ob)) {
            return true;
        }
        return nb.equals(ob) && (!oSub || nSub);
    }
}
