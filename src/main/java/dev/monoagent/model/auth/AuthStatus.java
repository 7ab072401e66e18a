package dev.monoagent.model.auth;

import java.util.List;

/** A provider's credential state plus human detail lines (never a secret). */
public record AuthStatus(String provider, CredentialState state, List<String> details) {
    public AuthStatus {
        details = List.copyOf(details);
    }
}
