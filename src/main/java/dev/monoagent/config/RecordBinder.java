package dev.monoagent.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.lang.reflect.Field;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Binds a JSON tree onto the config records. Absent keys take the record's {@code DEFAULTS}; present keys must have
 * the right type; unknown keys are rejected with their full path. All problems are collected, not just the first.
 * The same reflection drives {@link SchemaGenerator}, so the schema and the binder cannot disagree.
 */
final class RecordBinder {
    private final List<ConfigError> errors = new ArrayList<>();
    private final Function<String, String> displayName;

    /** @param displayName maps a key path to the name errors should use (an env var for env-sourced values) */
    RecordBinder(Function<String, String> displayName) {
        this.displayName = displayName;
    }

    List<ConfigError> errors() {
        return errors;
    }

    static Object defaultsOf(Class<?> recordType) {
        try {
            Field f = recordType.getField("DEFAULTS");
            return f.get(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("config record without DEFAULTS: " + recordType.getName(), e);
        }
    }

    static Object component(Object record, RecordComponent rc) {
        try {
            return rc.getAccessor().invoke(record);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    static String child(String path, String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    <R extends Record> R bindRecord(JsonNode node, Class<R> type, String path, Object defaults) {
        if (!node.isObject()) {
            typeError(path, "an object", node);
            return type.cast(defaults);
        }
        RecordComponent[] comps = type.getRecordComponents();
        Map<String, RecordComponent> byName = new LinkedHashMap<>();
        for (RecordComponent rc : comps) {
            byName.put(rc.getName(), rc);
        }
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!byName.containsKey(key)) {
                String retired = Retired.replacement(child(path, key));
                if (retired != null) {
                    add(child(path, key), "%s was retired; use %s instead.".formatted(child(path, key), retired));
                } else {
                    String owner = path.isEmpty() ? "config" : path;
                    String hint = Suggest.closest(key, byName.keySet());
                    add(child(path, key), "%s has unknown key: %s.%s".formatted(owner, key,
                            hint == null ? "" : " Did you mean " + hint + "?"));
                }
            }
        }
        Object[] args = new Object[comps.length];
        for (int i = 0; i < comps.length; i++) {
            RecordComponent rc = comps[i];
            Object def = component(defaults, rc);
            JsonNode v = node.get(rc.getName());
            args[i] = v == null ? def : bindValue(v, rc.getGenericType(), rc, child(path, rc.getName()), def);
        }
        try {
            Class<?>[] types = new Class<?>[comps.length];
            for (int i = 0; i < comps.length; i++) {
                types[i] = comps[i].getType();
            }
            return type.getDeclaredConstructor(types).newInstance(args);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot build " + type.getSimpleName(), e);
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private Object bindValue(JsonNode v, Type gtype, RecordComponent rc, String path, Object def) {
        Class<?> raw = rawClass(gtype);
        if (v.isNull()) {
            add(path, "%s is null; remove the key to use the default.".formatted(name(path)));
            return def;
        }
        if (raw == String.class) {
            if (!v.isTextual()) {
                return typeError(path, "a string", v, def);
            }
            return v.asText();
        }
        if (raw == boolean.class || raw == Boolean.class) {
            if (!v.isBoolean()) {
                return typeError(path, "true or false", v, def);
            }
            return v.asBoolean();
        }
        if (raw == int.class || raw == long.class) {
            if (!v.isIntegralNumber() || (raw == int.class && !v.canConvertToInt()) || !v.canConvertToLong()) {
                return typeError(path, "an integer", v, def);
            }
            long n = v.asLong();
            Range r = rc == null ? null : rc.getAnnotation(Range.class);
            if (r != null && (n < r.min() || n > r.max())) {
                add(path, "%s must be between %d and %d, got %d.".formatted(name(path), r.min(), r.max(), n));
                return def;
            }
            return raw == int.class ? (Object) (int) n : (Object) n;
        }
        if (raw.isEnum()) {
            Class<? extends Enum> et = (Class<? extends Enum>) raw;
            if (!v.isTextual()) {
                return typeError(path, "one of " + Enums.choices(et), v, def);
            }
            Object e = Enums.parse((Class) et, v.asText());
            if (e == null) {
                add(path, "%s must be one of %s, got \"%s\".".formatted(name(path), Enums.choices(et), v.asText()));
                return def;
            }
            return e;
        }
        if (raw == List.class && gtype instanceof ParameterizedType lp
                && lp.getActualTypeArguments()[0] == Integer.class) {
            return portList(v, path, def);
        }
        if (raw == List.class) {
            if (!v.isArray()) {
                return typeError(path, "an array of strings", v, def);
            }
            List<String> out = new ArrayList<>();
            for (int i = 0; i < v.size(); i++) {
                JsonNode el = v.get(i);
                if (!el.isTextual()) {
                    typeError(path + "[" + i + "]", "a string", el);
                } else {
                    out.add(el.asText());
                }
            }
            return List.copyOf(out);
        }
        if (raw == Map.class) {
            if (!v.isObject()) {
                return typeError(path, "an object", v, def);
            }
            Class<? extends Record> valueType =
                    (Class<? extends Record>) rawClass(((ParameterizedType) gtype).getActualTypeArguments()[1]);
            Map<String, Object> out = new LinkedHashMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                out.put(e.getKey(), bindRecord(e.getValue(), valueType, child(path, e.getKey()), defaultsOf(valueType)));
            }
            return out;
        }
        if (raw.isRecord()) {
            return bindRecord(v, (Class<? extends Record>) raw, path, def);
        }
        throw new IllegalStateException("unsupported config type " + gtype);
    }

    /**
     * A list of TCP ports: integers 1-65535; a decimal string is accepted too (environment lists arrive as strings).
     */
    private Object portList(JsonNode v, String path, Object def) {
        if (!v.isArray()) {
            return typeError(path, "an array of port numbers", v, def);
        }
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < v.size(); i++) {
            JsonNode el = v.get(i);
            String at = path + "[" + i + "]";
            Integer port = null;
            if (el.isIntegralNumber() && el.canConvertToInt()) {
                port = el.asInt();
            } else if (el.isTextual() && el.asText().strip().matches("[0-9]{1,5}")) {
                port = Integer.parseInt(el.asText().strip());
            }
            if (port == null || port < 1 || port > 65535) {
                add(at, "%s must be a port number between 1 and 65535, got %s.".formatted(name(at), el));
            } else if (!out.contains(port)) {
                out.add(port);
            }
        }
        return List.copyOf(out);
    }

    static Class<?> rawClass(Type t) {
        if (t instanceof Class<?> c) {
            return c;
        }
        if (t instanceof ParameterizedType p) {
            return (Class<?>) p.getRawType();
        }
        throw new IllegalStateException("unsupported type " + t);
    }

    private String name(String path) {
        return displayName.apply(path);
    }

    private void add(String path, String message) {
        errors.add(new ConfigError(name(path), message));
    }

    private Object typeError(String path, String expected, JsonNode got, Object def) {
        typeError(path, expected, got);
        return def;
    }

    private void typeError(String path, String expected, JsonNode got) {
        String gotText = switch (got.getNodeType()) {
            case STRING -> "string \"" + got.asText() + "\"";
            case NUMBER -> "number " + got.asText();
            case BOOLEAN -> "boolean " + got.asText();
            case ARRAY -> "an array";
            case OBJECT -> "an object";
            default -> got.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
        };
        add(path, "%s must be %s, got %s.".formatted(name(path), expected, gotText));
    }

    /** Retired keys and their replacements. */
    static final class Retired {
        private static final Map<String, String> KEYS = Map.of(
                "model", "runtime.model",
                "sandbox.allowNetwork", "sandbox.network.mode",
                "sandbox.networkMode", "sandbox.network.mode",
                "sandbox.allowWrite", "sandbox.writableRoots",
                "sandbox.allowRead", "sandbox.readableRoots",
                "tools.allowed", "tools.allowedTools",
                "tools.disallowed", "tools.disallowedTools");

        static String replacement(String path) {
            return KEYS.get(path);
        }
    }
}
