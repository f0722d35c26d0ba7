package io.lineflow.flinkrest;

import java.io.IOException;

/** Flink's REST API answered with an HTTP error; {@link #status()} says which. */
public final class FlinkRestException extends IOException {
    private static final long serialVersionUID = 1L;

    private final int status;

    FlinkRestException(String method, String url, int status, String body) {
        super(method + " " + url + " answered HTTP " + status + (body.isBlank() ? "" : ": " + shortened(body)));
        this.status = status;
    }

    public int status() {
        return status;
    }

    /** Flink's error bodies can hold a whole stack trace; the message keeps its start. */
    private static String shortened(String body) {
        return body.length() <= 500 ? body : body.substring(0, 500) + " ...";
    }
}
