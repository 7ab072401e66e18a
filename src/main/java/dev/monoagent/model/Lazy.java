package dev.monoagent.model;

import java.util.function.Supplier;

/** Builds a value on first use, once, thread-safely: how the SDK clients stay off the start-up path. */
final class Lazy<T> implements Supplier<T> {
    private final Supplier<T> make;
    private volatile T value;

    Lazy(Supplier<T> make) {
        this.make = make;
    }

    @Override
    public T get() {
        T v = value;
        if (v == null) {
            synchronized (this) {
                if (value == null) {
                    value = make.get();
                }
                v = value;
            }
        }
        return v;
    }
}
