package dev.monoagent.model.auth;

/** What validate, {@code auth status} and the window say about a provider's credentials. */
public enum CredentialState {
    PRESENT("present"), EXPIRED("expired"), MISSING("missing");

    private final String word;

    CredentialState(String word) {
        this.word = word;
    }

    public String word() {
        return word;
    }
}
