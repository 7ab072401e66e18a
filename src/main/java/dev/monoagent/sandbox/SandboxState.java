package dev.monoagent.sandbox;

import dev.monoagent.common.Effective;
import dev.monoagent.config.Enums.SandboxMode;

/**
 * The sandbox's state as a type: off, ready (proven), unavailable (fail-closed, with the reason) or running on the
 * host through the unsafe fallback (with the reason the engine is not used). {@link #of} is the one place the state
 * is decided; the words users read ({@link #word()}, {@link Effective#wire()}) are derived from it.
 */
public sealed interface SandboxState {

    record Off() implements SandboxState {}

    record Ready() implements SandboxState {}

    /** Nothing runs; {@code reason} starts with {@code sandbox_unavailable:}. */
    record Unavailable(String reason) implements SandboxState {}

    /** Commands run unsandboxed on the host because both unsafe switches are set. */
    record UnsafeHost(String reason) implements SandboxState {}

    /**
     * The state for a policy mode, whether the engine is proven right now, whether the unsafe fallback is allowed,
     * and why the engine is not proven (ignored when it is).
     */
    static SandboxState of(SandboxMode mode, boolean proven, boolean unsafeAllowed, String reason) {
        if (mode == SandboxMode.OFF) {
            return new Off();
        }
        if (proven) {
            return new Ready();
        }
        String why = reason == null ? "sandbox_unavailable" : reason;
        return unsafeAllowed ? new UnsafeHost(why) : new Unavailable(why);
    }

    /** How commands run in this state. */
    default Effective effective() {
        return switch (this) {
            case Off o -> Effective.OFF;
            case Ready r -> Effective.NATIVE;
            case Unavailable u -> Effective.BLOCKED;
            case UnsafeHost u -> Effective.UNSAFE_HOST_PROCESS;
        };
    }

    /** The contract's {@code State:} word: {@code off}, {@code ready} or {@code unavailable}. */
    default String word() {
        return switch (this) {
            case Off o -> "off";
            case Ready r -> "ready";
            case Unavailable u -> "unavailable";
            case UnsafeHost u -> "unavailable";
        };
    }

    /** Why the engine is not used, or null (off, ready). */
    default String reason() {
        return switch (this) {
            case Off o -> null;
            case Ready r -> null;
            case Unavailable u -> u.reason();
            case UnsafeHost u -> u.reason();
        };
    }

    /** Whether commands run on the host because of the unsafe fallback. */
    default boolean fallbackActive() {
        return this instanceof UnsafeHost;
    }
}
