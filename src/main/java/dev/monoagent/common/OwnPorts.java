package dev.monoagent.common;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The host TCP ports of mono-agent's own listeners (the ChatGPT sign-in callback, and any other this process opens):
 * never reachable from the sandbox, whatever {@code sandbox.network.localhostPorts} grants. A listener holds its port
 * here from before it binds until after it stops ({@link #hold}); the engine excludes these ports from the grants of
 * every wrap and is told of every change at once ({@link #subscribe}), so a sign-in started while a sandboxed command
 * runs is covered too. {@link #SIGN_IN_CALLBACK} is always held: another mono-agent process (a sign-in from the CLI
 * beside a running workbench) listens there, and this process cannot see it.
 */
public final class OwnPorts {
    /** The ChatGPT sign-in's registered callback port (http://localhost:1455/auth/callback). */
    public static final int SIGN_IN_CALLBACK = 1455;

    private static final java.util.Map<Integer, Integer> HELD = new java.util.HashMap<>();
    private static final List<Consumer<Set<Integer>>> LISTENERS = new CopyOnWriteArrayList<>();

    private OwnPorts() {}

    /** A port held until closed (closing twice is harmless). */
    public interface Hold extends AutoCloseable {
        @Override
        void close();
    }

    /** The ports held now, {@link #SIGN_IN_CALLBACK} and the exported callback port included. */
    public static synchronized Set<Integer> current() {
        TreeSet<Integer> out = new TreeSet<>(HELD.keySet());
        out.add(SIGN_IN_CALLBACK);
        int exported = exportedCallbackPort(System.getenv(CALLBACK_PORT_VARIABLE));
        if (exported > 0) {
            out.add(exported);
        }
        return java.util.Collections.unmodifiableSet(out);
    }

    /** The variable that moves the sign-in's callback port (the reviewer's, from the exported environment). */
    static final String CALLBACK_PORT_VARIABLE = "MONO_AGENT_CODEX_CALLBACK_PORT";

    /**
     * The callback port another mono-agent process of this reviewer may listen on: the exported variable's port, or
     * 0. Held always, like {@link #SIGN_IN_CALLBACK}: this process cannot see that process's listener.
     */
    static int exportedCallbackPort(String value) {
        if (value == null) {
            return 0;
        }
        try {
            int p = Integer.parseInt(value.trim());
            return p > 0 && p < 65536 ? p : 0;
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /**
     * Holds {@code port} (a port of 0 or less holds nothing); subscribers have been told when this returns, so bind
     * after it.
     */
    public static Hold hold(int port) {
        if (port <= 0) {
            return () -> { };
        }
        synchronized (OwnPorts.class) {
            HELD.merge(port, 1, Integer::sum);
        }
        publish();
        boolean[] closed = {false};
        return () -> {
            synchronized (OwnPorts.class) {
                if (closed[0]) {
                    return;
                }
                closed[0] = true;
                HELD.computeIfPresent(port, (k, n) -> n > 1 ? n - 1 : null);
            }
            publish();
        };
    }

    /** Calls {@code l} with the ports after every change (not now); the returned hold unsubscribes. */
    public static Hold subscribe(Consumer<Set<Integer>> l) {
        LISTENERS.add(l);
        return () -> LISTENERS.remove(l);
    }

    private static void publish() {
        Set<Integer> now = current();
        for (Consumer<Set<Integer>> l : LISTENERS) {
            try {
                l.accept(now);
            } catch (RuntimeException e) {
                // one subscriber's failure (an engine closing) must not keep the others uninformed
            }
        }
    }
}
