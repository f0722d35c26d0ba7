package io.lineflow.settings;

import java.util.List;

/** The configuration cannot run the job; the message lists every problem with key and value. */
public class ConfigException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final List<String> problems;

    public ConfigException(List<String> problems) {
        super("Invalid lineflow configuration:\n  - " + String.join("\n  - ", problems));
        this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
        return problems;
    }
}
