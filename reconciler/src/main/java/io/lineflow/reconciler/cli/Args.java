package io.lineflow.reconciler.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Minimal `--flag value` parser: named options, repeated `--set key=value`, and positionals. */
public final class Args {

    /** Thrown for a command line a person must fix. */
    public static final class UsageException extends RuntimeException {
        public UsageException(String message) {
            super(message);
        }
    }

    final Map<String, String> options = new LinkedHashMap<>();
    final Map<String, String> settings = new LinkedHashMap<>();
    final List<String> positionals = new ArrayList<>();

    public static Args parse(String[] argv, Set<String> valued, Set<String> flags) {
        Args a = new Args();
        for (int i = 0; i < argv.length; i++) {
            String arg = argv[i];
            if (arg.equals("--set")) {
                if (i + 1 >= argv.length || !argv[i + 1].contains("=")) {
                    throw new UsageException("--set needs key=value");
                }
                String kv = argv[++i];
                a.settings.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
            } else if (arg.startsWith("--") && valued.contains(arg.substring(2))) {
                if (i + 1 >= argv.length) {
                    throw new UsageException(arg + " needs a value");
                }
                a.options.put(arg.substring(2), argv[++i]);
            } else if (arg.startsWith("--") && flags.contains(arg.substring(2))) {
                a.options.put(arg.substring(2), "true");
            } else if (arg.startsWith("--")) {
                throw new UsageException("Unknown option " + arg);
            } else {
                a.positionals.add(arg);
            }
        }
        return a;
    }

    /** The repeated {@code --set key=value} settings. */
    public Map<String, String> settings() {
        return settings;
    }

    /** A named option that must be given. */
    public String require(String name) {
        String v = options.get(name);
        if (v == null) {
            throw new UsageException("--" + name + " is required");
        }
        return v;
    }

    String get(String name) {
        return options.get(name);
    }

    public String get(String name, String fallback) {
        return options.getOrDefault(name, fallback);
    }

    boolean flag(String name) {
        return "true".equals(options.get(name));
    }
}
