package dev.monoagent.cli;

/**
 * Entry point of the installed {@code mono-agent-workbench} launcher (the app-menu entry): {@code mono-agent workbench}
 * with the launcher's arguments appended. A separate main class because a jpackage launcher's configured arguments
 * are dropped as soon as any argument is given (the menu passes the chosen folder as {@code %f}).
 */
public final class WorkbenchMain {
    private WorkbenchMain() {}

    public static void main(String[] args) {
        String[] all = new String[args.length + 1];
        all[0] = "workbench";
        System.arraycopy(args, 0, all, 1, args.length);
        Main.main(all);
    }
}
