package io.lineflow.settings;

import org.apache.flink.util.ParameterTool;

import java.util.Map;

/** Flink 2.x's parser of `--key value` arguments, which moved into flink-core on this line. */
final class Arguments {
    private Arguments() {}

    /** @throws IllegalArgumentException for arguments that are not `--key value` pairs */
    static Map<String, String> parse(String[] args) {
        return ParameterTool.fromArgs(args).toMap();
    }
}
