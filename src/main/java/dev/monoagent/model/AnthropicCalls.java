package dev.monoagent.model;

import com.anthropic.core.RequestOptions;
import com.anthropic.core.http.HttpClient;
import com.anthropic.core.http.HttpRequest;
import com.anthropic.core.http.HttpResponse;
import com.anthropic.core.http.Interceptor;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The Anthropic SDK's counterpart of {@link HttpCalls}: its interceptors wrap the SDK's own HTTP client rather than
 * OkHttp, so this one strips our attempt tag and keeps the attempt's future and response, which {@link #abort}
 * cancels and closes (closing the body drops the connection of an unfinished stream).
 */
final class AnthropicCalls {
    static final Interceptor INTERCEPTOR = AnthropicCalls::wrap;

    private static final Map<String, CompletableFuture<HttpResponse>> LIVE = new ConcurrentHashMap<>();
    private static final Map<String, Boolean> ABORTED = new ConcurrentHashMap<>();

    private AnthropicCalls() {}

    private static HttpClient wrap(HttpClient next) {
        noDelay(next);
        return new HttpClient() {
            @Override
            public HttpResponse execute(HttpRequest request, RequestOptions options) {
                return next.execute(strip(request), options);
            }

            @Override
            public CompletableFuture<HttpResponse> executeAsync(HttpRequest request, RequestOptions options) {
                List<String> tags = request.headers().values(HttpCalls.TAG);
                CompletableFuture<HttpResponse> f = next.executeAsync(strip(request), options);
                if (!tags.isEmpty()) {
                    String tag = tags.get(0);
                    LIVE.put(tag, f);
                    if (ABORTED.containsKey(tag)) {
                        abort(tag);
                    }
                }
                return f;
            }

            @Override
            public void close() {
                next.close();
            }
        };
    }

    /**
     * Gives the SDK's OkHttp transport sockets without Nagle's delay ({@link NoDelaySockets} says why). This SDK
     * offers no way to supply the OkHttp client or its socket factory, and hands interceptors its transport inside
     * its logging and tracing wrappers; so the wrappers' delegate fields are followed down to the OkHttp transport,
     * whose private client is replaced by a copy that differs only in the socket factory (same pool, dispatcher,
     * timeouts, interceptors). Should a later SDK move things, the transport stays as the SDK built it: slower, not
     * broken, and {@code AnthropicClientTest#firstEventOnLoopbackIsNotHeldByDelayedAck} fails.
     */
    private static void noDelay(HttpClient sdkTransport) {
        try {
            Object t = sdkTransport;
            for (int depth = 0; t != null && depth < 8; depth++) {
                if (t instanceof com.anthropic.client.okhttp.OkHttpClient) {
                    java.lang.reflect.Field f = t.getClass().getDeclaredField("okHttpClient");
                    f.setAccessible(true);
                    okhttp3.OkHttpClient ok = (okhttp3.OkHttpClient) f.get(t);
                    f.set(t, ok.newBuilder().socketFactory(NoDelaySockets.INSTANCE).build());
                    return;
                }
                t = delegate(t);
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            // keep the SDK's transport
        }
    }

    /** The {@link HttpClient} a wrapper delegates to, or null. */
    private static Object delegate(Object wrapper) throws IllegalAccessException {
        for (java.lang.reflect.Field f : wrapper.getClass().getDeclaredFields()) {
            if (f.getType() == HttpClient.class && !java.lang.reflect.Modifier.isStatic(f.getModifiers())) {
                f.setAccessible(true);
                return f.get(wrapper);
            }
        }
        return null;
    }

    private static HttpRequest strip(HttpRequest r) {
        return r.headers().values(HttpCalls.TAG).isEmpty() ? r : r.toBuilder().removeHeaders(HttpCalls.TAG).build();
    }

    /** Cancels the tagged exchange (before or after its headers) and forgets it. */
    static void abort(String tag) {
        ABORTED.put(tag, Boolean.TRUE);
        CompletableFuture<HttpResponse> f = LIVE.remove(tag);
        if (f == null) {
            return;
        }
        f.cancel(true);
        f.thenAccept(r -> {
            try {
                r.body().close();
            } catch (IOException ignored) {
                // already gone
            }
            r.close();
        });
        ABORTED.remove(tag);
    }
}
