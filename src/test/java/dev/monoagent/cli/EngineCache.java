package dev.monoagent.cli;

import dev.monoagent.sandbox.TestEngine;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * For CLI tests that run commands in the shared test engine: each test sees the engine's cache through
 * {@code monoagent.cacheDir}, and the property is put back afterwards. Use with {@code @ExtendWith(EngineCache.class)}.
 */
final class EngineCache implements BeforeEachCallback, AfterEachCallback {
    private static final String PROPERTY = "monoagent.cacheDir";
    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(EngineCache.class);

    @Override
    public void beforeEach(ExtensionContext context) {
        String previous = System.getProperty(PROPERTY);
        context.getStore(NS).put(PROPERTY, previous == null ? "" : previous);
        System.setProperty(PROPERTY, TestEngine.env().cacheRoot().toString());
    }

    @Override
    public void afterEach(ExtensionContext context) {
        String previous = context.getStore(NS).get(PROPERTY, String.class);
        if (previous == null || previous.isEmpty()) {
            System.clearProperty(PROPERTY);
        } else {
            System.setProperty(PROPERTY, previous);
        }
    }
}
