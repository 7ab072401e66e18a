package dev.monoagent.model;

import java.io.IOException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import okhttp3.Call;
import okhttp3.Interceptor;
import okhttp3.Response;

/**
 * Lets a cancel reach the socket. The SDKs hide their OkHttp {@link Call}; closing their stream object leaves a
 * blocked read (and the provider still generating). This interceptor, installed in each SDK client, picks up the
 * call tagged with our per-attempt header (stripped before the request leaves) so {@link #cancel} can abort it at
 * any point: while connecting, waiting for headers, or mid-body.
 */
final class HttpCalls implements Interceptor {
    /** Per-attempt tag; never sent on the wire. */
    static final String TAG = "x-mono-agent-attempt";
    static final HttpCalls INSTANCE = new HttpCalls();

    private final Map<String, Call> live = new ConcurrentHashMap<>();
    private final Set<String> cancelled = ConcurrentHashMap.newKeySet();

    private HttpCalls() {}

    @Override
    public Response intercept(Chain chain) throws IOException {
        String tag = chain.request().header(TAG);
        if (tag == null) {
            return chain.proceed(chain.request());
        }
        live.put(tag, chain.call());
        if (cancelled.contains(tag)) {
            chain.call().cancel();
        }
        return chain.proceed(chain.request().newBuilder().removeHeader(TAG).build());
    }

    /** Aborts the exchange tagged {@code tag}, now or as soon as it starts. */
    void cancel(String tag) {
        cancelled.add(tag);
        Call c = live.get(tag);
        if (c != null) {
            c.cancel();
        }
    }

    /** The attempt is over; drop its bookkeeping. */
    void forget(String tag) {
        live.remove(tag);
        cancelled.remove(tag);
    }
}
