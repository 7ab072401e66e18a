package dev.monoagent.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * Typed access to a call's JSON arguments and a tiny schema builder. A wrong type or a missing required argument
 * throws {@link Invalid}, which the orchestrator turns into {@code invalid_arguments}.
 */
final class Args {
    private Args() {}

    /** Bad arguments; the message is shown to the model. */
    static final class Invalid extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Invalid(String message) {
            super(message, null, false, false);
        }
    }

    static String requireString(JsonNode args, String name) {
        JsonNode v = args.get(name);
        if (v == null || v.isNull()) {
            throw new Invalid("missing required argument \"" + name + "\".");
        }
        if (!v.isTextual()) {
            throw new Invalid("argument \"" + name + "\" must be a string.");
        }
        return v.asText();
    }

    /** A required string argument that must not be blank. */
    static String requireNonBlank(JsonNode args, String name) {
        String v = requireString(args, name);
        if (v.isBlank()) {
            throw new Invalid(name + " is empty.");
        }
        return v;
    }

    static String optString(JsonNode args, String name) {
        JsonNode v = args.get(name);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual()) {
            throw new Invalid("argument \"" + name + "\" must be a string.");
        }
        return v.asText();
    }

    static Long optLong(JsonNode args, String name, long min, long max) {
        JsonNode v = args.get(name);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isIntegralNumber() && !(v.isTextual() && v.asText().matches("-?\\d{1,18}"))) {
            throw new Invalid("argument \"" + name + "\" must be an integer.");
        }
        long n = v.isTextual() ? Long.parseLong(v.asText()) : v.asLong();
        if (n < min || n > max) {
            throw new Invalid("argument \"" + name + "\" must be between " + min + " and " + max + ".");
        }
        return n;
    }

    static boolean optBool(JsonNode args, String name) {
        JsonNode v = args.get(name);
        if (v == null || v.isNull()) {
            return false;
        }
        if (!v.isBoolean()) {
            throw new Invalid("argument \"" + name + "\" must be a boolean.");
        }
        return v.asBoolean();
    }

    static List<String> optStrings(JsonNode args, String name) {
        JsonNode v = args.get(name);
        if (v == null || v.isNull()) {
            return List.of();
        }
        if (!v.isArray()) {
            throw new Invalid("argument \"" + name + "\" must be an array of strings.");
        }
        List<String> out = new ArrayList<>();
        for (JsonNode e : v) {
            if (!e.isTextual()) {
                throw new Invalid("argument \"" + name + "\" must be an array of strings.");
            }
            out.add(e.asText());
        }
        return out;
    }

    /** Rejects arguments the schema does not name (catches typos like {@code filepath}). */
    static void onlyKnown(JsonNode args, JsonNode schema) {
        JsonNode props = schema.get("properties");
        var it = args.fieldNames();
        while (it.hasNext()) {
            String f = it.next();
            if (props == null || !props.has(f)) {
                List<String> known = new ArrayList<>();
                if (props != null) {
                    props.fieldNames().forEachRemaining(known::add);
                }
                String hint = dev.monoagent.config.Suggest.closest(f, known);
                throw new Invalid("unknown argument \"" + f + "\"" + (hint != null ? "; did you mean \"" + hint
                        + "\"?" : "") + " Known: " + String.join(", ", known) + ".");
            }
        }
    }

    /** Schema builder: {@code schema().str("path", "desc", true).build()}. */
    static Schema schema() {
        return new Schema();
    }

    static final class Schema {
        private final ObjectNode root = ToolOrchestrator.JSON.createObjectNode();
        private final ObjectNode props = root.put("type", "object").putObject("properties");
        private final List<String> required = new ArrayList<>();

        Schema str(String name, String desc, boolean req) {
            return prop(name, "string", desc, req);
        }

        Schema integer(String name, String desc, boolean req) {
            return prop(name, "integer", desc, req);
        }

        Schema bool(String name, String desc) {
            return prop(name, "boolean", desc, false);
        }

        Schema strings(String name, String desc, boolean req) {
            ObjectNode p = props.putObject(name);
            p.put("type", "array").put("description", desc).putObject("items").put("type", "string");
            if (req) {
                required.add(name);
            }
            return this;
        }

        Schema enumeration(String name, String desc, String... values) {
            ObjectNode p = props.putObject(name);
            p.put("type", "string").put("description", desc);
            var arr = p.putArray("enum");
            for (String v : values) {
                arr.add(v);
            }
            return this;
        }

        private Schema prop(String name, String type, String desc, boolean req) {
            props.putObject(name).put("type", type).put("description", desc);
            if (req) {
                required.add(name);
            }
            return this;
        }

        JsonNode build() {
            var arr = root.putArray("required");
            required.forEach(arr::add);
            root.put("additionalProperties", false);
            return root;
        }
    }
}
