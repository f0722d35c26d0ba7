package io.lineflow.settings;

import org.apache.flink.api.java.utils.ParameterTool;

import java.util.Map;

/** Flink 1.x's parser of `--key value` arguments, which lives in flink-java on this line. */
final class Arguments {
    private Arguments() {}

    /** @throws IllegalArgumentException for arguments that are not `--key value` pairs */
    static Map<String, String> parse(String[] args) {
        return ParameterTool.fromArgs(args).toMap();
    }
}
