package dev.monoagent.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.List;
import java.util.Map;

/**
 * Generates the JSON Schema of {@code mono-agent.config.json} from the config records: the same reflection the
 * binder uses, with descriptions from {@link Doc}, bounds from {@link Range} and defaults from each record's
 * {@code DEFAULTS}. The committed copy lives at {@code docs/mono-agent.config.schema.json}; a test keeps it fresh.
 */
public final class SchemaGenerator {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private SchemaGenerator() {}

    /** The schema as pretty-printed JSON text ending in a newline. */
    public static String schemaText() {
        try {
            return JSON.writeValueAsString(schema()) + "\n";
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    public static ObjectNode schema() {
        ObjectNode root = JSON.createObjectNode();
        root.put("$schema", "https://json-schema.org/draft/2020-12/schema");
        root.put("$id", "https://mono-agent.dev/schema/mono-agent.config.json");
        root.put("title", "mono-agent.config.json");
        ObjectNode body = recordSchema(MonoConfig.class, MonoConfig.DEFAULTS);
        root.setAll(body);
        root.withArray("required").add("runtime");
        return root;
    }

    private static ObjectNode recordSchema(Class<?> type, Object defaults) {
        ObjectNode s = JSON.createObjectNode();
        s.put("type", "object");
        Doc doc = type.getAnnotation(Doc.class);
        if (doc != null) {
            s.put("description", doc.value());
        }
        ObjectNode props = s.putObject("properties");
        for (RecordComponent rc : type.getRecordComponents()) {
            Object def = defaults == null ? null : RecordBinder.component(defaults, rc);
            ObjectNode p = valueSchema(rc.getGenericType(), def);
            Doc d = rc.getAnnotation(Doc.class);
            if (d != null) {
                p.put("description", d.value());
            }
            Range r = rc.getAnnotation(Range.class);
            if (r != null) {
                p.put("minimum", r.min());
                p.put("maximum", r.max());
            }
            props.set(rc.getName(), p);
        }
        s.put("additionalProperties", false);
        if (type == MonoConfig.Runtime.class) {
            s.withArray("required").add("model");
        }
        return s;
    }

    private static ObjectNode valueSchema(Type gtype, Object def) {
        Class<?> raw = RecordBinder.rawClass(gtype);
        ObjectNode p = JSON.createObjectNode();
        if (raw == String.class) {
            p.put("type", "string");
            if (def != null) {
                p.put("default", (String) def);
            }
        } else if (raw == boolean.class) {
            p.put("type", "boolean");
            p.put("default", (Boolean) def);
        } else if (raw == int.class || raw == long.class) {
            p.put("type", "integer");
            p.put("default", ((Number) def).longValue());
        } else if (raw.isEnum()) {
            p.put("type", "string");
            ArrayNode e = p.putArray("enum");
            for (Object c : raw.getEnumConstants()) {
                e.add(((WireEnum) c).wire());
            }
            if (def != null) {
                p.put("default", ((WireEnum) def).wire());
            }
        } else if (raw == List.class && gtype instanceof ParameterizedType lp
                && lp.getActualTypeArguments()[0] == Integer.class) {
            p.put("type", "array");
            p.putObject("items").put("type", "integer").put("minimum", 1).put("maximum", 65535);
            ArrayNode d = p.putArray("default");
            ((List<?>) def).forEach(x -> d.add((Integer) x));
        } else if (raw == List.class) {
            p.put("type", "array");
            p.putObject("items").put("type", "string");
            ArrayNode d = p.putArray("default");
            ((List<?>) def).forEach(x -> d.add(String.valueOf(x)));
        } else if (raw == Map.class) {
            Class<?> valueType = RecordBinder.rawClass(((ParameterizedType) gtype).getActualTypeArguments()[1]);
            p.put("type", "object");
            p.set("additionalProperties", recordSchema(valueType, RecordBinder.defaultsOf(valueType)));
            p.putObject("default");
        } else if (raw.isRecord()) {
            p.setAll(recordSchema(raw, def));
        } else {
            throw new IllegalStateException("unsupported config type " + gtype);
        }
        return p;
    }

    /** Parses schema text, for tests. */
    public static JsonNode parse(String text) throws com.fasterxml.jackson.core.JsonProcessingException {
        return JSON.readTree(text);
    }
}
