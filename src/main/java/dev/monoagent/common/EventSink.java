package dev.monoagent.common;

/** Receives events; implementations must be thread-safe and must not block for long. */
@FunctionalInterface
public interface EventSink {
    void accept(Event event);

    EventSink NONE = e -> { };
}
