package dev.monoagent.sandbox;

import dev.monoagent.common.Violation.Kind;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Seatbelt denial as srt 0.0.78's macOS log monitor hands it on: the text after {@code "Sandbox: "} on the kernel's
 * log line, {@code <process>(<pid>) deny(<count>) <operation> [<target>]} (for example
 * {@code bash(4242) deny(1) file-write-create /Users/me/ws/.env.local}). The proxy's own denials
 * ({@code deny network-outbound host:port (reason)}) and the Linux seccomp feed's ({@code deny <syscall> <path>}) have
 * other shapes and are parsed by {@link NativeEngine}; {@link #parse} returns null for them.
 *
 * <p>Unlike the Linux feed, which reports write <em>attempts</em>, a Seatbelt line is the kernel's refusal: the
 * operation did not happen.
 *
 * @param process   the refused process's name
 * @param pid       its pid
 * @param operation the Seatbelt operation ({@code file-write-create}, {@code network-outbound}, ...)
 * @param target    the path or address, or null when the operation has none
 */
record SeatbeltViolation(String process, long pid, String operation, String target) {
    private static final Pattern LINE = Pattern.compile(
            "^(?<proc>.+?)\\((?<pid>\\d+)\\) deny(?:\\(\\d+\\))? (?<op>[a-z][a-z0-9*-]*)(?: (?<target>.+))?$");

    private static final Pattern REPEAT = Pattern.compile("^\\d+ duplicate reports? for .+ deny(?:\\(\\d+\\))? .+$");

    /**
     * The kernel's rate-limit summary ({@code 3 duplicate reports for bash deny(1) file-write-data /x}): repeats of a
     * refusal already reported on its own line, so not a violation of its own.
     */
    static boolean isRepeat(String line) {
        return REPEAT.matcher(line.strip()).matches();
    }

    /** The parsed line, or null when {@code line} is not a Seatbelt denial. */
    static SeatbeltViolation parse(String line) {
        Matcher m = LINE.matcher(line.strip());
        if (!m.matches()) {
            return null;
        }
        String target = m.group("target");
        return new SeatbeltViolation(m.group("proc"), Long.parseLong(m.group("pid")), m.group("op"),
                target == null || target.isBlank() ? null : target.strip());
    }

    Kind kind() {
        if (operation.startsWith("file-write")) {
            return Kind.WRITE;
        }
        if (operation.startsWith("file-read")) {
            return Kind.READ;
        }
        if (operation.startsWith("network")) {
            return Kind.NETWORK;
        }
        return Kind.OTHER;
    }

    /** The violation record's reason. */
    String reason() {
        String what = switch (kind()) {
            case WRITE -> "write refused by the sandbox";
            case READ -> "read refused by the sandbox";
            case NETWORK -> "connection refused by the sandbox";
            default -> "operation refused by the sandbox";
        };
        return what + " (Seatbelt " + operation + ", " + process + "[" + pid + "])";
    }
}
