package io.lineflow.reconciler.model;

/** How bad a finding is; the order matters (worst last) and drives the CLI exit code. */
public enum Severity {
    INFO(0),
    WARNING(1),
    CRITICAL(2);

    private final int exitCode;

    Severity(int exitCode) {
        this.exitCode = exitCode;
    }

    /** Exit code the CLI returns when this is the worst severity found. */
    public int exitCode() {
        return exitCode;
    }

    /** The worse of two severities. */
    public Severity max(Severity other) {
        return other != null && other.ordinal() > ordinal() ? other : this;
    }
}
