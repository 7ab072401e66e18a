package dev.monoagent.ui;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Dialogs and notifications behind an interface, so view-models and wiring stay testable (tests pass a recording
 * implementation; the app uses {@link FxDialogService}).
 */
public interface DialogService {
    /** Shows an unexpected error; never throws. */
    void showError(String title, Throwable error);

    /** Asks where to save; empty when cancelled. */
    Optional<Path> askSaveFile(String title, String initialName);

    /**
     * Asks the human to confirm something that weakens protection; false (the safe answer) unless they press the
     * confirming button. The default refuses, so an implementation that cannot ask never weakens anything.
     */
    default boolean confirmWeaker(String title, String details, String confirmLabel) {
        return false;
    }
}
