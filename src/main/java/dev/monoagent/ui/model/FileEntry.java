package dev.monoagent.ui.model;

import java.nio.file.Path;

/**
 * One row of the repo tree.
 *
 * @param path          absolute path
 * @param name          file name
 * @param directory     whether it can be expanded
 * @param protectedPath whether the policy protects it (badge)
 * @param size          bytes (files) or -1
 */
public record FileEntry(Path path, String name, boolean directory, boolean protectedPath, long size) {}
