package dev.monoagent.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small {@code .env} reader: {@code KEY=VALUE} lines, optional {@code export }, {@code #} comments, single quotes
 * (literal) and double quotes (with {@code \n \t \" \\} escapes). Malformed lines are errors naming the line.
 */
public final class DotEnv {
    private DotEnv() {}

    public static Map<String, String> read(Path file) throws ConfigException {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ConfigException(file.toString(), "cannot read env file " + file + ": " + e.getMessage());
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            if (line.startsWith("export ")) {
                line = line.substring(7).stripLeading();
            }
            int eq = line.indexOf('=');
            String where = file.getFileName() + ":" + (i + 1);
            if (eq <= 0) {
                throw new ConfigException(where, where + ": expected KEY=VALUE");
            }
            String key = line.substring(0, eq).strip();
            if (!key.matches("[A-Za-z_][A-Za-z0-9_.]*")) {
                throw new ConfigException(where, where + ": invalid variable name \"" + key + "\"");
            }
            out.put(key, value(line.substring(eq + 1).strip(), where));
        }
        return out;
    }

    private static String value(String v, String where) throws ConfigException {
        if (v.startsWith("'")) {
            int end = v.indexOf('\'', 1);
            if (end < 0) {
                throw new ConfigException(where, where + ": unterminated single quote");
            }
            return v.substring(1, end);
        }
        if (v.startsWith("\"")) {
            StringBuilder sb = new StringBuilder();
            for (int i = 1; i < v.length(); i++) {
                char c = v.charAt(i);
                if (c == '"') {
                    return sb.toString();
                }
                if (c == '\\' && i + 1 < v.length()) {
                    char n = v.charAt(++i);
                    sb.append(switch (n) {
                        case 'n' -> '\n';
                        case 't' -> '\t';
                        case 'r' -> '\r';
                        default -> n;
                    });
                } else {
                    sb.append(c);
                }
            }
            throw new ConfigException(where, where + ": unterminated double quote");
        }
        int hash = v.indexOf(" #");
        return (hash >= 0 ? v.substring(0, hash) : v).strip();
    }
}
