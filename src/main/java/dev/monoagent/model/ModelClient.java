package dev.monoagent.model;

import java.util.function.Consumer;

/**
 * One provider's model, behind one call. Implementations are thread-safe; the vendor SDK behind them is loaded on
 * the first call, not when the client is made.
 */
public interface ModelClient {

    /** The provider id ({@code openai}, {@code openai-codex}, {@code anthropic}, …). */
    String provider();

    /**
     * Runs one model turn with this client's retry policy. Every event, the terminal one included, goes to
     * {@code sink} on the calling thread, in order; the terminal event is also returned. Provider trouble never
     * throws: it ends in {@link ModelEvent.Failed}.
     */
    ModelEvent.Terminal stream(ModelRequest request, Consumer<ModelEvent> sink, CancelSignal cancel);

    /**
     * Pays the vendor SDK's one-time set-up (client, class loading, event deserializers) without any network, so a
     * frontend can do it on a background thread once a model is configured and the first prompt does not wait.
     * Optional; idempotent; never throws.
     */
    default void warmUp() {}
}
