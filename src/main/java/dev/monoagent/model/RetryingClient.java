package dev.monoagent.model;

import java.util.function.Consumer;

/**
 * Our retry policy around one provider's single attempt: transient failures (429, 5xx, 529/overloaded, network,
 * timeout, a stream cut short) are retried with backoff, honouring a server-directed delay; credentials, context
 * overflow and quota are not; and once a tool call has been handed out the turn is never replayed, so a tool
 * never runs twice.
 */
abstract class RetryingClient implements ModelClient {
    private final String provider;
    private final RetryPolicy policy;

    RetryingClient(String provider, RetryPolicy policy) {
        this.provider = provider;
        this.policy = policy;
    }

    @Override
    public final String provider() {
        return provider;
    }

    /**
     * One HTTP exchange. Streams deltas and complete tool calls to {@code sink} and returns the completion (not yet
     * delivered); throws a classified failure.
     */
    abstract ModelEvent.Completed attempt(ModelRequest request, Consumer<ModelEvent> sink, CancelSignal cancel)
            throws ProviderFailure;

    /** Secrets this client sends (keys, tokens): scrubbed from every message, should a server echo one back. */
    java.util.List<String> secrets() {
        return java.util.List.of();
    }

    @Override
    public final ModelEvent.Terminal stream(ModelRequest request, Consumer<ModelEvent> sink, CancelSignal cancel) {
        Consumer<ModelEvent> scrubbed = e -> sink.accept(scrub(e));
        ModelEvent.Terminal end = (ModelEvent.Terminal) scrub(run(request, scrubbed, cancel));
        sink.accept(end);
        return end;
    }

    private ModelEvent scrub(ModelEvent e) {
        return switch (e) {
            case ModelEvent.Failed f -> new ModelEvent.Failed(f.kind(), redact(f.message()), f.status());
            case ModelEvent.Retrying r -> new ModelEvent.Retrying(r.attempt(), r.delayMs(), redact(r.reason()));
            default -> e;
        };
    }

    private String redact(String text) {
        String out = text;
        for (String s : secrets()) {
            if (s != null && s.length() >= 8) {
                out = out.replace(s, "<redacted>");
            }
        }
        return out;
    }

    private ModelEvent.Terminal run(ModelRequest request, Consumer<ModelEvent> sink, CancelSignal cancel) {
        for (int attempt = 1; ; attempt++) {
            if (cancel.isCancelled()) {
                return cancelled();
            }
            boolean[] toolCallOut = {false};
            Consumer<ModelEvent> tracking = e -> {
                if (e instanceof ModelEvent.ToolCall) {
                    toolCallOut[0] = true;
                }
                sink.accept(e);
            };
            ProviderFailure f;
            try {
                return attempt(request, tracking, cancel);
            } catch (ProviderFailure e) {
                f = e;
            } catch (RuntimeException e) {
                // An SDK surprise is a provider problem, not a crash of the run.
                f = ProviderFailure.transientFailure(0, -1, "unexpected error from the " + provider + " client: "
                        + e.getClass().getSimpleName());
            }
            if (cancel.isCancelled()) {
                return cancelled();
            }
            if (!f.retryable) {
                return new ModelEvent.Failed(f.kind, f.getMessage(), f.status);
            }
            if (toolCallOut[0]) {
                return new ModelEvent.Failed(f.kind, f.getMessage()
                        + " (the stream broke after a tool call was issued; not replayed)", f.status);
            }
            if (attempt >= policy.attempts()) {
                return new ModelEvent.Failed(f.kind, f.getMessage() + (attempt > 1 ? " (after " + attempt
                        + " attempts)" : ""), f.status);
            }
            long delay = policy.backoff(attempt + 1);
            if (f.retryAfterMs >= 0) {
                if (f.retryAfterMs > policy.maxBackoffMs()) {
                    return new ModelEvent.Failed(f.kind, f.getMessage() + " (the provider asked to wait "
                            + Math.round(f.retryAfterMs / 1000.0) + " s, more than runtime.retry.maxBackoffMs)",
                            f.status);
                }
                delay = f.retryAfterMs;
            }
            sink.accept(new ModelEvent.Retrying(attempt + 1, delay, f.getMessage()));
            if (!sleep(delay, cancel)) {
                return cancelled();
            }
        }
    }

    private static ModelEvent.Failed cancelled() {
        return new ModelEvent.Failed(FailureKind.CANCELLED, "cancelled", 0);
    }

    /** Waits, waking at once on cancel; false when cancelled. */
    private static boolean sleep(long ms, CancelSignal cancel) {
        Object lock = new Object();
        try (AutoCloseable reg = cancel.onCancel(() -> {
            synchronized (lock) {
                lock.notifyAll();
            }
        })) {
            long until = System.nanoTime() + ms * 1_000_000;
            synchronized (lock) {
                long left;
                while (!cancel.isCancelled() && (left = until - System.nanoTime()) > 0) {
                    lock.wait(Math.max(1, left / 1_000_000));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return !cancel.isCancelled();
    }
}
